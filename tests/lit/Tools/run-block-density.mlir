// metaattn-run --block-density=F: block maps (i32 inputs indexed by q/N, kv/N) keep each block
// with probability F (SplitMix64 draws of --seed + 17·argument; benchmarks/bench_variants.py
// reproduces them, so the counts below are also its block_map()'s) and always the blocks that
// hold a query's diagonal key kv = q + Skv - Sq; the runner prints how many it kept and the
// oracle still checks the run. Blocks of 32 x 32, H2: at Sq 77, Skv 130 the map is 3 x 5 per
// (b, h) and the diagonal keys [53, 129] lie in 6 of its blocks; at Sq 130, Skv 77 it is 5 x 3
// and the diagonal keys [0, 76] of queries 53..129 lie in 6 blocks.
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=77 --seq-kv=130 --block-density=0.25 | FileCheck %s --check-prefixes=CHECK,QUARTER
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=77 --seq-kv=130 --block-density=0 | FileCheck %s --check-prefixes=CHECK,DIAG
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=77 --seq-kv=130 --block-density=1 | FileCheck %s --check-prefixes=CHECK,ALL
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=130 --seq-kv=77 --block-density=0 | FileCheck %s --check-prefixes=CHECK,TALL
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=130 --seq-kv=77 --block-density=0.5 --seed=7 | FileCheck %s --check-prefixes=CHECK,SEED
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s --check-prefix=DEFAULT
// RUN: not metaattn-run %s --device=cpu --block-density=1.5 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: block_sparse_causal_32 (B=
// QUARTER-NEXT: block map (argument #3): 35 of 60 blocks kept
// DIAG-NEXT: block map (argument #3): 24 of 60 blocks kept
// ALL-NEXT: block map (argument #3): 60 of 60 blocks kept
// TALL-NEXT: block map (argument #3): 12 of 30 blocks kept
// SEED-NEXT: block map (argument #3): 21 of 30 blocks kept
// CHECK-NEXT: output: {{.*}}, 0 of {{[0-9]+}} elements outside
// CHECK-NEXT: PASS block_sparse_causal_32

// DEFAULT-NOT: block map
// DEFAULT: PASS block_sparse_causal_32

// BAD: metaattn-run: --block-density must be in [0, 1]

// Printed by `metaattn-variant block_sparse --heads=2 --dim=32 --causal --block-q=32
// --block-kv=32 --name=block_sparse_causal_32`.
func.func @block_sparse_causal_32(%arg0: tensor<?x?x2x32xbf16>, %arg1: tensor<?x?x2x32xbf16>, %arg2: tensor<?x?x2x32xbf16>, %arg3: tensor<?x2x?x?xi32>) -> tensor<?x?x2x32xbf16> {
  %output = attn.attention %arg0, %arg1, %arg2 inputs(%arg3 : tensor<?x2x?x?xi32>) score {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: i32):
    %cst = arith.constant 0.176776692 : f32
    %0 = arith.mulf %arg4, %cst : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: i32):
    %0 = arith.index_cast %arg10 : i32 to index
    %c0 = arith.constant 0 : index
    %1 = arith.cmpi ne, %0, %c0 : index
    %2 = arith.subi %arg9, %arg8 : index
    %3 = arith.addi %arg6, %2 : index
    %4 = arith.cmpi sle, %arg7, %3 : index
    %5 = arith.andi %1, %4 : i1
    attn.yield %5 : i1
  } normalizer {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: i32):
    %0 = attn.row_reduce  max %arg4 : f32
    %1 = arith.subf %arg4, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce  sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } {input_dims = ["b,h,q/32,kv/32"]} : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xbf16>
  return %output : tensor<?x?x2x32xbf16>
}
