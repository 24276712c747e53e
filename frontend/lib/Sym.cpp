//===- Sym.cpp - symbolic scalars: operators and functions ----------------===//
//
// Every operation checks its operands (valid, of the current region, of compatible kinds),
// then emits one arith or math op (a few for sigmoid and toFloat) into the current region.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Frontend/Sym.h"
#include "RegionEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <initializer_list>

using namespace mlir;
using namespace metaattn::frontend;
using metaattn::frontend::detail::RegionEmitter;

//===----------------------------------------------------------------------===//
// RegionEmitter
//===----------------------------------------------------------------------===//

static thread_local RegionEmitter *currentEmitter = nullptr;

RegionEmitter *RegionEmitter::current() { return currentEmitter; }

RegionEmitter::Scope::Scope(RegionEmitter &emitter) : emitter(emitter), previous(currentEmitter) {
  currentEmitter = &emitter;
}

RegionEmitter::Scope::~Scope() { currentEmitter = previous; }

Sym RegionEmitter::constF32(double value) {
  return wrap(arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(value)));
}

Sym RegionEmitter::constIndex(int64_t value) {
  return wrap(arith::ConstantIndexOp::create(builder, loc, value));
}

Sym RegionEmitter::constBool(bool value) {
  return wrap(arith::ConstantIntOp::create(builder, loc, value, 1));
}

//===----------------------------------------------------------------------===//
// Sym
//===----------------------------------------------------------------------===//

const char *metaattn::frontend::toString(DType type) {
  switch (type) {
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "unknown";
}

const char *metaattn::frontend::toString(Sym::Kind kind) {
  switch (kind) {
  case Sym::Kind::F32:
    return "f32";
  case Sym::Kind::Index:
    return "index";
  case Sym::Kind::I1:
    return "i1";
  case Sym::Kind::Invalid:
    return "invalid";
  }
  return "invalid";
}

Sym::Sym(Value value, std::shared_ptr<metaattn::frontend::detail::RegionEmitter> emitter)
    : val(value), owner(std::move(emitter)) {}

Sym::Kind Sym::kind() const {
  if (!val)
    return Kind::Invalid;
  Type type = val.getType();
  if (type.isF32())
    return Kind::F32;
  if (type.isIndex())
    return Kind::Index;
  if (type.isInteger(1))
    return Kind::I1;
  return Kind::Invalid;
}

RegionEmitter *
metaattn::frontend::detail::checkOperands(const char *what,
                                          std::initializer_list<const Sym *> operands) {
  RegionEmitter *cur = RegionEmitter::current();
  if (!cur)
    return nullptr; // Outside any lambda: nothing to emit into and no one to tell.
  for (const Sym *s : operands) {
    if (!s->isValid()) {
      cur->report(std::string("'") + what + "' in the " + cur->name() +
                  " region got an invalid Sym (default-constructed or the result of an "
                  "earlier error)");
      return nullptr;
    }
    if (s->emitter().get() != cur) {
      cur->report(std::string("'") + what + "' in the " + cur->name() +
                  " region uses a Sym of the " + s->emitter()->name() +
                  " region; values cannot cross regions");
      return nullptr;
    }
  }
  return cur;
}

namespace {
using metaattn::frontend::detail::checkOperands;

/// Reports that `what` does not accept the operand kinds given.
Sym kindError(RegionEmitter *cur, const char *what, const char *expected, const Sym &a,
              const Sym *b = nullptr) {
  std::string msg = std::string("'") + what + "' in the " + cur->name() + " region needs " +
                    expected + ", got " + toString(a.kind());
  if (b)
    msg += std::string(" and ") + toString(b->kind());
  cur->report(msg);
  return Sym();
}

/// `b` as a constant of the kind of `like`, or an invalid Sym with the reason reported.
Sym constantLike(const char *what, const Sym &like, Scalar b) {
  RegionEmitter *cur = checkOperands(what, {&like});
  if (!cur)
    return Sym();
  switch (like.kind()) {
  case Sym::Kind::F32:
    return cur->constF32(b.value);
  case Sym::Kind::Index:
    if (b.isInteger)
      return cur->constIndex(b.intValue);
    cur->report(std::string("'") + what + "' in the " + cur->name() +
                " region combines an index with the non-integer constant " +
                std::to_string(b.value) + "; convert the index with toFloat()");
    return Sym();
  default:
    return kindError(cur, what, "an f32 or index value next to a number", like);
  }
}

enum class Arith { Add, Sub, Mul, Div, Rem, Max, Min };

Sym arithmetic(const char *what, Arith op, const Sym &a, const Sym &b) {
  RegionEmitter *cur = checkOperands(what, {&a, &b});
  if (!cur)
    return Sym();
  OpBuilder &bld = cur->getBuilder();
  Location loc = cur->getLoc();
  Value x = a.value(), y = b.value();
  if (a.isFloat() && b.isFloat()) {
    switch (op) {
    case Arith::Add:
      return cur->wrap(arith::AddFOp::create(bld, loc, x, y));
    case Arith::Sub:
      return cur->wrap(arith::SubFOp::create(bld, loc, x, y));
    case Arith::Mul:
      return cur->wrap(arith::MulFOp::create(bld, loc, x, y));
    case Arith::Div:
      return cur->wrap(arith::DivFOp::create(bld, loc, x, y));
    case Arith::Rem:
      return cur->wrap(arith::RemFOp::create(bld, loc, x, y));
    case Arith::Max:
      return cur->wrap(arith::MaximumFOp::create(bld, loc, x, y));
    case Arith::Min:
      return cur->wrap(arith::MinimumFOp::create(bld, loc, x, y));
    }
  }
  if (a.isIndex() && b.isIndex()) {
    switch (op) {
    case Arith::Add:
      return cur->wrap(arith::AddIOp::create(bld, loc, x, y));
    case Arith::Sub:
      return cur->wrap(arith::SubIOp::create(bld, loc, x, y));
    case Arith::Mul:
      return cur->wrap(arith::MulIOp::create(bld, loc, x, y));
    case Arith::Div:
      return cur->wrap(arith::DivSIOp::create(bld, loc, x, y));
    case Arith::Rem:
      return cur->wrap(arith::RemSIOp::create(bld, loc, x, y));
    case Arith::Max:
      return cur->wrap(arith::MaxSIOp::create(bld, loc, x, y));
    case Arith::Min:
      return cur->wrap(arith::MinSIOp::create(bld, loc, x, y));
    }
  }
  return kindError(cur, what, "two f32 or two index values (use toFloat() to mix)", a, &b);
}

enum class Cmp { LT, LE, GT, GE, EQ, NE };

Sym compare(const char *what, Cmp op, const Sym &a, const Sym &b) {
  RegionEmitter *cur = checkOperands(what, {&a, &b});
  if (!cur)
    return Sym();
  OpBuilder &bld = cur->getBuilder();
  Location loc = cur->getLoc();
  if (a.isFloat() && b.isFloat()) {
    static const arith::CmpFPredicate preds[] = {
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE, arith::CmpFPredicate::OGT,
        arith::CmpFPredicate::OGE, arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE};
    return cur->wrap(
        arith::CmpFOp::create(bld, loc, preds[static_cast<int>(op)], a.value(), b.value()));
  }
  bool ints = a.isIndex() && b.isIndex();
  bool bools = a.isBool() && b.isBool() && (op == Cmp::EQ || op == Cmp::NE);
  if (ints || bools) {
    static const arith::CmpIPredicate preds[] = {
        arith::CmpIPredicate::slt, arith::CmpIPredicate::sle, arith::CmpIPredicate::sgt,
        arith::CmpIPredicate::sge, arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne};
    return cur->wrap(
        arith::CmpIOp::create(bld, loc, preds[static_cast<int>(op)], a.value(), b.value()));
  }
  return kindError(cur, what, "two f32 or two index values", a, &b);
}

template <typename OpTy> Sym floatFunction(const char *what, const Sym &x) {
  RegionEmitter *cur = checkOperands(what, {&x});
  if (!cur)
    return Sym();
  if (!x.isFloat())
    return kindError(cur, what, "an f32 value", x);
  return cur->wrap(OpTy::create(cur->getBuilder(), cur->getLoc(), x.value()));
}

template <typename OpTy> Sym logic(const char *what, const Sym &a, const Sym &b) {
  RegionEmitter *cur = checkOperands(what, {&a, &b});
  if (!cur)
    return Sym();
  if (!a.isBool() || !b.isBool())
    return kindError(cur, what, "two i1 values (comparisons)", a, &b);
  return cur->wrap(OpTy::create(cur->getBuilder(), cur->getLoc(), a.value(), b.value()));
}

} // namespace

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

namespace metaattn::frontend {

#define METAATTN_BINARY(OP, NAME, KIND)                                                            \
  Sym operator OP(const Sym &a, const Sym &b) { return arithmetic(NAME, KIND, a, b); }             \
  Sym operator OP(const Sym &a, Scalar b) {                                                        \
    return arithmetic(NAME, KIND, a, constantLike(NAME, a, b));                                    \
  }
METAATTN_BINARY(+, "+", Arith::Add)
METAATTN_BINARY(-, "-", Arith::Sub)
METAATTN_BINARY(*, "*", Arith::Mul)
METAATTN_BINARY(/, "/", Arith::Div)
METAATTN_BINARY(%, "%", Arith::Rem)
#undef METAATTN_BINARY

Sym operator+(Scalar a, const Sym &b) {
  return arithmetic("+", Arith::Add, constantLike("+", b, a), b);
}
Sym operator-(Scalar a, const Sym &b) {
  return arithmetic("-", Arith::Sub, constantLike("-", b, a), b);
}
Sym operator*(Scalar a, const Sym &b) {
  return arithmetic("*", Arith::Mul, constantLike("*", b, a), b);
}
Sym operator/(Scalar a, const Sym &b) {
  return arithmetic("/", Arith::Div, constantLike("/", b, a), b);
}

Sym operator-(const Sym &a) {
  RegionEmitter *cur = checkOperands("unary -", {&a});
  if (!cur)
    return Sym();
  if (a.isFloat())
    return cur->wrap(arith::NegFOp::create(cur->getBuilder(), cur->getLoc(), a.value()));
  if (a.isIndex())
    return arithmetic("unary -", Arith::Sub, cur->constIndex(0), a);
  return kindError(cur, "unary -", "an f32 or index value", a);
}

#define METAATTN_COMPARE(OP, NAME, KIND)                                                           \
  Sym operator OP(const Sym &a, const Sym &b) { return compare(NAME, KIND, a, b); }                \
  Sym operator OP(const Sym &a, Scalar b) {                                                        \
    return compare(NAME, KIND, a, constantLike(NAME, a, b));                                       \
  }
METAATTN_COMPARE(<, "<", Cmp::LT)
METAATTN_COMPARE(<=, "<=", Cmp::LE)
METAATTN_COMPARE(>, ">", Cmp::GT)
METAATTN_COMPARE(>=, ">=", Cmp::GE)
METAATTN_COMPARE(==, "==", Cmp::EQ)
METAATTN_COMPARE(!=, "!=", Cmp::NE)
#undef METAATTN_COMPARE

Sym operator<(Scalar a, const Sym &b) { return compare("<", Cmp::LT, constantLike("<", b, a), b); }
Sym operator<=(Scalar a, const Sym &b) {
  return compare("<=", Cmp::LE, constantLike("<=", b, a), b);
}
Sym operator>(Scalar a, const Sym &b) { return compare(">", Cmp::GT, constantLike(">", b, a), b); }
Sym operator>=(Scalar a, const Sym &b) {
  return compare(">=", Cmp::GE, constantLike(">=", b, a), b);
}

Sym operator&&(const Sym &a, const Sym &b) { return logic<arith::AndIOp>("&&", a, b); }
Sym operator||(const Sym &a, const Sym &b) { return logic<arith::OrIOp>("||", a, b); }

Sym operator!(const Sym &a) {
  RegionEmitter *cur = checkOperands("!", {&a});
  if (!cur)
    return Sym();
  if (!a.isBool())
    return kindError(cur, "!", "an i1 value (a comparison)", a);
  return logic<arith::XOrIOp>("!", a, cur->constBool(true));
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

Sym select(const Sym &c, const Sym &a, const Sym &b) {
  RegionEmitter *cur = checkOperands("select", {&c, &a, &b});
  if (!cur)
    return Sym();
  if (!c.isBool())
    return kindError(cur, "select", "an i1 condition", c);
  if (a.kind() != b.kind())
    return kindError(cur, "select", "two values of one kind", a, &b);
  return cur->wrap(
      arith::SelectOp::create(cur->getBuilder(), cur->getLoc(), c.value(), a.value(), b.value()));
}

Sym select(const Sym &c, const Sym &a, Scalar b) {
  return select(c, a, constantLike("select", a, b));
}

Sym select(const Sym &c, Scalar a, const Sym &b) {
  return select(c, constantLike("select", b, a), b);
}

Sym exp(const Sym &x) { return floatFunction<math::ExpOp>("exp", x); }
Sym exp2(const Sym &x) { return floatFunction<math::Exp2Op>("exp2", x); }
Sym log(const Sym &x) { return floatFunction<math::LogOp>("log", x); }
Sym tanh(const Sym &x) { return floatFunction<math::TanhOp>("tanh", x); }
Sym sqrt(const Sym &x) { return floatFunction<math::SqrtOp>("sqrt", x); }

Sym sigmoid(const Sym &x) {
  RegionEmitter *cur = checkOperands("sigmoid", {&x});
  if (!cur)
    return Sym();
  if (!x.isFloat())
    return kindError(cur, "sigmoid", "an f32 value", x);
  return 1.0 / (1.0 + exp(-x));
}

Sym abs(const Sym &x) {
  RegionEmitter *cur = checkOperands("abs", {&x});
  if (!cur)
    return Sym();
  if (x.isFloat())
    return cur->wrap(math::AbsFOp::create(cur->getBuilder(), cur->getLoc(), x.value()));
  if (x.isIndex())
    return max(x, -x);
  return kindError(cur, "abs", "an f32 or index value", x);
}

Sym max(const Sym &a, const Sym &b) { return arithmetic("max", Arith::Max, a, b); }
Sym min(const Sym &a, const Sym &b) { return arithmetic("min", Arith::Min, a, b); }
Sym max(const Sym &a, Scalar b) { return max(a, constantLike("max", a, b)); }
Sym min(const Sym &a, Scalar b) { return min(a, constantLike("min", a, b)); }
Sym max(Scalar a, const Sym &b) { return max(constantLike("max", b, a), b); }
Sym min(Scalar a, const Sym &b) { return min(constantLike("min", b, a), b); }

Sym toFloat(const Sym &index) {
  RegionEmitter *cur = checkOperands("toFloat", {&index});
  if (!cur)
    return Sym();
  if (!index.isIndex())
    return kindError(cur, "toFloat", "an index value", index);
  OpBuilder &bld = cur->getBuilder();
  Value i64 = arith::IndexCastOp::create(bld, cur->getLoc(), bld.getI64Type(), index.value());
  return cur->wrap(arith::SIToFPOp::create(bld, cur->getLoc(), bld.getF32Type(), i64));
}

Sym constF32(double value) {
  RegionEmitter *cur = RegionEmitter::current();
  return cur ? cur->constF32(value) : Sym();
}

Sym constIndex(int64_t value) {
  RegionEmitter *cur = RegionEmitter::current();
  return cur ? cur->constIndex(value) : Sym();
}

} // namespace metaattn::frontend
