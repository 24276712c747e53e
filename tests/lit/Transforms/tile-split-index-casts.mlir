// RUN: metaattn-opt %s -split-input-file -tile-split-index-casts | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-split-index-casts -canonicalize | metaattn-translate -split-input-file --tile-to-cuda | FileCheck %s --check-prefix=CUDA

// A position q - k (ALiBi's) converted per element: the block-wide part q0 + off - k0 is summed
// in front of the loop; in the loop the per-thread parts of the induction variables join it
// and the parts per element (compile-time constants once unrolled) are converted apart and
// added in float.
// CHECK-LABEL: tile.kernel @position
// CHECK: %[[BW:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in [64, 32] {
// CHECK-DAG: %[[TJ:.*]], %[[EJ:.*]] = tile.index_parts %[[J]]
// CHECK-DAG: %[[TI:.*]], %[[EI:.*]] = tile.index_parts %[[I]]
// CHECK: %[[T1:.*]] = arith.addi %[[BW]], %[[TI]] : index
// CHECK: %[[T2:.*]] = arith.subi %[[T1]], %[[TJ]] : index
// CHECK: %[[TC:.*]] = arith.index_cast %[[T2]] : index to i64
// CHECK: %[[TF:.*]] = arith.sitofp %[[TC]] : i64 to f32
// CHECK: %[[E1:.*]] = arith.subi %[[EI]], %[[EJ]] : index
// CHECK: %[[EC:.*]] = arith.index_cast %[[E1]] : index to i64
// CHECK: %[[EF:.*]] = arith.sitofp %[[EC]] : i64 to f32
// CHECK: %[[P:.*]] = arith.addf %[[TF]], %[[EF]] : f32
// CHECK: arith.mulf %{{.*}}, %[[P]] : f32

// CUDA-LABEL: void __launch_bounds__(128) position(
// CUDA: using [[P:P[0-9]+]] = metaattn::dev::Frag<float, 64, 32, 4>;
// CUDA-DAG: = [[P]]::rowThread();  // tile.index_parts
// CUDA-DAG: = [[P]]::rowConst(e{{[0-9]+}});
// CUDA-DAG: = [[P]]::colThread();  // tile.index_parts
// CUDA-DAG: = [[P]]::colConst(e{{[0-9]+}});
tile.kernel @position(%o: !tile.tensor<?xf32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64: 0>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %slope = arith.constant 0.25 : f32
  %qt = tile.block_id 0
  %q0 = arith.muli %qt, %c64 : index
  %f = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x32xf32, #tile.space<fragment>>
  scf.for %j = %c0 to %c4 step %c1 {
    %k0 = arith.muli %j, %c32 : index
    tile.parallel (%i, %k) in [64, 32] {
      %x = memref.load %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
      %qi = arith.addi %q0, %i : index
      %ki = arith.addi %k0, %k : index
      %d = arith.subi %qi, %ki : index
      %n = arith.index_cast %d : index to i64
      %p = arith.sitofp %n : i64 to f32
      %t = arith.mulf %slope, %p : f32
      %y = arith.subf %x, %t : f32
      memref.store %y, %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
    }
  }
  tile.return
}

// -----

// Coefficients and constants: 2·(q0 + i) - 3·k + 5 splits into 2·q0 (in front of the loop)
// plus the per-thread parts 2·ti - 3·tj, and 2·ei - 3·ej + 6 per element: a block-wide term
// computed inside the loop (%h + 1) splits into %h and the constant 1.
// CHECK-LABEL: tile.kernel @coefficients
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in [64, 32] {
// CHECK: tile.index_parts %[[J]]
// CHECK: tile.index_parts %[[I]]
// CHECK: arith.muli %{{.*}}, %c3
// CHECK: arith.sitofp
// CHECK: arith.addi %{{.*}}, %c6
// CHECK: arith.sitofp
// CHECK: arith.addf
// The conversion of a value read per element, of a product of two induction variables and to
// f16 stay as they are.
// CHECK: tile.read
// CHECK-NEXT: arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT: arith.uitofp %{{.*}} : i32 to f32
// CHECK: %[[IJ:.*]] = arith.muli %[[I]], %[[J]] : index
// CHECK-NEXT: %[[IJC:.*]] = arith.index_cast %[[IJ]] : index to i64
// CHECK-NEXT: arith.sitofp %[[IJC]] : i64 to f32
// CHECK: arith.sitofp %{{.*}} : i64 to f16
// CHECK-NOT: tile.index_parts
// CHECK: tile.return
// The conversion to f16 prints through float (NVRTC has no implicit conversion to fp16).
// CUDA-LABEL: coefficients(
// An unsigned conversion reads its integer as unsigned.
// CUDA: const float v{{[0-9]+}} = (float)(unsigned)v{{[0-9]+}};
// CUDA: const fp16 v{{[0-9]+}} = metaattn::dev::fromFloat<fp16>((float)v{{[0-9]+}});
tile.kernel @coefficients(%ids: !tile.tensor<?xi32>, %o: !tile.tensor<?xf32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64: 1>} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  %qt = tile.block_id 0
  %h = tile.block_id 1
  %q0 = arith.muli %qt, %c64 : index
  %f = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x32xf32, #tile.space<fragment>>
  tile.parallel (%i, %k) in [64, 32] {
    %x = memref.load %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
    %qi = arith.addi %q0, %i : index
    %h1 = arith.addi %h, %c1 : index
    %a = arith.muli %qi, %c2 : index
    %b = arith.muli %c3, %k : index
    %d = arith.subi %a, %b : index
    %d1 = arith.addi %d, %c5 : index
    %d2 = arith.addi %d1, %h1 : index
    %n = arith.index_cast %d2 : index to i64
    %p = arith.sitofp %n : i64 to f32
    %id = tile.read %ids[%k] : <?xi32> -> i32
    %pid0 = arith.sitofp %id : i32 to f32
    %uid = arith.uitofp %id : i32 to f32
    %pid = arith.addf %pid0, %uid : f32
    %ij = arith.muli %i, %k : index
    %nij = arith.index_cast %ij : index to i64
    %pij = arith.sitofp %nij : i64 to f32
    %qh = arith.addi %qi, %k : index
    %nqh = arith.index_cast %qh : index to i64
    %half = arith.sitofp %nqh : i64 to f16
    %halfx = arith.extf %half : f16 to f32
    %y0 = arith.addf %x, %p : f32
    %y1 = arith.addf %y0, %pid : f32
    %y2 = arith.addf %y1, %pij : f32
    %y3 = arith.addf %y2, %halfx : f32
    memref.store %y3, %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// A clamped position max(q - k, 0) (RetNet's decay exponent) converts each side and clamps in
// float; the side q - k splits. A clamp of two values read per element stays.
// CHECK-LABEL: tile.kernel @clamped
// CHECK: tile.parallel
// CHECK: tile.index_parts
// CHECK-NOT: arith.sitofp
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK-NEXT: %[[P:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: %[[Z:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK-NEXT: arith.maximumf %[[P]], %[[Z]] : f32
// CHECK: %[[M:.*]] = arith.minsi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.sitofp %[[M]] : i32 to f32
tile.kernel @clamped(%ids: !tile.tensor<?xi32>, %o: !tile.tensor<?xf32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %qt = tile.block_id 0
  %q0 = arith.muli %qt, %c64 : index
  %f = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x32xf32, #tile.space<fragment>>
  tile.parallel (%i, %k) in [64, 32] {
    %x = memref.load %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
    %qi = arith.addi %q0, %i : index
    %d = arith.subi %qi, %k : index
    %m = arith.maxsi %d, %c0 : index
    %n = arith.index_cast %m : index to i64
    %p = arith.sitofp %n : i64 to f32
    %a = tile.read %ids[%k] : <?xi32> -> i32
    %b = tile.read %ids[%i] : <?xi32> -> i32
    %ab = arith.minsi %a, %b : i32
    %pab = arith.sitofp %ab : i32 to f32
    %y0 = arith.addf %x, %p : f32
    %y1 = arith.addf %y0, %pab : f32
    memref.store %y1, %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// A 1-D loop over a row vector splits its row index the same way (RowVec's parts); a loop
// without a fragment anchor (its indices strided over the threads) has no per-thread part and
// keeps its conversion.
// CHECK-LABEL: tile.kernel @rows
// CHECK: tile.parallel (%[[R:.*]]) in [64] {
// CHECK-NEXT: tile.index_parts %[[R]]
// CHECK: arith.addf
// CHECK: tile.parallel (%[[S:.*]]) in [64] {
// CHECK-NOT: tile.index_parts
// CHECK: arith.sitofp
// CHECK-NOT: arith.addf
// CHECK: memref.store
// CUDA-LABEL: rows(
// CUDA: using [[RV:P[0-9]+]] = metaattn::dev::RowVec<64, 4>;
// CUDA: = [[RV]]::rowThread();  // tile.index_parts
// CUDA-NEXT: = [[RV]]::rowConst(e{{[0-9]+}});
tile.kernel @rows(%o: !tile.tensor<?xf32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64: 0>} {
  %c64 = arith.constant 64 : index
  %qt = tile.block_id 0
  %q0 = arith.muli %qt, %c64 : index
  %m = tile.alloc {layout = #tile.layout<"row", warps = 4>} : memref<64xf32, #tile.space<fragment>>
  %sh = tile.alloc : memref<64xf32, #tile.space<shared>>
  tile.parallel (%r) in [64] {
    %qi = arith.addi %q0, %r : index
    %n = arith.index_cast %qi : index to i64
    %p = arith.sitofp %n : i64 to f32
    memref.store %p, %m[%r] : memref<64xf32, #tile.space<fragment>>
  }
  tile.parallel (%s) in [64] {
    %qi = arith.addi %q0, %s : index
    %n = arith.index_cast %qi : index to i64
    %p = arith.sitofp %n : i64 to f32
    memref.store %p, %sh[%s] : memref<64xf32, #tile.space<shared>>
  }
  tile.return
}
