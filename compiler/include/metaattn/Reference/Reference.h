//===- Reference.h - The reference evaluator (the oracle) ---------*- C++ -*-===//
//
// Computes attn ops naively, in double precision, from their definitions. Every lowering is
// checked against these results.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_REFERENCE_REFERENCE_H
#define METAATTN_REFERENCE_REFERENCE_H

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "metaattn/Support/HostTensor.h"

#include "mlir/Support/LLVM.h"

#include <string>

namespace metaattn {

/// Evaluates `op` on host tensors, per batch b, query head h and query q:
/// scores `q·k` with the kv head `h / (H / Hkv)`, the score and mask regions per element, the
/// normaliser region per row (per-element values are vectors over the row, `attn.row_reduce`
/// reduces over the kept entries, `attn.normalize %w, %z` gives `Σ_kept w·V / z`).
///
/// `operands` are q, k, v and then one tensor per custom input, with the shapes and element
/// types the op declares (any strides). `output` is allocated as a contiguous [B, Sq, H, Dv]
/// tensor of the op's element type when it has no sizes; otherwise it must have that shape,
/// and its dtype may be the op's element type or f32 (to keep more of the oracle's precision).
/// When `lse` is not null it receives the row statistic [B, H, Sq] in f32 (allocated the same
/// way): `m + log z` where m is the normaliser's `row_reduce max` of the score, else `log z`.
/// A row whose entries are all masked gives 0 and -inf. On failure `error` says why.
mlir::LogicalResult evaluateAttention(attn::AttentionOp op,
                                      llvm::ArrayRef<const HostTensor *> operands,
                                      HostTensor &output, HostTensor *lse, std::string &error);

/// attn.recurrent evaluated token by token in double precision, from its definition
/// `H_t = diag(α_t)·H_{t-1} + k_tᵀ v_t`, `o_t = q_t·H_t`, with the modifier regions applied
/// element by element. `operands` follow the op's operand order: q, k, v, the gate (when the
/// op has one), the initial state (when it has one), the custom inputs. `finalState` may be
/// null; it is written when the op returns one. Results are allocated when empty.
mlir::LogicalResult evaluateRecurrent(attn::RecurrentOp op,
                                      llvm::ArrayRef<const HostTensor *> operands,
                                      HostTensor &output, HostTensor *finalState,
                                      std::string &error);

/// Evaluates an attn.combine: `output[b, q, h, d]` is the combiner region of the operands'
/// elements there (as doubles), the indices and the custom inputs. `operands` are the combined
/// tensors, then one per custom input; `output` is allocated like evaluateAttention's.
mlir::LogicalResult evaluateCombine(attn::CombineOp op, llvm::ArrayRef<const HostTensor *> operands,
                                    HostTensor &output, std::string &error);

/// Evaluates a function whose body is attn.attention and attn.combine ops and a return, op
/// by op: `arguments` are the function's arguments; `results` receives one f32 tensor per
/// function result. Intermediates are f32 whatever their declared type, so the oracle keeps
/// its precision between ops.
mlir::LogicalResult evaluateFunction(mlir::Operation *function,
                                     llvm::ArrayRef<const HostTensor *> arguments,
                                     std::vector<HostTensor> &results, std::string &error);

} // namespace metaattn

#endif // METAATTN_REFERENCE_REFERENCE_H
