//===- AttnVerifyUtils.h - shared verifier helpers for attn ops --*- C++ -*-===//
#ifndef METAATTN_LIB_ATTN_IR_ATTNVERIFYUTILS_H
#define METAATTN_LIB_ATTN_IR_ATTNVERIFYUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace metaattn::attn::verify {

/// Checks that `region` has one block whose arguments have `argTypes` and whose terminator
/// is an attn.yield of values typed `yieldTypes` (skipped when `checkYield` is false).
mlir::LogicalResult verifyRegionSignature(mlir::Operation *op, mlir::Region &region,
                                          llvm::StringRef name, llvm::ArrayRef<mlir::Type> argTypes,
                                          llvm::ArrayRef<mlir::Type> yieldTypes,
                                          bool checkYield = true);

/// Checks a dimension of `type` against an expected static size (ignored when dynamic).
mlir::LogicalResult verifyDim(mlir::Operation *op, llvm::StringRef tensorName,
                              mlir::RankedTensorType type, unsigned dim, int64_t expected,
                              llvm::StringRef what);

/// True for the element types kernels accept for Q, K and V.
bool isSupportedElementType(mlir::Type type);

/// Parses a comma-separated ordered subset of `allowed` (e.g. "b,h,q,kv"); returns the
/// positions in `allowed`, or std::nullopt with `error` set.
std::optional<llvm::SmallVector<unsigned>>
parseDimList(llvm::StringRef spec, llvm::ArrayRef<llvm::StringRef> allowed, std::string &error);

} // namespace metaattn::attn::verify

#endif // METAATTN_LIB_ATTN_IR_ATTNVERIFYUTILS_H
