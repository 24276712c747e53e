//===- AttentionBuilder.h - C++ builder for attn.attention -----*- C++ -*-===//
//
// Describes a parallel-family attention (score function, mask, normaliser, custom inputs) with
// C++ lambdas over symbolic values and emits a module holding one function whose body is one
// attn.attention:
//
//   AttentionBuilder b;
//   b.heads(8, 2).headDims(64, 64).dtype(DType::BF16)
//    .mask([](const Indices &i) { return i.kv <= i.q + (i.skv - i.sq); });
//   std::string error;
//   auto module = b.build(ctx, "causal", error);   // func.func @causal(q, k, v) -> o
//
// Errors in the description (bad sizes, a lambda returning the wrong kind of value, a Sym used
// in the wrong region) come back as failure with a message; nothing asserts.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_FRONTEND_ATTENTIONBUILDER_H
#define METAATTN_FRONTEND_ATTENTIONBUILDER_H

#include "metaattn/Frontend/Sym.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace metaattn::frontend {

/// An axis a custom input may vary over; an input's dims are an ordered subset of B, H, Q, KV.
enum class Dim { B, H, Q, KV };

/// One dimension of a custom input: an axis (`Dim::Q`), or a block index of Q or KV
/// (`blocksOf(Dim::Q, 64)`: the input is indexed by `floor(q / 64)`, and that dimension has
/// `ceil(Sq / 64)` entries). Converts implicitly from Dim, so `{Dim::B, Dim::Q}` still works.
struct InputAxis {
  InputAxis(Dim dim) : dim(dim) {}
  InputAxis(Dim dim, int64_t block) : dim(dim), block(block) {}
  Dim dim;
  /// Positions per block; 1 for a plain axis.
  int64_t block = 1;
};

/// The block index `floor(i / size)` of axis `dim` (Q or KV).
inline InputAxis blocksOf(Dim dim, int64_t size) { return InputAxis(dim, size); }

struct Indices;

/// A handle to a custom input declared with AttentionBuilder::addInput.
class Input {
public:
  Input() = default;
  /// The element of this input at the current indices (same as `indices.inputs[*this]`).
  Sym at(const Indices &indices) const;
  /// Position among the builder's inputs (operand `3 + position()` of the function).
  unsigned position() const { return pos; }
  const std::string &name() const { return inputName; }

private:
  friend class AttentionBuilder;
  friend class RecurrentBuilder;
  friend class InputValues;
  Input(uint64_t builderId, unsigned pos, std::string name)
      : builderId(builderId), pos(pos), inputName(std::move(name)) {}
  uint64_t builderId = 0;
  unsigned pos = 0;
  std::string inputName;
};

/// The custom inputs as seen from inside a region: `inputs[handle]` is the element of that
/// input at the current indices, as f32 (float inputs, widened) or index (integer inputs).
class InputValues {
public:
  Sym operator[](const Input &input) const;

private:
  friend class AttentionBuilder;
  friend class RecurrentBuilder;
  uint64_t builderId = 0;
  /// The region's block arguments for the inputs, in their tensor element types.
  std::vector<mlir::Value> values;
  std::vector<std::string> names;
  std::shared_ptr<detail::RegionEmitter> emitter;
};

/// The indices every region receives: batch, query head, query and kv positions, and the
/// query and kv lengths of this batch entry; plus the custom inputs at those indices.
struct Indices {
  Sym b, h, q, kv, sq, skv;
  InputValues inputs;
};

/// Row reductions available to a normaliser (attn.row_reduce over the kept entries of a row).
class RowOps {
public:
  /// Maximum of `x` over the row.
  Sym rowMax(const Sym &x);
  /// Sum of `x` over the row.
  Sym rowSum(const Sym &x);
  /// Sum of `|x|` over the row.
  Sym rowAbsSum(const Sym &x);
  /// The indices and custom inputs of the element being normalised (for sinks and the like).
  const Indices &indices() const { return idx; }

private:
  friend class AttentionBuilder;
  explicit RowOps(Indices idx) : idx(std::move(idx)) {}
  Sym reduce(int kind, const Sym &x);
  Indices idx;
};

/// How each row of scores becomes weights: `O = Σ weight · V / denominator`. The function gets
/// the score after the score function and returns (weight, denominator); the denominator
/// must be a per-row value (built from RowOps reductions and constants).
class Normalizer {
public:
  using Fn = std::function<std::pair<Sym, Sym>(Sym s, RowOps &rows)>;

  /// Softmax: `w = exp(s - rowMax(s))`, denominator `rowSum(w)`.
  static Normalizer softmax();
  /// No normalisation (sigmoid / ReLU attention): weight `s`, denominator 1.
  static Normalizer identity();
  /// A user-written normaliser, e.g. RetNet's `{s, max(rows.rowAbsSum(s), 1.0)}`.
  static Normalizer custom(Fn fn, std::string name = "custom");

  const Fn &function() const { return fn; }
  const std::string &name() const { return normName; }

private:
  Normalizer(Fn fn, std::string name) : fn(std::move(fn)), normName(std::move(name)) {}
  Fn fn;
  std::string normName;
};

/// Builds one `func.func @name(q, k, v, inputs...) -> (o[, lse])` around an attn.attention.
/// Shapes: q `tensor<?x?xHxDxT>`, k `tensor<?x?xHkvxDxT>`, v `tensor<?x?xHkvxDvxT>`, o
/// `tensor<?x?xHxDvxT>`, lse `tensor<?xHx?xf32>`; a custom input over dims `{H, Q}` is
/// `tensor<Hx?xE>`.
class AttentionBuilder {
public:
  using ScoreFn = std::function<Sym(Sym s, const Indices &i)>;
  using MaskFn = std::function<Sym(const Indices &i)>;

  AttentionBuilder();

  /// Query heads H and key/value heads Hkv (H must be a multiple of Hkv).
  AttentionBuilder &heads(int64_t numHeads, int64_t numKvHeads);
  /// Query/key head dim D and value head dim Dv.
  AttentionBuilder &headDims(int64_t d, int64_t dv);
  /// Element type of q, k, v and o (bf16, f16 or f32).
  AttentionBuilder &dtype(DType type);
  /// Score function of the raw score `s = q·k` (f32); default `s * (1/sqrt(D))`.
  AttentionBuilder &scoreFn(ScoreFn fn);
  /// Which entries take part (i1); default: all.
  AttentionBuilder &mask(MaskFn fn);
  /// Row normaliser; default softmax.
  AttentionBuilder &normalizer(Normalizer norm);
  /// Element type of the output: that of q, k and v (the default) or f32 (full precision,
  /// e.g. for an attention whose output is combined with another's).
  AttentionBuilder &outputType(DType type);
  /// Whether the function also returns the row statistic (log-sum-exp), [batch, H, seq_q] f32.
  AttentionBuilder &withLse(bool enable = true);
  /// Declares a custom input tensor of `type` over `dims` (an ordered subset of B, H, Q, KV,
  /// where Q and KV may be block indices, see InputAxis; empty for a scalar). Float inputs
  /// appear in regions as f32, integer inputs as index.
  Input addInput(std::string name, DType type, std::vector<InputAxis> dims);

  /// Emits the module; on failure returns failure() with `error` saying what is wrong. The
  /// attn, func, arith and math dialects are loaded into `ctx`.
  mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
  build(mlir::MLIRContext &ctx, llvm::StringRef funcName, std::string &error) const;

private:
  struct InputDecl {
    std::string name;
    DType type;
    std::vector<InputAxis> dims;
  };
  std::string validate() const;

  uint64_t id;
  int64_t numHeads = 1, numKvHeads = 1, headDim = 64, valueDim = 64;
  DType elementType = DType::BF16;
  std::optional<DType> outputElementType;
  ScoreFn score;
  MaskFn maskFn;
  Normalizer norm;
  bool lse = false;
  std::vector<InputDecl> inputs;
};

} // namespace metaattn::frontend

#endif // METAATTN_FRONTEND_ATTENTIONBUILDER_H
