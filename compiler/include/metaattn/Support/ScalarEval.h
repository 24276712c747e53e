//===- ScalarEval.h - Evaluation of scalar arith and math ops ------*- C++ -*-===//
//
// Evaluates one `arith` or `math` operation on scalar operand values, in double precision
// (the reference evaluator) or with f32 results rounded to float (the CPU tile executor).
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_SUPPORT_SCALAREVAL_H
#define METAATTN_SUPPORT_SCALAREVAL_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <string>

namespace metaattn {

/// A runtime scalar value. Integer, index and i1 values live in `i`, sign-extended from their
/// bit width (i1 is 0 or 1); float values live in `f`, already rounded to their type. Which
/// field is meaningful follows from the MLIR type of the value it stands for.
struct Scalar {
  double f = 0.0;
  int64_t i = 0;

  static Scalar ofFloat(double value) {
    Scalar s;
    s.f = value;
    return s;
  }
  static Scalar ofInt(int64_t value) {
    Scalar s;
    s.i = value;
    return s;
  }
};

/// How f32 results are kept. bf16 and f16 results always round to their format; f64 is never
/// rounded.
enum class FloatPrecision {
  /// f32 values are kept in double precision (the oracle).
  Double,
  /// f32 results round to float after every op (what a GPU computes).
  Float,
};

/// A math.exp marked with this i64 attribute (K > 0; convert-attn-to-tile exp2-emulation)
/// computes every K-th element of its fragment loop with exp2Poly, a cubic on the FMA pipe
/// (runtime/device/metaattn/math.cuh). Evaluated in Float precision (the tile executor), every
/// such exp goes through exp2Poly, so the executor's checks cover the approximation's error
/// wherever the kernel uses it.
inline constexpr llvm::StringLiteral kExp2EmulationAttr = "tile.exp2_emulation";

/// A math op (math.tanh) marked with this unit attribute (convert-attn-to-tile approx-tanh)
/// may be computed by the special-function unit's approximation (CUDA: `tanh.approx.f32`,
/// relative error about 2^-11); the CPU executor computes it exactly.
inline constexpr llvm::StringLiteral kApproxAttr = "tile.approx";

/// 2^x as exp2Poly computes it in f32 (the device library's FMA-pipe exponential).
float exp2Poly(float x);

/// Rounds `value` to what the float type `type` holds under `precision`.
double roundFloat(double value, mlir::Type type, FloatPrecision precision);
/// Wraps `value` to the bit width of the integer or index type `type`, sign-extended.
int64_t wrapInt(int64_t value, mlir::Type type);
/// The value of an integer of type `type` read as unsigned (zero-extended).
uint64_t asUnsigned(int64_t value, mlir::Type type);

/// "loc: message" for diagnostics that name an op's location.
std::string formatOpError(mlir::Operation *op, const llvm::Twine &message);

/// True when `op` is an arith or math op that evaluateScalarOp knows.
bool isSupportedScalarOp(mlir::Operation *op);

/// Evaluates `op`, an arith or math op on scalars, given one value per operand; appends one
/// value per result to `results`. On failure (an unsupported op or type, a division by zero)
/// sets `error` to a message that names the op and its location.
mlir::LogicalResult evaluateScalarOp(mlir::Operation *op, llvm::ArrayRef<Scalar> operands,
                                     llvm::SmallVectorImpl<Scalar> &results,
                                     FloatPrecision precision, std::string &error);

/// Evaluates a straight-line block of arith/math ops with `args` bound to its arguments and
/// returns the operands of its terminator in `yielded`.
mlir::LogicalResult evaluateScalarBlock(mlir::Block &block, llvm::ArrayRef<Scalar> args,
                                        llvm::SmallVectorImpl<Scalar> &yielded,
                                        FloatPrecision precision, std::string &error);

namespace detail {
/// Evaluates a math-dialect op (the part of evaluateScalarOp in ScalarMath.cpp). Returns
/// std::nullopt when `op` is not a math op it knows.
std::optional<mlir::LogicalResult> evaluateMathOp(mlir::Operation *op,
                                                  llvm::ArrayRef<Scalar> operands,
                                                  llvm::SmallVectorImpl<Scalar> &results,
                                                  FloatPrecision precision, std::string &error);
} // namespace detail

} // namespace metaattn

#endif // METAATTN_SUPPORT_SCALAREVAL_H
