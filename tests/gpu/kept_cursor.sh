#!/usr/bin/env bash
# The kept list's cursor after its rewrite (kept.cuh: the next rank in a few instructions, a
# search only for other ranks) and the producer issuing the query tile before it counts the
# list: the device-library test of countKept/KeptCursor (in order with marks, skipping,
# backwards, past the end), document-mask and block-sparse files checked against the oracle
# and under memcheck, then document masks (H16 D128 causal, ids bounded per kv tile by the
# pre-pass) timed with the list (the default) and in the per-tile form (--kept-tiles=false)
# beside our causal softmax: 1/4/16 documents and unsorted ids, B4 S4k and B1 S16k, two
# interleaved repetitions. Prints one line per check and a table.
#   BIN=<dir with static metaattn-run, metaattn-variant, device_lib_test> OUT=<dir> \
#     bash tests/gpu/kept_cursor.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-kept-cursor}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
B=$BIN/metaattn-run
if [ -x "$BIN/device_lib_test" ]; then
  timeout 120 "$BIN/device_lib_test" > "$OUT/device_lib.log" 2>&1
  echo "device library: exit $?, $(grep -c '^PASS' "$OUT/device_lib.log") PASS, $(grep -c '^FAIL' "$OUT/device_lib.log") FAIL"
  grep -E '^FAIL|countKept' "$OUT/device_lib.log"
fi
"$BIN/metaattn-variant" document_mask --heads=16 --dim=128 --causal --name=doc > "$OUT/doc.mlir"
"$BIN/metaattn-variant" softmax --heads=16 --dim=128 --causal --name=sm > "$OUT/sm.mlir"
c() { r=$(timeout 90 "$@" 2>&1 | grep -E '^PASS|^FAIL|rror' | tr '\n' ' '); echo "${r:-TIMEOUT}"; }
for d in 0 1 4 16; do
  o=$([ "$d" -gt 0 ] && echo "--documents=$d")
  echo "check doc docs=$d 1025: $(c $B "$OUT/doc.mlir" --device=gpu --batch=2 --seq-q=1025 $o)"
  echo "check doc docs=$d 700x1300 per-tile: $(c $B "$OUT/doc.mlir" --device=gpu --batch=1 --seq-q=700 --seq-kv=1300 $o --kept-tiles=false)"
done
echo "check file docs=3 333x200: $(c $B frontend/variants/document_mask.mlir --device=gpu --batch=2 --seq-q=333 --seq-kv=200 --documents=3)"
echo "check file docs=2 1x777: $(c $B frontend/variants/document_mask.mlir --device=gpu --batch=3 --seq-q=1 --seq-kv=777 --documents=2)"
echo "check block-sparse 333x1200: $(c $B frontend/variants/block_sparse.mlir --device=gpu --batch=2 --seq-q=333 --seq-kv=1200)"
echo "check block-sparse 1025: $(c $B frontend/variants/block_sparse.mlir --device=gpu --batch=1 --seq-q=1025)"
timeout 180 compute-sanitizer --tool memcheck --error-exitcode 3 $B "$OUT/doc.mlir" --device=gpu \
  --batch=2 --seq-q=1025 --documents=4 > "$OUT/memcheck.log" 2>&1
echo "memcheck doc docs=4: exit $? $(grep -m1 'ERROR SUMMARY' "$OUT/memcheck.log")"
declare -A ms
cases=()
for s in 4096 16384; do
  cases+=("softmax S$s|sm|$s|")
  for d in 1 4 16 0; do
    o=$([ "$d" -gt 0 ] && echo "--documents=$d")
    cases+=("docs=$d S$s list|doc|$s|$o" "docs=$d S$s per-tile|doc|$s|$o --kept-tiles=false")
  done
done
for rep in 1 2; do
  for x in "${cases[@]}"; do
    IFS='|' read -r name f s opts <<< "$x"
    # shellcheck disable=SC2086
    ms["$name|$rep"]=$(timeout 60 $B "$OUT/$f.mlir" --device=gpu --batch=$((16384 / s)) --seq-q=$s \
      --bench --no-check --iters=30 $opts 2>&1 | grep -o 'time: [0-9.e+-]* ms' | awk '{printf "%.4f", $2}')
  done
done
printf '%-24s %9s %9s\n' case "ms" "(rep 2)"
for x in "${cases[@]}"; do
  IFS='|' read -r name f s opts <<< "$x"
  printf '%-24s %9s %9s\n' "$name" "${ms[$name|1]}" "${ms[$name|2]}"
done
