//===- ScalarMath.cpp - Evaluation of scalar math ops and blocks -------------===//
//
// The math part of the scalar evaluator, and evaluation of straight-line scalar blocks
// (the score and mask regions of attn.attention).
//
//===----------------------------------------------------------------------===//

#include "metaattn/Support/ScalarEval.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdint>
#include <cstring>

using namespace mlir;
using namespace metaattn;

float metaattn::exp2Poly(float x) {
  // The device library's exp2Poly step by step (fmaxf, two float additions, the cubic in
  // fmaf, the integer add to the exponent field).
  constexpr float kShift = 12582912.0f;
  x = std::fmax(x, -127.0f);
  float t = x + kShift;
  float f = x - (t - kShift);
  float p = std::fmaf(std::fmaf(std::fmaf(0.05500875786f, f, 0.24221138656f), f, 0.69328302145f), f,
                      1.0f);
  uint32_t pBits, tBits;
  std::memcpy(&pBits, &p, 4);
  std::memcpy(&tBits, &t, 4);
  uint32_t bits = pBits + (tBits << 23);
  float result;
  std::memcpy(&result, &bits, 4);
  // Subnormals flush to zero, as under -ftz.
  return std::fpclassify(result) == FP_SUBNORMAL ? 0.0f : result;
}

std::optional<LogicalResult> metaattn::detail::evaluateMathOp(Operation *op, ArrayRef<Scalar> in,
                                                              SmallVectorImpl<Scalar> &out,
                                                              FloatPrecision precision,
                                                              std::string &error) {
  if (!isa<math::MathDialect>(op->getDialect()))
    return std::nullopt;
  Type type = op->getResult(0).getType();
  auto set = [&](double v) -> LogicalResult {
    out.push_back(Scalar::ofFloat(roundFloat(v, type, precision)));
    return success();
  };
  auto unary = [&](double (*fn)(double)) { return set(fn(in[0].f)); };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<math::ExpOp>([&](auto) {
        if (precision == FloatPrecision::Float && op->hasAttr(kExp2EmulationAttr))
          return set(exp2Poly(static_cast<float>(in[0].f) * 1.4426950408889634f));
        return unary(std::exp);
      })
      .Case<math::Exp2Op>([&](auto) { return unary(std::exp2); })
      .Case<math::ExpM1Op>([&](auto) { return unary(std::expm1); })
      .Case<math::LogOp>([&](auto) { return unary(std::log); })
      .Case<math::Log2Op>([&](auto) { return unary(std::log2); })
      .Case<math::Log1pOp>([&](auto) { return unary(std::log1p); })
      .Case<math::TanhOp>([&](auto) { return unary(std::tanh); })
      .Case<math::SinOp>([&](auto) { return unary(std::sin); })
      .Case<math::CosOp>([&](auto) { return unary(std::cos); })
      .Case<math::ErfOp>([&](auto) { return unary(std::erf); })
      .Case<math::AbsFOp>([&](auto) { return unary(std::fabs); })
      .Case<math::SqrtOp>([&](auto) { return unary(std::sqrt); })
      .Case<math::FloorOp>([&](auto) { return unary(std::floor); })
      .Case<math::CeilOp>([&](auto) { return unary(std::ceil); })
      .Case<math::RsqrtOp>([&](auto) { return set(1.0 / std::sqrt(in[0].f)); })
      .Case<math::PowFOp>([&](auto) { return set(std::pow(in[0].f, in[1].f)); })
      .Case<math::CopySignOp>([&](auto) { return set(std::copysign(in[0].f, in[1].f)); })
      .Case<math::FmaOp>([&](auto) {
        if (type.isF32() && precision == FloatPrecision::Float)
          return set(std::fmaf(static_cast<float>(in[0].f), static_cast<float>(in[1].f),
                               static_cast<float>(in[2].f)));
        return set(std::fma(in[0].f, in[1].f, in[2].f));
      })
      .Case<math::AbsIOp>([&](auto) {
        out.push_back(Scalar::ofInt(wrapInt(in[0].i < 0 ? -in[0].i : in[0].i, type)));
        return success();
      })
      .Default([&](Operation *) {
        error = formatOpError(op, "unsupported op");
        return failure();
      });
}

LogicalResult metaattn::evaluateScalarBlock(Block &block, ArrayRef<Scalar> args,
                                            SmallVectorImpl<Scalar> &yielded,
                                            FloatPrecision precision, std::string &error) {
  if (args.size() != block.getNumArguments()) {
    error = "block takes " + std::to_string(block.getNumArguments()) + " arguments, given " +
            std::to_string(args.size());
    return failure();
  }
  llvm::DenseMap<Value, Scalar> env;
  for (auto [arg, value] : llvm::zip(block.getArguments(), args))
    env[arg] = value;
  SmallVector<Scalar, 4> operands, results;
  for (Operation &op : block) {
    operands.clear();
    for (Value v : op.getOperands()) {
      auto it = env.find(v);
      if (it == env.end()) {
        error = formatOpError(&op, "operand defined outside the evaluated block");
        return failure();
      }
      operands.push_back(it->second);
    }
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      yielded.assign(operands.begin(), operands.end());
      return success();
    }
    if (op.getNumRegions() != 0 || !isSupportedScalarOp(&op)) {
      error = formatOpError(&op, "unsupported op");
      return failure();
    }
    results.clear();
    if (failed(evaluateScalarOp(&op, operands, results, precision, error)))
      return failure();
    for (auto [res, value] : llvm::zip(op.getResults(), results))
      env[res] = value;
  }
  error = "block has no terminator";
  return failure();
}
