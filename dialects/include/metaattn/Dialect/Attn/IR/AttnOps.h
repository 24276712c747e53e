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

/// Optional discardable attribute of attn.attention / attn.online_attention: a dictionary of
/// tile sizes for convert-attn-to-tile (`block_m`, `block_n`, `warps`, `stages`, i64; absent or
/// 0 means "from the model"). A tuning file applies it (metaattn/Pipeline/Tuning.h); pass
/// options still override it.
constexpr llvm::StringLiteral kTileConfigAttr = "attn.tile_config";

/// One axis a custom input may be broadcast over.
enum class InputDim : unsigned { B, H, Q, KV };

/// One dimension of a custom input: an index (`q`), or a block index (`q/N`: the input is
/// indexed by `floor(q / N)` and that dimension has `ceil(Sq / N)` entries). Only `q` and `kv`
/// can be divided into blocks; `divisor` is 1 otherwise.
struct InputAxis {
  InputDim dim;
  int64_t divisor = 1;
  bool isBlock() const { return divisor != 1; }
};

/// Parses an `input_dims` entry such as "h", "b,h,q,kv" or "b,h,q/64,kv/128". Returns
/// std::nullopt with `error` set when the entry is not an ordered subset of b, h, q, kv or a
/// divisor is not a positive integer.
std::optional<llvm::SmallVector<InputAxis>> parseInputDims(llvm::StringRef spec,
                                                           std::string &error);

/// True when one of `axes` is `dim` (plain or as a block index).
bool hasInputDim(llvm::ArrayRef<InputAxis> axes, InputDim dim);

/// The number of entries of `axis` for a sequence of `length`: `ceil(length / divisor)`.
inline int64_t blockCount(int64_t length, int64_t divisor) {
  return (length + divisor - 1) / divisor;
}

/// One axis a custom input of attn.recurrent may be broadcast over: batch, time, head and
/// the element's feature index (key dim for q/k/gate modifiers, value dim for v).
enum class RecurrentDim : unsigned { B, T, H, D };

/// Parses an attn.recurrent `input_dims` entry such as "h" or "b,t,h": an ordered subset of
/// b, t, h, d. Returns std::nullopt with `error` set otherwise.
std::optional<llvm::SmallVector<RecurrentDim>> parseRecurrentInputDims(llvm::StringRef spec,
                                                                       std::string &error);

} // namespace metaattn::attn

#endif // METAATTN_DIALECT_ATTN_IR_ATTNOPS_H
