//===- CombineKernelBuilder.cpp - attn.combine as a tile.kernel --------------===//
//
// One block per (query tile, head, batch entry): a tile.parallel over the tile's rows and the
// value dim reads each operand and custom input with tile.read, inlines the combiner region
// and stores into an f32 fragment, which one tile.copy writes to the output.
//
//===----------------------------------------------------------------------===//

#include "TileIRBuilder.h"
#include "metaattn/Conversion/AttnToTile/AttnToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace metaattn;
using namespace metaattn::tile;

FailureOr<KernelOp> metaattn::buildCombineKernel(OpBuilder &b, attn::CombineOp op, StringRef name,
                                                 const TileConfig &cfg) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = op.getLoc();
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  int64_t heads = outType.getDimSize(2), valueDim = outType.getDimSize(3);
  int64_t bm = cfg.blockM;
  int64_t dv = (valueDim + 15) / 16 * 16;
  if (bm % (16 * cfg.warps) != 0)
    return op.emitOpError() << "tile config needs block-m a multiple of 16·warps, got block-m "
                            << bm << ", warps " << cfg.warps;

  auto inputAxes = combineInputAxes(op);
  if (failed(inputAxes))
    return failure();
  SmallVector<Type> params;
  auto toGlobal = [](Type t) {
    auto rt = cast<RankedTensorType>(t);
    return GlobalTensorType::get(t.getContext(), rt.getShape(), rt.getElementType());
  };
  for (Value operand : op->getOperands())
    params.push_back(toGlobal(operand.getType()));
  params.push_back(toGlobal(outType));
  // Grid: query tiles of operand #0, heads, batch.
  SmallVector<int64_t> grid = {0, 1, bm, -1, 0, heads, 0, 0, 1};
  auto kernel = b.create<KernelOp>(loc, name, b.getFunctionType(params, {}),
                                   /*arg_attrs=*/nullptr, /*res_attrs=*/nullptr,
                                   b.getDenseI64ArrayAttr(grid), cfg.warps * 32);

  // Names and dimension symbols for the runtime's launch checks.
  unsigned numValues = op.getValues().size(), numInputs = op.getInputs().size();
  SmallVector<Attribute> symbolAttrs;
  auto describe = [&](unsigned i, std::string paramName, ArrayRef<std::string> symbols) {
    kernel.setArgAttr(i, "tile.name", b.getStringAttr(paramName));
    SmallVector<Attribute> dims;
    for (const std::string &s : symbols)
      dims.push_back(b.getStringAttr(s));
    symbolAttrs.push_back(b.getArrayAttr(dims));
  };
  std::string outputSymbols[] = {"B", "Sq", "H", "Dv"};
  for (unsigned i = 0; i < numValues; ++i)
    describe(i, "x" + std::to_string(i), outputSymbols);
  for (auto [i, axes] : llvm::enumerate(*inputAxes))
    describe(numValues + i, "input" + std::to_string(i), combineInputSymbols(axes));
  describe(numValues + numInputs, "o", outputSymbols);
  kernel->setAttr("tile.dim_symbols", b.getArrayAttr(symbolAttrs));
  kernel->setAttr("tile.outputs",
                  b.getDenseI64ArrayAttr({static_cast<int64_t>(numValues + numInputs)}));

  Block *entry =
      b.createBlock(&kernel.getBody(), {}, params, SmallVector<Location>(params.size(), loc));
  b.setInsertionPointToStart(entry);
  TileIRBuilder tb(b, loc);
  auto idx = [&](int64_t v) { return tb.idx(v); };
  Value qTile = b.create<BlockIdOp>(loc, b.getIndexType(), 0);
  Value head = b.create<BlockIdOp>(loc, b.getIndexType(), 1);
  Value batch = b.create<BlockIdOp>(loc, b.getIndexType(), 2);
  Value q0 = b.create<arith::MulIOp>(loc, qTile, idx(bm));
  Value result = b.create<AllocOp>(
      loc, getBufferType(b.getContext(), {bm, dv}, b.getF32Type(), MemorySpace::fragment), nullptr);

  auto par = b.create<ParallelOp>(loc, ArrayRef<int64_t>{bm, dv});
  {
    OpBuilder::InsertionGuard inner(b);
    Block &body = par.getBody().front();
    b.setInsertionPoint(body.getTerminator());
    Value row = body.getArgument(0), col = body.getArgument(1);
    Value q = b.create<arith::AddIOp>(loc, q0, row);
    SmallVector<Value> valueParams(entry->getArguments().take_front(numValues));
    SmallVector<Value> inputParams(entry->getArguments().slice(numValues, numInputs));
    Value value = evaluateCombine(tb, b, loc, op, valueParams, Value(), inputParams, *inputAxes,
                                  batch, head, q, col);
    b.create<memref::StoreOp>(loc, value, result, ValueRange{row, col});
  }
  b.setInsertionPointAfter(par);
  b.create<CopyOp>(loc, result, ValueRange{}, entry->getArgument(numValues + numInputs),
                   ValueRange{batch, q0, head, idx(0)}, b.getDenseI64ArrayAttr({1, 3}), false);
  b.create<ReturnOp>(loc);
  return kernel;
}

FailureOr<SmallVector<SmallVector<attn::InputAxis>>>
metaattn::combineInputAxes(attn::CombineOp op) {
  SmallVector<SmallVector<attn::InputAxis>> all;
  for (auto [i, attr] : llvm::enumerate(op.getInputDims())) {
    std::string error;
    auto axes = attn::parseInputDims(cast<StringAttr>(attr).getValue(), error);
    if (!axes)
      return op.emitOpError() << "input_dims[" << i << "]: " << error;
    all.push_back(std::move(*axes));
  }
  return all;
}

SmallVector<std::string> metaattn::combineInputSymbols(ArrayRef<attn::InputAxis> axes) {
  SmallVector<std::string> symbols;
  for (const attn::InputAxis &a : axes) {
    std::string s = a.dim == attn::InputDim::B ? "B" : a.dim == attn::InputDim::H ? "H" : "Sq";
    if (a.isBlock())
      s += "/" + std::to_string(a.divisor);
    symbols.push_back(s);
  }
  return symbols;
}

Value metaattn::evaluateCombine(TileIRBuilder &tb, OpBuilder &b, Location loc, attn::CombineOp op,
                                ArrayRef<Value> valueParams, Value own, ArrayRef<Value> inputParams,
                                ArrayRef<SmallVector<attn::InputAxis>> inputAxes, Value batch,
                                Value head, Value q, Value col) {
  // Region arguments: the values at (b, q, h, d) as f32, the indices, the inputs.
  Type f32 = b.getF32Type();
  SmallVector<Value> args;
  for (auto [i, param] : llvm::enumerate(valueParams)) {
    if (!param) {
      args.push_back(own);
      continue;
    }
    Type elt = cast<RankedTensorType>(op.getValues()[i].getType()).getElementType();
    Value x = b.create<ReadOp>(loc, elt, param, ValueRange{batch, q, head, col});
    if (!elt.isF32())
      x = b.create<arith::ExtFOp>(loc, f32, x);
    args.push_back(x);
  }
  args.append({batch, head, q, col});
  for (auto [i, param] : llvm::enumerate(inputParams)) {
    SmallVector<Value> indices;
    for (const attn::InputAxis &a : inputAxes[i]) {
      Value index = a.dim == attn::InputDim::B ? batch : a.dim == attn::InputDim::H ? head : q;
      if (a.isBlock())
        index = b.create<arith::DivUIOp>(loc, index, tb.idx(a.divisor));
      indices.push_back(index);
    }
    Type elt = cast<RankedTensorType>(op.getInputs()[i].getType()).getElementType();
    args.push_back(b.create<ReadOp>(loc, elt, param, indices));
  }
  return tb.inlineRegion(op.getCombiner(), args).front();
}
