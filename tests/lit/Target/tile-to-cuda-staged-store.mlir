// RUN: metaattn-translate %s --tile-to-cuda | FileCheck %s

// A fragment stored to global memory through a shared staging tile: the staging buffer is a
// swizzled SmemTile of the destination's element type, and the copy becomes one
// storeFragStaged call (each warp passes its rows through it, 16-byte row chunks out).
// CHECK: metaattn::dev::Frag<float, 64, 64, 4> [[ACC:v[0-9]+]];
// CHECK: metaattn::dev::SmemTile<bf16, 64, 64> [[STG:v[0-9]+]](smem + 0);  // tile.alloc shared, 8192 bytes
// CHECK: const long long [[O:origin[0-9]+]][4] = {
// CHECK-NEXT: metaattn::dev::block::storeFragStaged<128>(o, [[O]], 1, 3, [[ACC]], [[STG]]);
tile.kernel @staged_store(%o: !tile.tensor<?x?x8x64xbf16> {tile.name = "o"}) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %b = tile.block_id 2
  %h = tile.block_id 1
  %acc = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  tile.fill %acc, %zero : memref<64x64xf32, #tile.space<fragment>>, f32
  %stg = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  tile.copy %acc to %o[%b, %c0, %h, %c0] via %stg : memref<64x64xbf16, #tile.space<shared>>
      {dims = array<i64: 1, 3>} : memref<64x64xf32, #tile.space<fragment>> to !tile.tensor<?x?x8x64xbf16>
  tile.return
}
