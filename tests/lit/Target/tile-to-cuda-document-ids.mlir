// REQUIRES: nvrtc
// tile.read_bounds (the ids of a kv tile's rows and keys, for its classification) prints as a
// call of metaattn_read_bounds, defined once in the kernel's prologue: the lanes of a warp
// split the range and combine with redux (32-bit ids) or shuffles (64-bit ids). NVRTC and
// ptxas compile both (sm_90a and sm_90); the CPU executor runs the 32-bit ids (metaattn-run
// draws no 64-bit inputs).
// RUN: metaattn-opt %s --metaattn-lower | metaattn-translate --tile-to-cuda | FileCheck %s
// RUN: metaattn-run %s --device=cpu --resource-report | FileCheck %s --check-prefix=NVRTC
// RUN: metaattn-run %s --device=cpu --resource-report --target=sm_90 | FileCheck %s --check-prefix=NVRTC
// RUN: metaattn-run %s --device=cpu --function=ids32 --batch=2 --seq-q=150 --seq-kv=150 --documents=3 | FileCheck %s --check-prefix=RAN

// CHECK-LABEL: tile.kernel @ids32
// CHECK: static __device__ __forceinline__ void metaattn_read_bounds(
// CHECK: __reduce_min_sync
// CHECK: __shfl_xor_sync
// The rows' ids are bounded once, before the kv loop; each tile's keys in the loop.
// CHECK: metaattn_read_bounds<int>(input0, {{.*}}  // tile.read_bounds
// CHECK: for (int
// CHECK: int [[LO:v[0-9]+]], [[HI:v[0-9]+]];
// CHECK-NEXT: metaattn_read_bounds<int>(input1, {{.*}}, 1, (long long)v{{[0-9]+}}, [[LO]], [[HI]]);  // tile.read_bounds
// CHECK-LABEL: tile.kernel @ids64
// CHECK: metaattn_read_bounds<long long>(input0,
// CHECK: metaattn_read_bounds<long long>(input1,

// NVRTC: resources ids32
// NVRTC-SAME: spills 0 B stored
// NVRTC: resources ids64
// NVRTC-SAME: spills 0 B stored

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

