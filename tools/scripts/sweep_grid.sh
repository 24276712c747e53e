#!/usr/bin/env bash
# Every parallel-family library variant on a fixed grid no issue names, without a GPU: head dims
# DIMS (default 40 72 96 160) x causal or not x bf16/fp16, H4 with 2 kv heads. Each module is
# compiled for sm_90a with NVRTC and ptxas (metaattn-run --resource-report) and run on the CPU
# tile executor at B2 with (Sq, Skv) = (1, 1), (1, 65), (65, 129), (130, 77) against the
# reference evaluator. Prints only what did not pass, then a count. The random sweep with
# pipeline options is tools/scripts/sweep_variants.py.
#   tools/scripts/sweep_grid.sh [--bin build/bin] [--out DIR]   (about 17 minutes on 2 cores)
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$root/build/bin"
out="$(mktemp -d)"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --out) out="$2"; mkdir -p "$out"; shift 2 ;;
    *) echo "usage: sweep_grid.sh [--bin DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
variants="softmax sigmoid relu softcap alibi relative_bias sliding_window chunked prefix_lm sink"
variants+=" softpick retnet document_mask block_sparse differential"
modules=0 runs=0 failed=0
for v in $variants; do
  for d in ${DIMS:-40 72 96 160}; do
    for c in "" "--causal"; do
      for f in "" "--f16"; do
        n="$out/${v}_d${d}${c:+_c}${f:+_h}"
        # shellcheck disable=SC2086 # empty options are dropped
        if ! "$bin/metaattn-variant" "$v" --heads=4 --kv-heads=2 --dim="$d" $c $f --name=f \
          > "$n.mlir" 2> "$n.err"; then
          echo "VARIANT $n: $(head -2 "$n.err")"; failed=$((failed + 1)); continue
        fi
        modules=$((modules + 1))
        timeout 300 "$bin/metaattn-run" "$n.mlir" --target=sm_90a --resource-report > "$n.rr" 2>&1 ||
          { echo "COMPILE $n: $(tail -3 "$n.rr")"; failed=$((failed + 1)); }
        for s in 1:1 1:65 65:129 130:77; do
          IFS=: read -r sq skv <<< "$s"
          runs=$((runs + 1))
          r=$(timeout 300 "$bin/metaattn-run" "$n.mlir" --device=cpu --batch=2 --seq-q="$sq" \
            --seq-kv="$skv" --documents=2 2>&1 | grep -E '^PASS|^FAIL|rror|ssert' | head -1)
          case "$r" in PASS*) ;; *) echo "CPU $n ${sq}x$skv: ${r:-no result}"; failed=$((failed + 1)) ;; esac
        done
      done
    done
  done
done
echo "sweep_grid: $modules modules compiled for sm_90a, $runs CPU runs, $failed failed (files in $out)"
[ "$failed" = 0 ]
