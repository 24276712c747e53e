//===- TileIRBuilder.h - small helpers for building tile kernels -*- C++ -*-===//
//
// Shorthands the kernel builders share: constants, index arithmetic, buffers, tile.parallel
// bodies and the inlining of attn regions.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_CONVERSION_ATTNTOTILE_TILEIRBUILDER_H
#define METAATTN_CONVERSION_ATTNTOTILE_TILEIRBUILDER_H

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "metaattn/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace metaattn {

class TileIRBuilder {
public:
  TileIRBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::Value idx(int64_t v) { return b.create<mlir::arith::ConstantIndexOp>(loc, v); }
  mlir::Value f32(double v) {
    return b.create<mlir::arith::ConstantFloatOp>(loc, b.getF32Type(), llvm::APFloat(float(v)));
  }
  mlir::Value add(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::AddIOp>(loc, x, y); }
  mlir::Value mul(mlir::Value x, mlir::Value y) { return b.create<mlir::arith::MulIOp>(loc, x, y); }
  mlir::Value minI(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::MinSIOp>(loc, x, y);
  }
  mlir::Value lessThan(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::slt, x, y);
  }
  mlir::Value alloc(llvm::ArrayRef<int64_t> shape, mlir::Type elt, tile::MemorySpace space) {
    return b.create<tile::AllocOp>(loc, tile::getBufferType(b.getContext(), shape, elt, space),
                                   nullptr);
  }
  mlir::Value load(mlir::Value buf, mlir::ValueRange ivs) {
    return b.create<mlir::memref::LoadOp>(loc, buf, ivs);
  }
  void store(mlir::Value v, mlir::Value buf, mlir::ValueRange ivs) {
    b.create<mlir::memref::StoreOp>(loc, v, buf, ivs);
  }

  /// Opens a tile.parallel over `shape` and moves the insertion point into its body; returns
  /// the op (pass it to endParallel) and its induction variables.
  tile::ParallelOp beginParallel(llvm::ArrayRef<int64_t> shape,
                                 llvm::SmallVectorImpl<mlir::Value> &ivs) {
    auto par = b.create<tile::ParallelOp>(loc, shape);
    mlir::Block &body = par.getBody().front();
    b.setInsertionPoint(body.getTerminator());
    ivs.assign(body.getArguments().begin(), body.getArguments().end());
    return par;
  }
  void endParallel(tile::ParallelOp par) { b.setInsertionPointAfter(par); }

  /// Inlines `region` (one block ending in a terminator whose operands are the results) with
  /// `args`; returns the values its terminator yields.
  llvm::SmallVector<mlir::Value> inlineRegion(mlir::Region &region, mlir::ValueRange args) {
    mlir::Block &block = region.front();
    mlir::IRMapping mapping;
    mapping.map(block.getArguments(), args);
    for (mlir::Operation &inner : block.without_terminator())
      b.clone(inner, mapping);
    llvm::SmallVector<mlir::Value> results;
    for (mlir::Value v : block.getTerminator()->getOperands())
      results.push_back(mapping.lookupOrDefault(v));
    return results;
  }
  /// Inlines the operations of `region`'s block up to the one defining `inner` (a value of the
  /// block, e.g. an operand of the value it yields) with `args`; returns the copy of `inner`.
  mlir::Value inlineRegionValue(mlir::Region &region, mlir::ValueRange args, mlir::Value inner) {
    mlir::Block &block = region.front();
    mlir::IRMapping mapping;
    mapping.map(block.getArguments(), args);
    for (mlir::Operation &op : block.without_terminator()) {
      if (mapping.contains(inner))
        break;
      b.clone(op, mapping);
    }
    return mapping.lookupOrDefault(inner);
  }

protected:
  mlir::OpBuilder &b;
  mlir::Location loc;
};

/// The axes of each custom input of an attn.combine, or failure (reported on `op`).
mlir::FailureOr<llvm::SmallVector<llvm::SmallVector<attn::InputAxis>>>
combineInputAxes(attn::CombineOp op);

/// The runtime's dimension symbols of a combine input over `axes` ("B", "H", "Sq", "Sq/64").
llvm::SmallVector<std::string> combineInputSymbols(llvm::ArrayRef<attn::InputAxis> axes);

/// The combine region of `op` evaluated at (batch, q, head, col), inlined at `b`'s insertion
/// point: value i is `own` where `valueParams[i]` is null, else read from that global tensor
/// (0 outside its sizes) as f32; input i is read from `inputParams[i]` over `inputAxes[i]`.
mlir::Value evaluateCombine(TileIRBuilder &tb, mlir::OpBuilder &b, mlir::Location loc,
                            attn::CombineOp op, llvm::ArrayRef<mlir::Value> valueParams,
                            mlir::Value own, llvm::ArrayRef<mlir::Value> inputParams,
                            llvm::ArrayRef<llvm::SmallVector<attn::InputAxis>> inputAxes,
                            mlir::Value batch, mlir::Value head, mlir::Value q, mlir::Value col);

} // namespace metaattn

#endif // METAATTN_CONVERSION_ATTNTOTILE_TILEIRBUILDER_H
