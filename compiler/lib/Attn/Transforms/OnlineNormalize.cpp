//===- OnlineNormalize.cpp - derive the streaming form of normalisers --------===//
//
// attn-online-normalize: attn.attention -> attn.online_attention. The classification is in
// NormalizerClassifier.cpp; this file splits the normaliser region into the shift,
// element-wise and finalize regions of the streaming op.
//
//===----------------------------------------------------------------------===//

#include "NormalizerClassifier.h"
#include "metaattn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace metaattn::attn {
#define GEN_PASS_DEF_ATTNONLINENORMALIZE
#include "metaattn/Dialect/Attn/Transforms/Passes.h.inc"
} // namespace metaattn::attn

using namespace mlir;
using namespace metaattn::attn;

namespace {

/// The ops of `block` that `roots` depend on, in block order, stopping at `stops`.
SmallVector<Operation *> sliceOf(Block &block, ArrayRef<Value> roots,
                                 const llvm::DenseSet<Operation *> &stops) {
  llvm::DenseSet<Operation *> needed;
  SmallVector<Value> worklist(roots.begin(), roots.end());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &block || stops.contains(def) || !needed.insert(def).second)
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered;
  for (Operation &op : block.without_terminator())
    if (needed.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

/// Creates a block in `region` with the leading arguments `leading`, then the six index
/// arguments and the custom inputs of `source` (a normaliser block), and maps the source's
/// index and input arguments onto them.
Block *createBlock(OpBuilder &builder, Region &region, ArrayRef<Type> leading, Block &source,
                   IRMapping &mapping, Location loc) {
  SmallVector<Type> types(leading.begin(), leading.end());
  for (unsigned i = 1; i < source.getNumArguments(); ++i)
    types.push_back(source.getArgument(i).getType());
  SmallVector<Location> locs(types.size(), loc);
  Block *block = builder.createBlock(&region, {}, types, locs);
  for (unsigned i = 1; i < source.getNumArguments(); ++i)
    mapping.map(source.getArgument(i), block->getArgument(leading.size() + i - 1));
  return block;
}

LogicalResult rewrite(AttentionOp op) {
  FailureOr<NormalizerPlan> plan = classifyNormalizer(op);
  if (failed(plan))
    return failure();
  OpBuilder builder(op);
  Location loc = op.getLoc();
  Type f32 = builder.getF32Type();
  Block &norm = op.getNormalizer().front();

  SmallVector<Attribute> reductions;
  SmallVector<int64_t> degrees = {plan->classes[plan->weight].degree};
  for (RowReduceOp acc : plan->accumulators) {
    reductions.push_back(ReductionKindAttr::get(op.getContext(), acc.getKind()));
    degrees.push_back(plan->classes[acc.getValue()].degree);
  }

  auto online = builder.create<OnlineAttentionOp>(
      loc, op->getResultTypes(), op.getQ(), op.getK(), op.getV(), op.getInputs(), op.getInputDims(),
      builder.getArrayAttr(reductions), builder.getDenseI64ArrayAttr(degrees),
      op.getMaskBoundsAttr(), op.getMaskExact());
  if (Attribute config = op->getAttr(kTileConfigAttr))
    online->setAttr(kTileConfigAttr, config);
  IRMapping copyMapping;
  op.getScore().cloneInto(&online.getScore(), copyMapping);
  op.getMask().cloneInto(&online.getMask(), copyMapping);

  llvm::DenseSet<Operation *> reductionOps;
  if (plan->shift)
    reductionOps.insert(plan->shift);
  if (plan->shiftWithInit)
    reductionOps.insert(plan->shiftWithInit);
  for (RowReduceOp acc : plan->accumulators)
    reductionOps.insert(acc);

  // shift(%s, idx..., in...) -> the value whose row maximum is m.
  if (plan->shift) {
    IRMapping mapping;
    Block *block = createBlock(builder, online.getShift(), {f32}, norm, mapping, loc);
    mapping.map(norm.getArgument(0), block->getArgument(0));
    for (Operation *inner : sliceOf(norm, {plan->shift.getValue()}, reductionOps))
      builder.clone(*inner, mapping);
    builder.create<YieldOp>(loc, ValueRange{mapping.lookupOrDefault(plan->shift.getValue())});
  }

  // shift_init(idx..., in...) -> the value the running maximum starts from.
  if (plan->shiftWithInit) {
    IRMapping mapping;
    createBlock(builder, online.getShiftInit(), {}, norm, mapping, loc);
    for (Operation *inner : sliceOf(norm, {plan->shiftInit}, reductionOps))
      builder.clone(*inner, mapping);
    builder.create<YieldOp>(loc, ValueRange{mapping.lookupOrDefault(plan->shiftInit)});
  }

  // elementwise(%s, %m, idx..., in...) -> (weight, accumulator inputs...).
  {
    IRMapping mapping;
    Block *block = createBlock(builder, online.getElementwise(), {f32, f32}, norm, mapping, loc);
    mapping.map(norm.getArgument(0), block->getArgument(0));
    if (plan->shift)
      mapping.map(plan->shiftValue(), block->getArgument(1));
    SmallVector<Value> roots = {plan->weight};
    for (RowReduceOp acc : plan->accumulators)
      roots.push_back(acc.getValue());
    for (Operation *inner : sliceOf(norm, roots, reductionOps))
      builder.clone(*inner, mapping);
    SmallVector<Value> yielded;
    for (Value root : roots)
      yielded.push_back(mapping.lookupOrDefault(root));
    builder.create<YieldOp>(loc, yielded);
  }

  // finalize(%acc..., %m, idx..., in...) -> (denominator, row statistic).
  {
    IRMapping mapping;
    SmallVector<Type> leading(plan->accumulators.size() + 1, f32);
    Block *block = createBlock(builder, online.getFinalize(), leading, norm, mapping, loc);
    for (auto [i, acc] : llvm::enumerate(plan->accumulators))
      mapping.map(acc.getResult(), block->getArgument(i));
    Value m = block->getArgument(plan->accumulators.size());
    if (plan->shift)
      mapping.map(plan->shiftValue(), m);
    for (Operation *inner : sliceOf(norm, {plan->denominator}, reductionOps))
      builder.clone(*inner, mapping);
    Value z = mapping.lookupOrDefault(plan->denominator);
    // The score's value was the kv index inside the normaliser: a denominator that is a
    // constant or an input is still a valid per-row value.
    Value lse = builder.create<math::LogOp>(loc, z);
    if (plan->shift)
      lse = builder.create<arith::AddFOp>(loc, m, lse);
    builder.create<YieldOp>(loc, ValueRange{z, lse});
  }

  op->replaceAllUsesWith(online->getResults());
  op->erase();
  return success();
}

struct AttnOnlineNormalizePass
    : public metaattn::attn::impl::AttnOnlineNormalizeBase<AttnOnlineNormalizePass> {
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) { ops.push_back(op); });
    for (AttentionOp op : ops)
      if (failed(rewrite(op)))
        return signalPassFailure();
  }
};

} // namespace
