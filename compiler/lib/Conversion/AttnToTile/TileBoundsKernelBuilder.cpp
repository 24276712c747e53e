//===- TileBoundsKernelBuilder.cpp - each kv tile's id bounds, once ----------===//
//
// A document mask's kernel decides per kv tile whether the tile is skipped, unmasked or
// masked from the bounds of the tile's key ids. Every block of a sequence (every head and
// query tile) needs the same tiles' bounds: this pre-pass computes them once per sequence,
// one warp per tile, and the attention kernel reads two values per tile instead of the
// tile's ids (TileConfig::kvTileBounds).
//
//===----------------------------------------------------------------------===//

#include "TileIRBuilder.h"
#include "metaattn/Conversion/AttnToTile/AttnToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace metaattn;
using namespace metaattn::tile;
using attn::InputDim;

/// The input's axes when a pre-pass can bound it per kv tile: one plain kv axis, at most two
/// b or h axes, nothing else.
static std::optional<SmallVector<attn::InputAxis>> boundableAxes(attn::OnlineAttentionOp op,
                                                                 unsigned input) {
  Type elt = cast<RankedTensorType>(op.getInputs()[input].getType()).getElementType();
  if (!elt.isInteger(32) && !elt.isInteger(64))
    return std::nullopt;
  std::string error;
  auto axes = attn::parseInputDims(cast<StringAttr>(op.getInputDims()[input]).getValue(), error);
  if (!axes)
    return std::nullopt;
  unsigned kv = 0, others = 0;
  for (const attn::InputAxis &a : *axes) {
    if (a.dim == InputDim::KV && !a.isBlock())
      ++kv;
    else if (a.dim == InputDim::B || a.dim == InputDim::H)
      ++others;
    else
      return std::nullopt;
  }
  if (kv != 1 || others > 2)
    return std::nullopt;
  return axes;
}

SmallVector<unsigned> metaattn::kvTileBoundsInputs(attn::OnlineAttentionOp op) {
  SmallVector<unsigned> inputs;
  Block &mask = op.getMask().front();
  for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i) {
    unsigned arg = attn::kNumIndexArgs + i;
    if (arg < mask.getNumArguments() && !mask.getArgument(arg).use_empty() && boundableAxes(op, i))
      inputs.push_back(i);
  }
  return inputs;
}

FailureOr<KernelOp> metaattn::buildTileBoundsKernel(OpBuilder &b, attn::OnlineAttentionOp op,
                                                    unsigned input, StringRef name, int64_t tile) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = op.getLoc();
  std::optional<SmallVector<attn::InputAxis>> axes = boundableAxes(op, input);
  if (!axes || tile < 1)
    return op.emitOpError() << "input #" << input << " cannot be bounded per kv tile";
  auto idsType = cast<RankedTensorType>(op.getInputs()[input].getType());
  Type elt = idsType.getElementType();
  int64_t rank = idsType.getRank();
  int64_t kvAxis = 0;
  SmallVector<int64_t> otherAxes;
  for (auto [d, a] : llvm::enumerate(*axes)) {
    if (a.dim == InputDim::KV)
      kvAxis = d;
    else
      otherAxes.push_back(d);
  }
  SmallVector<int64_t> boundsShape(idsType.getShape());
  boundsShape[kvAxis] = ShapedType::kDynamic;
  boundsShape.push_back(2);
  Type params[] = {GlobalTensorType::get(b.getContext(), idsType.getShape(), elt),
                   GlobalTensorType::get(b.getContext(), boundsShape, elt)};
  // Grid: the kv tiles of the input, then its other axes (one block each).
  SmallVector<int64_t> grid = {0, kvAxis, tile};
  for (int64_t g = 0; g < 2; ++g) {
    if (g < static_cast<int64_t>(otherAxes.size()))
      grid.append({0, otherAxes[g], 1});
    else
      grid.append({-1, 0, 1});
  }
  auto kernel = b.create<KernelOp>(loc, name, b.getFunctionType(params, {}),
                                   /*arg_attrs=*/nullptr, /*res_attrs=*/nullptr,
                                   b.getDenseI64ArrayAttr(grid), /*threads=*/32);
  // Names and dimension symbols for the runtime's launch checks (the attention kernel's).
  SmallVector<Attribute> idsSymbols, boundsSymbols;
  for (const attn::InputAxis &a : *axes) {
    std::string symbol = a.dim == InputDim::B ? "B" : a.dim == InputDim::H ? "H" : "Skv";
    idsSymbols.push_back(b.getStringAttr(symbol));
    boundsSymbols.push_back(
        b.getStringAttr(a.dim == InputDim::KV ? symbol + "/" + std::to_string(tile) : symbol));
  }
  boundsSymbols.push_back(b.getStringAttr(""));
  std::string inputName = "input" + std::to_string(input);
  kernel.setArgAttr(0, "tile.name", b.getStringAttr(inputName));
  kernel.setArgAttr(1, "tile.name", b.getStringAttr(inputName + "_tile_bounds"));
  kernel->setAttr("tile.dim_symbols",
                  b.getArrayAttr({b.getArrayAttr(idsSymbols), b.getArrayAttr(boundsSymbols)}));
  kernel->setAttr("tile.outputs", b.getDenseI64ArrayAttr({1}));

  Block *entry = b.createBlock(&kernel.getBody(), {}, params, {loc, loc});
  b.setInsertionPointToStart(entry);
  TileIRBuilder tb(b, loc);
  Value ids = entry->getArgument(0), bounds = entry->getArgument(1);
  Value j = b.create<BlockIdOp>(loc, b.getIndexType(), 0);
  Value first = tb.mul(j, tb.idx(tile));
  Value length = b.create<DimOp>(loc, b.getIndexType(), ids, kvAxis);
  Value last = tb.add(tb.minI(tb.add(first, tb.idx(tile)), length), tb.idx(-1));
  SmallVector<Value> at(rank), boundsAt(rank);
  for (auto [g, d] : llvm::enumerate(otherAxes)) {
    at[d] = b.create<BlockIdOp>(loc, b.getIndexType(), g + 1);
    boundsAt[d] = at[d];
  }
  at[kvAxis] = first;
  boundsAt[kvAxis] = j;
  auto range = b.create<ReadBoundsOp>(loc, elt, elt, ids, at, last, b.getI64IntegerAttr(kvAxis));
  boundsAt.push_back(tb.idx(0));
  b.create<WriteOp>(loc, range.getMin(), bounds, boundsAt);
  boundsAt.back() = tb.idx(1);
  b.create<WriteOp>(loc, range.getMax(), bounds, boundsAt);
  b.create<ReturnOp>(loc);
  return kernel;
}
