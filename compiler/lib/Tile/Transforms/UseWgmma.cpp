//===- UseWgmma.cpp - tile-use-wgmma -----------------------------------------===//
//
// Marks the gemms that fit Hopper's warpgroup wgmma.mma_async.m64nNk16 so that the CUDA
// emitter prints them as warpgroup calls (runtime/device/metaattn/warpgroup.cuh). The
// conditions mirror that header's static checks: a gemm marked here always compiles.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEUSEWGMMA
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

bool is16Bit(Type type) { return type.isBF16() || type.isF16(); }

/// A shared operand wgmma can read: 2-D, 16-bit, rows of a multiple of 128 bytes (the
/// 128-byte swizzled column blocks of SmemTile).
bool fitsSharedOperand(MemRefType type) {
  return isShared(type) && type.getRank() == 2 && is16Bit(type.getElementType()) &&
         type.getDimSize(1) * 2 % 128 == 0;
}

/// Why `gemm` cannot run on wgmma in a kernel of `warps` warps, or an empty string.
std::string whyNot(GemmOp gemm, int64_t warps) {
  auto c = cast<MemRefType>(gemm.getC().getType());
  auto a = cast<MemRefType>(gemm.getA().getType());
  auto b = cast<MemRefType>(gemm.getB().getType());
  if (warps % 4 != 0)
    return "the kernel's warps are not whole warpgroups";
  if (!isFragment(c) || c.getRank() != 2 || !c.getElementType().isF32())
    return "the accumulator is not a 2-D f32 fragment";
  int64_t m = c.getDimSize(0), n = c.getDimSize(1);
  if (m != 16 * warps)
    return "the accumulator does not have 16 rows per warp";
  if (n % 16 != 0 || n > 256)
    return "the accumulator's columns are not a multiple of 16 up to 256";
  if (!is16Bit(a.getElementType()) || !is16Bit(b.getElementType()) ||
      a.getElementType() != b.getElementType())
    return "the operands are not both bf16 or both f16";
  if (gemm.getTransposeA()) {
    // Aᵀ stored K x M, read M-major: each warpgroup's 64 rows of C are one column block.
    if (!fitsSharedOperand(a) || a.getDimSize(1) != m)
      return "the transposed shared operand A is not a 128-byte swizzled tile of the "
             "accumulator's rows as columns";
  } else if (isFragment(a)) {
    if (a.getRank() != 2 || a.getDimSize(0) != m || a.getDimSize(1) % 16 != 0)
      return "the register operand A does not match the accumulator's rows";
  } else if (!fitsSharedOperand(a) || a.getDimSize(0) != m) {
    return "the shared operand A is not a 128-byte swizzled tile of the accumulator's rows";
  }
  if (!fitsSharedOperand(b))
    return "the shared operand B's rows are not a multiple of 128 bytes";
  return "";
}

struct TileUseWgmmaPass : public metaattn::tile::impl::TileUseWgmmaBase<TileUseWgmmaPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!targetHasWgmma(target))
      return;
    KernelOp kernel = getOperation();
    int64_t warps = kernel.getThreads() / 32;
    Builder builder(kernel.getContext());
    kernel.walk([&](GemmOp gemm) {
      if (whyNot(gemm, warps).empty())
        gemm->setAttr(kWgmmaAttr, builder.getUnitAttr());
    });
    kernel.walk([&](Block *block) { issueTogether(*block); });
  }

  /// Adjacent wgmma gemms, none reading another's accumulator, are issued back to back and
  /// waited for once (`tile.gemm {async}` ... `tile.gemm_wait`): one round trip to the tensor
  /// cores instead of one per gemm. Gemms into the same accumulator may share a run: wgmma
  /// orders accesses to one accumulator by instructions of one shape (the PTX ISA's
  /// wgmma.fence rules), as for the k-steps inside a gemm.
  static void issueTogether(Block &block) {
    SmallVector<GemmOp> run;
    auto flush = [&] {
      auto [pending, sync] =
          run.empty() ? std::pair<unsigned, Operation *>{0, nullptr} : deferrable(run);
      if (run.size() >= 2 || pending) {
        // A group wholly in flight until the synchronous gemm needs no wait of its own.
        if (pending == run.size())
          for (GemmOp gemm : run)
            gemm.setAsync(true);
        else
          issueAsyncThenWait(run, run.back(), pending);
        if (pending) {
          // The synchronous gemm's wait completes the deferred gemms too; this one fences
          // their accumulators' registers behind it (it has nothing left to wait for).
          SmallVector<Value> rest;
          for (GemmOp gemm : ArrayRef<GemmOp>(run).take_back(pending))
            if (!llvm::is_contained(rest, gemm.getC()))
              rest.push_back(gemm.getC());
          OpBuilder b(sync);
          b.setInsertionPointAfter(sync);
          b.create<GemmWaitOp>(sync->getLoc(), 0, rest);
        }
      }
      run.clear();
    };
    for (Operation &op : llvm::make_early_inc_range(block)) {
      auto gemm = dyn_cast<GemmOp>(&op);
      bool joins = gemm && gemm->hasAttr(kWgmmaAttr) && !gemm.getAsync() &&
                   llvm::none_of(run, [&](GemmOp earlier) {
                     Value c = earlier.getC();
                     return c == gemm.getA() || c == gemm.getB() || gemm.getC() == earlier.getA() ||
                            gemm.getC() == earlier.getB();
                   });
      if (!joins)
        flush();
      if (gemm && gemm->hasAttr(kWgmmaAttr) && !gemm.getAsync())
        run.push_back(gemm);
    }
    flush();
  }

  /// How many gemms at the end of `run` (all of it, possibly) may stay in flight after its
  /// wait, and the synchronous wgmma gemm further down the block whose wait completes them:
  /// those whose accumulators no op touches before it (nor it), and whose shared operands
  /// nothing writes, nor reads them. They then overlap that stretch (the fused linear
  /// kernel's state update runs during the chunk's element-wise output work). None when no
  /// such gemm follows before another gemm, wait or the block's end.
  static std::pair<unsigned, Operation *> deferrable(ArrayRef<GemmOp> run) {
    Operation *sync = run.back()->getNextNode();
    SmallVector<Operation *> window;
    for (; sync; sync = sync->getNextNode()) {
      auto gemm = dyn_cast<GemmOp>(sync);
      if (gemm && gemm->hasAttr(kWgmmaAttr) && !gemm.getAsync())
        break;
      if (isa<GemmOp, GemmWaitOp>(sync) || sync->hasTrait<OpTrait::IsTerminator>())
        return {0, nullptr};
      window.push_back(sync);
    }
    if (!sync)
      return {0, nullptr};
    auto syncGemm = cast<GemmOp>(sync);
    auto usedInWindow = [&](Value buffer) {
      for (Operation *w : window) {
        WalkResult found = w->walk([&](Operation *inner) {
          return llvm::is_contained(inner->getOperands(), buffer) ? WalkResult::interrupt()
                                                                  : WalkResult::advance();
        });
        if (found.wasInterrupted())
          return true;
      }
      return false;
    };
    unsigned deferred = 0;
    for (GemmOp gemm : llvm::reverse(run)) {
      Value c = gemm.getC();
      bool sharesC = llvm::any_of(run.drop_back(deferred + 1),
                                  [&](GemmOp other) { return other.getC() == c; });
      bool syncUses = llvm::is_contained(sync->getOperands(), c) ||
                      syncGemm.getC() == gemm.getA() || syncGemm.getC() == gemm.getB();
      if (sharesC || syncUses || usedInWindow(c) || usedInWindow(gemm.getA()) ||
          usedInWindow(gemm.getB()))
        break;
      ++deferred;
    }
    return {deferred, deferred ? sync : nullptr};
  }
};

} // namespace

GemmWaitOp metaattn::tile::issueAsyncThenWait(ArrayRef<GemmOp> gemms, Operation *after,
                                              unsigned pending) {
  SmallVector<Value> accumulators;
  for (size_t i = 0; i < gemms.size(); ++i) {
    GemmOp gemm = gemms[i];
    gemm.setAsync(true);
    if (i + pending < gemms.size() && !llvm::is_contained(accumulators, gemm.getC()))
      accumulators.push_back(gemm.getC());
  }
  OpBuilder b(after->getContext());
  b.setInsertionPointAfter(after);
  return b.create<GemmWaitOp>(after->getLoc(), pending, accumulators);
}
