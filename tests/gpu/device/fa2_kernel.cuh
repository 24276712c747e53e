//===- fa2_kernel.cuh - FlashAttention-2 forward on the device library ----===//
///
/// \file
/// A FlashAttention-2-style forward kernel written only with metaattn/tile.cuh,
/// in the shape the emitter produces: 4 warps, BM = BN = 64, bf16 inputs,
/// 2-stage cp.async pipeline over K/V, online softmax in the log2 domain with
/// the fully-masked-row guard, output O (bf16) and log-sum-exp (float, natural
/// log). Compiled both by nvcc (device_lib_test.cu) and by NVRTC
/// (nvrtc_check.cpp), so it includes nothing but the library.
///
/// Layout: q [B, H, Sq, D], k [B, H, Skv, D], v [B, H, Skv, Dv],
/// o [B, H, Sq, Dv], lse [B, H, Sq]; any strides. Grid (ceil(Sq/64), H, B),
/// 128 threads, fa2SmemBytes<D, Dv>() bytes of dynamic shared memory.
/// Causal masking is bottom-right aligned: query i sees key j iff
/// j <= i + Skv - Sq. Rows that see no key get O = 0 and lse = -inf.
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/tile.cuh"

namespace fa2 {
using namespace metaattn::dev;

constexpr int kBM = 64, kBN = 64, kWarps = 4, kThreads = 128;

template <int D, int Dv> __host__ __device__ constexpr int smemBytes() {
  return SmemTile<bf16, kBM, D>::kBytes + SmemTile<bf16, kBN, D, 2>::kBytes +
         SmemTile<bf16, kBN, Dv, 2>::kBytes;
}

template <int D, int Dv, bool Causal>
__global__ void __launch_bounds__(kThreads) forward(TensorRef<4> q, TensorRef<4> k, TensorRef<4> v,
                                                    TensorRef<4> o, TensorRef<3> lse, float scale) {
  extern __shared__ __align__(128) unsigned char smem[];
  // tile.alloc: Q (1 stage), K and V (2 stages each).
  SmemTile<bf16, kBM, D> sQ(smem);
  SmemTile<bf16, kBN, D, 2> sK(smem + sQ.kBytes);
  SmemTile<bf16, kBN, Dv, 2> sV(smem + sQ.kBytes + sK.kBytes);
  using SFrag = Frag<float, kBM, kBN, kWarps>;
  using OFrag = Frag<float, kBM, Dv, kWarps>;
  using Rows = RowVec<kBM, kWarps>;

  const long long b = blockIdx.z, h = blockIdx.y, q0 = (long long)blockIdx.x * kBM;
  const long long sq = q.sizes[2], skv = k.sizes[2];
  const float scaleLog2 = scale * kLog2e;

  // Number of key blocks this query block sees.
  long long nBlocks = (skv + kBN - 1) / kBN;
  if (Causal) {
    const long long lastKey = q0 + kBM - 1 + skv - sq;
    nBlocks = lastKey < 0 ? 0 : (lastKey / kBN + 1 < nBlocks ? lastKey / kBN + 1 : nBlocks);
  }

  // tile.copy (prologue): Q and the first K/V block, one cp.async group.
  if (nBlocks > 0) {
    const long long qOrigin[4] = {b, h, q0, 0};
    const long long kvOrigin[4] = {b, h, 0, 0};
    block::loadTileAsync<kThreads>(sQ, q, qOrigin, 2, 3);
    block::loadTileAsync<kThreads>(sK.stage(0), k, kvOrigin, 2, 3);
    block::loadTileAsync<kThreads>(sV.stage(0), v, kvOrigin, 2, 3);
  }
  block::asyncCommit();

  OFrag acc;
  acc.fill(0.f);
  Rows rowMax, rowSum;
  rowMax.fill(negInf());
  rowSum.fill(0.f);

  // tile.pipelined (num_stages = 2) over key blocks.
  for (int j = 0; j < nBlocks; ++j) {
    const int stage = j & 1;
    if (j + 1 < nBlocks) {
      const long long kvOrigin[4] = {b, h, (long long)(j + 1) * kBN, 0};
      block::loadTileAsync<kThreads>(sK.stage(stage ^ 1), k, kvOrigin, 2, 3);
      block::loadTileAsync<kThreads>(sV.stage(stage ^ 1), v, kvOrigin, 2, 3);
      block::asyncCommit();
      block::asyncWait<1>();
    } else {
      block::asyncWait<0>();
    }
    block::barrier();

    // tile.gemm: S = Q K^T.
    SFrag s;
    s.fill(0.f);
    warp::gemmSS<true>(s, sQ, sK.stage(stage));

    // tile.parallel: scale to the log2 domain, mask.
#pragma unroll
    for (int e = 0; e < SFrag::kElems; ++e) {
      const long long i = q0 + SFrag::row(e), jj = (long long)j * kBN + SFrag::col(e);
      const bool keep = jj < skv && (!Causal || jj <= i + skv - sq);
      s[e] = keep ? s[e] * scaleLog2 : negInf();
    }

    // tile.reduce max; online-softmax rescale with the -inf-row guard.
    Rows newMax = rowMax, alpha, base;
    warp::rowMax(s, newMax, /*accumulate=*/true);
#pragma unroll
    for (int r = 0; r < Rows::kSlots; ++r) {
      base[r] = newMax[r] == negInf() ? 0.f : newMax[r];
      alpha[r] = exp2Approx(rowMax[r] - base[r]);
      rowMax[r] = newMax[r];
    }
#pragma unroll
    for (int e = 0; e < SFrag::kElems; ++e)
      s[e] = exp2Approx(s[e] - base[SFrag::rowSlot(e)]);
    Rows blockSum;
    warp::rowSum(s, blockSum, /*accumulate=*/false);
#pragma unroll
    for (int r = 0; r < Rows::kSlots; ++r)
      rowSum[r] = rowSum[r] * alpha[r] + blockSum[r];
#pragma unroll
    for (int e = 0; e < OFrag::kElems; ++e)
      acc[e] *= alpha[OFrag::rowSlot(e)];

    // tile.gemm: O += P V, P from registers.
    Frag<bf16, kBM, kBN, kWarps> p;
    warp::convert(p, s);
    warp::gemmRS<false>(acc, p, sV.stage(stage));
    block::barrier(); // the next iteration's copies overwrite this stage
  }
  block::asyncWait<0>();

  // Epilogue: normalise, log-sum-exp, store.
  Rows inv, lseRow;
#pragma unroll
  for (int r = 0; r < Rows::kSlots; ++r) {
    const bool any = rowSum[r] > 0.f;
    inv[r] = any ? 1.f / rowSum[r] : 0.f;
    lseRow[r] = any ? (rowMax[r] + log2Approx(rowSum[r])) * kLn2 : negInf();
  }
#pragma unroll
  for (int e = 0; e < OFrag::kElems; ++e)
    acc[e] *= inv[OFrag::rowSlot(e)];
  const long long oOrigin[4] = {b, h, q0, 0};
  const long long lOrigin[3] = {b, h, q0};
  block::storeFrag<kThreads, bf16>(o, oOrigin, 2, 3, acc);
  block::storeRowVec<float>(lse, lOrigin, 2, lseRow);
}

} // namespace fa2
