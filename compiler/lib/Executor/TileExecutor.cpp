//===- TileExecutor.cpp - Run a tile.kernel on host memory -------------------===//
//
// Checks the parameters against the kernel's signature, computes the launch grid, and runs
// one BlockInterpreter per block.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Executor/TileExecutor.h"
#include "BlockInterpreter.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace metaattn;

namespace {
/// The blocks the executor launches for a persistent kernel.
constexpr int64_t kPersistentBlocks = 3;
} // namespace

LogicalResult metaattn::checkKernelParams(tile::KernelOp kernel, ArrayRef<HostTensor *> params,
                                          std::string &error) {
  ArrayRef<Type> types = kernel.getArgumentTypes();
  std::string name = kernel.getSymName().str();
  if (params.size() != types.size()) {
    error = "kernel @" + name + " takes " + std::to_string(types.size()) + " parameters, given " +
            std::to_string(params.size());
    return failure();
  }
  for (auto [i, param, type] : llvm::enumerate(params, types)) {
    auto tensorType = cast<tile::GlobalTensorType>(type);
    std::string what = "parameter #" + std::to_string(i) + " of @" + name;
    if (!param) {
      error = what + " is null";
      return failure();
    }
    if (param->getRank() != tensorType.getRank()) {
      error = what + " has rank " + std::to_string(param->getRank()) + ", expected " +
              std::to_string(tensorType.getRank());
      return failure();
    }
    for (auto [d, expected] : llvm::enumerate(tensorType.getShape()))
      if (!ShapedType::isDynamic(expected) && param->sizes[d] != expected) {
        error = what + " has size " + std::to_string(param->sizes[d]) + " in dim " +
                std::to_string(d) + ", expected " + std::to_string(expected);
        return failure();
      }
    std::optional<DType> dtype = getDTypeFor(tensorType.getElementType());
    if (!dtype || *dtype != param->dtype) {
      std::string expected;
      llvm::raw_string_ostream os(expected);
      os << tensorType.getElementType();
      error = what + " has dtype " + getDTypeName(param->dtype).str() + ", expected " + expected;
      return failure();
    }
    if (!param->isWellFormed()) {
      error = what + " has strides that reach outside its storage";
      return failure();
    }
  }
  return success();
}

LogicalResult metaattn::computeGrid(tile::KernelOp kernel, ArrayRef<HostTensor *> params,
                                    std::array<int64_t, 3> &grid, std::string &error) {
  ArrayRef<int64_t> spec = kernel.getGrid();
  if (spec.size() != 9) {
    error = "grid must hold three (param, dim, divisor) triples";
    return failure();
  }
  for (int d = 0; d < 3; ++d) {
    int64_t param = spec[3 * d], dim = spec[3 * d + 1], divisor = spec[3 * d + 2];
    if (divisor <= 0) {
      error = "grid dimension " + std::to_string(d) + " has a non-positive divisor";
      return failure();
    }
    if (param == -1) {
      grid[d] = divisor;
      continue;
    }
    if (param < 0 || param >= static_cast<int64_t>(params.size()) || !params[param] || dim < 0 ||
        dim >= params[param]->getRank()) {
      error = "grid dimension " + std::to_string(d) + " refers to a missing parameter or dim";
      return failure();
    }
    int64_t size = params[param]->sizes[dim];
    grid[d] = (size + divisor - 1) / divisor;
  }
  return success();
}

LogicalResult metaattn::executeKernel(tile::KernelOp kernel, ArrayRef<HostTensor *> params,
                                      std::string &error) {
  std::array<int64_t, 3> grid;
  if (failed(checkKernelParams(kernel, params, error)) ||
      failed(computeGrid(kernel, params, grid, error)))
    return failure();
  // A persistent kernel walks the grid itself; three blocks give most blocks several tiles
  // (and an uneven share), as the GPU's one block per multiprocessor does at large sizes.
  if (kernel->hasAttr(tile::kPersistentAttr))
    grid = {std::min<int64_t>(grid[0] * grid[1] * grid[2], kPersistentBlocks), 1, 1};
  for (int64_t z = 0; z < grid[2]; ++z)
    for (int64_t y = 0; y < grid[1]; ++y)
      for (int64_t x = 0; x < grid[0]; ++x) {
        executor::BlockInterpreter interpreter({x, y, z}, grid, error);
        if (failed(interpreter.runKernel(kernel, params))) {
          error += " (in block (" + std::to_string(x) + ", " + std::to_string(y) + ", " +
                   std::to_string(z) + "))";
          return failure();
        }
      }
  return success();
}
