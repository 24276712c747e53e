// REQUIRES: nvrtc
// kv-tile-bounds (the default): a pre-pass kernel, one warp per kv tile, bounds each tile's key
// ids once (metaattn_read_bounds) and its first thread writes them (tile.write); the attention
// kernel's kept list then reads two values per tile (metaattn_read_pred) where each lane bounded
// a tile's ids, so the producer keeps 24 registers and the consumers get 240. NVRTC and ptxas
// compile both kernels without spills; the CPU executor runs them against the oracle at
// lengths just past a tile, a length of one, unsorted ids, Sq != Skv, the persistent kernel,
// the per-tile form (kept-tiles=0) and the mma.sync path.
// RUN: metaattn-opt %s --metaattn-lower | metaattn-translate --tile-to-cuda | FileCheck %s
// RUN: metaattn-run %s --device=cpu --resource-report | FileCheck %s --check-prefix=NVRTC
// A kernel whose branches read nothing from memory (softcap: block ids, sizes) gets no vote:
// ptxas sees those conditions uniform, and the vote cost softcap 8% on the H100.
// RUN: metaattn-opt %S/../../../frontend/variants/softcap.mlir --metaattn-lower | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=NOVOTE
// NOVOTE-NOT: warpUniform(
// NOVOTE: tile.warp_specialize consumer
// NOVOTE-NOT: warpUniform(
// RUN: metaattn-run %s --device=cpu --function=ids32 --batch=2 --seq-q=150 --seq-kv=150 --documents=3 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=ids32 --batch=1 --seq-q=129 --seq-kv=300 --documents=1 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=ids32 --batch=2 --seq-q=1 --seq-kv=1 --documents=1 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=ids32 --batch=2 --seq-q=200 --seq-kv=77 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=ids32 --batch=1 --seq-q=260 --seq-kv=260 --documents=5 --persistent | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=ids32 --batch=1 --seq-q=260 --seq-kv=260 --documents=5 --kept-tiles=0 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=ids32 --batch=1 --seq-q=150 --seq-kv=270 --documents=4 --target=sm_80 | FileCheck %s --check-prefix=RAN

// CHECK-LABEL: tile.kernel @ids32_step1
// CHECK-NOT: metaattn_read_bounds_lane
// CHECK: const metaattn::dev::TensorRef<3> input1_tile_bounds
// CHECK: tile.warp_specialize producer
// CHECK-NEXT: setMaxRegs<false, 24>();
// CHECK: -> unsigned {  // tile.kept_tiles
// CHECK: metaattn_read_pred<int>(input1_tile_bounds,
// CHECK: metaattn_read_pred<int>(input1_tile_bounds,
// CHECK: tile.warp_specialize consumer
// CHECK-NEXT: setMaxRegs<true, 240>();
// CHECK: -> unsigned {  // tile.kept_tiles
// CHECK-NOT: metaattn_read_bounds<int>(input1,
// CHECK: metaattn_read_pred<int>(input1_tile_bounds,
// The loop's branches on the mark and on values read from memory are said to be uniform over
// the warp (warpUniform: a vote), those in element loops are not.
// CHECK: kept{{[0-9]+}}.at(
// CHECK: if (metaattn::dev::warpUniform(v{{[0-9]+}})) {
// CHECK: for (int e{{[0-9]+}} = 0;
// CHECK-NOT: warpUniform
// CHECK: }
// CHECK-LABEL: tile.kernel @ids32_step0
// CHECK: static __device__ __forceinline__ void metaattn_write(
// CHECK: static_cast<T*>(t.data)[offset] = v;
// CHECK: const metaattn::dev::TensorRef<2> input1,
// CHECK-NEXT: const metaattn::dev::TensorRef<3> input1_tile_bounds
// CHECK: metaattn_read_bounds<int>(input1, {{.*}}, 1, (long long)v{{[0-9]+}}, [[LO:v[0-9]+]], [[HI:v[0-9]+]]);
// CHECK-NEXT: if (threadIdx.x == 0) metaattn_write<int>(input1_tile_bounds, {{.*}}, [[LO]]);  // tile.write
// CHECK-NEXT: if (threadIdx.x == 0) metaattn_write<int>(input1_tile_bounds, {{.*}}, [[HI]]);  // tile.write
// CHECK-LABEL: tile.kernel @ids64_step1
// CHECK: metaattn_read_pred<long long>(input1_tile_bounds,
// CHECK-LABEL: tile.kernel @ids64_step0
// CHECK: metaattn_write<long long>(input1_tile_bounds,

// NVRTC-DAG: resources ids32_step1 {{.*}} spills 0 B stored
// NVRTC-DAG: resources ids32_step0 {{.*}} spills 0 B stored
// NVRTC-DAG: resources ids64_step1 {{.*}} spills 0 B stored
// NVRTC-DAG: resources ids64_step0 {{.*}} spills 0 B stored

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

