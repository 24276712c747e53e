// Tile sizes forced past the target's shared memory (D256 with 96-wide kv tiles in two stages:
// 264192 bytes on sm_90a, which gives a block 232448) are an error at lowering that names the
// kernel, the bytes and the limit, on every path (CUDA, resource report, CPU executor),
// instead of a launch failure on the GPU. The model's own choice (80-wide tiles) fits.
// RUN: not metaattn-run %s --block-n=96 --resource-report 2>&1 | FileCheck %s
// RUN: not metaattn-run %s --block-n=96 --device=cpu --batch=1 --seq-q=20 2>&1 | FileCheck %s
// RUN: metaattn-run %s --resource-report 2>&1 | FileCheck %s --check-prefix=MODEL
// CHECK: kernel @causal_d256 needs 264192 bytes of shared memory, more than sm_90a gives a block (232448)
// MODEL: resources causal_d256 (sm_90a): {{.*}} B dynamic shared
func.func @causal_d256(%q: tensor<?x?x2x256xbf16>, %k: tensor<?x?x2x256xbf16>, %v: tensor<?x?x2x256xbf16>) -> (tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 6.250000000e-02 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %lim = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %lim : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x2x256xbf16>, tensor<?x?x2x256xbf16>, tensor<?x?x2x256xbf16> -> tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>
}

