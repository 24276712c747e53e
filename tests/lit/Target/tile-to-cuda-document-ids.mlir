// REQUIRES: nvrtc
// tile.read_bounds (the ids of a kv tile's rows and keys, for its classification) prints as a
// call of metaattn_read_bounds, defined once in the kernel's prologue: the lanes of a warp
// split the range and combine with redux (32-bit ids) or shuffles (64-bit ids). NVRTC and
// ptxas compile both (sm_90a and sm_90); the CPU executor runs the 32-bit ids (metaattn-run
// draws no 64-bit inputs).
// RUN: metaattn-opt %s --metaattn-lower="kv-tile-bounds=0" | metaattn-translate --tile-to-cuda | FileCheck %s
// RUN: metaattn-run %s --device=cpu --resource-report --kv-tile-bounds=0 | FileCheck %s --check-prefix=NVRTC
// RUN: metaattn-run %s --device=cpu --resource-report --kv-tile-bounds=0 --target=sm_90 | FileCheck %s --check-prefix=NVRTC
// RUN: metaattn-run %s --device=cpu --function=ids32 --batch=2 --seq-q=150 --seq-kv=150 --documents=3 --kv-tile-bounds=0 | FileCheck %s --check-prefix=RAN
// By default a pre-pass bounds each kv tile's key ids once (see tile-to-cuda-tile-bounds.mlir).
// Without the kept list (kept-tiles=0), skip-loads has the producer evaluate the tile guard
// too: one warp runs it (the lanes split the id loads of a lean helper that fits the
// producer's 24 registers), lane 0 announces the bytes and issues the copies, and a skipped
// tile's stage gets an arrival announcing 0 bytes. (With the list, the producer copies only
// the kept tiles, which are the tiles the guard would keep.)
// RUN: metaattn-opt %s --metaattn-lower="skip-loads=1 kept-tiles=0 kv-tile-bounds=0" | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=SKIP
// RUN: metaattn-run %s --device=cpu --resource-report --skip-loads --kept-tiles=0 --kv-tile-bounds=0 | FileCheck %s --check-prefix=SKIPNVRTC
// RUN: metaattn-run %s --device=cpu --function=ids32 --batch=2 --seq-q=150 --seq-kv=300 --documents=3 --skip-loads --kept-tiles=0 --kv-tile-bounds=0 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=ids32 --batch=2 --seq-q=150 --seq-kv=300 --documents=3 --kept-tiles=0 --kv-tile-bounds=0 | FileCheck %s --check-prefix=RAN

// CHECK-LABEL: tile.kernel @ids32
// CHECK: static __device__ __forceinline__ void metaattn_warp_bounds(
// CHECK: __reduce_min_sync
// CHECK: __shfl_xor_sync
// CHECK: static __device__ __forceinline__ void metaattn_read_bounds(
// CHECK: if (warp) metaattn_warp_bounds(lo, hi);
// CHECK: static __device__ __forceinline__ void metaattn_read_bounds_lane(
// The kept list's test (the producer's and the consumers'): the block's rows' ids bounded
// once by the warp, each lane bounding its own tile's keys alone, eight loads in flight for
// the count and two for the cursor; the producer keeps 56 registers for that.
// CHECK: tile.warp_specialize producer
// CHECK-NEXT: setMaxRegs<false, 56>();
// CHECK: metaattn_read_bounds_lean<int, 2, 2>(input0,
// CHECK: -> unsigned {  // tile.kept_tiles
// CHECK: metaattn_read_bounds_lane<int, 2, decltype([[PLOADS:v[0-9]+_loads]])::value>(input1,
// CHECK: metaattn::dev::warp::countKept<0, 8>(
// CHECK-NEXT: metaattn::dev::KeptCursor<0, 2>
// CHECK: tile.warp_specialize consumer
// CHECK-NEXT: setMaxRegs<true, 224>();
// CHECK: metaattn_read_bounds<int>(input0, {{.*}}  // tile.read_bounds
// CHECK: -> unsigned {  // tile.kept_tiles
// CHECK: metaattn_read_bounds_lane<int, 2, decltype([[CLOADS:v[0-9]+_loads]])::value>(input1,
// CHECK: metaattn::dev::warp::countKept<1, 8>(
// CHECK-NEXT: metaattn::dev::KeptCursor<1, 2>
// In the loop a tile's keys are bounded only where the list did not mark it unmasked.
// CHECK: for (int
// CHECK: const bool [[UNMASKED:v[0-9]+]] = kept{{[0-9]+}}.mark(0);
// CHECK-NOT: metaattn_read_bounds
// CHECK: if (metaattn::dev::warpUniform([[UNMASKED]])) {
// CHECK-NOT: metaattn_read_bounds
// CHECK: } else {
// CHECK: int [[LO:v[0-9]+]], [[HI:v[0-9]+]];
// CHECK-NEXT: metaattn_read_bounds<int>(input1, {{.*}}, 1, (long long)v{{[0-9]+}}, [[LO]], [[HI]]);  // tile.read_bounds
// With 64-bit ids the producer keeps 24 registers and walks one load at a time.
// CHECK-LABEL: tile.kernel @ids64
// CHECK: tile.warp_specialize producer
// CHECK-NEXT: setMaxRegs<false, 24>();
// CHECK: metaattn::dev::warp::countKept<0, 1>(
// CHECK: tile.warp_specialize consumer
// CHECK: metaattn_read_bounds<long long>(input0,
// CHECK: metaattn_read_bounds<long long>(input1,

// NVRTC: resources ids32
// NVRTC-SAME: spills 0 B stored
// NVRTC: resources ids64
// NVRTC-SAME: spills 0 B stored

// SKIP-LABEL: tile.kernel @ids32
// SKIP: static __device__ __forceinline__ void metaattn_read_bounds_lean(
// SKIP: if ((int)threadIdx.x < 288) {  // one warp
// SKIP: if ((threadIdx.x & 31) == 0) metaattn::dev::tma::loadTile(
// SKIP: __syncwarp();
// SKIP-NEXT: int [[QLO:v[0-9]+]], [[QHI:v[0-9]+]];
// SKIP-NEXT: metaattn_read_bounds_lean<int, 2, 2>(input0,
// SKIP: for (int
// SKIP: __syncwarp();
// SKIP-NEXT: int [[LO:v[0-9]+]], [[HI:v[0-9]+]];
// SKIP-NEXT: metaattn_read_bounds_lean<int, 2, 2>(input1,
// SKIP: metaattn::dev::mbar::wait(
// SKIP-NEXT: if (metaattn::dev::warpUniform([[KEEP:v[0-9]+]])) {
// SKIP-NEXT: if ((threadIdx.x & 31) == 0) metaattn::dev::mbar::arriveExpectTx({{.*}}, 16384);
// SKIP: if ((threadIdx.x & 31) == 0) metaattn::dev::tma::loadTile(
// SKIP-NEXT: } else {
// SKIP-NEXT: if ((threadIdx.x & 31) == 0) metaattn::dev::mbar::arriveExpectTx({{.*}}, 0);
// SKIP: } else {  // tile.warp_specialize consumer
// SKIP: metaattn_read_bounds<int>(input1,
// SKIPNVRTC: resources ids32
// SKIPNVRTC-SAME: spills 0 B stored

// RAN-NOT: FAIL
// RAN: PASS ids32

func.func @ids32(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %qid: tensor<?x?xi32>, %kid: tensor<?x?xi32>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%qid, %kid : tensor<?x?xi32>, tensor<?x?xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      %c8 = arith.constant 0.125 : f32
      %x = arith.mulf %s, %c8 : f32
      attn.yield %x : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      %same = arith.cmpi eq, %a, %c : i32
      %causal = arith.cmpi sle, %ki, %qi : index
      %keep = arith.andi %same, %causal : i1
      attn.yield %keep : i1
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

func.func @ids64(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %qid: tensor<?x?xi64>, %kid: tensor<?x?xi64>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%qid, %kid : tensor<?x?xi64>, tensor<?x?xi64>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i64, %c: i64):
      %c8 = arith.constant 0.125 : f32
      %x = arith.mulf %s, %c8 : f32
      attn.yield %x : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i64, %c: i64):
      %same = arith.cmpi eq, %a, %c : i64
      %causal = arith.cmpi sle, %ki, %qi : index
      %keep = arith.andi %same, %causal : i1
      attn.yield %keep : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i64, %c: i64):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["b,q", "b,kv"]}
    : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}

