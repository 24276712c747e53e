#!/usr/bin/env bash
# Where a softmax kernel's warps wait: Nsight Compute's stall sampling for one launch of the
# default kernels (bf16, B1, S = 16k, H·D = 2048), summarised as the share of stall samples per
# SASS opcode, the top stall reasons, the tensor pipe's activity and every pipe's utilisation.
#   BIN=<dir with static metaattn-run> OUT=<dir> [SHAPES="d128 d64"] [OPTS="--block-n=128"] \
#     bash tests/gpu/stalls_softmax.sh
# MLIR=<file> profiles that file's functions instead (SHAPES then names them), at B=$BATCH
# (default 1) and S=$SEQ (default 16384). KERNEL=<regex> profiles the first launch of a kernel
# whose name matches (a function of several kernels: a document mask's pre-pass runs first);
# KEEP_SASS=1 keeps the per-instruction source page ($OUT/<shape>.sass.csv.gz) for reading
# offline.
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-stalls}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
python3 benchmarks/softmax_ir.py d64:32:32:64:64:0 d64c:32:32:64:64:1 d128:16:16:128:128:0 \
  d128c:16:16:128:128:1 d256:8:8:256:256:0 d256c:8:8:256:256:1 > "$OUT/cfg.mlir"
[ -n "${MLIR:-}" ] && cp "$MLIR" "$OUT/cfg.mlir"
for f in ${SHAPES:-d128 d64}; do
  run=("$BIN/metaattn-run" "$OUT/cfg.mlir" --device=gpu --function="$f" --batch="${BATCH:-1}" --seq-q="${SEQ:-16384}" \
       --bench --no-check --iters=2 ${OPTS:-})
  "${run[@]}" > /dev/null 2>&1  # fill the kernel cache
  rep="$OUT/$f${TAG:-}"
  if [ -n "${KERNEL:-}" ]; then pick=(-k "regex:$KERNEL" --launch-count 1); else pick=(--launch-skip 1 --launch-count 1); fi
  timeout 200 ncu --clock-control none --import-source no --section WarpStateStats \
    --section InstructionStats --section SchedulerStats --section SourceCounters \
    --section ComputeWorkloadAnalysis "${pick[@]}" -f -o "$rep" "${run[@]}" \
    > "$rep.log" 2>&1
  ncu -i "$rep.ncu-rep" --page raw --csv > "$rep.raw.csv" 2>&1
  ncu -i "$rep.ncu-rep" --page source --print-source sass --csv > "$rep.sass.csv" 2>&1
  echo "== $f ${OPTS:-}"
  python3 - "$rep.raw.csv" "$rep.sass.csv" <<'PY'
import collections, csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
head, vals = rows[0], rows[2]
metric = dict(zip(head, vals))
def num(x):
    try: return float(str(x).replace(",", ""))
    except ValueError: return 0.0
print("tensor pipe active %.1f%% of elapsed, issue slots %.2f per scheduler" % (
    num(metric.get("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed")),
    num(metric.get("smsp__issue_active.avg.per_cycle_active"))))
pre, post = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
stalls = sorted(((num(v), n[len(pre):-len(post)]) for n, v in metric.items()
                 if n.startswith(pre) and n.endswith(post)), reverse=True)
# Each pipe's utilisation (Hopper: tensor/gmma, xu = the special-function unit's MUFU, fma,
# alu, ...), highest first, and the instruction count.
pipes = sorted(((num(v), n) for n, v in metric.items()
                if re.fullmatch(r"sm__(inst_executed_pipe|pipe)_\w+\.avg\.pct_of_peak_sustained_active", n)),
               reverse=True)
print("pipes (% of peak over active cycles):", ", ".join(
    f"{re.sub(r'^sm__|[.]avg[.]pct_of_peak_sustained_active$', '', n)} {x:.1f}" for x, n in pipes[:8]))
print("instructions executed %.4g, cycles active (avg per SM) %.4g" % (
    num(metric.get("smsp__inst_executed.sum")), num(metric.get("sm__cycles_active.avg"))))
print("stall cycles per issued instruction:", ", ".join(f"{n} {x:.2f}" for x, n in stalls[:8]))
sass = [r for r in csv.reader(open(sys.argv[2])) if len(r) > 3]
cols = sass[0]
src = cols.index("Source")
samp = next(i for i, c in enumerate(cols) if c.startswith("Warp Stall Sampling (All"))
total = sum(num(r[samp]) for r in sass[1:]) or 1
share = collections.Counter()
for r in sass[1:]:
    text = re.sub(r"^@!?U?P\w+\s+", "", r[src].strip())
    share[text.split()[0] if text else "?"] += num(r[samp])
print("stall samples by opcode:", ", ".join(f"{op} {100 * v / total:.1f}%"
                                           for op, v in share.most_common(10)))
PY
  rm -f "$rep.ncu-rep"
  if [ "${KEEP_SASS:-0}" = 1 ]; then gzip -f "$rep.sass.csv"; fi
done
