//===- FrontendTestUtil.cpp - helpers for the frontend unit tests ---------===//
#include "FrontendTestUtil.h"

#include "metaattn/Dialect/Attn/IR/AttnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace metaattn::frontend::test {

std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

std::string parseAndVerify(const std::string &text) {
  MLIRContext ctx;
  ctx.loadDialect<attn::AttnDialect, func::FuncDialect, arith::ArithDialect, math::MathDialect>();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, &ctx);
  if (!parsed)
    return "parse failed: " + diagnostics;
  if (failed(verify(*parsed)))
    return "verify failed: " + diagnostics;
  return "";
}

attn::AttentionOp findAttention(ModuleOp module) {
  attn::AttentionOp found;
  int count = 0;
  module.walk([&](attn::AttentionOp op) {
    found = op;
    ++count;
  });
  return count == 1 ? found : attn::AttentionOp();
}

std::vector<std::string> opNames(Region &region) {
  std::vector<std::string> names;
  for (Operation &op : region.front())
    names.push_back(op.getName().getStringRef().str());
  return names;
}

std::string buildError(const AttentionBuilder &builder) {
  MLIRContext ctx;
  std::string error;
  auto module = builder.build(ctx, "f", error);
  if (succeeded(module) && !error.empty())
    return "succeeded with an error message: " + error;
  return error;
}

} // namespace metaattn::frontend::test
