// RUN: metaattn-translate %s --tile-to-cuda | FileCheck %s
// RUN: metaattn-opt %S/../../../frontend/variants/softpick.mlir --metaattn-lower | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=SOFTPICK

// A float fragment that only row reductions (of one kind) read, written only by element loops
// over its whole shape (one store at the loop's own indices), is not held: each thread keeps
// one partial reduction per row slot, restarted by every loop that writes the fragment and
// combined over the quad by the reduction. Softpick's |sum| of its unclamped weights took a
// second fragment (64 registers at D128): the library's softpick_causal spilled 16 B, the H16
// D128 persistent kernel 68 B; the library's RetNet GQA kernel, whose row statistic is such a
// fragment, 336 B. None spills now.

// CHECK-LABEL: void __launch_bounds__(128) partials(
// CHECK: metaattn::dev::Frag<float, 64, 64, 4> [[S:v[0-9]+]];  // tile.alloc fragment
// CHECK-NEXT: metaattn::dev::RowVec<64, 4> [[A:v[0-9]+]];  // tile.alloc fragment, read by row reductions only: per-thread partials
// CHECK-NEXT: metaattn::dev::RowVec<64, 4> [[M:v[0-9]+]];  // tile.alloc fragment, read by row reductions only: per-thread partials
// CHECK-NEXT: metaattn::dev::RowVec<64, 4> [[SUM:v[0-9]+]];  // tile.alloc fragment
// CHECK-NEXT: metaattn::dev::RowVec<64, 4> [[MAX:v[0-9]+]];  // tile.alloc fragment
// Both branches' loops restart the partials and accumulate into the element's row slot.
// CHECK: if (
// CHECK: using [[P:P[0-9]+]] = metaattn::dev::Frag<float, 64, 64, 4>;
// CHECK-NEXT: [[A]].fill(0.0f);
// CHECK-NEXT: [[M]].fill(metaattn::dev::negInf());
// CHECK: [[A]][[[P]]::rowSlot([[E:e[0-9]+]])] += fabsf(
// CHECK: [[M]][[[P]]::rowSlot([[E]])] = fmaxf([[M]][[[P]]::rowSlot([[E]])],
// CHECK: } else {
// CHECK: using [[P2:P[0-9]+]] = metaattn::dev::Frag<float, 64, 64, 4>;
// CHECK-NEXT: [[A]].fill(0.0f);
// CHECK-NOT: [[M]].fill
// CHECK: [[A]][[[P2]]::rowSlot([[E2:e[0-9]+]])] += fabsf(
// CHECK: metaattn::dev::warp::rowSumOfPartials([[A]], [[SUM]], true);  // tile.reduce
// CHECK-NEXT: metaattn::dev::warp::rowMaxOfPartials([[M]], [[MAX]], false);  // tile.reduce
// CHECK-NEXT: metaattn::dev::warp::rowSum([[S]], [[SUM]], true);  // tile.reduce
tile.kernel @partials() attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %bx = tile.block_id 0
  %c0 = arith.constant 0 : index
  %flag = arith.cmpi eq, %bx, %c0 : index
  %s = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  %a = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  %m = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  %sum = tile.alloc {layout = #tile.layout<"row", warps = 4>} : memref<64xf32, #tile.space<fragment>>
  %max = tile.alloc {layout = #tile.layout<"row", warps = 4>} : memref<64xf32, #tile.space<fragment>>
  scf.if %flag {
    tile.parallel (%i, %j) in [64, 64] {
      %x = memref.load %s[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
      %y = math.exp %x : f32
      memref.store %y, %s[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
      memref.store %x, %a[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
      memref.store %y, %m[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
    }
  } else {
    tile.parallel (%i, %j) in [64, 64] {
      %x = memref.load %s[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
      %y = arith.negf %x : f32
      memref.store %y, %a[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
    }
  }
  tile.reduce abs_sum %a to %sum {accumulate} : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
  tile.reduce max %m to %max : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
  tile.reduce sum %s to %sum {accumulate} : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
  tile.return
}

// Fragments stay whole where the partials would not be their reduction: one that is also
// loaded, one reduced two ways, one stored under a condition inside the loop (some elements
// would keep older values), one stored twice in a loop. (A loop over part of a fragment is an
// error: tile-to-cuda-invalid.mlir.)
// CHECK-LABEL: void __launch_bounds__(128) whole(
// CHECK-COUNT-4: metaattn::dev::Frag<float, 64, 64, 4> v{{[0-9]+}};  // tile.alloc fragment
// CHECK-NOT: OfPartials
tile.kernel @whole() attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %bx = tile.block_id 0
  %c0 = arith.constant 0 : index
  %flag = arith.cmpi eq, %bx, %c0 : index
  %loaded = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  %twoways = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  %cond = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  %twice = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  %r = tile.alloc {layout = #tile.layout<"row", warps = 4>} : memref<64xf32, #tile.space<fragment>>
  tile.parallel (%i, %j) in [64, 64] {
    %x = memref.load %loaded[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
    %y = math.exp %x : f32
    memref.store %y, %loaded[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
    memref.store %y, %twoways[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
    scf.if %flag {
      memref.store %y, %cond[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
    }
    memref.store %x, %twice[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
    memref.store %y, %twice[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
  }
  tile.reduce sum %loaded to %r : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
  tile.reduce sum %twoways to %r {accumulate} : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
  tile.reduce max %twoways to %r {accumulate} : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
  tile.reduce sum %cond to %r {accumulate} : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
  tile.reduce sum %twice to %r {accumulate} : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
  tile.return
}

// The library's softpick_causal on sm_90a: its |sum| fragment is partials; the scores' fragment, which the
// row maximum reads and the loops load, stays whole.
// SOFTPICK-LABEL: softpick_causal(
// SOFTPICK: metaattn::dev::Frag<float, {{[0-9]+, [0-9]+, [0-9]+}}> [[S:v[0-9]+]];  // tile.alloc fragment
// SOFTPICK: metaattn::dev::RowVec<{{[0-9]+, [0-9]+}}> [[A:v[0-9]+]];  // tile.alloc fragment, read by row reductions only: per-thread partials
// SOFTPICK: metaattn::dev::warp::rowMax([[S]],
// SOFTPICK: [[A]].fill(0.0f);
// SOFTPICK: += fabsf(
// SOFTPICK: metaattn::dev::warp::rowSumOfPartials([[A]],
// SOFTPICK-NOT: rowAbsSum
// SOFTPICK: Generated by metaattn
