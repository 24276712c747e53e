#!/usr/bin/env bash
# Why a chunked kernel of the linear family takes its time: Nsight Compute's warp-state
# statistics (stall reasons per issued instruction), instruction mix and issue utilisation for
# the kernels of one shape, then the SASS instructions with the most stall samples.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/stalls_linear.sh
# SHAPE="variant:B:H:Hqk:Dk:Dv:T", KERNEL=<name regex> (default step0, the states kernel) and
# OPTS="<metaattn-run options>" override the defaults.
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-profile}
mkdir -p "$OUT/stalls_linear"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
SHAPE=${SHAPE:-gated_retention:8:40:40:256:256:1024}
KERNEL=${KERNEL:-step0}
OPTS=${OPTS:-}
IFS=: read -r variant b h hqk dk dv t <<< "$SHAPE"
ir="$OUT/stalls_linear/${variant}.mlir"
"$BIN/metaattn-variant" "$variant" --heads="$h" --kv-heads="$hqk" --dim="$dk" --value-dim="$dv" > "$ir"
run=("$BIN/metaattn-run" "$ir" --device=gpu --batch="$b" --seq-q="$t" --bench --no-check --iters=2 $OPTS)
"${run[@]}" > /dev/null 2>&1  # fill the kernel cache
rep="$OUT/stalls_linear/${variant}_${KERNEL}"
ncu --clock-control none --import-source no --section WarpStateStats --section InstructionStats \
  --section SchedulerStats --section SourceCounters --section LaunchStats --section Occupancy \
  -k "regex:$KERNEL" --launch-skip 1 --launch-count 1 -f -o "$rep" "${run[@]}" > "$rep.log" 2>&1
ncu -i "$rep.ncu-rep" --page details > "$rep.txt" 2>&1
echo "== $variant B$b H$h Dk$dk Dv$dv T$t $OPTS kernel $KERNEL"
grep -E "Duration|Registers Per|Achieved Occupancy|Issued Warp Per|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Executed Instructions  |Avg. Executed Instructions Per" "$rep.txt" | sed 's/  */ /g' | head -20
ncu -i "$rep.ncu-rep" --page raw --csv > "$rep.raw.csv" 2>&1
python3 - "$rep.raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
if len(rows) < 3:
    print("no raw metrics"); sys.exit(0)
head, vals = rows[0], rows[2]
stalls = []
for n, v in zip(head, vals):
    if n.startswith("smsp__average_warps_issue_stalled_") and n.endswith("_per_issue_active.ratio"):
        try:
            stalls.append((float(v.replace(",", "")), n[len("smsp__average_warps_issue_stalled_"):-len("_per_issue_active.ratio")]))
        except ValueError:
            pass
print("stall cycles per issued instruction (top):",
      ", ".join(f"{name} {x:.2f}" for x, name in sorted(stalls, reverse=True)[:8]))
PY
ncu -i "$rep.ncu-rep" --page source --print-source sass --csv > "$rep.sass.csv" 2>&1
python3 - "$rep.sass.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 3]
if not rows:
    print("no source page:", open(sys.argv[1]).read()[:300]); sys.exit(0)
head = rows[0]
def col(*names):
    for n in names:
        for i, h in enumerate(head):
            if h.startswith(n):
                return i
    return None
src, samp, execd = col("Source"), col("Warp Stall Sampling (All", "Sampling Data (All"), col("Instructions Executed")
if src is None or samp is None:
    print("source page columns:", head[:20]); sys.exit(0)
def num(x):
    try: return float(x.replace(",", ""))
    except ValueError: return 0.0
body = rows[1:]
total = sum(num(r[samp]) for r in body) or 1
print(f"SASS lines {len(body)}, stall samples {total:.0f}; top 30 by samples:")
for r in sorted(body, key=lambda r: -num(r[samp]))[:30]:
    print(f"{100 * num(r[samp]) / total:5.1f}%  exec {num(r[execd]) if execd is not None else 0:10.0f}  {r[src][:90]}")
PY
