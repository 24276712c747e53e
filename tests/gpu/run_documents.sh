#!/usr/bin/env bash
# Document masks on the GPU: checks against the oracle with unsorted ids and with 1, 3, 4 and 16
# sorted documents (metaattn-run --documents) at awkward lengths, memcheck, racecheck and
# synccheck, then H16 D128 causal timings with 1/4/16/64 documents and unsorted ids against our
# causal softmax at S 4k (B4) and 16k (B1). OLD_BIN (optional) times a previous build's kernel on
# the unsorted ids. RUN_OPTS (optional, e.g. --prefetch-bounds; several option sets separated
# by ';'): the sanitizers and an extra check per document count run with each set too, and every
# timing runs without and with each, so one call compares options against the default. Prints
# one line per check and timing.
# TIMINGS_ONLY=1 skips the checks and sanitizers (an A/B of a build already checked).
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> [OLD_BIN=<dir>] \
#     [RUN_OPTS="...;..."] [TIMINGS_ONLY=1] bash tests/gpu/run_documents.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-documents}
mkdir -p "$OUT"
B=$BIN/metaattn-run
F=frontend/variants/document_mask.mlir
"$BIN/metaattn-variant" document_mask --heads=16 --dim=128 --causal > "$OUT/doc128.mlir"
"$BIN/metaattn-variant" document_mask --heads=16 --dim=128 > "$OUT/doc128b.mlir"
"$BIN/metaattn-variant" softmax --heads=16 --dim=128 --causal > "$OUT/sm128.mlir"
t() { r=$(timeout 90 "$@" 2>&1 | grep -E '^PASS|^FAIL|time:|rror' | tr '\n' ' '); echo "${r:-TIMEOUT}"; }
IFS=';' read -r -a SETS <<< "${RUN_OPTS:-}"

if [ "${TIMINGS_ONLY:-0}" != 1 ]; then
  for d in 0 1 3 4 16; do
    o=$([ "$d" -gt 0 ] && echo "--documents=$d")
    echo "file docs=$d 333x200: $(t $B $F --device=gpu --batch=2 --seq-q=333 --seq-kv=200 $o)"
    echo "file docs=$d 129x1025: $(t $B $F --device=gpu --batch=2 --seq-q=129 --seq-kv=1025 $o)"
    echo "doc128 docs=$d 1025: $(t $B "$OUT/doc128.mlir" --device=gpu --batch=2 --seq-q=1025 $o)"
    echo "doc128b docs=$d 700x300: $(t $B "$OUT/doc128b.mlir" --device=gpu --batch=3 --seq-q=700 --seq-kv=300 $o)"
    for x in "${SETS[@]}"; do
      echo "doc128 docs=$d 1025 $x: $(t $B "$OUT/doc128.mlir" --device=gpu --batch=2 --seq-q=1025 $o $x)"
    done
  done
  echo "file docs=2 1x777: $(t $B $F --device=gpu --batch=3 --seq-q=1 --seq-kv=777 --documents=2)"
  for x in "" "${SETS[@]}"; do
    for tool in memcheck racecheck synccheck; do
      log="$OUT/$tool$(echo "$x" | tr -c 'a-z0-9\n' '_').log"
      # shellcheck disable=SC2086
      timeout 180 compute-sanitizer --tool $tool --error-exitcode 3 $B "$OUT/doc128.mlir" \
        --device=gpu --batch=2 --seq-q=1025 --documents=4 $x > "$log" 2>&1
      echo "$tool $x: exit $? $(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log")"
    done
  done
fi
tb() { echo "$1: $(t "${@:2}" --device=gpu --bench --no-check --iters=30)"; }
for s in 4096 16384; do
  b=$((16384 / s))
  tb "softmax causal S$s B$b" $B "$OUT/sm128.mlir" --batch=$b --seq-q=$s
  [ -n "${OLD_BIN:-}" ] && tb "old unsorted ids S$s B$b" "$OLD_BIN/metaattn-run" "$OUT/doc128.mlir" --batch=$b --seq-q=$s
  tb "unsorted ids S$s B$b" $B "$OUT/doc128.mlir" --batch=$b --seq-q=$s
  for x in "${SETS[@]}"; do
    tb "unsorted ids S$s B$b $x" $B "$OUT/doc128.mlir" --batch=$b --seq-q=$s $x
  done
  for d in 1 4 16 64; do
    tb "docs=$d S$s B$b" $B "$OUT/doc128.mlir" --batch=$b --seq-q=$s --documents=$d
    for x in "${SETS[@]}"; do
      tb "docs=$d S$s B$b $x" $B "$OUT/doc128.mlir" --batch=$b --seq-q=$s --documents=$d $x
    done
  done
done
exit 0
