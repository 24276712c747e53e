//===- MaskIntervals.cpp - classify tiles by interval arithmetic ------------===//
#include "MaskIntervals.h"

#include "metaattn/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace metaattn;

namespace {

class IntervalEmitter {
public:
  IntervalEmitter(OpBuilder &b, Location loc, bool boundPlainAxes)
      : b(b), loc(loc), boundPlainAxes(boundPlainAxes) {}

  BoolInterval run(Region &mask, ArrayRef<IndexInterval> indexArgs, ArrayRef<BoxInput> inputs,
                   BoxTiling tiling) {
    Block &block = mask.front();
    for (auto [i, arg] : llvm::enumerate(block.getArguments()))
      if (i < indexArgs.size())
        ints[arg] = indexArgs[i];
    unsigned firstInput = attn::kNumIndexArgs;
    for (auto [i, input] : llvm::enumerate(inputs)) {
      unsigned argNo = firstInput + i;
      if (argNo < block.getNumArguments() && !block.getArgument(argNo).use_empty() &&
          indexArgs.size() >= attn::kNumIndexArgs)
        if (IndexInterval value = readOverBox(input, indexArgs, tiling); value.known())
          ints[block.getArgument(argNo)] = value;
    }
    for (Operation &op : block.without_terminator())
      visit(&op);
    Value result = block.getTerminator()->getOperand(0);
    return boolOf(result);
  }

private:
  /// The value of `input` as an interval over the box (see classifyMaskOverBox): exact when
  /// its indices are constant over the box, its bounds along the one axis that varies when
  /// that is a plain q or kv axis; unknown otherwise.
  IndexInterval readOverBox(const BoxInput &input, ArrayRef<IndexInterval> box, BoxTiling tiling) {
    if (!input.elementType.isSignlessInteger())
      return {};
    SmallVector<Value> indices;
    Value valid;
    std::optional<unsigned> varying; // the plain axis that varies, read as bounds
    Value varyingFirst, varyingLast;
    bool varyingKv = false;
    for (const attn::InputAxis &axis : input.axes) {
      bool isQ = axis.dim == attn::InputDim::Q;
      const IndexInterval &range =
          box[static_cast<unsigned>(axis.dim == attn::InputDim::B   ? attn::IndexArg::B
                                    : axis.dim == attn::InputDim::H ? attn::IndexArg::H
                                    : isQ                           ? attn::IndexArg::Q
                                                                    : attn::IndexArg::KV)];
      if (!range.known())
        return {};
      if (range.lo == range.hi) { // b and h: one value per box
        indices.push_back(range.lo);
        continue;
      }
      if (!axis.isBlock()) {
        // A plain q or kv axis: the input's bounds over the box's range (ids of documents).
        // Only one such axis, and only types the targets print.
        if (!boundPlainAxes || varying ||
            !(input.elementType.isInteger(32) || input.elementType.isInteger(64)))
          return {};
        varying = indices.size();
        varyingFirst = range.lo;
        varyingLast = range.hi;
        varyingKv = !isQ;
        indices.push_back(range.lo);
        continue;
      }
      Value n = b.create<arith::ConstantIndexOp>(loc, axis.divisor);
      Value first = b.create<arith::DivUIOp>(loc, range.lo, n);
      indices.push_back(first);
      // One block when N is a multiple of the aligned tile the range lies in; else check.
      int64_t tile = isQ ? tiling.qTile : tiling.kvTile;
      if (tile > 0 && axis.divisor % tile == 0)
        continue;
      Value last = b.create<arith::DivUIOp>(loc, range.hi, n);
      Value same = cmp(arith::CmpIPredicate::eq, first, last);
      valid = valid ? land(valid, same) : same;
    }
    if (varying && varyingKv && input.tileBounds && input.boundsTile > 0 &&
        tiling.kvTile == input.boundsTile) {
      // The box's kv range lies in one aligned tile, whose bounds the pre-pass wrote: they
      // hold for any part of it.
      indices[*varying] = b.create<arith::DivUIOp>(
          loc, varyingFirst, b.create<arith::ConstantIndexOp>(loc, input.boundsTile));
      SmallVector<Value> at = indices;
      at.push_back(b.create<arith::ConstantIndexOp>(loc, 0));
      Value lo = b.create<tile::ReadOp>(loc, input.elementType, input.tileBounds, at);
      at.back() = b.create<arith::ConstantIndexOp>(loc, 1);
      Value hi = b.create<tile::ReadOp>(loc, input.elementType, input.tileBounds, at);
      return {lo, hi, valid};
    }
    if (varying) {
      auto bounds =
          b.create<tile::ReadBoundsOp>(loc, input.elementType, input.elementType, input.tensor,
                                       indices, varyingLast, b.getI64IntegerAttr(*varying));
      return {bounds.getMin(), bounds.getMax(), valid};
    }
    Value v = b.create<tile::ReadOp>(loc, input.elementType, input.tensor, indices);
    return {v, v, valid};
  }

  /// The conjunction of two validity flags (null: always valid).
  Value bothValid(Value x, Value y) {
    if (!x || !y)
      return x ? x : y;
    return land(x, y);
  }
  IndexInterval withValid(IndexInterval r, Value valid) {
    r.valid = valid;
    return r;
  }

  Value constBool(bool v) { return b.create<arith::ConstantIntOp>(loc, b.getI1Type(), v); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return b.create<arith::CmpIOp>(loc, p, x, y);
  }
  Value land(Value x, Value y) { return b.create<arith::AndIOp>(loc, x, y); }
  Value lor(Value x, Value y) { return b.create<arith::OrIOp>(loc, x, y); }

  BoolInterval unknownBool() { return {constBool(false), constBool(false)}; }
  BoolInterval boolOf(Value v) {
    auto it = bools.find(v);
    return it == bools.end() ? unknownBool() : it->second;
  }
  IndexInterval intOf(Value v) {
    auto it = ints.find(v);
    return it == ints.end() ? IndexInterval() : it->second;
  }

  void visit(Operation *op) {
    Type type = op->getNumResults() == 1 ? op->getResult(0).getType() : Type();
    if (!type)
      return;
    if (type.isInteger(1))
      bools[op->getResult(0)] = visitBool(op);
    else if (type.isIndex() || type.isSignlessInteger())
      ints[op->getResult(0)] = visitInt(op);
  }

  IndexInterval visitInt(Operation *op) {
    using namespace arith;
    APInt c;
    if (matchPattern(op->getResult(0), m_ConstantInt(&c))) {
      // The mask region is only read: constants are materialised where the box is evaluated.
      Value v = b.clone(*op)->getResult(0);
      return {v, v};
    }
    if (auto cast = dyn_cast<IndexCastOp>(op)) {
      // Widening to index sign-extends: monotone.
      IndexInterval in = intOf(cast.getIn());
      if (!in.known() || !cast.getType().isIndex())
        return {};
      if (cast.getIn().getType().isIndex())
        return in;
      Type index = b.getIndexType();
      return {b.create<IndexCastOp>(loc, index, in.lo), b.create<IndexCastOp>(loc, index, in.hi),
              in.valid};
    }
    if (op->getNumOperands() != 2)
      return {};
    IndexInterval x = intOf(op->getOperand(0)), y = intOf(op->getOperand(1));
    if (!x.known() || !y.known())
      return {};
    Value valid = bothValid(x.valid, y.valid);
    IndexInterval r = visitBinary(op, x, y);
    return r.known() ? withValid(r, valid) : IndexInterval();
  }

  IndexInterval visitBinary(Operation *op, IndexInterval x, IndexInterval y) {
    using namespace arith;
    // The constant operand, rematerialised outside the mask region (y.lo is its clone).
    Value o0 = y.lo;
    if (isa<AddIOp>(op))
      return {b.create<AddIOp>(loc, x.lo, y.lo), b.create<AddIOp>(loc, x.hi, y.hi)};
    if (isa<SubIOp>(op))
      return {b.create<SubIOp>(loc, x.lo, y.hi), b.create<SubIOp>(loc, x.hi, y.lo)};
    if (isa<MinSIOp>(op))
      return {b.create<MinSIOp>(loc, x.lo, y.lo), b.create<MinSIOp>(loc, x.hi, y.hi)};
    if (isa<MaxSIOp>(op))
      return {b.create<MaxSIOp>(loc, x.lo, y.lo), b.create<MaxSIOp>(loc, x.hi, y.hi)};
    APInt k;
    bool constantRhs = matchPattern(o0, m_ConstantInt(&k));
    if (isa<MulIOp>(op) && constantRhs) {
      Value lo = b.create<MulIOp>(loc, x.lo, o0), hi = b.create<MulIOp>(loc, x.hi, o0);
      return k.isNegative() ? IndexInterval{hi, lo} : IndexInterval{lo, hi};
    }
    // Division by a positive constant is monotone (truncating, floor or ceiling).
    if (constantRhs && k.isStrictlyPositive()) {
      if (isa<DivSIOp>(op))
        return {b.create<DivSIOp>(loc, x.lo, o0), b.create<DivSIOp>(loc, x.hi, o0)};
      if (isa<FloorDivSIOp>(op))
        return {b.create<FloorDivSIOp>(loc, x.lo, o0), b.create<FloorDivSIOp>(loc, x.hi, o0)};
      if (isa<CeilDivSIOp>(op))
        return {b.create<CeilDivSIOp>(loc, x.lo, o0), b.create<CeilDivSIOp>(loc, x.hi, o0)};
    }
    return {};
  }

  BoolInterval visitBool(Operation *op) {
    using namespace arith;
    APInt c;
    if (matchPattern(op->getResult(0), m_ConstantInt(&c)))
      return {constBool(c.getBoolValue()), constBool(!c.getBoolValue())};
    if (auto andOp = dyn_cast<AndIOp>(op)) {
      BoolInterval x = boolOf(andOp.getLhs()), y = boolOf(andOp.getRhs());
      return {land(x.mustTrue, y.mustTrue), lor(x.mustFalse, y.mustFalse)};
    }
    if (auto orOp = dyn_cast<OrIOp>(op)) {
      BoolInterval x = boolOf(orOp.getLhs()), y = boolOf(orOp.getRhs());
      return {lor(x.mustTrue, y.mustTrue), land(x.mustFalse, y.mustFalse)};
    }
    if (auto xorOp = dyn_cast<XOrIOp>(op)) {
      APInt one;
      Value other;
      if (matchPattern(xorOp.getRhs(), m_ConstantInt(&one)) && one.getBoolValue())
        other = xorOp.getLhs();
      else if (matchPattern(xorOp.getLhs(), m_ConstantInt(&one)) && one.getBoolValue())
        other = xorOp.getRhs();
      if (!other)
        return unknownBool();
      BoolInterval x = boolOf(other);
      return {x.mustFalse, x.mustTrue};
    }
    if (auto sel = dyn_cast<SelectOp>(op)) {
      BoolInterval c = boolOf(sel.getCondition()), x = boolOf(sel.getTrueValue()),
                   y = boolOf(sel.getFalseValue());
      Value t = lor(lor(land(c.mustTrue, x.mustTrue), land(c.mustFalse, y.mustTrue)),
                    land(x.mustTrue, y.mustTrue));
      Value f = lor(lor(land(c.mustTrue, x.mustFalse), land(c.mustFalse, y.mustFalse)),
                    land(x.mustFalse, y.mustFalse));
      return {t, f};
    }
    if (auto cmpOp = dyn_cast<CmpIOp>(op)) {
      IndexInterval x = intOf(cmpOp.getLhs()), y = intOf(cmpOp.getRhs());
      if (!x.known() || !y.known())
        return unknownBool();
      BoolInterval r = compare(cmpOp.getPredicate(), x, y);
      // Bounds that hold only where `valid` is true decide nothing elsewhere.
      if (Value valid = bothValid(x.valid, y.valid))
        return {land(valid, r.mustTrue), land(valid, r.mustFalse)};
      return r;
    }
    return unknownBool();
  }

  BoolInterval compare(arith::CmpIPredicate predicate, IndexInterval x, IndexInterval y) {
    using P = arith::CmpIPredicate;
    auto le = [&](Value a, Value bb) { return cmp(P::sle, a, bb); };
    auto lt = [&](Value a, Value bb) { return cmp(P::slt, a, bb); };
    switch (predicate) {
    case P::sle:
      return {le(x.hi, y.lo), lt(y.hi, x.lo)};
    case P::slt:
      return {lt(x.hi, y.lo), le(y.hi, x.lo)};
    case P::sge:
      return {le(y.hi, x.lo), lt(x.hi, y.lo)};
    case P::sgt:
      return {lt(y.hi, x.lo), le(x.hi, y.lo)};
    case P::eq:
    case P::ne: {
      Value single =
          land(land(cmp(P::eq, x.lo, x.hi), cmp(P::eq, y.lo, y.hi)), cmp(P::eq, x.lo, y.lo));
      Value disjoint = lor(lt(x.hi, y.lo), lt(y.hi, x.lo));
      if (predicate == P::eq)
        return {single, disjoint};
      return {disjoint, single};
    }
    default:
      return unknownBool(); // unsigned: values may be negative
    }
  }

  OpBuilder &b;
  Location loc;
  bool boundPlainAxes;
  llvm::DenseMap<Value, IndexInterval> ints;
  llvm::DenseMap<Value, BoolInterval> bools;
};

} // namespace

BoolInterval metaattn::classifyMaskOverBox(OpBuilder &b, Location loc, Region &mask,
                                           ArrayRef<IndexInterval> indexArgs,
                                           ArrayRef<BoxInput> inputs, BoxTiling tiling,
                                           bool boundPlainAxes) {
  return IntervalEmitter(b, loc, boundPlainAxes).run(mask, indexArgs, inputs, tiling);
}
