#!/usr/bin/env bash
# The default plan and the document masks on the GPU, then the axis reads timed: softmax
# (D 64/128/256, GQA, causal) at B40 S300 (the short-grid persistent plan), causal Sq != Skv,
# 1024/1025, a one-row query and 64 x 8192 against the oracle; racecheck and memcheck; both
# document-mask files and the H16 D128 causal document mask; then that kernel (B4 S4k) and the
# file's causal D64 one (B16 S4k) with --axis-reads=false and true. DLT (optional) is a built
# device-library test (tests/gpu/device/build.sh) to run first.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> [DLT=<binary>] \
#     bash tests/gpu/run_axis_reads.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-axis-reads}
mkdir -p "$OUT"
B=$BIN/metaattn-run
ir=$OUT/v.mlir
if [ -n "${DLT:-}" ]; then
  timeout 60 "$DLT" > "$OUT/dlt.txt" 2>&1
  echo "device lib: exit $? $(grep -E 'ALL' "$OUT/dlt.txt" | tr '\n' ' ')"
fi
python3 benchmarks/softmax_ir.py d128:4:4:128:128:0 d128c:4:1:128:128:1 d64c:8:2:64:64:1 \
  d256c:2:2:256:256:1 > "$ir"
t() { local f=$1; shift; r=$(timeout 40 $B "$ir" --device=gpu --function=$f "$@" 2>&1 | grep -E "plan:|^PASS|^FAIL|rror" | tr '\n' ' '); echo "$f $*: ${r:-TIMEOUT}"; }
for f in d128 d128c d64c d256c; do t $f --batch=40 --seq-q=300; done
t d128c --batch=3 --seq-q=130 --seq-kv=77; t d64c --batch=3 --seq-q=77 --seq-kv=130
t d256c --batch=2 --seq-q=193 --seq-kv=300
t d128c --batch=2 --seq-q=1024; t d128c --batch=2 --seq-q=1025; t d64c --batch=1 --seq-q=1
t d128 --batch=1 --seq-q=64 --seq-kv=8192
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 3 $B "$ir" --device=gpu --function=d128c --batch=40 --seq-q=300 > "$OUT/race.log" 2>&1
echo "racecheck: $? $(grep -m1 'RACECHECK SUMMARY' "$OUT/race.log")"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 $B "$ir" --device=gpu --function=d128 --batch=40 --seq-q=300 > "$OUT/mem.log" 2>&1
echo "memcheck: $? $(grep -m1 'ERROR SUMMARY' "$OUT/mem.log")"
"$BIN/metaattn-variant" document_mask --heads=16 --dim=128 --causal > "$OUT/doc128.mlir"
t2() { timeout 60 $B "$@" 2>&1 | grep -E '^PASS|^FAIL|time:|rror' | tr '\n' ' '; }
F=frontend/variants/document_mask.mlir
echo "doc128 check: $(t2 "$OUT/doc128.mlir" --device=gpu --batch=2 --seq-q=333 --seq-kv=200)"
echo "doc file check: $(t2 $F --device=gpu --batch=2 --seq-q=333 --seq-kv=200)"
for o in false true; do
  echo "axis-reads=$o doc128 B4 S4k: $(t2 "$OUT/doc128.mlir" --device=gpu --batch=4 --seq-q=4096 --bench --no-check --iters=20 --axis-reads=$o)"
  echo "axis-reads=$o doc64 file B16 S4k: $(t2 $F --function=document_mask_causal --device=gpu --batch=16 --seq-q=4096 --bench --no-check --iters=20 --axis-reads=$o)"
done
exit 0
