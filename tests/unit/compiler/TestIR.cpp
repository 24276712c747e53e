//===- TestIR.cpp - Parsing IR in the compiler unit tests --------------------===//

#include "TestIR.h"

#include "metaattn/Dialect/Attn/IR/AttnDialect.h"
#include "metaattn/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace mlir;

std::unique_ptr<MLIRContext> metaattn::test::makeContext() {
  DialectRegistry registry;
  registry.insert<attn::AttnDialect, tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, memref::MemRefDialect, func::FuncDialect>();
  auto ctx = std::make_unique<MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  return ctx;
}

OwningOpRef<ModuleOp> metaattn::test::parseModule(MLIRContext &ctx, llvm::StringRef source) {
  return parseSourceString<ModuleOp>(source, &ctx);
}

double metaattn::test::maxToleranceRatio(const HostTensor &actual, const HostTensor &expected,
                                         double atol, double rtol) {
  if (actual.sizes != expected.sizes)
    return std::numeric_limits<double>::infinity();
  HostTensor a = actual.contiguous(), e = expected.contiguous();
  double worst = 0;
  for (int64_t i = 0, n = a.getNumElements(); i < n; ++i) {
    double x = a.getAt(i), y = e.getAt(i);
    if (std::isinf(y) && x == y)
      continue;
    double ratio = std::fabs(x - y) / (atol + rtol * std::fabs(y));
    if (std::isnan(ratio))
      return std::numeric_limits<double>::infinity();
    worst = std::max(worst, ratio);
  }
  return worst;
}
