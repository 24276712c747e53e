//===- CUDAEmitter.h - tile IR to CUDA C++ -----------------------*- C++ -*-===//
//
// Prints a tile.kernel as readable CUDA C++ that calls the device library in
// runtime/device/metaattn, and describes its launch for the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_TARGET_CUDA_CUDAEMITTER_H
#define METAATTN_TARGET_CUDA_CUDAEMITTER_H

#include "metaattn/Dialect/Tile/IR/TileOps.h"
#include "metaattn/Runtime/KernelSignature.h"

#include <string>

namespace metaattn {

/// A kernel printed as CUDA source, with what the runtime needs to launch it.
struct EmittedKernel {
  std::string source;
  /// Entry point, parameters (rank, dtype, sizes, symbols), grid, threads, shared bytes.
  rt::KernelSignature signature;
};

/// Names of the optional kernel attributes the emitter reads to fill the signature.
constexpr llvm::StringLiteral kDimSymbolsAttr = "tile.dim_symbols";
constexpr llvm::StringLiteral kOutputsAttr = "tile.outputs";

/// Prints `kernel` as CUDA C++. Emits an error on the op it cannot print.
mlir::FailureOr<EmittedKernel> emitCuda(tile::KernelOp kernel);

/// Registers `metaattn-translate --tile-to-cuda`.
void registerTileToCudaTranslation();

} // namespace metaattn

#endif // METAATTN_TARGET_CUDA_CUDAEMITTER_H
