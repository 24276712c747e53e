// RUN: metaattn-opt %s --metaattn-lower="target=sm_90" | metaattn-translate --tile-to-cuda | FileCheck %s
// RUN: metaattn-opt %s --metaattn-lower | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=HOPPER

// The printer calls the device library: cp.async tiles, mma gemms, warp reductions, and
// unrolled element loops over the owning thread's fragment elements.
// CHECK: #include "metaattn/tile.cuh"
// CHECK: extern "C" __global__ void __launch_bounds__(128) causal(
// CHECK-NEXT: const metaattn::dev::TensorRef<4> q,
// CHECK: const metaattn::dev::TensorRef<4> o) {
// CHECK: extern __shared__ __align__(128) unsigned char smem[];
// CHECK: metaattn::dev::SmemTile<bf16, 64, 64> [[QS:v[0-9]+]](smem + 0);
// CHECK: metaattn::dev::SmemTile<bf16, 64, 64, 2> [[KS:v[0-9]+]](smem + 8192);
// CHECK: metaattn::dev::Frag<float, 64, 64, 4> [[S:v[0-9]+]];
// CHECK: metaattn::dev::RowVec<64, 4>
// CHECK: metaattn::dev::block::loadTile<128>([[QS]], q,
// CHECK: metaattn::dev::block::loadTileAsync<128>(
// CHECK: metaattn::dev::block::asyncCommit();
// CHECK: for (int [[J:v[0-9]+]] =
// CHECK: metaattn::dev::block::asyncWait<0>();
// CHECK: metaattn::dev::warp::gemmSS<true>([[S]], [[QS]],
// CHECK: for (int [[E:e[0-9]+]] = 0; [[E]] < [[P:P[0-9]+]]::kElems; ++[[E]]) {
// CHECK: = [[P]]::row([[E]]);
// CHECK: metaattn::dev::warp::rowMax([[S]],
// CHECK: metaattn::dev::exp(
// CHECK: metaattn::dev::warp::rowSum(
// CHECK: metaattn::dev::warp::gemmRS<false>(
// CHECK: metaattn::dev::block::storeFrag<128, bf16>(o,
// CHECK-NOT: wgmma

// On sm_90a (the default) the kernel has two warpgroups of 64 query rows and a three-stage
// ring of 64-row K and V tiles; both gemms are
// warpgroup wgmma calls on 1024-byte aligned shared tiles, and every barrier also publishes
// shared writes to the async proxy.
// HOPPER: #include "metaattn/tile.cuh"
// HOPPER-NEXT: #include "metaattn/warpgroup.cuh"
// HOPPER: __launch_bounds__(256) causal(
// HOPPER: extern __shared__ __align__(1024) unsigned char smem_raw[];
// HOPPER-NEXT: unsigned char* const smem = smem_raw + ((1024u - (metaattn::dev::detail::sharedAddr(smem_raw) & 1023u)) & 1023u);
// HOPPER: metaattn::dev::SmemTile<bf16, 128, 64> [[QS:v[0-9]+]](smem + 0);
// HOPPER: metaattn::dev::SmemTile<bf16, 64, 64, 3> {{v[0-9]+}}(smem + 16384);
// HOPPER: metaattn::dev::SmemTile<bf16, 64, 64, 3> {{v[0-9]+}}(smem + 40960);
// HOPPER: metaattn::dev::Frag<float, 128, 64, 8> [[S:v[0-9]+]];
// HOPPER: metaattn::dev::block::barrierAsyncProxy();
// HOPPER: metaattn::dev::wg::gemmSS<true>([[S]], [[QS]],
// HOPPER: metaattn::dev::wg::gemmRS<false>(
// HOPPER-NOT: block::barrier();
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
