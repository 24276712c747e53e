//===- FrontendTestUtil.h - helpers for the frontend unit tests -*- C++ -*-===//
#ifndef METAATTN_TESTS_UNIT_FRONTEND_FRONTENDTESTUTIL_H
#define METAATTN_TESTS_UNIT_FRONTEND_FRONTENDTESTUTIL_H

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "metaattn/Frontend/AttentionBuilder.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <string>
#include <vector>

namespace metaattn::frontend::test {

/// The module printed in the custom form.
std::string print(mlir::ModuleOp module);

/// Parses `text` in a fresh context with the attn, func, arith and math dialects and verifies
/// it; returns "" on success, else the diagnostics.
std::string parseAndVerify(const std::string &text);

/// The one attn.attention in `module` (null when there is not exactly one).
attn::AttentionOp findAttention(mlir::ModuleOp module);

/// The names of the ops of the single block of `region`, in order.
std::vector<std::string> opNames(mlir::Region &region);

/// Builds `builder` as @f and returns the error message ("" when it succeeded).
std::string buildError(const AttentionBuilder &builder);

} // namespace metaattn::frontend::test

#endif // METAATTN_TESTS_UNIT_FRONTEND_FRONTENDTESTUTIL_H
