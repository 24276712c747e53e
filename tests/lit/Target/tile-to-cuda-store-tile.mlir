// RUN: metaattn-translate %s --tile-to-cuda | FileCheck %s

// A shared tile copied to global memory becomes one block-wide storeTile call (16-byte row
// chunks where the window allows, element by element where it is clipped or converted): here
// f32 cumulative gates written as they are, and a bf16 tile.
// CHECK-LABEL: shared_to_global(
// CHECK: metaattn::dev::SmemTile<float, 64, 128> [[G:v[0-9]+]](smem + 0);
// CHECK: metaattn::dev::SmemTile<bf16, 64, 64> [[T:v[0-9]+]](smem + 32768);
// CHECK: const long long [[O:origin[0-9]+]][4] = {
// CHECK-NEXT: metaattn::dev::block::storeTile<128, float>(g, [[O]], 1, 3, [[G]]);
// CHECK: const long long [[P:origin[0-9]+]][4] = {
// CHECK-NEXT: metaattn::dev::block::storeTile<128, bf16>(o, [[P]], 1, 3, [[T]]);
tile.kernel @shared_to_global(%g: !tile.tensor<?x?x8x128xf32> {tile.name = "g"}, %o: !tile.tensor<?x?x8x64xbf16> {tile.name = "o"}) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %b = tile.block_id 2
  %h = tile.block_id 1
  %gs = tile.alloc : memref<64x128xf32, #tile.space<shared>>
  %ts = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  tile.copy %gs to %g[%b, %c0, %h, %c0] {dims = array<i64: 1, 3>} : memref<64x128xf32, #tile.space<shared>> to !tile.tensor<?x?x8x128xf32>
  tile.copy %ts to %o[%b, %c0, %h, %c0] {dims = array<i64: 1, 3>} : memref<64x64xbf16, #tile.space<shared>> to !tile.tensor<?x?x8x64xbf16>
  tile.return
}
