//===- TileExecutor.h - CPU executor of tile kernels ---------------*- C++ -*-===//
//
// Runs a tile.kernel on host memory, block by block, interpreting each tile op collectively
// for the whole block (one step per op, not a per-thread simulation). Used to check every
// lowering numerically without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_EXECUTOR_TILEEXECUTOR_H
#define METAATTN_EXECUTOR_TILEEXECUTOR_H

#include "metaattn/Dialect/Tile/IR/TileOps.h"
#include "metaattn/Support/HostTensor.h"

#include "mlir/Support/LLVM.h"

#include <array>
#include <string>

namespace metaattn {

/// The launch grid of `kernel` for these parameters: extent d is `ceil(size(param, dim) /
/// divisor)` from the kernel's `grid` triples, or `divisor` when param is -1.
mlir::LogicalResult computeGrid(tile::KernelOp kernel, llvm::ArrayRef<HostTensor *> params,
                                std::array<int64_t, 3> &grid, std::string &error);

/// Checks `params` against the kernel's parameter types: count, rank, static sizes, dtype,
/// and strides that stay inside each tensor's storage.
mlir::LogicalResult checkKernelParams(tile::KernelOp kernel, llvm::ArrayRef<HostTensor *> params,
                                      std::string &error);

/// Runs `kernel` for every block of its grid on `params` (written in place).
///
/// Semantics: local buffers (tile.alloc) are dense arrays whose elements round to the
/// buffer's element type on every store; they start as NaN (floats) or 0 (integers), so a
/// read before any write shows up in the results. Copies complete immediately (async,
/// barriers, commits and waits are no-ops). Reads outside a global tensor give zero, writes
/// outside it are skipped; any index outside a local buffer is an error that names the op's
/// location. gemm accumulates in f32 over the stored operand values; f32 arithmetic rounds to
/// float after every op. An op the executor does not know is an error that names it.
mlir::LogicalResult executeKernel(tile::KernelOp kernel, llvm::ArrayRef<HostTensor *> params,
                                  std::string &error);

} // namespace metaattn

#endif // METAATTN_EXECUTOR_TILEEXECUTOR_H
