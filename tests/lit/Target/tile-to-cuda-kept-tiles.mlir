// RUN: metaattn-opt %S/../../../frontend/variants/block_sparse.mlir --metaattn-lower="kept-tiles=true" | metaattn-translate --tile-to-cuda | FileCheck %s
// RUN: metaattn-opt %S/../../../frontend/variants/block_sparse.mlir --metaattn-lower="kept-tiles=true target=sm_80" | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=AMPERE

// tile.kept_tiles prints its test as a lambda of the tile index (bit 0: kept, bit 1: the mark
// that the tile needs no mask); warp::countKept counts the kept tiles 32 at a time (one test
// per lane, a ballot) and each tile.tile_at gets a cursor that walks them in order, starting
// from the window the count tested first (kept.cuh). Both need whole warps: the producer that
// recomputes the list runs on one warp, lane 0 issuing the copies; its cursors keep no marks
// (it uses none).
// CHECK-LABEL: block_sparse_64x128(
// CHECK: if ((int)threadIdx.x < {{[0-9]+}}) {  // one warp
// CHECK: const auto [[TEST:v[0-9]+]] = [&](const int [[J:v[0-9]+]], auto {{v[0-9]+}}_loads) -> unsigned {  // tile.kept_tiles: whether tile [[J]] is kept
// CHECK: metaattn_read_pred<int>(
// CHECK: return (unsigned)v{{[0-9]+}} | ((unsigned)v{{[0-9]+}} << 1);
// CHECK-NEXT: };
// CHECK-NEXT: metaattn::dev::KeptWindow<0> [[W:window[0-9]+]];
// CHECK-NEXT: const int [[N:v[0-9]+]] = metaattn::dev::warp::countKept<0, {{[0-9]+}}>(v{{[0-9]+}}, v{{[0-9]+}}, [[TEST]], [[W]]);
// CHECK-NEXT: metaattn::dev::KeptCursor<0, {{[0-9]+}}> [[CURSOR:kept[0-9]+]](v{{[0-9]+}}, v{{[0-9]+}}, [[W]]);
// CHECK: for (int [[R:v[0-9]+]] = v{{[0-9]+}}; [[R]] < [[N]];
// CHECK: const int v{{[0-9]+}} = [[CURSOR]].at([[R]], [[TEST]]);  // tile.tile_at
// CHECK-NOT: .mark(
// CHECK: if ((threadIdx.x & 31) == 0) metaattn::dev::tma::loadTile(
// The consumers walk their own list.
// CHECK: tile.warp_specialize consumer
// CHECK: metaattn::dev::warp::countKept<1, {{[0-9]+}}>(
// CHECK: metaattn::dev::KeptCursor<1, {{[0-9]+}}> [[CCURSOR:kept[0-9]+]](
// CHECK: [[CCURSOR]].at(
// CHECK-NEXT: const bool v{{[0-9]+}} = [[CCURSOR]].mark(0);

// The cp.async pipeline prefetches tiles ahead of the one it computes: its prefetching
// tile.tile_at has a cursor of its own, so each walks its ranks in order.
// AMPERE-LABEL: block_sparse_64x128(
// AMPERE: metaattn::dev::warp::countKept<1, {{[0-9]+}}>(
// AMPERE-COUNT-2: metaattn::dev::KeptCursor
