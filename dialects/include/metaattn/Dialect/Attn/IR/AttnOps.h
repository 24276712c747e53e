//===- AttnOps.h - attn dialect operations ------------------------*- C++ -*-===//
#ifndef METAATTN_DIALECT_ATTN_IR_ATTNOPS_H
#define METAATTN_DIALECT_ATTN_IR_ATTNOPS_H

#include "metaattn/Dialect/Attn/IR/AttnDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "metaattn/Dialect/Attn/IR/AttnEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "metaattn/Dialect/Attn/IR/AttnAttrs.h.inc"
#define GET_OP_CLASSES
#include "metaattn/Dialect/Attn/IR/AttnOps.h.inc"

namespace metaattn::attn {

/// Index block arguments every parallel-family region receives, in this order.
enum class IndexArg : unsigned { B = 0, H, Q, KV, SQ, SKV };
constexpr unsigned kNumIndexArgs = 6;

/// One axis a custom input may be broadcast over.
enum class InputDim : unsigned { B, H, Q, KV };

/// Parses an `input_dims` entry such as "h" or "b,h,q,kv". Returns std::nullopt with `error`
/// set when the entry is not an ordered subset of b, h, q, kv.
std::optional<llvm::SmallVector<InputDim>> parseInputDims(llvm::StringRef spec,
                                                          std::string &error);

/// One axis a custom input of attn.recurrent may be broadcast over: batch, time, head and
/// the element's feature index (key dim for q/k/gate modifiers, value dim for v).
enum class RecurrentDim : unsigned { B, T, H, D };

/// Parses an attn.recurrent `input_dims` entry such as "h" or "b,t,h": an ordered subset of
/// b, t, h, d. Returns std::nullopt with `error` set otherwise.
std::optional<llvm::SmallVector<RecurrentDim>> parseRecurrentInputDims(llvm::StringRef spec,
                                                                      std::string &error);

} // namespace metaattn::attn

#endif // METAATTN_DIALECT_ATTN_IR_ATTNOPS_H
