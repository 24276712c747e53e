// REQUIRES: nvrtc
// The long-keys tiling (PipelineOptions::longKeys; compileAttentionFunctions launches it from
// 8192 keys on): a mask-free softmax at D128 takes kv tiles of 192 rows in two stages, still
// overlapped and without spills; a causal one keeps 128. On the CPU tile executor it matches the
// oracle at lengths around the 192-row tile (a partial last tile, one just past a tile, a
// single key).
// RUN: metaattn-opt %s --metaattn-lower="long-keys=true" | FileCheck %s --check-prefix=LOWER
// RUN: metaattn-opt %s --metaattn-lower | FileCheck %s --check-prefix=PLAIN
// RUN: metaattn-run %s --device=cpu --resource-report --long-keys | FileCheck %s --check-prefix=REPORT
// RUN: metaattn-run %s --device=cpu --long-keys --function=full --batch=1 --seq-q=130 --seq-kv=385 | FileCheck %s --check-prefix=FULL
// RUN: metaattn-run %s --device=cpu --long-keys --function=full --batch=2 --seq-q=1 --seq-kv=193 | FileCheck %s --check-prefix=FULL
// RUN: metaattn-run %s --device=cpu --long-keys --function=full --batch=1 --seq-q=200 --seq-kv=1 | FileCheck %s --check-prefix=FULL
// RUN: metaattn-run %s --device=cpu --long-keys --function=causal --batch=1 --seq-q=193 --seq-kv=400 | FileCheck %s --check-prefix=CAUSAL
// LOWER-LABEL: tile.kernel @full
// LOWER: tile.alloc : memref<2x192x128xbf16, #tile.space<shared>>
// LOWER: tile.gemm_wait
// LOWER-LABEL: tile.kernel @causal
// LOWER-NOT: x192x
// PLAIN-LABEL: tile.kernel @full
// PLAIN-NOT: x192x
// REPORT: resources full (sm_90a): {{[0-9]+}} registers/thread, spills 0 B stored / 0 B loaded, 231424 B dynamic shared, 384 threads; gemms: 3 wgmma
// REPORT: resources causal (sm_90a): {{[0-9]+}} registers/thread, spills 0 B stored / 0 B loaded, 165888 B dynamic shared, 384 threads
// FULL: PASS full
// CAUSAL: PASS causal
func.func @full(%q: tensor<?x?x4x128xbf16>, %k: tensor<?x?x2x128xbf16>, %v: tensor<?x?x2x128xbf16>) -> tensor<?x?x4x128xbf16> {
  %o = attn.attention %q, %k, %v
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
    } : tensor<?x?x4x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16> -> tensor<?x?x4x128xbf16>
  return %o : tensor<?x?x4x128xbf16>
}

func.func @causal(%q: tensor<?x?x4x128xbf16>, %k: tensor<?x?x4x128xbf16>, %v: tensor<?x?x4x128xbf16>) -> tensor<?x?x4x128xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 8.838834765e-02 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %qa = arith.addi %qi, %off : index
      %m = arith.cmpi ule, %ki, %qa : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
  return %o : tensor<?x?x4x128xbf16>
}
