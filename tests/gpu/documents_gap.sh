#!/usr/bin/env bash
# Where one document (H16 D128 causal, B4 S4k, --documents=1) still loses to our causal softmax
# with the kv tiles' id bounds from the pre-pass: both timed twice, interleaved, beside options
# that each change one suspect (three kv stages: a producer further ahead; no per-warpgroup
# guards; the per-tile form instead of the kept list; the persistent kernel, which loads a
# block's first tiles while the previous block finishes), softcap with three stages, then both
# kernels profiled (tests/gpu/stalls_softmax.sh, the per-instruction source pages kept for
# reading offline). Checked against the oracle first.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/documents_gap.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-documents-gap}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
B=$BIN/metaattn-run
"$BIN/metaattn-variant" document_mask --heads=16 --dim=128 --causal --name=doc > "$OUT/doc.mlir"
"$BIN/metaattn-variant" softmax --heads=16 --dim=128 --causal --name=sm > "$OUT/sm.mlir"
"$BIN/metaattn-variant" softcap --heads=16 --dim=128 --causal --name=cap > "$OUT/cap.mlir"
cases=("softmax|sm|" "doc1|doc|--documents=1" "doc1 stages=3|doc|--documents=1 --stages=3"
       "doc1 no-group-guards|doc|--documents=1 --group-guards=false"
       "doc1 per-tile|doc|--documents=1 --kept-tiles=false"
       "doc1 persistent|doc|--documents=1 --persistent" "softmax persistent|sm|--persistent"
       "softcap|cap|" "softcap stages=3|cap|--stages=3")
for c in "${cases[@]}"; do
  IFS='|' read -r name f opts <<< "$c"
  # shellcheck disable=SC2086
  r=$(timeout 60 $B "$OUT/$f.mlir" --device=gpu --batch=2 --seq-q=1025 $opts 2>&1 | grep -E '^PASS|^FAIL|rror' | head -1)
  echo "check $name: ${r:-TIMEOUT}"
done
declare -A ms
for rep in 1 2; do
  for c in "${cases[@]}"; do
    IFS='|' read -r name f opts <<< "$c"
    # shellcheck disable=SC2086
    ms["$name|$rep"]=$(timeout 60 $B "$OUT/$f.mlir" --device=gpu --batch=4 --seq-q=4096 --bench \
      --no-check --iters=30 $opts 2>&1 | grep -o 'time: [0-9.e+-]* ms' | awk '{printf "%.4f", $2}')
  done
done
for p in "doc|step1|--documents=1" "sm||"; do
  IFS='|' read -r f k opts <<< "$p"
  MLIR="$OUT/$f.mlir" SHAPES=$f BATCH=4 SEQ=4096 OPTS="$opts" KERNEL="$k" KEEP_SASS=1 BIN="$BIN" \
    OUT="$OUT/prof" timeout 150 bash tests/gpu/stalls_softmax.sh 2>&1 | tail -6
done
base=${ms[softmax|1]}
printf '%-22s %9s %9s %10s\n' case "ms" "(rep 2)" "softmax/x"
for c in "${cases[@]}"; do
  IFS='|' read -r name f opts <<< "$c"
  ratio=$(awk -v a="$base" -v b="${ms[$name|1]}" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
  printf '%-22s %9s %9s %10s\n' "$name" "${ms[$name|1]}" "${ms[$name|2]}" "$ratio"
done
