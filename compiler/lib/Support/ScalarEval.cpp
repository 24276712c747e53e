//===- ScalarEval.cpp - Evaluation of scalar arith ops -----------------------===//
//
// The arith part of the scalar evaluator: constants, float and integer arithmetic,
// comparisons, selects and casts, with results rounded or wrapped to their types.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Support/ScalarEval.h"
#include "metaattn/Support/HostTensor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace metaattn;

double metaattn::roundFloat(double value, Type type, FloatPrecision precision) {
  if (type.isBF16())
    return roundToBF16(value);
  if (type.isF16())
    return roundToF16(value);
  if (type.isF32() && precision == FloatPrecision::Float)
    return static_cast<float>(value);
  return value;
}

static unsigned getBitWidth(Type type) {
  if (auto it = dyn_cast<IntegerType>(type))
    return it.getWidth();
  return 64; // index
}

int64_t metaattn::wrapInt(int64_t value, Type type) {
  unsigned width = getBitWidth(type);
  if (width >= 64)
    return value;
  uint64_t mask = (uint64_t(1) << width) - 1;
  uint64_t u = static_cast<uint64_t>(value) & mask;
  if (width > 0 && (u >> (width - 1)) & 1) // sign-extend
    u |= ~mask;
  if (width == 1)
    return static_cast<int64_t>(u & 1); // i1 is 0 or 1, never -1
  return static_cast<int64_t>(u);
}

uint64_t metaattn::asUnsigned(int64_t value, Type type) {
  unsigned width = getBitWidth(type);
  if (width >= 64)
    return static_cast<uint64_t>(value);
  return static_cast<uint64_t>(value) & ((uint64_t(1) << width) - 1);
}

std::string metaattn::formatOpError(Operation *op, const Twine &message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getLoc() << ": '" << op->getName() << "': " << message;
  return text;
}

namespace {

/// Evaluates arith ops; one instance per op evaluation.
struct ArithEvaluator {
  Operation *op;
  ArrayRef<Scalar> in;
  SmallVectorImpl<Scalar> &out;
  FloatPrecision precision;
  std::string &error;

  Type resultType() { return op->getResult(0).getType(); }
  Type operandType(unsigned i = 0) { return op->getOperand(i).getType(); }
  LogicalResult setFloat(double v) {
    out.push_back(Scalar::ofFloat(roundFloat(v, resultType(), precision)));
    return success();
  }
  LogicalResult setInt(int64_t v) {
    out.push_back(Scalar::ofInt(wrapInt(v, resultType())));
    return success();
  }
  LogicalResult fail(const Twine &message) {
    error = formatOpError(op, message);
    return failure();
  }
  uint64_t u(unsigned i) { return asUnsigned(in[i].i, operandType(i)); }

  LogicalResult constant(arith::ConstantOp c) {
    Attribute value = c.getValue();
    if (auto f = dyn_cast<FloatAttr>(value))
      return setFloat(f.getValueAsDouble());
    if (auto i = dyn_cast<IntegerAttr>(value)) {
      if (i.getType().isInteger(1))
        return setInt(i.getValue().getBoolValue() ? 1 : 0);
      return setInt(i.getValue().getSExtValue());
    }
    return fail("only scalar integer and float constants are supported");
  }

  LogicalResult cmpf(arith::CmpFPredicate pred) {
    double a = in[0].f, b = in[1].f;
    bool unordered = std::isnan(a) || std::isnan(b);
    bool r = false;
    using P = arith::CmpFPredicate;
    switch (pred) {
    case P::AlwaysFalse:
      r = false;
      break;
    case P::OEQ:
      r = !unordered && a == b;
      break;
    case P::OGT:
      r = !unordered && a > b;
      break;
    case P::OGE:
      r = !unordered && a >= b;
      break;
    case P::OLT:
      r = !unordered && a < b;
      break;
    case P::OLE:
      r = !unordered && a <= b;
      break;
    case P::ONE:
      r = !unordered && a != b;
      break;
    case P::ORD:
      r = !unordered;
      break;
    case P::UEQ:
      r = unordered || a == b;
      break;
    case P::UGT:
      r = unordered || a > b;
      break;
    case P::UGE:
      r = unordered || a >= b;
      break;
    case P::ULT:
      r = unordered || a < b;
      break;
    case P::ULE:
      r = unordered || a <= b;
      break;
    case P::UNE:
      r = unordered || a != b;
      break;
    case P::UNO:
      r = unordered;
      break;
    case P::AlwaysTrue:
      r = true;
      break;
    }
    return setInt(r);
  }

  LogicalResult cmpi(arith::CmpIPredicate pred) {
    int64_t a = in[0].i, b = in[1].i;
    uint64_t ua = u(0), ub = u(1);
    bool r = false;
    using P = arith::CmpIPredicate;
    switch (pred) {
    case P::eq:
      r = a == b;
      break;
    case P::ne:
      r = a != b;
      break;
    case P::slt:
      r = a < b;
      break;
    case P::sle:
      r = a <= b;
      break;
    case P::sgt:
      r = a > b;
      break;
    case P::sge:
      r = a >= b;
      break;
    case P::ult:
      r = ua < ub;
      break;
    case P::ule:
      r = ua <= ub;
      break;
    case P::ugt:
      r = ua > ub;
      break;
    case P::uge:
      r = ua >= ub;
      break;
    }
    return setInt(r);
  }

  /// Signed division helpers; `mode` 0: toward zero, 1: ceil, 2: floor.
  LogicalResult sdiv(int mode) {
    int64_t a = in[0].i, b = in[1].i;
    if (b == 0)
      return fail("division by zero");
    if (b == -1) // avoids INT64_MIN / -1; wraps like the hardware would
      return setInt(static_cast<int64_t>(0 - static_cast<uint64_t>(a)));
    int64_t q = a / b, r = a % b;
    if (r != 0 && mode == 1 && ((r > 0) == (b > 0)))
      ++q;
    if (r != 0 && mode == 2 && ((r > 0) != (b > 0)))
      --q;
    return setInt(q);
  }

  LogicalResult udiv(bool ceil, bool rem) {
    uint64_t a = u(0), b = u(1);
    if (b == 0)
      return fail("division by zero");
    if (rem)
      return setInt(static_cast<int64_t>(a % b));
    return setInt(static_cast<int64_t>(a / b + (ceil && a % b != 0 ? 1 : 0)));
  }

  LogicalResult fptoi(bool isSigned) {
    double v = std::trunc(in[0].f);
    if (std::isnan(v))
      return setInt(0);
    unsigned width = getBitWidth(resultType());
    double lo = isSigned ? -std::ldexp(1.0, width - 1) : 0.0;
    double hi = isSigned ? std::ldexp(1.0, width - 1) - 1 : std::ldexp(1.0, width) - 1;
    v = std::min(std::max(v, lo), hi); // saturate (the op's out-of-range result is poison)
    if (!isSigned && width == 64 && v >= 9.2e18)
      return setInt(static_cast<int64_t>(static_cast<uint64_t>(v)));
    return setInt(static_cast<int64_t>(v));
  }

  static double maximum(double a, double b) {
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<double>::quiet_NaN();
    if (a == 0 && b == 0)
      return std::signbit(a) ? b : a;
    return a > b ? a : b;
  }
  static double minimum(double a, double b) {
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<double>::quiet_NaN();
    if (a == 0 && b == 0)
      return std::signbit(a) ? a : b;
    return a < b ? a : b;
  }

  LogicalResult run() {
    using namespace arith;
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case<ConstantOp>([&](auto c) { return constant(c); })
        .Case<AddFOp>([&](auto) { return setFloat(in[0].f + in[1].f); })
        .Case<SubFOp>([&](auto) { return setFloat(in[0].f - in[1].f); })
        .Case<MulFOp>([&](auto) { return setFloat(in[0].f * in[1].f); })
        .Case<DivFOp>([&](auto) { return setFloat(in[0].f / in[1].f); })
        .Case<RemFOp>([&](auto) { return setFloat(std::fmod(in[0].f, in[1].f)); })
        .Case<NegFOp>([&](auto) { return setFloat(-in[0].f); })
        .Case<MaximumFOp>([&](auto) { return setFloat(maximum(in[0].f, in[1].f)); })
        .Case<MinimumFOp>([&](auto) { return setFloat(minimum(in[0].f, in[1].f)); })
        .Case<MaxNumFOp>([&](auto) { return setFloat(std::fmax(in[0].f, in[1].f)); })
        .Case<MinNumFOp>([&](auto) { return setFloat(std::fmin(in[0].f, in[1].f)); })
        .Case<CmpFOp>([&](auto c) { return cmpf(c.getPredicate()); })
        .Case<CmpIOp>([&](auto c) { return cmpi(c.getPredicate()); })
        .Case<SelectOp>([&](auto) {
          out.push_back(in[0].i ? in[1] : in[2]);
          return success();
        })
        .Case<AddIOp>([&](auto) { return setInt(static_cast<int64_t>(u(0) + u(1))); })
        .Case<SubIOp>([&](auto) { return setInt(static_cast<int64_t>(u(0) - u(1))); })
        .Case<MulIOp>([&](auto) { return setInt(static_cast<int64_t>(u(0) * u(1))); })
        .Case<DivSIOp>([&](auto) { return sdiv(0); })
        .Case<CeilDivSIOp>([&](auto) { return sdiv(1); })
        .Case<FloorDivSIOp>([&](auto) { return sdiv(2); })
        .Case<DivUIOp>([&](auto) { return udiv(false, false); })
        .Case<CeilDivUIOp>([&](auto) { return udiv(true, false); })
        .Case<RemUIOp>([&](auto) { return udiv(false, true); })
        .Case<RemSIOp>([&](auto) -> LogicalResult {
          if (in[1].i == 0)
            return fail("division by zero");
          if (in[1].i == -1)
            return setInt(0);
          return setInt(in[0].i % in[1].i);
        })
        .Case<MinSIOp>([&](auto) { return setInt(std::min(in[0].i, in[1].i)); })
        .Case<MaxSIOp>([&](auto) { return setInt(std::max(in[0].i, in[1].i)); })
        .Case<MinUIOp>([&](auto) { return setInt(u(0) < u(1) ? in[0].i : in[1].i); })
        .Case<MaxUIOp>([&](auto) { return setInt(u(0) > u(1) ? in[0].i : in[1].i); })
        .Case<AndIOp>([&](auto) { return setInt(in[0].i & in[1].i); })
        .Case<OrIOp>([&](auto) { return setInt(in[0].i | in[1].i); })
        .Case<XOrIOp>([&](auto) { return setInt(in[0].i ^ in[1].i); })
        .Case<ShLIOp>([&](auto) -> LogicalResult {
          if (u(1) >= getBitWidth(resultType()))
            return fail("shift amount out of range");
          return setInt(static_cast<int64_t>(u(0) << u(1)));
        })
        .Case<ShRUIOp>([&](auto) -> LogicalResult {
          if (u(1) >= getBitWidth(resultType()))
            return fail("shift amount out of range");
          return setInt(static_cast<int64_t>(u(0) >> u(1)));
        })
        .Case<ShRSIOp>([&](auto) -> LogicalResult {
          if (u(1) >= getBitWidth(resultType()))
            return fail("shift amount out of range");
          return setInt(in[0].i >> u(1));
        })
        .Case<IndexCastOp, ExtSIOp, TruncIOp>([&](auto) { return setInt(in[0].i); })
        .Case<IndexCastUIOp, ExtUIOp>([&](auto) { return setInt(static_cast<int64_t>(u(0))); })
        .Case<SIToFPOp>([&](auto) { return setFloat(static_cast<double>(in[0].i)); })
        .Case<UIToFPOp>([&](auto) { return setFloat(static_cast<double>(u(0))); })
        .Case<FPToSIOp>([&](auto) { return fptoi(true); })
        .Case<FPToUIOp>([&](auto) { return fptoi(false); })
        .Case<ExtFOp, TruncFOp>([&](auto) { return setFloat(in[0].f); })
        .Default([&](Operation *) { return fail("unsupported op"); });
  }
};

} // namespace

bool metaattn::isSupportedScalarOp(Operation *op) {
  StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
  return ns == "arith" || ns == "math";
}

LogicalResult metaattn::evaluateScalarOp(Operation *op, ArrayRef<Scalar> operands,
                                         SmallVectorImpl<Scalar> &results, FloatPrecision precision,
                                         std::string &error) {
  if (operands.size() != op->getNumOperands()) {
    error = formatOpError(op, "expected " + Twine(op->getNumOperands()) + " operand values");
    return failure();
  }
  SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  for (Type t : types)
    if (!t.isIntOrIndexOrFloat()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "only scalar types are supported, found " << t;
      error = formatOpError(op, text);
      return failure();
    }
  if (auto math = detail::evaluateMathOp(op, operands, results, precision, error))
    return *math;
  ArithEvaluator evaluator{op, operands, results, precision, error};
  return evaluator.run();
}
