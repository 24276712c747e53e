// RUN: metaattn-opt %s -split-input-file -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="block-m=64 block-n=64 kv-tile-bounds=false" | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="block-m=64 block-n=64 id-bounds=false kv-tile-bounds=false" | FileCheck %s --check-prefix=OFF

// With id-bounds=false (metaattn-run --id-bounds=false) no bounds are read: every tile is
// visited and masked.
// OFF-NOT: tile.read_bounds

// A document mask compares a query's id with a key's id ("b,q" and "b,kv"). Each visited kv
// tile is classified from the bounds of the ids of its rows [lo, hi] and of its keys
// [kv0, kvLast]: skipped when the ranges are disjoint, unmasked when both are one id.
// CHECK-LABEL: tile.kernel @document_ids
// CHECK: %[[LO:lo[_0-9]*]], %[[HI:hi[_0-9]*]] = tile.row_range
// CHECK: tile.pipelined
// CHECK: %[[KV0:.*]] = arith.muli
// CHECK: %[[QMIN:.*]], %[[QMAX:.*]] = tile.read_bounds %{{.*}}[%{{.*}}, %[[LO]]] to %[[HI]] {axis = 1 : i64} : <?x?xi32> -> i32
// CHECK-NEXT: %[[KMIN:.*]], %[[KMAX:.*]] = tile.read_bounds %{{.*}}[%{{.*}}, %[[KV0]]] to %[[KVLAST:.*]] {axis = 1 : i64} : <?x?xi32> -> i32
// CHECK-DAG: %[[KMINI:.*]] = arith.index_cast %[[KMIN]] : i32 to index
// CHECK-DAG: %[[KMAXI:.*]] = arith.index_cast %[[KMAX]] : i32 to index
// CHECK-DAG: %[[QMINI:.*]] = arith.index_cast %[[QMIN]] : i32 to index
// CHECK-DAG: %[[QMAXI:.*]] = arith.index_cast %[[QMAX]] : i32 to index
// One id on both sides: the tile needs no mask.
// CHECK-DAG: arith.cmpi eq, %[[QMINI]], %[[QMAXI]] : index
// CHECK-DAG: arith.cmpi eq, %[[KMINI]], %[[KMAXI]] : index
// Disjoint ranges: the tile is skipped.
// CHECK-DAG: arith.cmpi slt, %[[KMAXI]], %[[QMINI]] : index
// CHECK-DAG: arith.cmpi slt, %[[QMAXI]], %[[KMINI]] : index
// CHECK: scf.if
// CHECK: tile.gemm
func.func @document_ids(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %qid: tensor<?x?xi32>, %kid: tensor<?x?xi32>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%qid, %kid : tensor<?x?xi32>, tensor<?x?xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      %x = arith.index_cast %a : i32 to index
      %y = arith.index_cast %c : i32 to index
      %same = arith.cmpi eq, %x, %y : index
      attn.yield %same : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["b,q", "b,kv"]}
    : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}

// -----

// An input that varies along both q and kv (a dense 0/1 map) has no bounds read per tile: the
// tile's classification knows nothing of it, and every tile is visited and masked.
// CHECK-LABEL: tile.kernel @dense_map
// CHECK-NOT: tile.read_bounds
// CHECK: tile.gemm
func.func @dense_map(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %map: tensor<?x?x?xi32>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%map : tensor<?x?x?xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      %mi = arith.index_cast %m : i32 to index
      %zero = arith.constant 0 : index
      %keep = arith.cmpi ne, %mi, %zero : index
      attn.yield %keep : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["b,q,kv"]}
    : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}
