set -u
export METAATTN_CACHE_DIR=/tmp/mc
B=.carry/bin
python3 benchmarks/softmax_ir.py causal_d128:4:4:128:128:1 > /tmp/c.mlir
if ! timeout 60 $B/metaattn-run /tmp/c.mlir --device=gpu --batch=2 --seq-q=1000 --seq-kv=1000 > /tmp/first.log 2>&1; then
  echo "FIRST RUN FAILED"; tail -20 /tmp/first.log; exit 1
fi
BIN=$B OUT=$OUT/quick CONFIGS="default|--pingpong=false|--warp-specialize=false|--block-n=128|--block-n=128 --stages=2|--block-m=192 --warps=12 --block-n=128 --stages=2" SEQS=4096 bash tests/gpu/run_quick_check.sh 2>&1 | tail -36
python3 benchmarks/softmax_ir.py d128:16:16:128:128:0 d64:32:32:64:64:0 > /tmp/t.mlir
for f in d128 d64; do
  b=4; [ $f = d64 ] && b=4
  timeout 100 $B/metaattn-run /tmp/t.mlir --device=gpu --function=$f --autotune --tuning-file=$OUT/tuning.txt --batch=$b --seq-q=4096 --no-check 2>&1 | tail -9
done
cat $OUT/tuning.txt
timeout 60 $B/metaattn-run /tmp/t.mlir --device=gpu --function=d128 --tuning-file=$OUT/tuning.txt --batch=4 --seq-q=4096 --no-check --bench --dump-cuda=$OUT/tuned.cu 2>&1 | tail -2
grep -m1 "Launch" $OUT/tuned.cu
timeout 120 python3 benchmarks/bench_jit.py --runner $B/metaattn-run --out $OUT/jit 2>&1 | tail -8
timeout 240 python3 benchmarks/bench_suite.py --runner $B/metaattn-run --out $OUT/suite --only grid --seqs 1024,4096,16384 2>&1 | tail -30
