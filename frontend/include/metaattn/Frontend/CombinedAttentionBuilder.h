//===- CombinedAttentionBuilder.h - several attentions combined -*- C++ -*-===//
//
// Builds one function holding several attn.attention ops and an attn.combine of their
// outputs, element by element (differential attention: `A1 - λ_h · A2`):
//
//   CombinedAttentionBuilder c;
//   c.attention(first, {0, 1, 4}).attention(second, {2, 3, 4});   // q1 k1 v, q2 k2 v
//   unsigned lambda = c.addInput("lambda", DType::F32, {Dim::H});  // argument #5
//   c.combine([lambda](const std::vector<Sym> &x, const CombineIndices &i) {
//     return x[0] - i.inputs[lambda] * x[1];
//   });
//   auto module = c.build(ctx, "diff", error);   // func.func @diff(q1, k1, q2, k2, v, lambda)
//
// The attention outputs are f32 intermediates; the combination has the first attention's
// element type unless set with outputType.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_FRONTEND_COMBINEDATTENTIONBUILDER_H
#define METAATTN_FRONTEND_COMBINEDATTENTIONBUILDER_H

#include "metaattn/Frontend/AttentionBuilder.h"

namespace metaattn::frontend {

/// What the combination's function sees at one output element: batch, head, query position
/// and value-dim index, and its custom inputs there (as f32 for float inputs, index for
/// integer ones), in the order they were added.
struct CombineIndices {
  Sym b, h, q, d;
  std::vector<Sym> inputs;
};

class CombinedAttentionBuilder {
public:
  using CombineFn = std::function<Sym(const std::vector<Sym> &outputs, const CombineIndices &i)>;

  /// Adds an attention; `arguments[j]` is the function argument its j-th operand reads (q, k,
  /// v, then its custom inputs in order). Attentions may share arguments (a common v); every
  /// argument index below the largest must be used. The attention's output is an f32
  /// intermediate and it returns no row statistic.
  CombinedAttentionBuilder &attention(AttentionBuilder builder, std::vector<unsigned> arguments);
  /// Declares a custom input of the combination over `dims` (an ordered subset of B, H, Q; Q
  /// may be a block index); it becomes a function argument after the attentions'. Returns its
  /// position in CombineIndices::inputs.
  unsigned addInput(std::string name, DType type, std::vector<InputAxis> dims);
  /// The element-wise combination of the attention outputs (in the order they were added).
  CombinedAttentionBuilder &combine(CombineFn fn);
  /// Element type of the result; default the first attention's q/k/v type.
  CombinedAttentionBuilder &outputType(DType type);

  /// Emits `func.func @funcName(arguments...) -> result`; on failure `error` says why.
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
  build(mlir::MLIRContext &ctx, llvm::StringRef funcName, std::string &error) const;

private:
  struct Part {
    AttentionBuilder builder;
    std::vector<unsigned> arguments;
  };
  struct InputDecl {
    std::string name;
    DType type;
    std::vector<InputAxis> dims;
  };
  std::vector<Part> parts;
  std::vector<InputDecl> inputs;
  CombineFn fn;
  std::optional<DType> resultType;
};

} // namespace metaattn::frontend

#endif // METAATTN_FRONTEND_COMBINEDATTENTIONBUILDER_H
