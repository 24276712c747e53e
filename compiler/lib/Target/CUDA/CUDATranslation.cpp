//===- CUDATranslation.cpp - metaattn-translate --tile-to-cuda ---------------===//
#include "metaattn/Target/CUDA/CUDAEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;

void metaattn::registerTileToCudaTranslation() {
  TranslateFromMLIRRegistration registration(
      "tile-to-cuda", "print each tile.kernel as CUDA C++ for NVRTC",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        bool any = false;
        WalkResult result = op->walk([&](tile::KernelOp kernel) {
          FailureOr<EmittedKernel> emitted = emitCuda(kernel);
          if (failed(emitted))
            return WalkResult::interrupt();
          os << emitted->source;
          any = true;
          return WalkResult::advance();
        });
        if (result.wasInterrupted())
          return failure();
        if (!any)
          return op->emitError() << "tile-to-cuda: the module holds no tile.kernel";
        return success();
      },
      [](DialectRegistry &registry) {
        registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                        memref::MemRefDialect, scf::SCFDialect, func::FuncDialect>();
      });
}
