# Sourced by the GPU scripts: one timing of a kernel with metaattn-run's --bench.
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
