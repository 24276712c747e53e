# Sourced by the GPU scripts: one checked run and one timing of a kernel with metaattn-run.
#
#   check_run <label> <log> <dir with metaattn-run> <file.mlir> [metaattn-run options...]
# runs the file on the GPU against the oracle, keeps the output in <log> and prints
# "PASS <label>: max |err| ..." or "FAIL <label>: ...".
check_run() {
  local label=$1 log=$2 bin=$3 file=$4 r
  shift 4
  if timeout 90 "$bin/metaattn-run" "$file" --device=gpu "$@" > "$log" 2>&1; then r=PASS; else r=FAIL; fi
  echo "$r $label: $(grep -o 'max |err| [0-9.e+-]*' "$log" | head -1)"
}

#   bench_ms <dir with metaattn-run> <file.mlir> [metaattn-run options...]
# prints the time in ms with four decimals, or "error" when the run fails or prints no time.
bench_ms() {
  local bin=$1 file=$2
  shift 2
  local t
  t=$(timeout 90 "$bin/metaattn-run" "$file" --device=gpu --bench --no-check --iters=30 "$@" 2>&1 |
    grep -o 'time: [0-9.e+-]* ms' | head -1 | awk '{printf "%.4f", $2}')
  echo "${t:-error}"
}
