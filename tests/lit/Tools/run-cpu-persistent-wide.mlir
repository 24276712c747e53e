// Persistent warp-specialised kernels with wide heads on the CPU tile executor, against the
// oracle: causal GQA D256 (80-wide kv tiles) and D128 with Dv = 256, both with the gemm overlap
// inside the loop over tiles. Three blocks walk every tile (several heads, batches and row
// blocks each); a short kv length, a last partial tile, 300 x 300 (three kv tiles of the causal
// D256 kernel per row block at most, the last V stage of each tile released after the tail).
// RUN: metaattn-run %s --device=cpu --target=sm_90a --persistent --batch=3 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --persistent --batch=2 --seq-q=300 --seq-kv=300 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --persistent --resource-report | FileCheck %s --check-prefix=PTX
// CHECK: PASS d256c
// CHECK: PASS d128v256
// PTX: resources d256c (sm_90a): {{.*}} spills 0 B stored {{.*}} threads, persistent; gemms: 4 wgmma, 0 mma.sync
// PTX: resources d128v256 (sm_90a): {{.*}} spills 0 B stored {{.*}} threads, persistent; gemms: 3 wgmma, 0 mma.sync
func.func @d256c(%q: tensor<?x?x2x256xbf16>, %k: tensor<?x?x1x256xbf16>, %v: tensor<?x?x1x256xbf16>) -> (tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>) {
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
    } : tensor<?x?x2x256xbf16>, tensor<?x?x1x256xbf16>, tensor<?x?x1x256xbf16> -> tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>
}

func.func @d128v256(%q: tensor<?x?x2x128xbf16>, %k: tensor<?x?x2x128xbf16>, %v: tensor<?x?x2x256xbf16>) -> (tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 8.838834765e-02 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.constant true
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x256xbf16> -> tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>
}

