// RUN: metaattn-opt %s --metaattn-lower="target=sm_90" | metaattn-translate --tile-to-cuda | FileCheck %s
// RUN: metaattn-opt %s --metaattn-lower="gemm-overlap=1 block-m=128 warps=8" | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=HOPPER

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
// exp(s - max) is one fma and one ex2 per element; the subtraction it reads through is not
// printed (NVRTC would warn about a dead variable):
// CHECK-NOT: - v
// CHECK: metaattn::dev::expSub(v{{[0-9]+}}, v{{[0-9]+}});
// CHECK: metaattn::dev::warp::rowSum(
// CHECK: metaattn::dev::warp::gemmRS<false>(
// CHECK: metaattn::dev::block::storeFrag<128, bf16>(o,
// CHECK-NOT: wgmma

// On sm_90a (the default) the kernel is warp-specialised: a producer warpgroup (threads
// 256..383, one thread issuing) first copies the query tile by TMA (its own mbarrier, which the
// consumers wait on where they loaded it before), then 128-row K and V tiles into a two-stage
// ring on 1024-byte aligned shared memory (mbarrier arrays 16-byte aligned after the rings),
// announced on "full" mbarriers; two consumer warpgroups of 64
// query rows wait for a stage, run both gemms as warpgroup wgmma calls and release the stage on
// its "empty" mbarrier, one arrival per warp. The producer gives registers to the consumers
// (setmaxnreg), the consumers need no barrier among themselves (every shared tile they read
// arrives by TMA, observed on its mbarrier by each thread), and the TMA descriptors are
// kernel parameters after the tensors.
// HOPPER: #include "metaattn/tile.cuh"
// HOPPER-NEXT: #include "metaattn/warpgroup.cuh"
// HOPPER-NEXT: #include "metaattn/tma.cuh"
// HOPPER: __launch_bounds__(384, 1) causal(
// HOPPER: const metaattn::dev::TensorRef<4> o,
// HOPPER-NEXT: const __grid_constant__ metaattn::dev::TmaDesc tmap0,
// HOPPER-NEXT: const __grid_constant__ metaattn::dev::TmaDesc tmap1,
// HOPPER-NEXT: const __grid_constant__ metaattn::dev::TmaDesc tmap2) {
// HOPPER: extern __shared__ __align__(1024) unsigned char smem_raw[];
// HOPPER-NEXT: unsigned char* const smem = smem_raw + ((1024u - (metaattn::dev::detail::sharedAddr(smem_raw) & 1023u)) & 1023u);
// HOPPER: metaattn::dev::SmemTile<bf16, 128, 64, 2> [[KS:v[0-9]+]](smem + 0);
// HOPPER: metaattn::dev::SmemTile<bf16, 128, 64, 2> [[VS:v[0-9]+]](smem + 32768);
// HOPPER: metaattn::dev::SmemVec<long long, 2> [[KFULL:v[0-9]+]](smem + 65536);
// HOPPER: metaattn::dev::SmemVec<long long, 2> [[KEMPTY:v[0-9]+]](smem + 65552);
// HOPPER: metaattn::dev::mbar::init(&[[KFULL]][i], 1);
// HOPPER: metaattn::dev::mbar::init(&[[KEMPTY]][i], 8);
// HOPPER: metaattn::dev::SmemVec<long long, 2> [[VFULL:v[0-9]+]](smem + 65568);
// HOPPER: metaattn::dev::SmemVec<long long, 2> [[VEMPTY:v[0-9]+]](smem + 65584);
// HOPPER: metaattn::dev::SmemVec<long long, 1> [[QFULL:v[0-9]+]](smem + 65600);
// HOPPER: metaattn::dev::mbar::init(&[[QFULL]][i], 1);
// HOPPER: metaattn::dev::block::barrierAsyncProxy();
// HOPPER-NEXT: metaattn::dev::SmemTile<bf16, 128, 64> [[QS:v[0-9]+]](smem + 66560);
// HOPPER-NEXT: if ((int)threadIdx.x >= 256) {  // tile.warp_specialize producer
// HOPPER-NEXT: metaattn::dev::wg::setMaxRegs<false, 24>();
// HOPPER-NEXT: if ((int)threadIdx.x == 256) {
// HOPPER: metaattn::dev::mbar::arriveExpectTx(&[[QFULL]][[[ZERO:v[0-9]+]]], 16384);
// HOPPER: metaattn::dev::tma::loadTile([[QS]], tmap0, {{origin[0-9]+}}, &[[QFULL]][[[ZERO]]]);
// HOPPER: for (
// HOPPER: metaattn::dev::mbar::wait(&[[KEMPTY]][[[SLOT:v[0-9]+]]], {{v[0-9]+}});
// HOPPER-NEXT: metaattn::dev::mbar::arriveExpectTx(&[[KFULL]][[[SLOT]]], 16384);
// HOPPER: metaattn::dev::tma::loadTile({{v[0-9]+}}, tmap1, {{origin[0-9]+}}, &[[KFULL]][[[SLOT]]]);
// HOPPER: metaattn::dev::mbar::wait(&[[VEMPTY]][[[SLOT]]], {{v[0-9]+}});
// HOPPER-NEXT: metaattn::dev::mbar::arriveExpectTx(&[[VFULL]][[[SLOT]]], 16384);
// HOPPER: metaattn::dev::tma::loadTile({{v[0-9]+}}, tmap2, {{origin[0-9]+}}, &[[VFULL]][[[SLOT]]]);
// HOPPER: } else {  // tile.warp_specialize consumer
// HOPPER-NEXT: metaattn::dev::wg::setMaxRegs<true, 240>();
// HOPPER: metaattn::dev::Frag<float, 128, 128, 8> [[S:v[0-9]+]];
// HOPPER-NOT: loadTile
// HOPPER: metaattn::dev::mbar::wait(&[[QFULL]][[[ZERO]]], [[ZERO]]);
// HOPPER-NOT: namedBarrier
// The score gemm is issued without waiting; the previous tile's output gemm runs behind it
// (tile-gemm-overlap) and is retired before the output is rescaled. The score gemm overwrites
// its accumulator (its first wgmma does not read it), so the zero fill before it is not printed.
// HOPPER: metaattn::dev::mbar::wait(&[[KFULL]][[[CSLOT:v[0-9]+]]], {{v[0-9]+}});
// HOPPER: // tile.fill: [[S]] is overwritten by the gemm
// HOPPER-NEXT: metaattn::dev::wg::gemmSS<true, false, true>([[S]], [[QS]], {{v[0-9]+}});  // tile.gemm (async) (overwrites)
// HOPPER: metaattn::dev::wg::gemmRS<false, false>(
// HOPPER-NEXT: metaattn::dev::wg::waitGemms<1>([[S]]);
// HOPPER: metaattn::dev::wg::waitGemms<0>([[S]]);
// HOPPER: metaattn::dev::wg::waitGemms<0>([[O:v[0-9]+]]);
// HOPPER: __syncwarp();
// HOPPER-NEXT: if ((threadIdx.x & 31) == 0) metaattn::dev::mbar::arrive(&[[VEMPTY]][
// HOPPER: metaattn::dev::wg::gemmRS<false>([[O]],
// HOPPER: metaattn::dev::block::storeFrag<256, bf16>(o,
// HOPPER-NOT: block::barrier();
// HOPPER-NOT: cp.async
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
