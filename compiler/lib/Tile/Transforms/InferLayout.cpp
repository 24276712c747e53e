//===- InferLayout.cpp - tile-infer-layout -----------------------------------===//
//
// Gives every fragment its thread layout and checks that each use agrees with it, so the
// emitters can map element (i, j) of a fragment to a fixed register of a fixed thread.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEINFERLAYOUT
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// The allocation behind a buffer value (through tile.stage views).
AllocOp getAlloc(Value buffer) {
  if (auto stage = buffer.getDefiningOp<StageOp>())
    return getAlloc(stage.getBuffer());
  return buffer.getDefiningOp<AllocOp>();
}

struct TileInferLayoutPass : public metaattn::tile::impl::TileInferLayoutBase<TileInferLayoutPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    unsigned warps = kernel.getThreads() / 32;
    MLIRContext *ctx = kernel.getContext();
    bool anyError = false;
    kernel.walk([&](AllocOp alloc) {
      MemRefType type = alloc.getBuffer().getType();
      if (!isFragment(type))
        return;
      // Column vectors (tile-hoist-axis-reads makes them) keep their layout.
      if (FragmentLayoutAttr preset = alloc.getLayoutAttr(); preset && preset.getKind() == "col") {
        if (type.getRank() != 1 || type.getDimSize(0) % 8 != 0) {
          alloc.emitOpError() << "column vectors are 1-D with a multiple of 8 columns, found "
                              << type;
          anyError = true;
        }
        return;
      }
      if (type.getDimSize(0) % (16 * warps) != 0) {
        alloc.emitOpError() << "fragment rows (" << type.getDimSize(0)
                            << ") must be a multiple of 16 x " << warps
                            << " warps for the mma layout";
        anyError = true;
        return;
      }
      if (type.getRank() == 2 && type.getDimSize(1) % 8 != 0) {
        alloc.emitOpError() << "fragment columns (" << type.getDimSize(1)
                            << ") must be a multiple of 8 for the mma layout";
        anyError = true;
        return;
      }
      if (type.getRank() > 2) {
        alloc.emitOpError() << "fragments are 1-D or 2-D, found " << type;
        anyError = true;
        return;
      }
      alloc.setLayoutAttr(FragmentLayoutAttr::get(ctx, type.getRank() == 2 ? "mma" : "row", warps));
    });
    if (anyError)
      return signalPassFailure();

    // tile.parallel bodies: fragments indexed by the induction variables, rows by the first;
    // shared buffers at any index.
    WalkResult result = kernel.walk([&](ParallelOp par) -> WalkResult {
      ArrayRef<int64_t> shape = par.getShape();
      Block &body = par.getBody().front();
      // A 1-D loop runs over row or column slots, so its vectors are all of one kind.
      std::optional<bool> columns1d;
      auto check = [&](Operation *access, Value memref, ValueRange indices) -> LogicalResult {
        auto type = cast<MemRefType>(memref.getType());
        if (isShared(type))
          return success(); // shared memory is addressed by value, by any thread
        if (!isFragment(type))
          return access->emitOpError()
                 << "inside tile.parallel only fragments and shared buffers may be accessed, "
                    "found "
                 << type;
        // A column vector is indexed by the last induction variable (the column), anything
        // else by the first ones in order.
        FragmentLayoutAttr layout = getFragmentLayout(memref);
        bool column = layout && layout.getKind() == "col";
        unsigned first = column ? shape.size() - 1 : 0;
        if (shape.size() == 1 && !columns1d)
          columns1d = column;
        if (shape.size() == 1 && *columns1d != column)
          return access->emitOpError()
                 << "a 1-D tile.parallel accesses row and column vectors together";
        if (type.getDimSize(0) != shape[first])
          return access->emitOpError()
                 << "fragment " << (first ? "columns" : "rows") << " (" << type.getDimSize(0)
                 << ") differ from the tile.parallel extent (" << shape[first] << ")";
        for (auto [i, index] : llvm::enumerate(indices))
          if (index != body.getArgument(first + i))
            return access->emitOpError()
                   << "fragment index #" << i << " must be the parallel induction variable #"
                   << first + i << " so that each element is touched by its owning thread";
        if (type.getRank() == 2 && (shape.size() != 2 || type.getDimSize(1) != shape[1]))
          return access->emitOpError()
                 << "a 2-D fragment must be accessed in a 2-D tile.parallel of its shape";
        return success();
      };
      WalkResult inner = par.getBody().walk([&](Operation *access) -> WalkResult {
        if (auto load = dyn_cast<memref::LoadOp>(access))
          return failed(check(access, load.getMemRef(), load.getIndices()))
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        if (auto store = dyn_cast<memref::StoreOp>(access))
          return failed(check(access, store.getMemRef(), store.getIndices()))
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        return WalkResult::advance();
      });
      return inner;
    });
    if (result.wasInterrupted())
      return signalPassFailure();

    // gemm and reduce operands share rows and warps.
    result = kernel.walk([&](Operation *op) -> WalkResult {
      if (auto gemm = dyn_cast<GemmOp>(op)) {
        if (isFragment(gemm.getA().getType()) && !getAlloc(gemm.getA()))
          return gemm.emitOpError() << "register A operand must come from a tile.alloc",
                 WalkResult::interrupt();
      }
      if (auto reduce = dyn_cast<ReduceOp>(op)) {
        if (!getAlloc(reduce.getSource()) || !getAlloc(reduce.getDest()))
          return reduce.emitOpError() << "reduce operands must come from tile.alloc",
                 WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
  }
};

} // namespace
