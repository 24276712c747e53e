// The fused chunk kernel at RetNet 6.7B's head dims (Dk = 256, Dv = 512): the model takes one
// stage with V̂ written into Q's first key tile once the chunk's Q gemms are done (two blocks
// per multiprocessor), the update then in flight until P V; two stages asked for keep V̂ in a
// tile of its own and issue the update with the chunk's other gemms. Both match the oracle on
// the CPU tile executor (which runs an async gemm at its wait, on what its operands hold
// then), also from an initial state to a final one.
// RUN: metaattn-variant retnet_recurrent --dim=256 --value-dim=512 --heads=2 --name=retnet > %t.mlir
// RUN: metaattn-run %t.mlir --device=cpu --fused-chunks --batch=1 --seq-q=65 | FileCheck %s --check-prefix=OK
// RUN: metaattn-run %t.mlir --device=cpu --fused-chunks --stages=2 --batch=1 --seq-q=130 | FileCheck %s --check-prefix=OK
// RUN: metaattn-opt %t.mlir --metaattn-lower="fused-chunks=1" | FileCheck %s --check-prefix=INPLACE
// RUN: metaattn-opt %t.mlir --metaattn-lower="fused-chunks=1 stages=2" | FileCheck %s --check-prefix=APART
// RUN: metaattn-run %s --device=cpu --fused-chunks --batch=2 --seq-q=70 | FileCheck %s --check-prefix=STATES
// Mamba2 in fp16 with random A of either sign grows past fp16's range at 130 tokens: an
// infinity of the oracle's sign where the oracle exceeds 65520 is a match, both kernel forms.
// RUN: metaattn-variant mamba2_ssd --dim=128 --value-dim=64 --heads=4 --kv-heads=1 --f16 --name=m16 > %t.m16.mlir
// RUN: metaattn-run %t.m16.mlir --device=cpu --batch=1 --seq-q=130 | FileCheck %s --check-prefix=F16
// RUN: metaattn-run %t.m16.mlir --device=cpu --fused-chunks --batch=1 --seq-q=130 | FileCheck %s --check-prefix=F16

// OK: PASS retnet

// INPLACE: tile.kernel @retnet({{.*}}tile.min_blocks_per_sm = 2
// INPLACE: scf.for
// INPLACE: tile.gemm %[[Q0:[0-9]+]], %[[K0:[0-9]+]], %{{[0-9]+}} {async, tile.wgmma, transpose_b}
// INPLACE-COUNT-7: tile.gemm {{.*}} {async, tile.wgmma
// INPLACE-NEXT: tile.gemm_wait 0
// INPLACE-NEXT: tile.barrier
// INPLACE: tile.barrier
// INPLACE-NEXT: tile.gemm %[[K0]], %[[Q0]], %{{[0-9]+}} {async, tile.wgmma, transpose_a}
// INPLACE-COUNT-3: {async, tile.wgmma, transpose_a}
// INPLACE-NOT: tile.gemm_wait
// INPLACE: tile.gemm {{.*}} {tile.wgmma} : memref<64x64xbf16, #tile.space<fragment>>
// INPLACE-NEXT: tile.gemm_wait 0

// APART: tile.kernel @retnet({{.*}}tile.min_blocks_per_sm = 1
// APART: scf.for
// APART-COUNT-8: tile.gemm {{.*}} {async, tile.wgmma
// APART-NEXT: tile.gemm {{.*}} {async, tile.wgmma, transpose_a}
// APART-COUNT-3: tile.gemm {{.*}} {async, tile.wgmma, transpose_a}
// APART-NEXT: tile.gemm_wait 4

// F16: 0 of 33280 elements outside
// F16: PASS m16

// STATES-NOT: FAIL
// STATES: PASS retnet_states
// STATES-NOT: FAIL

// A gated recurrence at Dk = 128 from an initial state to a final one (two key tiles of state
// fragments, each read from and written to its rows of the [B, H, Dk, Dv] states).
func.func @retnet_states(%q: tensor<?x?x2x128xbf16>, %k: tensor<?x?x2x128xbf16>, %v: tensor<?x?x2x64xbf16>, %g: tensor<?x?x2xf32>, %s0: tensor<?x2x128x64xf32>) -> (tensor<?x?x2x64xbf16>, tensor<?x2x128x64xf32>) {
  %o, %s = attn.recurrent %q, %k, %v gate(%g : tensor<?x?x2xf32>) initial_state(%s0 : tensor<?x2x128x64xf32>) {gate_kind = #attn<gate token>} : tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>, tensor<?x2x128x64xf32>
  return %o, %s : tensor<?x?x2x64xbf16>, tensor<?x2x128x64xf32>
}
