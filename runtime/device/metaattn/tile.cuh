//===- metaattn/tile.cuh - The metaattn device library ----------*- CUDA -*-===//
///
/// \file
/// Umbrella header included by generated kernels. Compiles under NVRTC with
/// no include path (all headers are handed over in memory under their
/// "metaattn/<name>.cuh" names) and under nvcc. Namespace metaattn::dev;
/// execution scope is in the namespace of each call: `block::` functions
/// must be called by every thread of the block, `warp::` functions by every
/// lane of each participating warp.
///
///   types.cuh   bf16, fp16, conversions, TensorRef<R>
///   math.cuh    exp2Approx, exp, log, tanh, negInf, max
///   smem.cuh    SmemTile<T, Rows, Cols, Stages> (swizzled shared tiles)
///   frag.cuh    Frag<T, M, N, Warps>, RowVec<M, Warps>, warp::convert
///   ptx.cuh     raw cp.async / ldmatrix / mma.sync wrappers
///   copy.cuh    block::loadTileAsync/loadTile/storeFrag/storeRowVec,
///               block::asyncCommit/asyncWait/barrier, warp::loadFrag
///   gemm.cuh    warp::gemmSS, warp::gemmRS
///   reduce.cuh  warp::rowMax, warp::rowSum, warp::rowAbsSum
///   kept.cuh    warp::countKept, KeptCursor (tile.kept_tiles, tile.tile_at)
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/copy.cuh"
#include "metaattn/frag.cuh"
#include "metaattn/gemm.cuh"
#include "metaattn/kept.cuh"
#include "metaattn/math.cuh"
#include "metaattn/ptx.cuh"
#include "metaattn/reduce.cuh"
#include "metaattn/scan.cuh"
#include "metaattn/smem.cuh"
#include "metaattn/types.cuh"
