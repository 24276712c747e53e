// RUN: metaattn-opt %s --metaattn-lower="gemm-overlap=1 block-m=128 warps=8" | FileCheck %s
// RUN: metaattn-run %s --device=cpu --gemm-overlap --block-m=128 --warps=8 --batch=1 --seq-q=77 --seq-kv=300 | FileCheck %s --check-prefix=RAN

// tile-gemm-overlap on a causal kernel (two consumer warpgroups: D64 alone takes three, which
// are not overlapped), whose gemms sit under the "tile not fully masked"
// guard. The consumers wait for K(j) at the top of iteration j and for V(j) only where V(j)'s
// output gemm is issued, behind the score gemm of iteration j + 1 (or in a skipped tile's
// branch): V(j + 1)'s copy starts only when V(j - 1)'s stage is released at the end of
// iteration j, so a wait for it at the top of iteration j + 1 would stall every tile for one
// TMA round trip. A skipped tile's V copy is waited for before its stage is released, and the
// last one after the loop.
// CHECK: } consumer {
// CHECK: %[[LOOP:.*]] = scf.for %[[J:[a-z0-9]+]] = %[[LO:[a-z0-9]+]] to %[[HI:[a-z0-9]+]] step %{{.*}} iter_args(%[[OWED:.*]] = %false) -> (i1) {
// CHECK: tile.mbarrier_wait %[[KFULL:[0-9]+]][
// CHECK-NOT: tile.mbarrier_wait
// CHECK: scf.if
// CHECK-NEXT: tile.fill
// CHECK-NEXT: tile.gemm {{.*}} {async, tile.wgmma, transpose_b}
// CHECK-NEXT: scf.if %[[OWED]] {
// CHECK-NEXT: %[[PREV:.*]] = arith.subi %[[J]], %c1
// CHECK: tile.mbarrier_wait %[[VFULL:[0-9]+]][%[[VS:[0-9]+]]], %[[VP:[0-9]+]]
// CHECK-NEXT: %[[VTILE:.*]] = tile.stage %{{.*}}[%[[VS]]]
// CHECK-NEXT: tile.gemm %{{.*}}, %[[VTILE]], %{{.*}} {async, tile.wgmma}
// CHECK-NEXT: tile.gemm_wait 1
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.gemm_wait 0
// A skipped tile: the owed output gemm after its wait.
// CHECK: scf.if %[[OWED]] {
// CHECK: tile.mbarrier_wait %[[VFULL]]
// CHECK-NEXT: tile.stage
// CHECK-NEXT: tile.gemm {{.*}} {tile.wgmma}
// The release of V(j - 1), after a wait for it.
// CHECK: scf.if
// CHECK: tile.mbarrier_wait %[[VFULL]]
// CHECK-NEXT: tile.mbarrier_arrive
// CHECK: scf.yield
// After the loop: the last V copy when the loop ran, then the last output gemm.
// CHECK: arith.cmpi sgt, %[[HI]], %[[LO]]
// CHECK-NEXT: scf.if
// CHECK: tile.mbarrier_wait %[[VFULL]]
// CHECK: scf.if %[[LOOP]] {
// CHECK: tile.gemm {{.*}} {tile.wgmma}
// RAN: PASS causal
func.func @causal(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> (tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.250000000e-01 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
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
    } : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
}

