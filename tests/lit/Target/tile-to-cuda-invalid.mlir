// RUN: not metaattn-translate %s --tile-to-cuda 2>&1 | FileCheck %s

// An element loop over fragments runs over the elements a thread owns of the fragment that
// anchors it, so every fragment of its rank must have the loop's shape; a loop over part of
// one is refused rather than printed over all of it.
// CHECK: error: 'memref.store' op accesses a fragment of shape [64, 64] in a tile.parallel over [64, 32]: an element loop over fragments must span their shape
tile.kernel @partial_loop() attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %s = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  %c = arith.constant 0.0 : f32
  tile.parallel (%i, %j) in [64, 32] {
    memref.store %c, %s[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
  }
  tile.return
}
