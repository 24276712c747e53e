#!/usr/bin/env bash
# Where the linear family's time goes: each kernel of the chunked schedule (states kernel,
# output kernel) at the PERF.md shapes under Nsight Compute (duration, SM and DRAM throughput,
# achieved occupancy; clocks left alone), one line per kernel.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/profile_linear.sh
# SHAPES="variant:B:H:Hqk:Dk:Dv:T ..." overrides the shapes; OPTS="<metaattn-run options>" (e.g.
# "--state-rows=64 --state-warps=4") profiles another configuration; KERNELS (default 3 for GLA's
# vector gates, 2 for the others and with --precompute-gates=false) is the number of kernels one
# run launches.
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-profile}
mkdir -p "$OUT/profile_linear"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
SHAPES=${SHAPES:-"gated_retention:64:16:16:64:64:1024 gated_retention:8:40:40:256:256:1024
  retnet_recurrent:8:32:32:256:512:2048 mamba2_ssd:8:80:1:128:64:4096 gla:8:16:16:128:128:2048"}
METRICS=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
printf "%-44s %-16s %10s %6s %6s %6s\n" shape kernel us "SM%" "DRAM%" "occ%"
for spec in $SHAPES; do
  IFS=: read -r variant b h hqk dk dv t <<< "$spec"
  kernels=${KERNELS:-2}
  [[ -z "${KERNELS:-}" && $variant == gla && "${OPTS:-}" != *precompute-gates=false* ]] && kernels=3
  ir="$OUT/profile_linear/${variant}_${h}_${dk}_${dv}.mlir"
  "$BIN/metaattn-variant" "$variant" --heads="$h" --kv-heads="$hqk" --dim="$dk" \
    --value-dim="$dv" > "$ir"
  # Fill the kernel cache, then profile the second launch of each kernel (after warm-up).
  "$BIN/metaattn-run" "$ir" --device=gpu --batch="$b" --seq-q="$t" --bench --no-check \
    --iters=2 ${OPTS:-} > /dev/null 2>&1
  csv="$OUT/profile_linear/${variant}_${h}_${dk}_${dv}_b${b}_t${t}.csv"
  ncu --clock-control none --csv --page raw --print-units base --metrics "$METRICS" --launch-skip "$kernels" \
    --launch-count "$kernels" "$BIN/metaattn-run" "$ir" --device=gpu --batch="$b" --seq-q="$t" --bench \
    --no-check --iters=2 ${OPTS:-} > "$csv" 2> "$csv.err"
  python3 - "$csv" "$variant B$b H$h Dk$dk Dv$dv T$t" <<'EOF'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
if len(rows) < 2:
    print(f"{sys.argv[2]:<44s} ncu gave no rows: " +
          " | ".join(open(sys.argv[1] + ".err").read().splitlines()[-3:] +
                     open(sys.argv[1]).read().splitlines()[:3]))
    sys.exit(0)
head = rows[0]
col = {name: head.index(name) for name in head}
def get(r, m):
    return r[col[m]] if m in col else "?"
def num(r, m):
    try:
        return float(get(r, m).replace(",", ""))
    except ValueError:
        return None
printed = 0
for r in rows[1:]:
    if num(r, "gpu__time_duration.sum") is None:
        continue  # the units row
    print(f"{sys.argv[2]:<44s} {r[col['Kernel Name']][:16]:<16s} "
          f"{num(r, 'gpu__time_duration.sum') / 1000:10.1f} "
          f"{num(r, 'sm__throughput.avg.pct_of_peak_sustained_elapsed') or 0:6.1f} "
          f"{num(r, 'dram__throughput.avg.pct_of_peak_sustained_elapsed') or 0:6.1f} "
          f"{num(r, 'sm__warps_active.avg.pct_of_peak_sustained_active') or 0:6.1f}")
    printed += 1
if not printed:
    print(f"{sys.argv[2]:<44s} no kernel rows; header: {head[:12]}; first: {rows[1][:12]}")
EOF
done | tee "$OUT/profile_linear.txt"
