//===- TileStructuredOps.cpp - tile.parallel and tile.pipelined -------------===//
#include "metaattn/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace metaattn::tile;

//===----------------------------------------------------------------------===//
// ParallelOp: tile.parallel (%i, %j) in [64, 64] { ... }
//===----------------------------------------------------------------------===//

void ParallelOp::build(OpBuilder &builder, OperationState &state, ArrayRef<int64_t> shape) {
  state.addAttribute(getShapeAttrName(state.name), builder.getDenseI64ArrayAttr(shape));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (size_t i = 0; i < shape.size(); ++i)
    block->addArgument(builder.getIndexType(), state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  builder.create<YieldOp>(state.location);
}

ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren))
    return failure();
  SmallVector<int64_t> shape;
  if (parser.parseKeyword("in") || parser.parseLSquare())
    return failure();
  if (parser.parseCommaSeparatedList([&]() {
        int64_t extent;
        if (parser.parseInteger(extent))
          return failure();
        shape.push_back(extent);
        return success();
      }))
    return failure();
  if (parser.parseRSquare())
    return failure();
  Builder &builder = parser.getBuilder();
  for (auto &iv : ivs)
    iv.type = builder.getIndexType();
  result.addAttribute("shape", builder.getDenseI64ArrayAttr(shape));
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, ivs) || parser.parseOptionalAttrDict(result.attributes))
    return failure();
  ParallelOp::ensureTerminator(*body, builder, result.location);
  return success();
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getBody().front().getArguments(), p,
                        [&](BlockArgument arg) { p.printOperand(arg); });
  p << ") in [";
  llvm::interleaveComma(getShape(), p);
  p << "] ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/false);
  p.printOptionalAttrDict((*this)->getAttrs(), {"shape"});
}

LogicalResult ParallelOp::verify() {
  ArrayRef<int64_t> shape = getShape();
  if (shape.empty() || shape.size() > 2)
    return emitOpError() << "iterates over a 1-D or 2-D index space, found rank " << shape.size();
  if (llvm::any_of(shape, [](int64_t e) { return e <= 0; }))
    return emitOpError() << "extents must be positive";
  Block &block = getBody().front();
  if (block.getNumArguments() != shape.size() ||
      llvm::any_of(block.getArgumentTypes(), [](Type t) { return !t.isIndex(); }))
    return emitOpError() << "body must take one index argument per dimension";
  return success();
}

//===----------------------------------------------------------------------===//
// PipelinedOp: tile.pipelined %j = %lo to %hi stages 2 { ... }
//===----------------------------------------------------------------------===//

void PipelinedOp::build(OpBuilder &builder, OperationState &state, Value lower, Value upper,
                        int64_t numStages) {
  state.addOperands({lower, upper});
  state.addAttribute(getNumStagesAttrName(state.name), builder.getI64IntegerAttr(numStages));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  block->addArgument(builder.getIndexType(), state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  builder.create<YieldOp>(state.location);
}

ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lower, upper;
  int64_t stages;
  Builder &builder = parser.getBuilder();
  if (parser.parseArgument(iv) || parser.parseEqual() || parser.parseOperand(lower) ||
      parser.parseKeyword("to") || parser.parseOperand(upper) || parser.parseKeyword("stages") ||
      parser.parseInteger(stages))
    return failure();
  iv.type = builder.getIndexType();
  if (parser.resolveOperand(lower, builder.getIndexType(), result.operands) ||
      parser.resolveOperand(upper, builder.getIndexType(), result.operands))
    return failure();
  result.addAttribute("num_stages", builder.getI64IntegerAttr(stages));
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {iv}) || parser.parseOptionalAttrDict(result.attributes))
    return failure();
  PipelinedOp::ensureTerminator(*body, builder, result.location);
  return success();
}

void PipelinedOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printOperand(getInductionVar());
  p << " = " << getLower() << " to " << getUpper() << " stages " << getNumStages() << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/false);
  p.printOptionalAttrDict((*this)->getAttrs(), {"num_stages"});
}

LogicalResult PipelinedOp::verify() {
  if (getNumStages() < 1 || getNumStages() > 8)
    return emitOpError() << "stages must be between 1 and 8, found " << getNumStages();
  Block &block = getBody().front();
  if (block.getNumArguments() != 1 || !block.getArgument(0).getType().isIndex())
    return emitOpError() << "body must take the index induction variable";
  return success();
}

//===----------------------------------------------------------------------===//
// KeptTilesOp: %list, %n = tile.kept_tiles %j = %lo to %hi { ... tile.keep %k }
//===----------------------------------------------------------------------===//

void KeptTilesOp::build(OpBuilder &builder, OperationState &state, Value lower, Value upper) {
  state.addOperands({lower, upper});
  state.addTypes({TileListType::get(builder.getContext()), builder.getIndexType()});
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  block->addArgument(builder.getIndexType(), state.location);
}

Value KeptTilesOp::getKept() { return cast<KeepOp>(getBody().front().getTerminator()).getKeep(); }

OperandRange KeptTilesOp::getMarks() {
  return cast<KeepOp>(getBody().front().getTerminator()).getMarks();
}

ParseResult KeptTilesOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  OpAsmParser::Argument index;
  OpAsmParser::UnresolvedOperand lower, upper;
  if (parser.parseArgument(index) || parser.parseEqual() || parser.parseOperand(lower) ||
      parser.parseKeyword("to") || parser.parseOperand(upper))
    return failure();
  index.type = builder.getIndexType();
  if (parser.resolveOperand(lower, builder.getIndexType(), result.operands) ||
      parser.resolveOperand(upper, builder.getIndexType(), result.operands))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {index}) || parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.addTypes({TileListType::get(builder.getContext()), builder.getIndexType()});
  return success();
}

void KeptTilesOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printOperand(getIndex());
  p << " = " << getLower() << " to " << getUpper() << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
  p.printOptionalAttrDict((*this)->getAttrs());
}

LogicalResult KeptTilesOp::verify() {
  Block &block = getBody().front();
  if (block.getNumArguments() != 1 || !block.getArgument(0).getType().isIndex())
    return emitOpError() << "body must take the index it decides on";
  if (block.empty() || !isa<KeepOp>(block.back()))
    return emitOpError() << "body must end in tile.keep";
  // Any thread may evaluate the body for any index, any number of times: pure scalar ops
  // and reads of global tensors only.
  WalkResult walk = getBody().walk([&](Operation *op) {
    if (isa<KeepOp, ReadOp, ReadBoundsOp>(op) || (isPure(op) && op->getNumRegions() == 0))
      return WalkResult::advance();
    op->emitOpError() << "cannot be in a tile.kept_tiles body (only pure scalar ops, "
                         "tile.read and tile.read_bounds)";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// TileAtOp: %j, %marks... = tile.tile_at %list[%r]
//===----------------------------------------------------------------------===//

void TileAtOp::build(OpBuilder &builder, OperationState &state, Value list, Value rank) {
  state.addOperands({list, rank});
  state.addTypes(builder.getIndexType());
  // One i1 per mark the list's indices carry.
  if (auto kept = list.getDefiningOp<KeptTilesOp>())
    state.addTypes(SmallVector<Type>(kept.getMarks().size(), builder.getI1Type()));
}

LogicalResult TileAtOp::verify() {
  auto kept = getList().getDefiningOp<KeptTilesOp>();
  if (!kept || kept.getBody().empty() || kept.getBody().front().empty())
    return success();
  auto keep = dyn_cast<KeepOp>(kept.getBody().front().back());
  if (keep && keep.getMarks().size() != getMarks().size())
    return emitOpError() << "returns " << getMarks().size() << " marks, but its list's indices "
                         << "carry " << keep.getMarks().size();
  return success();
}
