//===- ReferenceChecks.h - operand checks shared by the oracles -*- C++ -*-===//
#ifndef METAATTN_REFERENCE_REFERENCECHECKS_H
#define METAATTN_REFERENCE_REFERENCECHECKS_H

#include "metaattn/Support/HostTensor.h"

#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace metaattn::reference {

/// Checks `tensor` against `expected` sizes (negative entries: any) and `dtype`.
mlir::LogicalResult checkTensor(const HostTensor *tensor, llvm::StringRef name,
                                llvm::ArrayRef<int64_t> expected, std::optional<DType> dtype,
                                std::string &error);

/// Allocates `tensor` when it has no sizes, else checks its shape and that its dtype is one
/// of `dtypes`.
mlir::LogicalResult prepareResult(HostTensor &tensor, llvm::StringRef name,
                                  llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<DType> dtypes,
                                  std::string &error);

} // namespace metaattn::reference

#endif // METAATTN_REFERENCE_REFERENCECHECKS_H
