// Persistent warp-specialised softmax kernels (--persistent) on the CPU tile executor,
// checked against the oracle. The executor launches three blocks, so with batch 3 and two
// heads each block walks several tiles of different heads, batches and row blocks (and an
// uneven share): the rings' slots and phases run on across tiles, the query tile is
// reloaded per tile behind its "empty" barrier, and the causal kernel's tiles have
// different kv counts (and none for rows past a short kv length). Length 1, one kv tile, a
// last partial tile.
// RUN: metaattn-run %s --device=cpu --target=sm_90a --persistent --batch=3 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --persistent --batch=3 --seq-q=300 --seq-kv=257 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --persistent --batch=2 --seq-q=1 --seq-kv=1 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --persistent --resource-report | FileCheck %s --check-prefix=PTX
// CHECK: PASS mha_d64
// CHECK: PASS causal_d64
// CHECK: PASS causal_d128
// The producer of a persistent kernel keeps 40 registers at least (it carries the walk over
// the tiles): no spills (with 24 or 32 it spilled 4-60 B).
// PTX: resources mha_d64 (sm_90a): {{.*}} spills 0 B stored {{.*}} threads, persistent; gemms: 2 wgmma, 0 mma.sync
// PTX: resources causal_d64 (sm_90a): {{.*}} spills 0 B stored {{.*}} threads, persistent; gemms: 2 wgmma, 0 mma.sync
// D128 has two consumer warpgroups: its kv loop, inside the loop over tiles, is overlapped (the
// owed output gemm of a skipped tile and the tail are the two extra wgmma sites), and the last
// V stage of each tile is released after the tail so that the ring goes on into the next tile.
// PTX: resources causal_d128 (sm_90a): {{.*}} spills 0 B stored {{.*}} threads, persistent; gemms: 4 wgmma, 0 mma.sync
func.func @mha_d64(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> (tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.250000000e-01 : f32
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
    } : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
}

func.func @causal_d64(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x1x64xbf16>, %v: tensor<?x?x1x64xbf16>) -> (tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.250000000e-01 : f32
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
    } : tensor<?x?x2x64xbf16>, tensor<?x?x1x64xbf16>, tensor<?x?x1x64xbf16> -> tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
}


func.func @causal_d128(%q: tensor<?x?x2x128xbf16>, %k: tensor<?x?x1x128xbf16>, %v: tensor<?x?x1x128xbf16>) -> (tensor<?x?x2x128xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 8.838834610e-02 : f32
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
    } : tensor<?x?x2x128xbf16>, tensor<?x?x1x128xbf16>, tensor<?x?x1x128xbf16> -> tensor<?x?x2x128xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x128xbf16>, tensor<?x2x?xf32>
}

