//===- CUDAScalarEmitter.cpp - arith, math and scf as CUDA C++ --------------===//
#include "CUDAEmitterImpl.h"

#include "metaattn/Support/ScalarEval.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::cuda;

FailureOr<std::string> Printer::scalarType(Type type) {
  if (type.isIndex() || type.isInteger(32))
    return std::string("int");
  if (type.isInteger(64))
    return std::string("long long");
  if (type.isInteger(1))
    return std::string("bool");
  if (type.isF32())
    return std::string("float");
  if (type.isBF16())
    return std::string("bf16");
  if (type.isF16())
    return std::string("fp16");
  return failure();
}

static std::string floatLiteral(double v) {
  if (std::isnan(v))
    return "__int_as_float(0x7fc00000)";
  if (std::isinf(v))
    return v > 0 ? "metaattn::dev::posInf()" : "metaattn::dev::negInf()";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

static const char *cmpIOperator(arith::CmpIPredicate p, bool &isUnsigned) {
  using P = arith::CmpIPredicate;
  isUnsigned = p == P::ult || p == P::ule || p == P::ugt || p == P::uge;
  switch (p) {
  case P::eq:
    return "==";
  case P::ne:
    return "!=";
  case P::slt:
  case P::ult:
    return "<";
  case P::sle:
  case P::ule:
    return "<=";
  case P::sgt:
  case P::ugt:
    return ">";
  case P::sge:
  case P::uge:
    return ">=";
  }
  return "==";
}

/// Whether `v` has the same value in every iteration of the element loop `loop`: defined
/// outside it, or computed in it by side-effect-free ops from such values (not from its
/// induction variables or loads).
static bool sameForEveryElement(Value v, tile::ParallelOp loop, int depth = 0) {
  if (depth > 16)
    return false;
  Region &body = loop.getBody();
  if (!body.isAncestor(v.getParentRegion()))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() != 0 || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(),
                      [&](Value x) { return sameForEveryElement(x, loop, depth + 1); });
}

/// x when `d` is 1 / (1 + exp(-x)) in f32 (the addition in either order), else null.
static Value logisticArgument(arith::DivFOp d) {
  if (!d.getType().isF32() || !matchPattern(d.getLhs(), m_OneFloat()))
    return {};
  auto add = d.getRhs().getDefiningOp<arith::AddFOp>();
  if (!add)
    return {};
  for (unsigned i = 0; i < 2; ++i) {
    auto exp = add->getOperand(i).getDefiningOp<math::ExpOp>();
    auto neg = exp ? exp.getOperand().getDefiningOp<arith::NegFOp>() : arith::NegFOp();
    if (neg && matchPattern(add->getOperand(1 - i), m_OneFloat()))
      return neg.getOperand();
  }
  return {};
}

/// The subtraction exp(a − b) prints through (expSub / expSubScaled), or null.
static arith::SubFOp expSubtraction(math::ExpOp e) {
  auto sub = e.getOperand().getDefiningOp<arith::SubFOp>();
  return sub && sub.getType().isF32() ? sub : arith::SubFOp();
}

/// (x, k) when the left side of `sub` is x·k with a constant k (a folded score scale), which
/// exp(x·k − b) prints as one fma (expSubScaled); else null values.
static std::pair<Value, Value> scaledLhs(arith::SubFOp sub) {
  if (auto mul = sub.getLhs().getDefiningOp<arith::MulFOp>())
    for (unsigned i = 0; i < 2; ++i)
      if (mul->getOperand(1 - i).getDefiningOp<arith::ConstantOp>())
        return {mul->getOperand(i), mul->getOperand(1 - i)};
  return {};
}

/// Whether every use of `op`'s one result is printed through its operands by a pattern of
/// printScalar, so that its own line would be dead (NVRTC warns about each): the subtraction
/// under exp(a − b), the constant scaling x·k of its left side, and the negation, exp and sum
/// under 1 / (1 + exp(−x)).
static bool foldedIntoUsers(Operation *op, int depth = 0) {
  if (depth > 4 || op->getNumResults() != 1 || op->getResult(0).use_empty() ||
      !isMemoryEffectFree(op))
    return false;
  Value v = op->getResult(0);
  return llvm::all_of(v.getUsers(), [&](Operation *user) {
    if (auto e = dyn_cast<math::ExpOp>(user)) {
      if (expSubtraction(e) == op)
        return true;
      // exp(−x) inside a logistic: printed only if the exp's own line is.
      return isa<arith::NegFOp>(op) && foldedIntoUsers(user, depth + 1);
    }
    if (auto sub = dyn_cast<arith::SubFOp>(user)) {
      bool scaled = sub.getLhs() == v && sub.getRhs() != v && scaledLhs(sub).first;
      return scaled && llvm::all_of(sub->getUsers(), [&](Operation *u) {
               auto e = dyn_cast<math::ExpOp>(u);
               return e && expSubtraction(e) == sub;
             });
    }
    if (auto add = dyn_cast<arith::AddFOp>(user))
      return isa<math::ExpOp>(op) && foldedIntoUsers(user, depth + 1) &&
             llvm::any_of(add->getOperands(),
                          [](Value x) { return matchPattern(x, m_OneFloat()); }) &&
             op->getOperand(0).getDefiningOp<arith::NegFOp>();
    if (auto d = dyn_cast<arith::DivFOp>(user))
      return isa<arith::AddFOp>(op) && d.getRhs() == v && d.getLhs() != v && logisticArgument(d);
    return false;
  });
}

LogicalResult Printer::printScalar(Operation *op) {
  if (op->getNumResults() != 1)
    return op->emitOpError() << "cannot be printed as CUDA: expected one result";
  if (foldedIntoUsers(op))
    return success();
  Value result = op->getResult(0);
  FailureOr<std::string> type = scalarType(result.getType());
  if (failed(type))
    return op->emitOpError() << "cannot be printed as CUDA: unsupported type " << result.getType();
  auto operand = [&](unsigned i) { return name(op->getOperand(i)); };
  auto binary = [&](const char *sym) { return operand(0) + " " + sym + " " + operand(1); };
  auto call = [&](StringRef fn) {
    std::string s = fn.str() + "(";
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      s += (i ? ", " : "") + operand(i);
    return s + ")";
  };
  std::optional<std::string> expr =
      llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
          .Case([&](arith::ConstantOp c) -> std::optional<std::string> {
            if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
              return result.getType().isInteger(1) ? std::string(i.getInt() ? "true" : "false")
                                                   : std::to_string(i.getInt());
            if (auto f = dyn_cast<FloatAttr>(c.getValue())) {
              std::string lit = floatLiteral(f.getValueAsDouble());
              if (!result.getType().isF32())
                return "metaattn::dev::fromFloat<" + *type + ">(" + lit + ")";
              return lit;
            }
            return std::nullopt;
          })
          .Case([&](arith::AddIOp) { return binary("+"); })
          .Case([&](arith::SubIOp) { return binary("-"); })
          .Case([&](arith::MulIOp) { return binary("*"); })
          .Case([&](arith::DivSIOp) { return binary("/"); })
          .Case([&](arith::RemSIOp) { return binary("%"); })
          .Case([&](arith::DivUIOp) {
            return "(int)((unsigned)" + operand(0) + " / (unsigned)" + operand(1) + ")";
          })
          .Case([&](arith::RemUIOp) {
            return "(int)((unsigned)" + operand(0) + " % (unsigned)" + operand(1) + ")";
          })
          .Case([&](arith::FloorDivSIOp) { return call("metaattn_floordiv"); })
          .Case([&](arith::CeilDivSIOp) { return call("metaattn_ceildiv"); })
          .Case([&](arith::MinSIOp) { return call("::min"); })
          .Case([&](arith::MaxSIOp) { return call("::max"); })
          .Case([&](arith::AndIOp) { return binary(result.getType().isInteger(1) ? "&&" : "&"); })
          .Case([&](arith::OrIOp) { return binary(result.getType().isInteger(1) ? "||" : "|"); })
          .Case([&](arith::XOrIOp) { return binary(result.getType().isInteger(1) ? "!=" : "^"); })
          .Case([&](arith::CmpIOp c) {
            bool isUnsigned;
            const char *sym = cmpIOperator(c.getPredicate(), isUnsigned);
            if (isUnsigned)
              return "(unsigned)" + operand(0) + " " + sym + " (unsigned)" + operand(1);
            return binary(sym);
          })
          .Case([&](arith::IndexCastOp) { return "(" + *type + ")" + operand(0); })
          .Case(
              [&](arith::SelectOp) { return operand(0) + " ? " + operand(1) + " : " + operand(2); })
          .Case([&](arith::AddFOp) { return binary("+"); })
          .Case([&](arith::SubFOp) { return binary("-"); })
          .Case([&](arith::MulFOp) { return binary("*"); })
          .Case([&](arith::DivFOp d) {
            // 1 / (1 + exp(-x)): the logistic function on one special-function op.
            if (Value x = logisticArgument(d))
              return "metaattn::dev::sigmoid(" + name(x) + ")";
            // x / y with y the same for every element of the enclosing element loop (a
            // constant, a length): x times 1 / y, whose one IEEE division nvcc hoists out of
            // the unrolled loop; within an ulp of x / y, exact where y is a power of two.
            auto loop = d->getParentOfType<tile::ParallelOp>();
            if (loop && d.getType().isF32() && sameForEveryElement(d.getRhs(), loop))
              return operand(0) + " * (1.0f / " + operand(1) + ")";
            return binary("/");
          })
          .Case([&](arith::NegFOp) { return "-" + operand(0); })
          .Case<arith::MaximumFOp, arith::MaxNumFOp>([&](Operation *) { return call("fmaxf"); })
          .Case<arith::MinimumFOp, arith::MinNumFOp>([&](Operation *) { return call("fminf"); })
          .Case([&](arith::CmpFOp c) -> std::optional<std::string> {
            using P = arith::CmpFPredicate;
            std::string a = operand(0), b = operand(1);
            switch (c.getPredicate()) {
            case P::OEQ:
              return a + " == " + b;
            case P::ONE:
              return "(" + a + " < " + b + " || " + a + " > " + b + ")";
            case P::OLT:
              return a + " < " + b;
            case P::OLE:
              return a + " <= " + b;
            case P::OGT:
              return a + " > " + b;
            case P::OGE:
              return a + " >= " + b;
            case P::UEQ:
              return "!(" + a + " < " + b + " || " + a + " > " + b + ")";
            case P::UNE:
              return a + " != " + b;
            case P::ULT:
              return "!(" + a + " >= " + b + ")";
            case P::ULE:
              return "!(" + a + " > " + b + ")";
            case P::UGT:
              return "!(" + a + " <= " + b + ")";
            case P::UGE:
              return "!(" + a + " < " + b + ")";
            case P::ORD:
              return "(" + a + " == " + a + " && " + b + " == " + b + ")";
            case P::UNO:
              return "(" + a + " != " + a + " || " + b + " != " + b + ")";
            case P::AlwaysTrue:
              return std::string("true");
            case P::AlwaysFalse:
              return std::string("false");
            }
            return std::nullopt;
          })
          .Case([&](arith::ExtFOp) { return "metaattn::dev::toFloat(" + operand(0) + ")"; })
          .Case([&](arith::TruncFOp) {
            return "metaattn::dev::fromFloat<" + *type + ">(" + operand(0) + ")";
          })
          .Case<arith::SIToFPOp, arith::UIToFPOp>([&](Operation *) {
            // An unsigned conversion reads its operand as unsigned; a 16-bit float result
            // converts through float.
            std::string in = operand(0);
            if (isa<arith::UIToFPOp>(op))
              in =
                  (op->getOperand(0).getType().getIntOrFloatBitWidth() > 32 ? "(unsigned long long)"
                                                                            : "(unsigned)") +
                  in;
            Type result = op->getResult(0).getType();
            if (result.isF64())
              return "(double)" + in;
            if (result.isF32())
              return "(float)" + in;
            return "metaattn::dev::fromFloat<" + *type + ">((float)" + in + ")";
          })
          .Case<arith::FPToSIOp, arith::FPToUIOp>(
              [&](Operation *) { return "(" + *type + ")" + operand(0); })
          .Case([&](math::ExpOp e) {
            // Every K-th element of a fragment loop on the FMA pipe (exp2-emulation): the
            // Mixed forms take the loop's element index, a constant once unrolled.
            std::string mixed, lead;
            if (auto every = e->getAttrOfType<IntegerAttr>(kExp2EmulationAttr);
                every && every.getInt() > 0 && parallel && parallel->anchored &&
                op->getParentOfType<tile::ParallelOp>().getShape().size() == 2) {
              mixed = "Mixed<" + std::to_string(every.getInt()) + ">";
              lead = parallel->elem2d + ", ";
            }
            auto named = [&](StringRef suffix) {
              return "metaattn::dev::exp" + suffix.str() + mixed + "(" + lead;
            };
            // exp(a - b): one fma per element where b is a row's value (the subtraction is
            // not printed: foldedIntoUsers).
            arith::SubFOp sub = expSubtraction(e);
            if (!sub)
              return named("") + operand(0) + ")";
            // exp(x·k - b) with a constant k (a folded score scale): the product joins the fma.
            if (auto [x, k] = scaledLhs(sub); x)
              return named("SubScaled") + name(x) + ", " + name(k) + ", " + name(sub.getRhs()) +
                     ")";
            return named("Sub") + name(sub.getLhs()) + ", " + name(sub.getRhs()) + ")";
          })
          .Case([&](math::Exp2Op) { return call("metaattn::dev::exp2Approx"); })
          .Case([&](math::LogOp) { return call("metaattn::dev::log"); })
          .Case([&](math::Log2Op) { return call("metaattn::dev::log2Approx"); })
          // tanh.approx.f32 (one MUFU.TANH, 2^-11 relative) where the op allows it; else
          // tanhf, which under the runtime's flags (-ftz=true, no fast math) is an ex2, a
          // reciprocal and a polynomial.
          .Case([&](math::TanhOp t) {
            return call(t->hasAttr(kApproxAttr) ? "metaattn::dev::tanh" : "tanhf");
          })
          .Case([&](math::AbsFOp) { return call("fabsf"); })
          .Case([&](math::SqrtOp) { return call("sqrtf"); })
          .Case([&](math::RsqrtOp) { return call("rsqrtf"); })
          .Case([&](math::PowFOp) { return call("powf"); })
          .Case([&](math::FmaOp) { return call("fmaf"); })
          .Case([&](math::ErfOp) { return call("erff"); })
          .Default([](Operation *) { return std::nullopt; });
  if (!expr)
    return op->emitOpError() << "cannot be printed as CUDA (no lowering for this op)";
  line() << "const " << *type << " " << fresh(result) << " = " << *expr << ";\n";
  return success();
}

FailureOr<SmallVector<std::string>> Printer::declareCarried(scf::ForOp loop) {
  SmallVector<std::string> carried;
  for (auto [arg, init, result] :
       llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs(), loop.getResults())) {
    FailureOr<std::string> type = scalarType(arg.getType());
    if (failed(type))
      return loop.emitOpError() << "loop-carried values must be scalars";
    std::string var = fresh(result);
    line() << *type << " " << var << " = " << name(init) << ";\n";
    bind(arg, var);
    carried.push_back(var);
  }
  return carried;
}

LogicalResult Printer::printLoopBody(scf::ForOp loop, ArrayRef<std::string> carried) {
  Block &body = *loop.getBody();
  if (failed(printBlock(body)))
    return failure();
  auto yield = cast<scf::YieldOp>(body.getTerminator());
  for (auto [var, value] : llvm::zip(carried, yield.getOperands()))
    line() << var << " = " << name(value) << ";\n";
  return success();
}

/// Whether `value` depends on a value read from memory (tile.read, tile.read_bounds) or taken
/// from a kept list (tile.kept_tiles, tile.tile_at), through scalar ops, branch results and
/// loop-carried values: what ptxas cannot tell is the same in every lane.
static bool readsMemory(Value value) {
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      // A loop's induction variable or carried value: its bounds, start and yields.
      def = arg.getOwner()->getParentOp();
      if (!isa_and_nonnull<scf::ForOp>(def))
        continue; // a kernel parameter, or an element index (not a branch of block scalars)
    }
    if (!def || !seen.insert(def).second)
      continue;
    if (isa<tile::ReadOp, tile::ReadBoundsOp, tile::KeptTilesOp, tile::TileAtOp>(def))
      return true;
    llvm::append_range(worklist, def->getOperands());
    if (isa<scf::IfOp, scf::ForOp>(def))
      def->walk([&](scf::YieldOp yield) { llvm::append_range(worklist, yield.getOperands()); });
  }
  return false;
}

LogicalResult Printer::printScf(Operation *op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    if (std::optional<LogicalResult> chunked = printChunkedFor(forOp))
      return *chunked;
    FailureOr<SmallVector<std::string>> carried = declareCarried(forOp);
    if (failed(carried))
      return failure();
    std::string iv = fresh(forOp.getInductionVar());
    line() << "for (int " << iv << " = " << name(forOp.getLowerBound()) << "; " << iv << " < "
           << name(forOp.getUpperBound()) << "; " << iv << " += " << name(forOp.getStep())
           << ") {\n";
    {
      IndentScope scope(*this);
      if (failed(printLoopBody(forOp, *carried)))
        return failure();
    }
    line() << "}\n";
    return success();
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    SmallVector<std::string> vars;
    for (Value result : ifOp.getResults()) {
      FailureOr<std::string> type = scalarType(result.getType());
      if (failed(type))
        return op->emitOpError() << "scf.if results must be scalars";
      vars.push_back(fresh(result));
      line() << *type << " " << vars.back() << ";\n";
    }
    auto printBranch = [&](Region &region) -> LogicalResult {
      IndentScope scope(*this);
      Block &block = region.front();
      if (failed(printBlock(block)))
        return failure();
      for (auto [var, value] : llvm::zip(vars, block.getTerminator()->getOperands()))
        line() << var << " = " << name(value) << ";\n";
      return success();
    };
    // A branch of the block's scalar code (not an element's, in a tile.parallel, nor a
    // lane's, in a tile.kept_tiles test) is taken alike by every lane of a warp: said so to
    // ptxas where the condition is not evidently uniform to it (metaattn::dev::warpUniform),
    // a value read from memory or a kept list. Where ptxas sees it anyway (block ids, sizes,
    // constants) the vote costs: softcap, ALiBi and softpick ran 4-8% slower with it.
    bool blockScalar =
        !op->getParentOfType<tile::ParallelOp>() && !op->getParentOfType<tile::KeptTilesOp>();
    if (blockScalar && readsMemory(ifOp.getCondition()))
      line() << "if (metaattn::dev::warpUniform(" << name(ifOp.getCondition()) << ")) {\n";
    else
      line() << "if (" << name(ifOp.getCondition()) << ") {\n";
    if (failed(printBranch(ifOp.getThenRegion())))
      return failure();
    if (!ifOp.getElseRegion().empty()) {
      line() << "} else {\n";
      if (failed(printBranch(ifOp.getElseRegion())))
        return failure();
    }
    line() << "}\n";
    return success();
  }
  return op->emitOpError() << "cannot be printed as CUDA";
}
