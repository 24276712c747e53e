// REQUIRES: nvrtc
// metaattn-run --resource-report compiles each kernel with NVRTC and ptxas (no GPU) and prints
// registers, spills, shared memory, threads and the gemm path: on sm_90a (the default) D = 64
// attention runs both gemms on wgmma in three consumer warpgroups (192 query rows) fed by a
// TMA producer warpgroup (512 threads); on sm_90 it keeps mma.sync in four warps. An odd head
// dim up to 256 (72) is padded to whole 64-element swizzle blocks (128, zeros loaded past 72)
// and takes the same path on sm_90a (two consumer warpgroups, the output gemm overlapped: it
// is also issued in a skipped tile's branch and for the last tile after the loop); one that pads past 256 (264) keeps mma.sync and cp.async.
// RUN: metaattn-run %s --device=cpu --resource-report | FileCheck %s
// RUN: metaattn-run %s --device=cpu --resource-report --target=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: not metaattn-run %s --device=cpu --resource-report --target=gfx90a 2>&1 | FileCheck %s --check-prefix=HIP

// CHECK: causal (target sm_90a)
// CHECK-NEXT: resources causal (sm_90a): {{[0-9]+}} registers/thread, spills 0 B stored / 0 B loaded, {{[0-9]+}} B dynamic shared, 512 threads; gemms: {{[0-9]+}} wgmma, 0 mma.sync
// CHECK: odd (target sm_90a)
// CHECK-NEXT: resources odd (sm_90a): {{[0-9]+}} registers/thread, spills 0 B stored / 0 B loaded, {{[0-9]+}} B dynamic shared, 384 threads; gemms: 4 wgmma, 0 mma.sync
// CHECK: wide (target sm_90a)
// CHECK-NEXT: resources wide (sm_90a): {{[0-9]+}} registers/thread, spills 0 B stored / 0 B loaded, {{[0-9]+}} B dynamic shared, 128 threads; gemms: 0 wgmma, 2 mma.sync
// SM90: resources causal (sm_90a): {{.*}} 128 threads; gemms: 0 wgmma, 2 mma.sync
// HIP: --resource-report compiles CUDA; target gfx90a is not an NVIDIA architecture
func.func @causal(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %lim = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %lim : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

func.func @odd(%q: tensor<?x?x4x72xbf16>, %k: tensor<?x?x4x72xbf16>, %v: tensor<?x?x4x72xbf16>) -> tensor<?x?x4x72xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %lim = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %lim : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x72xbf16>, tensor<?x?x4x72xbf16>, tensor<?x?x4x72xbf16> -> tensor<?x?x4x72xbf16>
  return %o : tensor<?x?x4x72xbf16>
}

func.func @wide(%q: tensor<?x?x2x264xbf16>, %k: tensor<?x?x2x264xbf16>, %v: tensor<?x?x2x264xbf16>) -> tensor<?x?x2x264xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %lim = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %lim : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x2x264xbf16>, tensor<?x?x2x264xbf16>, tensor<?x?x2x264xbf16> -> tensor<?x?x2x264xbf16>
  return %o : tensor<?x?x2x264xbf16>
}
