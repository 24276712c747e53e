#!/usr/bin/env bash
# The fused chunk kernel of the linear family (metaattn-run --fused-chunks) on the GPU: every
# function of frontend/variants/linear.mlir and the PERF.md head dims against the token-by-token
# oracle in both of its forms (the model's, and two stages with V̂ apart), and the default (both
# forms compiled, the fused one launched when its grid has 0.4 blocks per multiprocessor per
# 64-wide key tile: each check's log says which plan ran; the PERF.md dims at a batch whose grid fills the H200's 132
# multiprocessors and one that does not), compute-sanitizer (memcheck, racecheck, synccheck) on
# RetNet 6.7B's dims, then the time of the separate kernels, the fused one and the default's
# choice at the PERF.md shapes (ours only; the ratio to FLA comes from
# benchmarks/bench_linear.py). Prints a short table last.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> [SANITIZE=0] [TIMING=0] \
#     bash tests/gpu/run_fused_linear.sh
# DEVICE=cpu runs the checks on the CPU tile executor instead (no sanitizers, no timing).
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-fused}
mkdir -p "$OUT/logs"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
DEVICE=${DEVICE:-gpu}
FORMS=("--fused-chunks" "--fused-chunks --stages=2")
tag() { local t="$*"; echo "${t//[^a-z0-9]/_}"; }
check() { # file batch length options...: one PASS/FAIL line
  local f=$1 b=$2 s=$3; shift 3
  local log="$OUT/logs/$(basename "$f" .mlir)_b${b}_s${s}$(tag "$@").log"
  if timeout 300 "$RUN" "$f" --device="$DEVICE" --batch="$b" --seq-q="$s" "$@" > "$log" 2>&1; then
    local plan
    plan=$(grep -m1 -o 'plan: [a-z ]*[a-z]' "$log")
    echo "PASS $(basename "$f") B=$b S=$s $* ($(grep -c '^PASS' "$log") functions)${plan:+ $plan}"
  else
    echo "FAIL $(basename "$f") B=$b S=$s $* (see $log)"
  fi
}
{
  for form in "${FORMS[@]}"; do
    for s in 1 17 65 130 300 1000; do check frontend/variants/linear.mlir 2 "$s" $form; done
    check frontend/variants/linear.mlir 1 2049 $form
    check tests/lit/Variants/linear-fused.mlir 2 130 $form
  done
  for spec in "gated_retention 4 4 64 64" "gated_retention 2 2 256 256" \
              "retnet_recurrent 2 2 256 512" "mamba2_ssd 4 1 128 64" "gla 2 2 64 128"; do
    set -- $spec
    ir="$OUT/logs/$1_$4_$5.mlir"
    "$BIN/metaattn-variant" "$1" --heads="$2" --kv-heads="$3" --dim="$4" --value-dim="$5" > "$ir"
    for form in "${FORMS[@]}"; do check "$ir" 2 200 $form; check "$ir" 1 1000 $form; done
    # The default: the separate kernels at batch 1, the fused one where B x H x value tiles
    # reaches 0.4 x 132 per key tile (B = 14 at 4 heads of one 64-column tile and one key
    # tile, 14 at RetNet's 2 x 8 with four).
    check "$ir" 1 300
    need=$(( (528 * (($4 + 63) / 64) + 9) / 10 )) per=$(( $2 * (($5 + 63) / 64) ))
    check "$ir" $(( (need + per - 1) / per )) 130
  done
} > "$OUT/fused_correctness.txt"
echo "fused correctness: $(grep -c ^PASS "$OUT/fused_correctness.txt") passed," \
     "$(grep -c ^FAIL "$OUT/fused_correctness.txt") failed"
grep ^FAIL "$OUT/fused_correctness.txt" | head
[ "$DEVICE" = gpu ] || exit 0
if [ "${SANITIZE:-1}" = 1 ]; then
  for form in "${FORMS[@]}"; do
    for tool in memcheck racecheck synccheck; do
      log="$OUT/logs/sanitizer_${tool}$(tag $form).log"
      timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 3 "$RUN" \
        "$OUT/logs/retnet_recurrent_256_512.mlir" --device=gpu --batch=1 --seq-q=130 $form \
        > "$log" 2>&1
      echo "compute-sanitizer $tool ($form): exit $? ($(grep -E \
        'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' "$log" | tail -1))"
    done
  done
fi
[ "${TIMING:-1}" = 1 ] || exit 0
# Ours at the PERF.md shapes: label, variant, B, H, kv heads, Dk, Dv, T.
table="$OUT/fused_timing.txt"
printf "%-28s %-6s %10s %10s %10s %s\n" shape T separate fused default "(default's plan)" > "$table"
while read -r label variant b h hkv dk dv t; do
  ir="$OUT/logs/time_${label//\//_}.mlir"
  "$BIN/metaattn-variant" "$variant" --heads="$h" --kv-heads="$hkv" --dim="$dk" \
    --value-dim="$dv" --name=f > "$ir" < /dev/null
  row=()
  for opts in --fused-chunks=false --fused-chunks ""; do
    timeout 120 "$RUN" "$ir" --device=gpu --batch="$b" --seq-q="$t" --bench --no-check \
      --iters=20 $opts > "$OUT/logs/time.log" 2>&1 < /dev/null
    ms=$(sed -n 's/.*time: \([0-9.e+-]*\) ms.*/\1/p' "$OUT/logs/time.log" | head -1)
    row+=("${ms:-fail}")
  done
  plan=$(grep -m1 -o 'plan: [a-z ]*[a-z]' "$OUT/logs/time.log")
  printf "%-28s %-6s %10s %10s %10s %s\n" "$label" "$t" "${row[@]}" "${plan#plan: }" | sed 's/ *$//' >> "$table"
done <<'EOF'
RFA-Big_B64_H16_64/64 gated_retention 64 16 16 64 64 2048
YOCO-13B_B8_H40_256/256 gated_retention 8 40 40 256 256 2048
RetNet-6.7B_B1_H32_256/512 retnet_recurrent 1 32 32 256 512 2048
RetNet-6.7B_B8_H32_256/512 retnet_recurrent 8 32 32 256 512 2048
RetNet-6.7B_B8_H32_256/512 retnet_recurrent 8 32 32 256 512 4096
Mamba2-2.7B_B1_H80_128/64 mamba2_ssd 1 80 1 128 64 8192
Mamba2-2.7B_B2_H80_128/64 mamba2_ssd 2 80 1 128 64 8192
Mamba2-2.7B_B8_H80_128/64 mamba2_ssd 8 80 1 128 64 2048
RFA-Big_B1_H16_64/64 gated_retention 1 16 16 64 64 8192
RFA-Big_B8_H16_64/64 gated_retention 8 16 16 64 64 8192
EOF
echo "== milliseconds (CUDA events, median of 20)"
cat "$table"
