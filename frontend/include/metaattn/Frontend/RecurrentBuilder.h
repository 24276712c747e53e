//===- RecurrentBuilder.h - C++ builder for attn.recurrent -----*- C++ -*-===//
//
// Describes a linear-attention recurrence (gate kind, element-wise q/k/v/gate modifiers,
// custom inputs, states) with C++ lambdas over symbolic values and emits a module holding one
// function whose body is one attn.recurrent:
//
//   RecurrentBuilder r;
//   r.heads(16, 16).headDims(64, 64).gate(Gate::Token);
//   auto module = r.build(ctx, "gated_retention", error);  // @f(q, k, v, gate) -> o
//
// Per (batch, head) the state H (Dk x Dv) follows H_t = diag(α_t)·H_{t-1} + k_tᵀ v_t and the
// output is o_t = q_t·H_t; the gate tensor holds log α (after the gate modifier). Errors come
// back as failure with a message; nothing asserts.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_FRONTEND_RECURRENTBUILDER_H
#define METAATTN_FRONTEND_RECURRENTBUILDER_H

#include "metaattn/Frontend/AttentionBuilder.h"

namespace metaattn::frontend {

/// Which decay the recurrence has: none (α = 1), one per head (tensor [H]), one per token
/// ([B, S, H]) or one per token and key dim ([B, S, H, Dk], GLA).
enum class Gate { None, Head, Token, Vector };

/// An axis a custom input of a recurrence may vary over: batch, time, head and the
/// element's feature index (key dim in q/k/gate modifiers, value dim in the v modifier).
enum class TimeDim { B, T, H, D };

/// What a modifier sees besides the element: its indices and the custom inputs there.
struct RecurrentIndices {
  Sym b, t, h, d;
  InputValues inputs;
};

/// Builds `func.func @name(q, k, v[, gate][, initial_state], inputs...) -> (o[, final_state])`
/// around an attn.recurrent. Shapes: q, k `tensor<?x?xHqkxDkxT>`, v and o
/// `tensor<?x?xHxDvxT>` (H a multiple of Hqk: Mamba2's groups), states `tensor<?xHxDkxDvxf32>`.
class RecurrentBuilder {
public:
  /// An element-wise modifier: the element `x` (f32) at the given indices to its new value.
  using ModFn = std::function<Sym(Sym x, const RecurrentIndices &i)>;

  RecurrentBuilder();

  /// Heads of v (and of the output, the gates and the state) and of q/k.
  RecurrentBuilder &heads(int64_t numHeads, int64_t numQkHeads);
  /// Key dim Dk (q, k) and value dim Dv.
  RecurrentBuilder &headDims(int64_t dk, int64_t dv);
  /// Element type of q, k, v and o (bf16, f16 or f32).
  RecurrentBuilder &dtype(DType type);
  /// The gate kind; the gate tensor is f32 log α (before gateMod).
  RecurrentBuilder &gate(Gate kind);
  RecurrentBuilder &qMod(ModFn fn);
  RecurrentBuilder &kMod(ModFn fn);
  RecurrentBuilder &vMod(ModFn fn);
  /// Maps the gate tensor's element to log α (e.g. Mamba2's `-exp(A_log)·softplus(dt)`).
  RecurrentBuilder &gateMod(ModFn fn);
  /// An initial-state operand and a final-state result.
  RecurrentBuilder &withInitialState(bool enable = true);
  RecurrentBuilder &withFinalState(bool enable = true);
  /// Declares a custom input over `dims` (an ordered subset of B, T, H, D). Float inputs appear
  /// in modifiers as f32, integer inputs as index.
  Input addInput(std::string name, DType type, std::vector<TimeDim> dims);

  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
  build(mlir::MLIRContext &ctx, llvm::StringRef funcName, std::string &error) const;

private:
  struct InputDecl {
    std::string name;
    DType type;
    std::vector<TimeDim> dims;
  };
  std::string validate() const;

  uint64_t id;
  int64_t numHeads = 1, numQkHeads = 1, keyDim = 64, valueDim = 64;
  DType elementType = DType::BF16;
  Gate gateKind = Gate::None;
  ModFn mods[4]; // q, k, v, gate
  bool initialState = false, finalState = false;
  std::vector<InputDecl> inputs;
};

} // namespace metaattn::frontend

#endif // METAATTN_FRONTEND_RECURRENTBUILDER_H
