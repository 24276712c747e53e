#!/usr/bin/env bash
# What holds the custom variants below our softmax (issue 5 asks for the limit from
# measurements): softmax, softcap, ALiBi and a one-document mask, H16 D128 causal bf16 at B4 S4k.
# First every variant file's functions against the oracle at 200x333 with the build's defaults
# (run in parallel), then each case checked at CHECK_SHAPES (B:Sq:Skv ..., default 2:1025:1025
# 1:1:1 3:130:77 1:2049:2049; the largest error is printed), timed (metaattn-run --bench, two
# interleaved repetitions) and profiled once with Nsight Compute through
# tests/gpu/stalls_softmax.sh: issue slots, each pipe's utilisation (xu is the special-function
# unit that runs MUFU.EX2/TANH), the top stall reasons and the SASS opcodes warps stall on.
# EXTRA="name|variant|options;..." adds cases (an option under test against the default).
# A short table last.
#
# PROFILE: all (default), 0 (none) or the names of the cases to profile.
#   BIN=<dir with static metaattn-run and metaattn-variant> OUT=<dir> [PROFILE="softcap ..."] \
#     [EXTRA="alibi_x|alibi|--some-option"] bash tests/gpu/limits.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-limits}
mkdir -p "$OUT/logs"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
nvidia-smi -L | head -1 || { echo "no GPU"; exit 1; }

# The variant files with the defaults.
for file in frontend/variants/*.mlir; do
  for f in $(grep -o '^func.func @[A-Za-z0-9_]*' "$file" | sed 's/func.func @//'); do
    echo "$file $f"
  done
done > "$OUT/jobs.txt"
check_file() {
  if timeout 120 "$RUN" "$1" --device=gpu --function="$2" --batch=2 --seq-q=200 --seq-kv=333 \
       > "$OUT/logs/file_$2.log" 2>&1; then echo "PASS $2"; else echo "FAIL $2"; fi
}
export -f check_file
export RUN OUT
xargs -P 16 -L 1 bash -c 'check_file "$@"' _ < "$OUT/jobs.txt" | sort > "$OUT/files.txt"
echo "variant files: $(grep -c ^PASS "$OUT/files.txt") passed, $(grep -c ^FAIL "$OUT/files.txt") failed"
grep ^FAIL "$OUT/files.txt"

cases=("softmax|softmax|" "softcap|softcap|" "alibi|alibi|" "document_1|document_mask|--documents=1")
IFS=';' read -r -a extra <<< "${EXTRA:-}"
cases+=("${extra[@]}")
for c in "${cases[@]}"; do
  IFS='|' read -r name variant opts <<< "$c"
  "$BIN/metaattn-variant" "$variant" --heads=16 --dim=128 --causal --name=f > "$OUT/$name.mlir"
  for shape in ${CHECK_SHAPES:-2:1025:1025 1:1:1 3:130:77 1:2049:2049}; do
    IFS=':' read -r nb sq skv <<< "$shape"
    log="$OUT/logs/check_${name}_${sq}x$skv.log"
    # shellcheck disable=SC2086 # the case's options are words
    if timeout 90 "$RUN" "$OUT/$name.mlir" --device=gpu --batch="$nb" --seq-q="$sq" \
         --seq-kv="$skv" $opts > "$log" 2>&1; then
      echo "PASS $name B$nb ${sq}x$skv $opts: $(grep -o 'max |err| [0-9.e+-]*' "$log" | head -1)"
    else
      echo "FAIL $name B$nb ${sq}x$skv $opts"
    fi
  done
done
declare -A ms
for rep in 1 2; do
  for c in "${cases[@]}"; do
    IFS='|' read -r name variant opts <<< "$c"
    # shellcheck disable=SC2086
    t=$(timeout 90 "$RUN" "$OUT/$name.mlir" --device=gpu --batch=4 --seq-q=4096 --bench --no-check \
        --iters=30 $opts 2>&1 | grep -o 'time: [0-9.e+-]* ms' | head -1 | awk '{printf "%.4f", $2}')
    ms["$name|$rep"]=${t:-error}
  done
done
if [ "${PROFILE:-all}" != 0 ]; then
  for c in "${cases[@]}"; do
    IFS='|' read -r name variant opts <<< "$c"
    [ "${PROFILE:-all}" = all ] || [[ " $PROFILE " == *" $name "* ]] || continue
    echo "== profile $name"
    mlir="$OUT/$name.mlir" prof="$OUT/prof"
    MLIR="$mlir" SHAPES=f TAG="_$name" BATCH=4 SEQ=4096 OPTS="$opts" BIN="$BIN" OUT="$prof" \
      timeout 150 bash tests/gpu/stalls_softmax.sh 2>&1 | tail -6
  done
  rm -f "$OUT"/prof/*.ncu-rep "$OUT"/prof/*.sass.csv
fi
base=${ms[softmax|1]}
printf '%-12s %-22s %9s %9s %10s\n' case options "ms" "(rep 2)" "softmax/x"
for c in "${cases[@]}"; do
  IFS='|' read -r name variant opts <<< "$c"
  ratio=$(awk -v a="$base" -v b="${ms[$name|1]}" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
  printf '%-12s %-22s %9s %9s %10s\n' "$name" "$opts" "${ms[$name|1]}" "${ms[$name|2]}" "$ratio"
done
