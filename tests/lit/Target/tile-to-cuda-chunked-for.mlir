// RUN: metaattn-translate %s --tile-to-cuda | FileCheck %s

// A counted scf.for inside tile.parallel that reads shared tiles along one row (column = the
// induction variable, or an offset known to be a multiple of the chunk plus it) loads each
// row segment a 16-byte chunk at a time into a register array and runs its body on the
// registers, unrolled: eight lanes when a bf16 tile is read (f32 tiles then take two chunks).
// A column offset not known to be chunk-aligned, or a store in the loop, keeps the loop
// element-wise.

// CHECK-LABEL: void __launch_bounds__(128) diagonal_sum(
// CHECK: float [[ACC:v[0-9]+]] = {{v[0-9]+}};
// CHECK-NEXT: // scf.for [0, 64): shared row segments read 8 elements (16-byte chunks) at a time
// CHECK-NEXT: #pragma unroll 1
// CHECK-NEXT: for (int [[K:k[0-9]+]] = 0; [[K]] < 8; ++[[K]]) {
// CHECK-NEXT: alignas(16) bf16 [[Q:a[0-9]+]][8];
// CHECK-NEXT: *reinterpret_cast<uint4*>([[Q]]) = *reinterpret_cast<const uint4*>({{v[0-9]+}}.chunkPtr([[I:v[0-9]+]], [[K]]));
// CHECK-NEXT: alignas(16) bf16 [[KK:a[0-9]+]][8];
// CHECK-NEXT: *reinterpret_cast<uint4*>([[KK]]) = *reinterpret_cast<const uint4*>({{v[0-9]+}}.chunkPtr([[J:v[0-9]+]], [[K]]));
// CHECK-NEXT: alignas(16) float [[G:a[0-9]+]][8];
// CHECK-NEXT: reinterpret_cast<uint4*>([[G]])[0] = *reinterpret_cast<const uint4*>({{v[0-9]+}}.chunkPtr([[I]], [[OFF:v[0-9]+]] / 4 + [[K]] * 2 + 0));
// CHECK-NEXT: reinterpret_cast<uint4*>([[G]])[1] = *reinterpret_cast<const uint4*>({{v[0-9]+}}.chunkPtr([[I]], [[OFF]] / 4 + [[K]] * 2 + 1));
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int [[U:u[0-9]+]] = 0; [[U]] < 8; ++[[U]]) {
// CHECK-NEXT: const int {{v[0-9]+}} = [[K]] * 8 + [[U]];
// CHECK: = [[Q]][[[U]]];
// CHECK: = [[KK]][[[U]]];
// CHECK: = [[G]][[[U]]];
// CHECK: [[ACC]] = {{v[0-9]+}};
// The second loop reads at an offset only known to be even: element by element.
// CHECK: for (int [[IV:v[0-9]+]] = {{v[0-9]+}}; [[IV]] < {{v[0-9]+}}; [[IV]] += {{v[0-9]+}}) {
// CHECK-NEXT: const int [[COL:v[0-9]+]] = {{v[0-9]+}} + [[IV]];
// CHECK-NEXT: const float {{v[0-9]+}} = {{v[0-9]+}}.at([[I]], [[COL]]);
tile.kernel @diagonal_sum() attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %q = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %k = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %g = tile.alloc : memref<64x128xf32, #tile.space<shared>>
  %out = tile.alloc : memref<64x64xf32, #tile.space<shared>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %kt = %c0 to %c2 step %c1 {
    %off = arith.muli %kt, %c64 : index
    %odd = arith.muli %kt, %c2 : index
    tile.parallel (%i, %j) in [64, 64] {
      %sum = scf.for %d = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %q[%i, %d] : memref<64x64xbf16, #tile.space<shared>>
        %y = memref.load %k[%j, %d] : memref<64x64xbf16, #tile.space<shared>>
        %col = arith.addi %off, %d : index
        %w = memref.load %g[%i, %col] : memref<64x128xf32, #tile.space<shared>>
        %xf = arith.extf %x : bf16 to f32
        %yf = arith.extf %y : bf16 to f32
        %p = arith.mulf %xf, %yf : f32
        %e = math.exp %w : f32
        %t = arith.mulf %p, %e : f32
        %n = arith.addf %acc, %t : f32
        scf.yield %n : f32
      }
      %sum2 = scf.for %d = %c0 to %c64 step %c1 iter_args(%acc = %sum) -> (f32) {
        %col = arith.addi %odd, %d : index
        %w = memref.load %g[%i, %col] : memref<64x128xf32, #tile.space<shared>>
        %n = arith.addf %acc, %w : f32
        scf.yield %n : f32
      }
      memref.store %sum2, %out[%i, %j] : memref<64x64xf32, #tile.space<shared>>
    }
  }
  tile.return
}
