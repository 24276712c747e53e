//===- Sym.h - symbolic scalars for building attn regions ------*- C++ -*-===//
//
// A `Sym` is a scalar value inside an attn region being built (score function, mask,
// normaliser). Arithmetic on Syms emits arith/math ops into that region, so C++ lambdas over
// Syms read like the formula they describe:
//
//   [](Sym s, const Indices &i) { return select(i.kv <= i.q, s * 0.125, -1e30); }
//
// Syms have one of three kinds: f32 (scores, weights, custom float inputs), index (positions,
// lengths, custom integer inputs) and i1 (comparisons). Misuse (mixing kinds, using a Sym of
// another region, a Sym outside any region) never asserts: it records an error that the
// builder reports, and the result is an invalid Sym that propagates silently.
//
// Ops are emitted when the C++ expression is evaluated. C++ leaves the order of function
// arguments unspecified, so `max(exp(a), log(b))` may emit log before exp: the IR means the
// same either way; name intermediate Syms where the textual order matters.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_FRONTEND_SYM_H
#define METAATTN_FRONTEND_SYM_H

#include "mlir/IR/Value.h"

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

namespace metaattn::frontend {

namespace detail {
class RegionEmitter;
} // namespace detail

/// Element types of the tensors an attention reads.
enum class DType { BF16, F16, F32, F64, I32, I64 };

/// The spelling of `type` ("bf16", "f32", ...).
const char *toString(DType type);

/// A C++ number used as an operand next to a Sym: an f32 constant next to an f32 Sym, an index
/// constant next to an index Sym (integers only).
struct Scalar {
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Scalar(T v) // NOLINT(google-explicit-constructor): numbers convert implicitly.
      : value(static_cast<double>(v)), intValue(static_cast<int64_t>(v)),
        isInteger(std::is_integral_v<T>) {}
  double value;
  int64_t intValue;
  bool isInteger;
};

/// A symbolic scalar: an SSA value of the region being built.
class Sym {
public:
  /// The kind of value a Sym holds.
  enum class Kind { Invalid, F32, Index, I1 };

  /// An invalid Sym (what a failed operation returns).
  Sym() = default;
  /// Wraps `value` (f32, index or i1) of the region built by `emitter`.
  Sym(mlir::Value value, std::shared_ptr<detail::RegionEmitter> emitter);

  /// The wrapped value; null for an invalid Sym.
  mlir::Value value() const { return val; }
  Kind kind() const;
  bool isValid() const { return static_cast<bool>(val); }
  bool isFloat() const { return kind() == Kind::F32; }
  bool isIndex() const { return kind() == Kind::Index; }
  bool isBool() const { return kind() == Kind::I1; }
  /// The region emitter that owns the value (null for an invalid Sym).
  const std::shared_ptr<detail::RegionEmitter> &emitter() const { return owner; }

private:
  mlir::Value val;
  std::shared_ptr<detail::RegionEmitter> owner;
};

/// The spelling of a kind ("f32", "index", "i1", "invalid").
const char *toString(Sym::Kind kind);

// Arithmetic: f32 with f32 (arith.addf, subf, mulf, divf, negf) or index with index
// (arith.addi, subi, muli, divsi, remsi). A Scalar takes the kind of the Sym beside it.
Sym operator+(const Sym &a, const Sym &b);
Sym operator-(const Sym &a, const Sym &b);
Sym operator*(const Sym &a, const Sym &b);
Sym operator/(const Sym &a, const Sym &b);
Sym operator%(const Sym &a, const Sym &b);
Sym operator-(const Sym &a);
Sym operator+(const Sym &a, Scalar b);
Sym operator-(const Sym &a, Scalar b);
Sym operator*(const Sym &a, Scalar b);
Sym operator/(const Sym &a, Scalar b);
Sym operator%(const Sym &a, Scalar b);
Sym operator+(Scalar a, const Sym &b);
Sym operator-(Scalar a, const Sym &b);
Sym operator*(Scalar a, const Sym &b);
Sym operator/(Scalar a, const Sym &b);

// Comparisons producing i1: arith.cmpf (ordered; `!=` is une) on f32, signed arith.cmpi on
// index, arith.cmpi eq/ne on i1.
Sym operator<(const Sym &a, const Sym &b);
Sym operator<=(const Sym &a, const Sym &b);
Sym operator>(const Sym &a, const Sym &b);
Sym operator>=(const Sym &a, const Sym &b);
Sym operator==(const Sym &a, const Sym &b);
Sym operator!=(const Sym &a, const Sym &b);
Sym operator<(const Sym &a, Scalar b);
Sym operator<=(const Sym &a, Scalar b);
Sym operator>(const Sym &a, Scalar b);
Sym operator>=(const Sym &a, Scalar b);
Sym operator==(const Sym &a, Scalar b);
Sym operator!=(const Sym &a, Scalar b);
Sym operator<(Scalar a, const Sym &b);
Sym operator<=(Scalar a, const Sym &b);
Sym operator>(Scalar a, const Sym &b);
Sym operator>=(Scalar a, const Sym &b);

// Logic on i1 (arith.andi, ori, xori with true). Both sides are always evaluated.
Sym operator&&(const Sym &a, const Sym &b);
Sym operator||(const Sym &a, const Sym &b);
Sym operator!(const Sym &a);

/// `c ? a : b` (arith.select); `c` is i1, `a` and `b` of one kind.
Sym select(const Sym &c, const Sym &a, const Sym &b);
Sym select(const Sym &c, const Sym &a, Scalar b);
Sym select(const Sym &c, Scalar a, const Sym &b);

// Element-wise functions of f32 (math dialect; sigmoid is 1 / (1 + exp(-x))).
Sym exp(const Sym &x);
Sym exp2(const Sym &x);
Sym log(const Sym &x);
Sym tanh(const Sym &x);
Sym sqrt(const Sym &x);
Sym sigmoid(const Sym &x);
/// |x|: math.absf on f32, max(x, -x) on index.
Sym abs(const Sym &x);
/// arith.maximumf / minimumf on f32, arith.maxsi / minsi on index.
Sym max(const Sym &a, const Sym &b);
Sym min(const Sym &a, const Sym &b);
Sym max(const Sym &a, Scalar b);
Sym min(const Sym &a, Scalar b);
Sym max(Scalar a, const Sym &b);
Sym min(Scalar a, const Sym &b);

/// An index as f32 (arith.index_cast to i64, then arith.sitofp).
Sym toFloat(const Sym &index);

/// Constants in the region being built (inside a lambda): an f32, an index.
Sym constF32(double value);
Sym constIndex(int64_t value);

} // namespace metaattn::frontend

#endif // METAATTN_FRONTEND_SYM_H
