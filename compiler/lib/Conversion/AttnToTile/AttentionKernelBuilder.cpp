//===- AttentionKernelBuilder.cpp - one attention as a tile.kernel -----------===//
//
// Builds the flash-attention schedule of an attn.online_attention in the tile dialect. The
// streaming regions (score, mask, shift, elementwise, finalize) are inlined into
// tile.parallel bodies; the rescaling of each accumulator follows its degree.
//
//===----------------------------------------------------------------------===//

#include "MaskIntervals.h"
#include "RowTerms.h"
#include "TileIRBuilder.h"
#include "metaattn/Conversion/AttnToTile/AttnToTile.h"
#include "metaattn/Dialect/Attn/Transforms/Passes.h"
#include "metaattn/Support/ScalarEval.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::tile;
using attn::IndexArg;
using attn::InputDim;

bool metaattn::elementInvariant(Block &block, Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() != &block)
      return true;
    unsigned i = arg.getArgNumber();
    auto index = [](IndexArg a) { return 1 + static_cast<unsigned>(a); };
    return i == index(IndexArg::B) || i == index(IndexArg::H) || i == index(IndexArg::SQ) ||
           i == index(IndexArg::SKV);
  }
  Operation *def = value.getDefiningOp();
  if (def->getBlock() != &block)
    return true;
  if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(),
                      [&](Value operand) { return elementInvariant(block, operand); });
}

namespace {

class KernelBuilder : public TileIRBuilder {
public:
  KernelBuilder(OpBuilder &b, attn::OnlineAttentionOp op, const TileConfig &config,
                attn::CombineOp epilogue)
      : TileIRBuilder(b, op.getLoc()), op(op), cfg(config), epilogue(epilogue) {}

  FailureOr<KernelOp> build(StringRef name);

private:
  // --- small builders (the rest: TileIRBuilder) ------------------------------
  Value negInf() {
    return b.create<arith::ConstantFloatOp>(
        loc, b.getF32Type(), APFloat::getInf(APFloat::IEEEsingle(), /*Negative=*/true));
  }
  Value maxI(Value x, Value y) { return b.create<arith::MaxSIOp>(loc, x, y); }

  /// The axes of each custom input (its `input_dims` entry).
  SmallVector<SmallVector<attn::InputAxis>> inputAxes() {
    SmallVector<SmallVector<attn::InputAxis>> axes;
    for (Attribute attr : op.getInputDims()) {
      std::string error;
      axes.push_back(*attn::parseInputDims(cast<StringAttr>(attr).getValue(), error));
    }
    return axes;
  }

  /// Whether a custom input over query or key positions has no batch axis (a bias matrix
  /// shared by the batch): the blocks that read the same part of it then run side by side.
  bool sharedAcrossBatch() {
    for (ArrayRef<attn::InputAxis> dims : inputAxes())
      if (!attn::hasInputDim(dims, InputDim::B) &&
          (attn::hasInputDim(dims, InputDim::Q) || attn::hasInputDim(dims, InputDim::KV)))
        return true;
    return false;
  }

  /// Renumbers the blocks so that the batch varies fastest, then the query tile, then the
  /// head: the blocks in flight at once (about one head's query tiles for every batch entry)
  /// read a batch-shared input's rows while they are in L2, where the launch order (query
  /// tiles, heads, then batch) reads it from memory once per batch entry. The extents come
  /// from the tensors, so a persistent kernel's tile coordinates are renumbered alike.
  void batchFastest(Value &blockX, Value qTiles) {
    Value batches = b.create<DimOp>(loc, b.getIndexType(), qParam, 0);
    Value linear = add(blockX, mul(qTiles, add(head, mul(batch, idx(heads)))));
    batch = b.create<arith::RemUIOp>(loc, linear, batches);
    Value rest = b.create<arith::DivUIOp>(loc, linear, batches);
    blockX = b.create<arith::RemUIOp>(loc, rest, qTiles);
    head = b.create<arith::DivUIOp>(loc, rest, qTiles);
  }

  /// Custom input i's scalar at (b, h, q, kv); 0 for an input over kv when `kv` is null.
  Value readInput(unsigned i, ArrayRef<attn::InputAxis> dims, Value q, Value kv) {
    Type elt = cast<RankedTensorType>(op.getInputs()[i].getType()).getElementType();
    if (!kv && attn::hasInputDim(dims, InputDim::KV))
      return b.create<arith::ConstantOp>(loc, b.getZeroAttr(elt));
    SmallVector<Value> indices;
    for (attn::InputAxis a : dims) {
      Value index = a.dim == InputDim::B   ? batch
                    : a.dim == InputDim::H ? head
                    : a.dim == InputDim::Q ? q
                                           : kv;
      // A block index: floor(index / N) (indices are non-negative).
      if (a.isBlock())
        index = b.create<arith::DivUIOp>(loc, index, idx(a.divisor));
      indices.push_back(index);
    }
    return b.create<ReadOp>(loc, elt, inputParams[i], indices);
  }

  /// The custom-input scalars at (b, h, q, kv); inputs over kv read 0 when `kv` is null.
  SmallVector<Value> readInputs(Value q, Value kv) {
    SmallVector<Value> values;
    for (auto [i, dims] : llvm::enumerate(inputAxes()))
      values.push_back(readInput(i, dims, q, kv));
    return values;
  }

  /// G(q) − G(q0) for the score's row term G (rowTerms), at `b`'s insertion point.
  Value rowTermShift(Value q) {
    SmallVector<SmallVector<attn::InputAxis>> axes = inputAxes();
    auto at = [&](Value row) {
      return rowTerms->emitRowTerm(b, loc, [&](unsigned i) -> Value {
        constexpr unsigned kFixed = 1 + attn::kNumIndexArgs;
        if (i >= kFixed)
          return readInput(i - kFixed, axes[i - kFixed], row, Value());
        switch (static_cast<IndexArg>(i - 1)) {
        case IndexArg::B:
          return batch;
        case IndexArg::H:
          return head;
        case IndexArg::Q:
          return row;
        case IndexArg::SQ:
          return seqQ;
        case IndexArg::SKV:
          return seqKv;
        case IndexArg::KV:
          break;
        }
        llvm_unreachable("a row term reads neither the score nor kv");
      });
    };
    return b.create<arith::SubFOp>(loc, at(q), at(q0));
  }

  /// Region arguments (b, h, q, kv, sq, skv, inputs...) preceded by `leading`.
  SmallVector<Value> regionArgs(ArrayRef<Value> leading, Value q, Value kv) {
    SmallVector<Value> args(leading.begin(), leading.end());
    args.append({batch, head, q, kv ? kv : idx(0), seqQ, seqKv});
    llvm::append_range(args, readInputs(q, kv));
    return args;
  }

  /// `keep` for element (q, kv): true on full tiles, else the mask and kv < skv.
  Value keepValue(Value partial, Value q, Value kv) {
    auto ifOp = b.create<scf::IfOp>(loc, b.getI1Type(), partial, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      Value inMask = inlineRegion(op.getMask(), regionArgs({}, q, kv)).front();
      Value inBounds = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, kv, seqKv);
      b.create<scf::YieldOp>(loc, ValueRange{b.create<arith::AndIOp>(loc, inMask, inBounds)});
      b.setInsertionPointToStart(&ifOp.getElseRegion().front());
      Value yes = b.create<arith::ConstantIntOp>(loc, b.getI1Type(), 1);
      b.create<scf::YieldOp>(loc, ValueRange{yes});
    }
    return ifOp.getResult(0);
  }

  /// e = cq·q + csq·sq + cskv·skv + c for one mask bound.
  Value boundAt(const attn::KvBound &bound, Value q) {
    Value e = idx(bound.c);
    if (bound.cq)
      e = add(e, mul(idx(bound.cq), q));
    if (bound.csq)
      e = add(e, mul(idx(bound.csq), seqQ));
    if (bound.cskv)
      e = add(e, mul(idx(bound.cskv), seqKv));
    return e;
  }

  void computeTileRange();
  SmallVector<BoxInput> boxInputs();
  KeptTilesOp buildKeptTiles();
  void buildLoopBody(Value j, Value unmasked);
  void buildEpilogue();

  attn::OnlineAttentionOp op;
  TileConfig cfg;
  /// The combine evaluated in the epilogue (null: the kernel writes its own output), the
  /// parameters of its values (null at this attention's own output) and of its inputs.
  attn::CombineOp epilogue;
  SmallVector<Value> combineValueParams, combineInputParams;
  SmallVector<SmallVector<attn::InputAxis>> combineAxes;

  int64_t heads = 0, kvHeads = 0, valueDim = 0;
  Type elt;
  Value qParam, kParam, vParam, oParam, lseParam;
  SmallVector<Value> inputParams;
  /// Per custom input, its kv tiles' bounds from the pre-pass (TileConfig::kvTileBounds), or
  /// null.
  SmallVector<Value> tileBoundsParams;
  Value batch, head, kvHead, q0, seqQ, seqKv;
  Value qLast, tileLo, tileHi;
  /// The rows [groupLo, groupHi] of the block that the calling warpgroup works on
  /// (`tile.row_range`; the whole block until tile-group-guards narrows it).
  Value groupLo, groupHi;
  // Buffers.
  Value qShared, kShared, vShared, scores, shiftInput, probs, out, rowMax, rowMaxNew;
  /// The output's own staging tile (cfg.ownStagingTile), or null.
  Value outStage;
  Value keptFlags, keptRows; // kept-entry counts, for the row statistic without a shift
  SmallVector<Value> accumulators, accumulatorInputs;
  llvm::MapVector<int64_t, Value> alphas; // degree -> rescale factors
  bool shiftInPlace = false;
  /// The elementwise region yields 0 on a -inf score (weightsVanishOnMaskedScores).
  bool maskedScoresVanish = false;
  /// c when the scores are kept raw (TileConfig::foldScoreScale applies): the row maximum
  /// is of raw scores y, and c is applied where scores and maximum are read.
  std::optional<double> scoreScale;
  /// y, the raw score in the score region (its argument for `s * c`), and the factors of an
  /// additive term (PositiveScale: the raw score is y ± (u/c)·v).
  Value rawScore, rawTermU, rawTermV;
  bool rawTermSubtract = false;
  /// The raw score y is g(s), g nondecreasing in the dot product s and the same over a tile
  /// (TileConfig::monotoneMax applies): the scores are kept as s, their row maximum is taken
  /// of s and mapped through g once per row, and the weights' loop computes g itself.
  bool monotoneMax = false;
  /// The score's term of the query row alone (TileConfig::dropRowTerms applies): the element
  /// loop computes the score at the block's first row q0, and the maximum read by the
  /// finalizer moves by G(q) − G(q0).
  std::optional<RowTermSplit> rowTerms;
  /// The shift as a constant, in the score's units, where the score is bounded
  /// (TileConfig::boundedShift applies): no row maximum, no rescaling.
  std::optional<double> staticShift;

  /// The raw score y ± (u/c)·v of a score c·y ± u·v (PositiveScale), with the operations of
  /// the score region that y, u and v need inlined with `args` (not c·y, nor the sum).
  Value inlineRawScoreWithTerm(ValueRange args) {
    Block &block = op.getScore().front();
    llvm::SmallPtrSet<Operation *, 16> needed;
    SmallVector<Value> work = {rawScore, rawTermU};
    if (rawTermV)
      work.push_back(rawTermV);
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (def && def->getBlock() == &block && needed.insert(def).second)
        llvm::append_range(work, def->getOperands());
    }
    IRMapping mapping;
    mapping.map(block.getArguments(), args);
    for (Operation &inner : block.without_terminator())
      if (needed.contains(&inner))
        b.clone(inner, mapping);
    Value term =
        b.create<arith::MulFOp>(loc, mapping.lookupOrDefault(rawTermU), f32(1.0 / *scoreScale));
    if (rawTermV)
      term = b.create<arith::MulFOp>(loc, term, mapping.lookupOrDefault(rawTermV));
    Value y = mapping.lookupOrDefault(rawScore);
    return rawTermSubtract ? b.create<arith::SubFOp>(loc, y, term).getResult()
                           : b.create<arith::AddFOp>(loc, y, term).getResult();
  }

  /// g(s), the raw score of the dot product s (monotoneMax), for element (q, kv).
  Value rawOfScore(Value s, Value q, Value kv) {
    return inlineRegionValue(op.getScore(), regionArgs({s}, q, kv), rawScore);
  }

  /// `v` times the folded score scale (when there is one).
  Value scaled(Value v) {
    return scoreScale ? b.create<arith::MulFOp>(loc, v, f32(*scoreScale)).getResult() : v;
  }
};

/// Whether an elementwise region (s, m, ...) reads the score s and the row maximum m only as
/// s − m: then its values do not change when a row's scores and maximum move together.
bool weightsOfDifference(Region &elementwise) {
  Block &block = elementwise.front();
  Value s = block.getArgument(0), m = block.getArgument(1);
  auto difference = [&](Operation *user) {
    auto sub = dyn_cast<arith::SubFOp>(user);
    return sub && sub.getLhs() == s && sub.getRhs() == m;
  };
  return llvm::all_of(s.getUsers(), difference) && llvm::all_of(m.getUsers(), difference);
}

/// A score region `yield y * c` (or `c * y`) for a finite constant c > 0, where y is the score
/// itself (`s * c`, a scaled dot product) or any value computed from it (`c * tanh(s * k)`,
/// a soft cap): the softmax of c·y keeps y raw and folds c into the exponent. Also
/// `y * c ± t` (or `t + y * c`) where t is u·v or u with u the same for every element of a
/// tile (computed from b, h, seq_q and seq_kv alone: ALiBi's slope): the raw score is then
/// y ± (u/c)·v, one fma per element, where u/c is computed once.
struct PositiveScale {
  double c;
  Value y;
  /// The additive term's factors (u, v; v null when t is u itself), null when there is none.
  Value u, v;
  bool subtract = false;
};

/// Whether `value`, in the score region `block`, is a nondecreasing function of the score
/// (the block's first argument) that is the same for every element of a tile: built from it
/// by ops nondecreasing in one operand (tanh, exp, a term added or subtracted, a product with
/// or a quotient by a positive constant, a maximum or minimum) whose other operands are the
/// same over a tile. Then the largest of a row's values is the value of its largest score.
bool monotoneInScore(Block &block, Value value) {
  if (value == block.getArgument(0))
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != &block)
    return false;
  auto invariant = [&](Value v) { return elementInvariant(block, v); };
  auto positiveConstant = [](Value v) {
    FloatAttr c;
    return matchPattern(v, m_Constant(&c)) && c.getValueAsDouble() > 0 &&
           std::isfinite(c.getValueAsDouble());
  };
  if (isa<math::TanhOp, math::ExpOp, math::Exp2Op>(def))
    return monotoneInScore(block, def->getOperand(0));
  if (isa<arith::SubFOp>(def))
    return invariant(def->getOperand(1)) && monotoneInScore(block, def->getOperand(0));
  if (isa<arith::DivFOp>(def))
    return positiveConstant(def->getOperand(1)) && monotoneInScore(block, def->getOperand(0));
  bool commutative =
      isa<arith::AddFOp, arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp>(
          def);
  if (!commutative && !isa<arith::MulFOp>(def))
    return false;
  for (unsigned i = 0; i < 2; ++i) {
    Value other = def->getOperand(1 - i);
    if ((commutative ? invariant(other) : positiveConstant(other)) &&
        monotoneInScore(block, def->getOperand(i)))
      return true;
  }
  return false;
}

std::optional<PositiveScale> positiveScoreScale(attn::OnlineAttentionOp op) {
  Block &score = op.getScore().front();
  auto scaleOf = [](Value product) -> std::optional<PositiveScale> {
    auto mul = product.getDefiningOp<arith::MulFOp>();
    if (!mul)
      return std::nullopt;
    for (unsigned i = 0; i < 2; ++i) {
      FloatAttr c;
      if (matchPattern(mul->getOperand(1 - i), m_Constant(&c)) && c.getValueAsDouble() > 0 &&
          std::isfinite(c.getValueAsDouble()))
        return PositiveScale{c.getValueAsDouble(), mul->getOperand(i)};
    }
    return std::nullopt;
  };
  Value yielded = score.getTerminator()->getOperand(0);
  if (std::optional<PositiveScale> scale = scaleOf(yielded))
    return scale;
  // c·y ± t: the term's factor u must be the same over a tile, so that u/c costs nothing per
  // element.
  Operation *sum = yielded.getDefiningOp();
  if (!sum || sum->getBlock() != &score || !isa<arith::AddFOp, arith::SubFOp>(sum))
    return std::nullopt;
  bool subtract = isa<arith::SubFOp>(sum);
  for (unsigned i = 0; i < (subtract ? 1u : 2u); ++i) {
    std::optional<PositiveScale> scale = scaleOf(sum->getOperand(i));
    if (!scale)
      continue;
    Value t = sum->getOperand(1 - i);
    scale->subtract = subtract;
    if (elementInvariant(score, t)) {
      scale->u = t;
      return scale;
    }
    if (auto product = t.getDefiningOp<arith::MulFOp>())
      for (unsigned k = 0; k < 2; ++k)
        if (elementInvariant(score, product->getOperand(k))) {
          scale->u = product->getOperand(k);
          scale->v = product->getOperand(1 - k);
          return scale;
        }
  }
  return std::nullopt;
}

void KernelBuilder::computeTileRange() {
  // The affine bounds of the mask give the range of kv tiles that can hold a kept entry for
  // some row of this block; tiles inside it are classified one by one in the loop.
  int64_t bn = cfg.blockN;
  Value kvEnd = seqKv, kvBegin = idx(0);
  SmallVector<attn::KvBound> bounds;
  if (auto encoded = op.getMaskBounds())
    bounds = attn::decodeMaskBounds(*encoded);
  for (const SmallVector<attn::KvBound, 2> &group : attn::groupMaskBounds(bounds)) {
    // The extreme values of e over the block's rows [q0, qLast], the widest of a group's.
    Value widest;
    for (const attn::KvBound &bound : group) {
      Value e = bound.upper ? boundAt(bound, bound.cq >= 0 ? qLast : q0)
                            : boundAt(bound, bound.cq >= 0 ? q0 : qLast);
      widest = !widest ? e : bound.upper ? maxI(widest, e) : minI(widest, e);
    }
    if (group.front().upper) // kv <= e
      kvEnd = minI(kvEnd, add(widest, idx(1)));
    else // kv >= e
      kvBegin = maxI(kvBegin, widest);
  }
  tileHi = maxI(b.create<arith::CeilDivSIOp>(loc, kvEnd, idx(bn)), idx(0));
  tileLo = minI(b.create<arith::FloorDivSIOp>(loc, maxI(kvBegin, idx(0)), idx(bn)), tileHi);
}

/// The mask's custom inputs, as interval arithmetic reads them over a tile's box (those
/// constant over it, block-sparse maps, are read once for it).
SmallVector<BoxInput> KernelBuilder::boxInputs() {
  SmallVector<BoxInput> inputs;
  for (auto [i, attr] : llvm::enumerate(op.getInputDims())) {
    std::string error;
    auto dims = *attn::parseInputDims(cast<StringAttr>(attr).getValue(), error);
    Type inputElt = cast<RankedTensorType>(op.getInputs()[i].getType()).getElementType();
    inputs.push_back({inputParams[i], inputElt, std::move(dims), tileBoundsParams[i],
                      tileBoundsParams[i] ? cfg.blockN : 0});
  }
  return inputs;
}

/// The kv tiles of [tileLo, tileHi) the mask does not skip for the block's rows, where that
/// is decided by reading an input (a block-sparse map, the ids of documents): the kv loop then
/// walks only those. Each kept tile is marked with whether the mask holds on all of it for
/// the block's rows, so that the loop classifies only the others itself (one read of the
/// map, or the tile's ids bounded, in front of each tile's gemm otherwise). Null (nothing
/// built) where the mask reads no input, or bounds ids where TileConfig::keptTileBounds is
/// off.
KeptTilesOp KernelBuilder::buildKeptTiles() {
  auto kept = b.create<KeptTilesOp>(loc, tileLo, tileHi);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&kept.getBody().front());
    Value kv0 = mul(kept.getIndex(), idx(cfg.blockN));
    Value kvLast = add(minI(add(kv0, idx(cfg.blockN)), seqKv), idx(-1));
    IndexInterval box[] = {{batch, batch}, {head, head}, {q0, qLast},
                           {kv0, kvLast},  {seqQ, seqQ}, {seqKv, seqKv}};
    BoolInterval cls = classifyMaskOverBox(b, loc, op.getMask(), box, boxInputs(),
                                           BoxTiling{cfg.blockM, cfg.blockN}, cfg.idBounds);
    Value yes = b.create<arith::ConstantIntOp>(loc, b.getI1Type(), 1);
    Value keep = b.create<arith::XOrIOp>(loc, cls.mustFalse, yes);
    if (matchPattern(cls.mustTrue, m_Zero()))
      b.create<KeepOp>(loc, keep, ValueRange{});
    else
      b.create<KeepOp>(loc, keep, ValueRange{cls.mustTrue});
  }
  // What the test does not use goes (the classification also built the unmasked test).
  Block &body = kept.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &inner : body.without_terminator())
    ops.push_back(&inner);
  for (Operation *inner : llvm::reverse(ops))
    if (inner->use_empty())
      inner->erase();
  bool reads = false, bounds = false;
  kept.walk([&](Operation *inner) {
    reads |= isa<ReadOp, ReadBoundsOp>(inner);
    bounds |= isa<ReadBoundsOp>(inner);
  });
  if (!reads || (bounds && !cfg.keptTileBounds)) {
    kept.erase();
    return {};
  }
  return kept;
}

/// `unmasked`, where not null, is the kept list's mark of tile j: the mask holds on all of
/// the tile for the block's rows.
void KernelBuilder::buildLoopBody(Value j, Value unmasked) {
  int64_t bm = cfg.blockM, bn = cfg.blockN;
  Value kv0 = mul(j, idx(bn));
  Value zero = idx(0);
  b.create<CopyOp>(loc, kParam, ValueRange{batch, kv0, kvHead, zero}, kShared, ValueRange{},
                   b.getDenseI64ArrayAttr({1, 3}), false);
  b.create<CopyOp>(loc, vParam, ValueRange{batch, kv0, kvHead, zero}, vShared, ValueRange{},
                   b.getDenseI64ArrayAttr({1, 3}), false);
  // Classify the tile by interval arithmetic over its index box: skipped when the mask is
  // false on all of it, unmasked when it is true on all of it and inside kv < skv.
  Value kvLast = add(minI(add(kv0, idx(bn)), seqKv), idx(-1));
  IndexInterval box[] = {{batch, batch}, {head, head}, {groupLo, groupHi},
                         {kv0, kvLast},  {seqQ, seqQ}, {seqKv, seqKv}};
  auto classify = [&] {
    return classifyMaskOverBox(b, loc, op.getMask(), box, boxInputs(), BoxTiling{cfg.blockM, bn},
                               cfg.idBounds);
  };
  Value yes = b.create<arith::ConstantIntOp>(loc, b.getI1Type(), 1);
  BoolInterval cls;
  if (!unmasked) {
    cls = classify();
  } else {
    // A tile the kept list marks unmasked for the block's rows is so for the warpgroup's:
    // only the others read the mask's inputs here.
    Type i1 = b.getI1Type();
    auto ifUnmasked = b.create<scf::IfOp>(loc, TypeRange{i1, i1}, unmasked,
                                          /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifUnmasked.getThenRegion().front());
    b.create<scf::YieldOp>(loc, ValueRange{yes, b.create<arith::ConstantIntOp>(loc, i1, 0)});
    b.setInsertionPointToStart(&ifUnmasked.getElseRegion().front());
    BoolInterval tested = classify();
    b.create<scf::YieldOp>(loc, ValueRange{tested.mustTrue, tested.mustFalse});
    cls = {ifUnmasked.getResult(0), ifUnmasked.getResult(1)};
  }
  Value inBounds =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, add(kv0, idx(bn)), seqKv);
  Value partial =
      b.create<arith::XOrIOp>(loc, b.create<arith::AndIOp>(loc, cls.mustTrue, inBounds), yes);
  // Where the mask can skip tiles, so can a warpgroup whose rows all lie past seq_q. (A
  // mask-free kernel keeps its loop body unguarded: warp specialisation then waits for
  // each stage right before its first use and releases it right after its last.)
  Value visible = b.create<arith::XOrIOp>(loc, cls.mustFalse, yes);
  if (!matchPattern(cls.mustFalse, m_Zero()))
    visible = b.create<arith::AndIOp>(
        loc, visible, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, groupLo, groupHi));
  auto ifVisible = b.create<scf::IfOp>(loc, visible, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifVisible.getThenRegion().front());

  b.create<FillOp>(loc, scores, f32(0.0));
  b.create<GemmOp>(loc, qShared, kShared, scores, /*transpose_b=*/true);

  // Score function, and the masked shift input.
  {
    SmallVector<Value> ivs;
    ParallelOp par = beginParallel({bm, bn}, ivs);
    Value q = add(q0, ivs[0]), kv = add(kv0, ivs[1]);
    Value s = load(scores, ivs);
    // With a row term, every row's scores are computed as the block's first row's.
    Value qScore = rowTerms ? q0 : q;
    if (!scoreScale)
      s = inlineRegion(op.getScore(), regionArgs({s}, qScore, kv)).front();
    else if (rawTermU)
      s = inlineRawScoreWithTerm(regionArgs({s}, qScore, kv));
    else if (rawScore != op.getScore().getArgument(0) && !monotoneMax)
      s = inlineRegionValue(op.getScore(), regionArgs({s}, qScore, kv), rawScore);
    if (op.hasShift()) {
      Value x = inlineRegion(op.getShift(), regionArgs({s}, q, kv)).front();
      Value keep = keepValue(partial, q, kv);
      x = b.create<arith::SelectOp>(loc, keep, x, negInf());
      if (shiftInPlace) {
        store(x, scores, ivs);
      } else {
        store(s, scores, ivs);
        store(x, shiftInput, ivs);
      }
    } else {
      store(s, scores, ivs);
    }
    endParallel(par);
  }

  if (op.hasShift() && !staticShift) {
    // m_new = max(m, rowmax(x)); rescale factors exp(d·(m - m_new)). With monotoneMax the
    // tile's maximum is of the dot products s, and m_new = max(m, g(rowmax(s))).
    if (!monotoneMax)
      b.create<CopyOp>(loc, rowMax, ValueRange{}, rowMaxNew, ValueRange{}, nullptr, false);
    b.create<ReduceOp>(loc, ReduceKind::max, shiftInPlace ? scores : shiftInput, rowMaxNew,
                       /*accumulate=*/!monotoneMax);
    SmallVector<Value> ivs;
    ParallelOp par = beginParallel({bm}, ivs);
    Value mOld = load(rowMax, ivs), mNew = load(rowMaxNew, ivs);
    if (monotoneMax) {
      // A row with no kept score in the tile keeps -inf (g(-inf) is finite for a soft cap).
      Value none = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, mNew, negInf());
      Value mapped = rawOfScore(mNew, add(q0, ivs[0]), kv0);
      mapped = b.create<arith::SelectOp>(loc, none, negInf(), mapped);
      mNew = b.create<arith::MaximumFOp>(loc, mOld, mapped);
    }
    // Lazily: the shift moves only where the row's maximum passes it by more than
    // kLazyRescaleLog2 (in base-2 exponent units), so that most tiles rescale nothing and
    // their factors are exactly 1 (the output's rescale is then skipped per thread).
    Value unmoved;
    if (cfg.lazyRescale) {
      constexpr double kLog2e = 1.4426950408889634;
      double tau = TileConfig::kLazyRescaleLog2 / (kLog2e * scoreScale.value_or(1.0));
      Value passes = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, mNew,
                                             b.create<arith::AddFOp>(loc, mOld, f32(tau)));
      mNew = b.create<arith::SelectOp>(loc, passes, mNew, mOld);
      unmoved = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, mNew, mOld);
    }
    Value empty = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, mNew, negInf());
    Value mUse = b.create<arith::SelectOp>(loc, empty, f32(0.0), mNew);
    Value delta = scaled(b.create<arith::SubFOp>(loc, mOld, mUse));
    for (auto &[degree, buffer] : alphas) {
      Value scaled = b.create<arith::MulFOp>(loc, delta, f32(double(degree)));
      Value alpha = b.create<math::ExpOp>(loc, scaled);
      if (unmoved)
        alpha = b.create<arith::SelectOp>(loc, unmoved, f32(1.0), alpha);
      store(alpha, buffer, ivs);
    }
    store(mNew, rowMax, ivs);
    store(mUse, rowMaxNew, ivs);
    for (auto [i, acc] : llvm::enumerate(accumulators)) {
      int64_t degree = op.getDegrees()[i + 1];
      if (degree == 0)
        continue;
      Value scaled = b.create<arith::MulFOp>(loc, load(acc, ivs), load(alphas[degree], ivs));
      store(scaled, acc, ivs);
    }
    endParallel(par);
    if (int64_t degree = op.getDegrees()[0]) {
      SmallVector<Value> ovs;
      ParallelOp opar = beginParallel({bm, cfg.paddedValueDim}, ovs);
      Value scaled = b.create<arith::MulFOp>(loc, load(out, ovs), load(alphas[degree], ovs[0]));
      store(scaled, out, ovs);
      endParallel(opar);
      if (cfg.lazyRescale)
        opar->setAttr(kSkipUnitScaleAttr, b.getUnitAttr());
    }
  }

  // Weights and accumulator inputs.
  {
    SmallVector<Value> ivs;
    ParallelOp par = beginParallel({bm, bn}, ivs);
    Value q = add(q0, ivs[0]), kv = add(kv0, ivs[1]);
    Value s = load(scores, ivs);
    if (monotoneMax)
      s = rawOfScore(s, q, kv);
    s = scaled(s);
    Value m = staticShift     ? f32(*staticShift)
              : op.hasShift() ? scaled(load(rowMaxNew, ivs[0]))
                              : f32(0.0);
    SmallVector<Value> values = inlineRegion(op.getElementwise(), regionArgs({s, m}, q, kv));
    // The weights exp(s − m) may take the FMA pipe's 2^x for part of the elements
    // (TileConfig::exp2Emulation), where m is the running maximum of the scores themselves
    // (the shift in place; a sink's start only raises it), so the exponents are <= 0, or a
    // constant shift with exponents <= 40: within exp2Poly's domain (2^x for x <= 127).
    if (cfg.exp2Emulation > 0 && shiftInPlace)
      for (Operation *user : s.getUsers())
        if (auto sub = dyn_cast<arith::SubFOp>(user); sub && sub.getLhs() == s && sub.getRhs() == m)
          for (Operation *exp : sub->getUsers())
            if (isa<math::ExpOp>(exp))
              exp->setAttr(kExp2EmulationAttr, b.getI64IntegerAttr(cfg.exp2Emulation));
    // Masked scores were stored as -inf above; where the weights are 0 there anyway
    // (softmax), the mask is not evaluated a second time. (Not with monotoneMax: g maps a
    // masked score's -inf to a finite value, a soft cap's to -1.)
    bool maskedByScore = shiftInPlace && !keptFlags && maskedScoresVanish && !monotoneMax;
    Value keep = maskedByScore ? Value() : keepValue(partial, q, kv);
    if (keep)
      for (Value &v : values)
        v = b.create<arith::SelectOp>(loc, keep, v, f32(0.0));
    if (keptFlags)
      store(b.create<arith::SelectOp>(loc, keep, f32(1.0), f32(0.0)), keptFlags, ivs);
    store(b.create<arith::TruncFOp>(loc, elt, values[0]), probs, ivs);
    store(values[0], scores, ivs);
    for (auto [i, input] : llvm::enumerate(accumulatorInputs))
      if (input != scores)
        store(values[i + 1], input, ivs);
    endParallel(par);
  }
  for (auto [i, acc] : llvm::enumerate(accumulators)) {
    auto kind = cast<attn::ReductionKindAttr>(op.getReductions()[i]).getValue();
    b.create<ReduceOp>(loc,
                       kind == attn::ReductionKind::abs_sum ? ReduceKind::abs_sum : ReduceKind::sum,
                       accumulatorInputs[i], acc, /*accumulate=*/true);
  }
  if (keptFlags) {
    // On a partial tile count the kept entries; on a full one every entry of a row is kept
    // (its rows past seq_q are never stored), so the count grows by the tile's width without
    // a pass over the elements.
    auto ifPartial = b.create<scf::IfOp>(loc, partial, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard countGuard(b);
    b.setInsertionPointToStart(&ifPartial.getThenRegion().front());
    b.create<ReduceOp>(loc, ReduceKind::sum, keptFlags, keptRows, /*accumulate=*/true);
    b.setInsertionPointToStart(&ifPartial.getElseRegion().front());
    SmallVector<Value> rows;
    ParallelOp par = beginParallel({bm}, rows);
    store(b.create<arith::AddFOp>(loc, load(keptRows, rows), f32(double(bn))), keptRows, rows);
    endParallel(par);
  }
  b.create<GemmOp>(loc, probs, vShared, out, /*transpose_b=*/false);
}

void KernelBuilder::buildEpilogue() {
  int64_t bm = cfg.blockM;
  Value inverse = alloc({bm}, b.getF32Type(), MemorySpace::fragment);
  Value stats = lseParam ? alloc({bm}, b.getF32Type(), MemorySpace::fragment) : Value();
  {
    SmallVector<Value> ivs;
    ParallelOp par = beginParallel({bm}, ivs);
    Value q = add(q0, ivs[0]);
    SmallVector<Value> leading;
    for (Value acc : accumulators)
      leading.push_back(load(acc, ivs));
    Value m = staticShift     ? f32(*staticShift)
              : op.hasShift() ? scaled(load(rowMax, ivs))
                              : f32(0.0);
    if (rowTerms)
      m = b.create<arith::AddFOp>(loc, m, rowTermShift(q));
    leading.push_back(m);
    SmallVector<Value> fin = inlineRegion(op.getFinalize(), regionArgs(leading, q, Value()));
    Value z = fin[0];
    Value isZero = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, z, f32(0.0));
    Value inv = b.create<arith::DivFOp>(loc, f32(1.0), z);
    store(b.create<arith::SelectOp>(loc, isZero, f32(0.0), inv), inverse, ivs);
    if (stats) {
      Value lse = fin[1];
      // A row with no kept entry has the statistic -inf: with a running shift its maximum
      // never moved from -inf; without one (or with a constant one whose sums are not of
      // exponentials alone), its count of kept entries is zero; under a constant shift with
      // such sums, its sum is 0 and the finalizer's log gives -inf itself.
      Value empty = keptRows ? b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ,
                                                       load(keptRows, ivs), f32(0.0))
                             : b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, m, negInf());
      lse = b.create<arith::SelectOp>(loc, empty, negInf(), lse);
      store(lse, stats, ivs);
    }
    endParallel(par);
  }
  {
    SmallVector<Value> ivs;
    ParallelOp par = beginParallel({bm, cfg.paddedValueDim}, ivs);
    Value o = b.create<arith::MulFOp>(loc, load(out, ivs), load(inverse, ivs[0]));
    if (epilogue)
      o = evaluateCombine(*this, b, loc, epilogue, combineValueParams, o, combineInputParams,
                          combineAxes, batch, head, add(q0, ivs[0]), ivs[1]);
    store(o, out, ivs);
    endParallel(par);
  }
  Value zero = idx(0);
  // Through shared memory, when asked: a tile of its own (cfg.ownStagingTile), or the query
  // tile where it has the output's shape and element type (each warp writes its own rows
  // there: it read only those rows of Q, and its gemms are done); either way each warp
  // stores its rows as whole 16-byte row chunks.
  Value staging;
  auto outType = cast<GlobalTensorType>(oParam.getType());
  if (outStage && outType.getElementType() == elt)
    staging = outStage;
  else if (cfg.stagedOutput && cfg.paddedValueDim == cfg.paddedDim &&
           outType.getElementType() == elt)
    staging = qShared;
  b.create<CopyOp>(loc, out, ValueRange{}, oParam, ValueRange{batch, q0, head, zero},
                   b.getDenseI64ArrayAttr({1, 3}), false, staging);
  if (stats)
    b.create<CopyOp>(loc, stats, ValueRange{}, lseParam, ValueRange{batch, head, q0},
                     b.getDenseI64ArrayAttr({2}), false);
}

FailureOr<KernelOp> KernelBuilder::build(StringRef name) {
  auto qt = cast<RankedTensorType>(op.getQ().getType());
  auto kt = cast<RankedTensorType>(op.getK().getType());
  auto vt = cast<RankedTensorType>(op.getV().getType());
  elt = qt.getElementType();
  if (!elt.isBF16() && !elt.isF16())
    return op.emitOpError() << "the tiled kernel needs bf16 or f16 q/k/v (tensor cores), found "
                            << elt;
  heads = qt.getDimSize(2);
  kvHeads = kt.getDimSize(2);
  valueDim = vt.getDimSize(3);
  if (cfg.blockM % (16 * cfg.warps) != 0 || cfg.blockN % 16 != 0)
    return op.emitOpError() << "tile config needs block-m a multiple of 16·warps and block-n a "
                               "multiple of 16, got block-m "
                            << cfg.blockM << ", block-n " << cfg.blockN << ", warps " << cfg.warps;

  // Parameters: q, k, v, inputs, [the epilogue's other values and inputs], output, row
  // statistics.
  auto toGlobal = [](Type t) {
    auto rt = cast<RankedTensorType>(t);
    return GlobalTensorType::get(t.getContext(), rt.getShape(), rt.getElementType());
  };
  SmallVector<Type> params;
  for (Value operand : op->getOperands())
    params.push_back(toGlobal(operand.getType()));
  unsigned numCombineValues = 0, numCombineInputs = 0;
  if (epilogue) {
    auto axes = combineInputAxes(epilogue);
    if (failed(axes))
      return failure();
    combineAxes = std::move(*axes);
    for (Value value : epilogue.getValues())
      if (value != op.getOutput()) {
        params.push_back(toGlobal(value.getType()));
        ++numCombineValues;
      }
    for (Value input : epilogue.getInputs())
      params.push_back(toGlobal(input.getType()));
    numCombineInputs = epilogue.getInputs().size();
  }
  params.push_back(toGlobal(epilogue ? epilogue.getOutput().getType() : op.getOutput().getType()));
  if (op.getLse())
    params.push_back(toGlobal(op.getLse().getType()));
  // The kv tiles' bounds of the inputs a pre-pass bounds, after the rest.
  SmallVector<unsigned> boundedInputs;
  if (cfg.kvTileBounds && cfg.idBounds)
    boundedInputs = kvTileBoundsInputs(op);
  for (unsigned i : boundedInputs) {
    auto idsType = cast<RankedTensorType>(op.getInputs()[i].getType());
    std::string error;
    auto axes = *attn::parseInputDims(cast<StringAttr>(op.getInputDims()[i]).getValue(), error);
    SmallVector<int64_t> shape(idsType.getShape());
    for (auto [d, a] : llvm::enumerate(axes))
      if (a.dim == InputDim::KV)
        shape[d] = ShapedType::kDynamic;
    shape.push_back(2);
    params.push_back(GlobalTensorType::get(b.getContext(), shape, idsType.getElementType()));
  }
  int64_t qIndex = 0;
  SmallVector<int64_t> grid = {qIndex, 1, cfg.blockM, -1, 0, heads, qIndex, 0, 1};
  auto kernel = b.create<KernelOp>(loc, name, b.getFunctionType(params, {}),
                                   /*arg_attrs=*/nullptr, /*res_attrs=*/nullptr,
                                   b.getDenseI64ArrayAttr(grid), cfg.warps * 32);
  if (!cfg.gemmOverlap)
    kernel->setAttr(kNoGemmOverlapAttr, b.getUnitAttr());
  if (cfg.pingpong)
    kernel->setAttr(kPingpongAttr, b.getUnitAttr());
  // Names, dimension symbols and outputs for the runtime's launch checks.
  {
    SmallVector<std::pair<std::string, SmallVector<std::string>>> described = {
        {"q", {"B", "Sq", "H", "D"}},
        {"k", {"B", "Skv", "Hkv", "D"}},
        {"v", {"B", "Skv", "Hkv", "Dv"}}};
    for (auto [i, attr] : llvm::enumerate(op.getInputDims())) {
      std::string error;
      SmallVector<std::string> symbols;
      auto dims = attn::parseInputDims(cast<StringAttr>(attr).getValue(), error);
      for (attn::InputAxis a : *dims) {
        std::string symbol = a.dim == InputDim::B   ? "B"
                             : a.dim == InputDim::H ? "H"
                             : a.dim == InputDim::Q ? "Sq"
                                                    : "Skv";
        // A block index has ceil(S / N) entries: the runtime checks "Sq/64" as that.
        if (a.isBlock())
          symbol += "/" + std::to_string(a.divisor);
        symbols.push_back(symbol);
      }
      described.push_back({"input" + std::to_string(i), symbols});
    }
    if (epilogue) {
      for (auto [i, value] : llvm::enumerate(epilogue.getValues()))
        if (value != op.getOutput())
          described.push_back({"x" + std::to_string(i), {"B", "Sq", "H", "Dv"}});
      for (auto [i, axes] : llvm::enumerate(combineAxes))
        described.push_back({"combine_input" + std::to_string(i), combineInputSymbols(axes)});
    }
    described.push_back({"o", {"B", "Sq", "H", "Dv"}});
    if (op.getLse())
      described.push_back({"lse", {"B", "H", "Sq"}});
    for (unsigned i : boundedInputs) {
      // The input's symbols, its kv axis in tiles, then (min, max).
      SmallVector<std::string> symbols = described[3 + i].second;
      for (std::string &s : symbols)
        if (s == "Skv")
          s += "/" + std::to_string(cfg.blockN);
      symbols.push_back("");
      described.push_back({"input" + std::to_string(i) + "_tile_bounds", symbols});
    }
    SmallVector<Attribute> symbolAttrs;
    for (auto [i, entry] : llvm::enumerate(described)) {
      kernel.setArgAttr(i, "tile.name", b.getStringAttr(entry.first));
      SmallVector<Attribute> dims;
      for (const std::string &s : entry.second)
        dims.push_back(b.getStringAttr(s));
      symbolAttrs.push_back(b.getArrayAttr(dims));
    }
    kernel->setAttr("tile.dim_symbols", b.getArrayAttr(symbolAttrs));
    int64_t firstBounds = params.size() - boundedInputs.size();
    SmallVector<int64_t> outputs = {firstBounds - (op.getLse() ? 2 : 1)};
    if (op.getLse())
      outputs.push_back(firstBounds - 1);
    kernel->setAttr("tile.outputs", b.getDenseI64ArrayAttr(outputs));
  }
  Block *entry =
      b.createBlock(&kernel.getBody(), {}, params, SmallVector<Location>(params.size(), loc));
  b.setInsertionPointToStart(entry);
  qParam = entry->getArgument(0);
  kParam = entry->getArgument(1);
  vParam = entry->getArgument(2);
  unsigned numInputs = op.getInputs().size();
  for (unsigned i = 0; i < numInputs; ++i)
    inputParams.push_back(entry->getArgument(3 + i));
  unsigned next = 3 + numInputs;
  if (epilogue) {
    for (Value value : epilogue.getValues())
      combineValueParams.push_back(value == op.getOutput() ? Value() : entry->getArgument(next++));
    for (unsigned i = 0; i < numCombineInputs; ++i)
      combineInputParams.push_back(entry->getArgument(next++));
  }
  assert(next == 3 + numInputs + numCombineValues + numCombineInputs);
  oParam = entry->getArgument(next);
  if (op.getLse())
    lseParam = entry->getArgument(next + 1);
  tileBoundsParams.assign(numInputs, Value());
  for (auto [k, i] : llvm::enumerate(boundedInputs))
    tileBoundsParams[i] = entry->getArgument(params.size() - boundedInputs.size() + k);

  // Which block this is. Query tiles run last-first: under a causal mask the last tiles have
  // the most kv tiles, and starting them first leaves short blocks for the grid's tail.
  Value blockX = b.create<BlockIdOp>(loc, b.getIndexType(), 0);
  head = b.create<BlockIdOp>(loc, b.getIndexType(), 1);
  batch = b.create<BlockIdOp>(loc, b.getIndexType(), 2);
  seqQ = b.create<DimOp>(loc, b.getIndexType(), qParam, 1);
  seqKv = b.create<DimOp>(loc, b.getIndexType(), kParam, 1);
  Value qTiles = b.create<arith::CeilDivSIOp>(loc, seqQ, idx(cfg.blockM));
  if (sharedAcrossBatch())
    batchFastest(blockX, qTiles);
  kvHead = b.create<arith::DivUIOp>(loc, head, idx(heads / kvHeads));
  Value qTile = b.create<arith::SubIOp>(loc, add(qTiles, idx(-1)), blockX);
  q0 = mul(qTile, idx(cfg.blockM));
  qLast = add(minI(add(q0, idx(cfg.blockM)), seqQ), idx(-1));

  // Buffers.
  int64_t bm = cfg.blockM, bn = cfg.blockN, d = cfg.paddedDim, dv = cfg.paddedValueDim;
  Type f32Type = b.getF32Type();
  qShared = alloc({bm, d}, elt, MemorySpace::shared);
  kShared = alloc({bn, d}, elt, MemorySpace::shared);
  vShared = alloc({bn, dv}, elt, MemorySpace::shared);
  scores = alloc({bm, bn}, f32Type, MemorySpace::fragment);
  probs = alloc({bm, bn}, elt, MemorySpace::fragment);
  out = alloc({bm, dv}, f32Type, MemorySpace::fragment);
  if (cfg.stagedOutput && cfg.ownStagingTile)
    outStage = alloc({bm, dv}, elt, MemorySpace::shared);
  if (op.hasShift()) {
    // The shift input can overwrite the scores when it is the score itself.
    Block &shift = op.getShift().front();
    shiftInPlace = shift.getTerminator()->getOperand(0) == shift.getArgument(0);
    maskedScoresVanish = weightsVanishOnMaskedScores(op.getElementwise());
    // max(c·s) = c·max(s) for c > 0; a maximum started elsewhere (a sink) keeps its units.
    if (cfg.foldScoreScale && shiftInPlace && op.getShiftInit().empty())
      if (std::optional<PositiveScale> scale = positiveScoreScale(op)) {
        scoreScale = scale->c;
        rawScore = scale->y;
        rawTermU = scale->u;
        rawTermV = scale->v;
        rawTermSubtract = scale->subtract;
      }
    // The weights must see the score only through s − m, and the maximum must be of the
    // scores alone (no sink's start value in other units).
    if (cfg.dropRowTerms && shiftInPlace && op.getShiftInit().empty() &&
        weightsOfDifference(op.getElementwise()))
      rowTerms = RowTermSplit::analyse(op.getScore(), inputAxes());
    // A bounded score needs no running maximum: exp(s − c) for a constant c near the bound
    // neither overflows nor underflows, and the weights and the row statistic (c + log z) are
    // those of the maximum's shift. The weights are rounded to the element type for the P·V
    // gemm, so their exponents must stay where it keeps full precision: with bf16 (f32's
    // range) [-64, 40] (e^-64 is far from the flush to zero, e^40 times 2^24 keys below the
    // range's top), with f16 [-9.5, 11] (its normal numbers, 2^-14 to 65504). c is the upper
    // bound where the scores span no more than the part below 0, else that far above the
    // lower bound (a soft cap of 50 in bf16: [-50, 50], c = 14). Only for normalisers whose
    // values scale at most as e^{-m} (degree <= 1).
    if (cfg.boundedShift && shiftInPlace && op.getShiftInit().empty() &&
        llvm::all_of(op.getDegrees(), [](int64_t d) { return d == 0 || d == 1; }))
      if (std::optional<FloatRange> range = scoreRange(op.getScore())) {
        bool half = elt.isF16();
        double below = half ? 9.5 : 64.0, above = half ? 11.0 : 40.0;
        double c = range->hi - range->lo <= below ? range->hi : range->lo + below;
        if (range->hi - c <= above)
          staticShift = c;
      }
    // The maximum of g(s) over a row is g of the row's largest s.
    monotoneMax = cfg.monotoneMax && !staticShift && scoreScale && !rawTermU && !rowTerms &&
                  rawScore != op.getScore().getArgument(0) &&
                  monotoneInScore(op.getScore().front(), rawScore);
    if (!shiftInPlace)
      shiftInput = alloc({bm, bn}, f32Type, MemorySpace::fragment);
    if (!staticShift) {
      rowMax = alloc({bm}, f32Type, MemorySpace::fragment);
      rowMaxNew = alloc({bm}, f32Type, MemorySpace::fragment);
      for (int64_t degree : op.getDegrees())
        if (degree != 0 && !alphas.count(degree))
          alphas[degree] = alloc({bm}, f32Type, MemorySpace::fragment);
    }
  }
  Block &elementwise = op.getElementwise().front();
  Value weight = elementwise.getTerminator()->getOperand(0);
  for (unsigned i = 0; i < op.getNumAccumulators(); ++i) {
    accumulators.push_back(alloc({bm}, f32Type, MemorySpace::fragment));
    Value input = elementwise.getTerminator()->getOperand(i + 1);
    accumulatorInputs.push_back(input == weight ? scores
                                                : alloc({bm, bn}, f32Type, MemorySpace::fragment));
  }

  // Without a running shift, a row's emptiness is tracked by counting its kept entries (only
  // when the row statistic is requested). Not under a constant shift whose row sums add
  // exponentials alone (softmax's): every kept entry then adds at least e^-64 (the bounded
  // score), so a row is empty exactly where its sum is 0, and its statistic c + log 0 is
  // -inf by itself.
  bool hasShiftInit = !op.getShiftInit().empty();
  auto sumsOfExponentials = [&] {
    Operation *yield = op.getElementwise().front().getTerminator();
    return llvm::all_of(llvm::drop_begin(yield->getOperands()), [](Value v) {
      return isa_and_nonnull<math::ExpOp, math::Exp2Op>(v.getDefiningOp());
    });
  };
  if (op.getLse() && (!op.hasShift() || hasShiftInit || (staticShift && !sumsOfExponentials()))) {
    keptFlags = alloc({bm, bn}, f32Type, MemorySpace::fragment);
    keptRows = alloc({bm}, f32Type, MemorySpace::fragment);
  }

  // Prologue: Q once, state initialised.
  Value zero = idx(0);
  b.create<CopyOp>(loc, qParam, ValueRange{batch, q0, head, zero}, qShared, ValueRange{},
                   b.getDenseI64ArrayAttr({1, 3}), false);
  b.create<BarrierOp>(loc);
  b.create<FillOp>(loc, out, f32(0.0));
  if (rowMax)
    b.create<FillOp>(loc, rowMax, negInf());
  if (hasShiftInit) {
    // The running maximum starts at the per-row value of shift_init (max(rowmax, c)).
    SmallVector<Value> ivs;
    ParallelOp par = beginParallel({bm}, ivs);
    Value q = add(q0, ivs[0]);
    SmallVector<Value> args = regionArgs({}, q, Value());
    store(inlineRegion(op.getShiftInit(), args).front(), rowMax, ivs);
    endParallel(par);
  }
  for (Value acc : accumulators)
    b.create<FillOp>(loc, acc, f32(0.0));
  if (keptRows)
    b.create<FillOp>(loc, keptRows, f32(0.0));

  computeTileRange();
  auto rows = b.create<RowRangeOp>(loc, b.getIndexType(), b.getIndexType(), q0, qLast,
                                   b.getI64IntegerAttr(cfg.blockM), IntegerAttr());
  groupLo = rows.getLo();
  groupHi = rows.getHi();
  KeptTilesOp kept = cfg.keptTiles ? buildKeptTiles() : KeptTilesOp();
  auto loop = kept ? b.create<PipelinedOp>(loc, idx(0), kept.getCount(), cfg.stages)
                   : b.create<PipelinedOp>(loc, tileLo, tileHi, cfg.stages);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody().front().getTerminator());
    Value j = loop.getInductionVar(), unmasked;
    if (kept) {
      auto at = b.create<TileAtOp>(loc, kept.getList(), j);
      j = at.getResult();
      if (!at.getMarks().empty())
        unmasked = at.getMarks().front();
    }
    buildLoopBody(j, unmasked);
  }
  buildEpilogue();
  b.create<ReturnOp>(loc);
  if (staticShift)
    kernel->setAttr(kStaticShiftAttr, b.getF64FloatAttr(*staticShift));
  // tanh (a soft cap's) on the special-function unit (TileConfig::approxTanh).
  if (cfg.approxTanh)
    kernel.walk([&](math::TanhOp tanh) { tanh->setAttr(kApproxAttr, b.getUnitAttr()); });
  return kernel;
}

} // namespace

FailureOr<KernelOp> metaattn::buildAttentionKernel(OpBuilder &builder, attn::OnlineAttentionOp op,
                                                   StringRef name, const TileConfig &config,
                                                   attn::CombineOp epilogue) {
  OpBuilder::InsertionGuard guard(builder);
  return KernelBuilder(builder, op, config, epilogue).build(name);
}
