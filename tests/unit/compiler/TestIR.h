//===- TestIR.h - Parsing IR in the compiler unit tests -----------*- C++ -*-===//
//
// An MLIRContext with the dialects the tests parse, and helpers to parse a module from a
// string and find its first op of a kind.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_TESTS_UNIT_COMPILER_TESTIR_H
#define METAATTN_TESTS_UNIT_COMPILER_TESTIR_H

#include "metaattn/Support/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace metaattn::test {

/// A context with attn, tile, arith, math, scf, memref and func loaded.
std::unique_ptr<mlir::MLIRContext> makeContext();

/// Parses `source`; returns null (and prints the diagnostics) on failure.
mlir::OwningOpRef<mlir::ModuleOp> parseModule(mlir::MLIRContext &ctx, llvm::StringRef source);

/// The first op of type OpTy in `module`, or null.
template <typename OpTy> OpTy findFirst(mlir::ModuleOp module) {
  OpTy found;
  module.walk([&](OpTy op) {
    if (!found)
      found = op;
  });
  return found;
}

/// Largest |a - b| / (atol + rtol * |b|) over two tensors of equal sizes (> 1 fails).
double maxToleranceRatio(const HostTensor &actual, const HostTensor &expected, double atol,
                         double rtol);

} // namespace metaattn::test

#endif // METAATTN_TESTS_UNIT_COMPILER_TESTIR_H
