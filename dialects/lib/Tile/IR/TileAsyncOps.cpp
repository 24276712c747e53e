//===- TileAsyncOps.cpp - warp specialisation, mbarriers and TMA -----------===//
//
// Verifiers of the ops tile-warp-specialize creates: tile.warp_specialize, the mbarrier ops
// and tile.tma_copy.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace metaattn::tile;

static LogicalResult verifyBarriers(Operation *op, Value barriers) {
  if (!isShared(barriers.getType()))
    return op->emitOpError() << "mbarriers must live in shared memory (memref<Nxi64, "
                                "#tile.space<shared>>), found "
                             << barriers.getType();
  return success();
}

/// The tile.warp_specialize region `op` is in, and whether it is the producer region.
static std::pair<WarpSpecializeOp, bool> roleOf(Operation *op) {
  for (Region *region = op->getParentRegion(); region;
       region = region->getParentOp()->getParentRegion()) {
    if (auto ws = dyn_cast<WarpSpecializeOp>(region->getParentOp()))
      return {ws, region == &ws.getProducer()};
    if (isa<KernelOp>(region->getParentOp()))
      break;
  }
  return {nullptr, false};
}

static LogicalResult verifyInProducer(Operation *op) {
  auto [ws, producer] = roleOf(op);
  if (!ws || !producer)
    return op->emitOpError() << "runs only in the producer region of a tile.warp_specialize";
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  int64_t consumers = getConsumerThreads();
  if (consumers <= 0 || consumers % 128 != 0)
    return emitOpError() << "consumer_threads must be a positive multiple of 128 (whole "
                            "warpgroups), found "
                         << consumers;
  if (auto kernel = (*this)->getParentOfType<KernelOp>();
      kernel && kernel.getThreads() != consumers + kProducerThreads)
    return emitOpError() << "the kernel must have consumer_threads + " << kProducerThreads << " = "
                         << consumers + kProducerThreads << " threads, found "
                         << kernel.getThreads();
  if ((*this)->getParentOfType<WarpSpecializeOp>())
    return emitOpError() << "cannot be nested";
  WalkResult bad = getProducer().walk([&](Operation *op) {
    if (isa<AllocOp, CopyOp, GemmOp, GemmWaitOp, ParallelOp, ReduceOp, ScanOp, BarrierOp, FillOp,
            PipelinedOp, MbarrierArriveOp>(op)) {
      op->emitOpError() << "is not allowed in the producer region of a tile.warp_specialize "
                           "(it runs on one thread)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(bad.wasInterrupted());
}

LogicalResult MbarrierInitOp::verify() { return verifyBarriers(*this, getBarriers()); }

LogicalResult MbarrierArriveOp::verify() {
  if (failed(verifyBarriers(*this, getBarriers())))
    return failure();
  auto [ws, producer] = roleOf(*this);
  if (!ws || producer)
    return emitOpError() << "runs only in the consumer region of a tile.warp_specialize";
  return success();
}

LogicalResult MbarrierExpectTxOp::verify() {
  if (failed(verifyBarriers(*this, getBarriers())))
    return failure();
  return verifyInProducer(*this);
}

LogicalResult MbarrierWaitOp::verify() {
  if (failed(verifyBarriers(*this, getBarriers())))
    return failure();
  if (!roleOf(*this).first)
    return emitOpError() << "runs only inside a tile.warp_specialize";
  return success();
}

int64_t TmaCopyOp::getBytes() {
  auto dest = cast<MemRefType>(getDest().getType());
  return dest.getNumElements() * dest.getElementTypeBitWidth() / 8;
}

LogicalResult TmaCopyOp::verify() {
  if (failed(verifyBarriers(*this, getBarriers())) || failed(verifyInProducer(*this)))
    return failure();
  auto source = cast<GlobalTensorType>(getSource().getType());
  auto dest = dyn_cast<MemRefType>(getDest().getType());
  if (!dest || !isShared(dest) || dest.getRank() != 2)
    return emitOpError() << "destination must be a 2-D shared tile, found " << getDest().getType();
  if (dest.getElementType() != source.getElementType() || dest.getElementTypeBitWidth() != 16)
    return emitOpError() << "copies 16-bit elements without conversion, found "
                         << source.getElementType() << " to " << dest.getElementType();
  int64_t rowBytes = dest.getDimSize(1) * 2;
  if (rowBytes % 128 != 0 || dest.getDimSize(0) > 256)
    return emitOpError() << "tile rows must be multiples of 128 bytes and at most 256, found "
                         << dest;
  if (static_cast<int64_t>(getIndices().size()) != source.getRank())
    return emitOpError() << "needs " << source.getRank() << " indices, found "
                         << getIndices().size();
  ArrayRef<int64_t> dims = getDims();
  if (dims.size() != 2 || dims[0] == dims[1] || dims[0] < 0 || dims[0] >= source.getRank() ||
      dims[1] != source.getRank() - 1)
    return emitOpError() << "dims must name a row dim and the tensor's last (contiguous) dim";
  if (source.getRank() > 5)
    return emitOpError() << "tensors of rank above 5 have no TMA map";
  return success();
}

LogicalResult WarpgroupTurnOp::verify() {
  StringRef kind = getKind();
  if (kind != "wait" && kind != "pass" && kind != "start" && kind != "finish")
    return emitOpError() << "kind must be wait, pass, start or finish, found '" << kind << "'";
  auto [ws, producer] = roleOf(*this);
  if (!ws || producer)
    return emitOpError() << "runs only in the consumer region of a tile.warp_specialize";
  if (ws.getConsumerThreads() < 256)
    return emitOpError() << "needs two or more consumer warpgroups, found "
                         << ws.getConsumerThreads() / 128;
  return success();
}
