//===- TileAsyncOps.cpp - warp specialisation in the CPU executor -----------===//
//
// tile.warp_specialize runs its producer region on a second host thread with a copy of the
// block's interpreter (same buffers, own SSA values) while this thread runs the consumer
// region; mbarriers are real phase counters under a mutex, so the producer's ring of stages
// is reused exactly as on the GPU. TMA copies complete at once and signal their barrier. A
// wait that makes no progress for kWaitLimit is reported as a deadlock instead of hanging.
//
//===----------------------------------------------------------------------===//

#include "BlockInterpreter.h"

#include "llvm/ADT/TypeSwitch.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::executor;

namespace metaattn::executor {

/// The mbarriers of one block, keyed by (storage, element).
struct BarrierState {
  struct Barrier {
    int64_t count = 0, pending = 0, tx = 0;
    int64_t parity = 0; // of the phase in progress
    bool initialised = false;
  };
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::pair<const LocalStorage *, int64_t>, Barrier> table;
  /// Set when either side failed: the other side's waits return instead of blocking.
  bool aborted = false;

  /// Completes the phase when its arrivals and bytes are all in. Holds `mutex`.
  void settle(Barrier &b) {
    if (b.pending == 0 && b.tx == 0) {
      b.parity ^= 1;
      b.pending = b.count;
      changed.notify_all();
    }
  }
};

} // namespace metaattn::executor

namespace {
constexpr auto kWaitLimit = std::chrono::seconds(20);
} // namespace

BlockInterpreter::BlockInterpreter(std::array<int64_t, 3> blockId, std::array<int64_t, 3> grid,
                                   std::string &error)
    : blockId(blockId), grid(grid), error(error), barriers(std::make_shared<BarrierState>()) {}

BlockInterpreter::~BlockInterpreter() = default;

LogicalResult BlockInterpreter::runWarpSpecialize(tile::WarpSpecializeOp op) {
  std::string producerError;
  BlockInterpreter producer(blockId, grid, producerError);
  producer.scalars = scalars;
  producer.buffers = buffers;
  producer.globals = globals;
  producer.barriers = barriers;
  auto abort = [&] {
    std::lock_guard<std::mutex> lock(barriers->mutex);
    barriers->aborted = true;
    barriers->changed.notify_all();
  };
  LogicalResult producerResult = success();
  std::thread thread([&] {
    producerResult = producer.runRegionBlock(op.getProducer().front(), {}, nullptr);
    if (failed(producerResult))
      abort();
  });
  LogicalResult consumerResult = runRegionBlock(op.getConsumer().front(), {}, nullptr);
  if (failed(consumerResult))
    abort();
  thread.join();
  if (failed(producerResult)) {
    // The producer's error explains a consumer that gave up waiting for it.
    error = "in the producer: " + producerError;
    return failure();
  }
  return consumerResult;
}

LogicalResult BlockInterpreter::runAsyncOp(Operation &op) {
  // The barrier operand of every mbarrier op and tma_copy, and its element.
  auto barrierAt = [&](Value buffer, Value index,
                       BarrierState::Barrier *&out) -> std::unique_lock<std::mutex> {
    const BufferView *view = this->buffer(&op, buffer);
    const Scalar *i = index ? scalar(&op, index) : nullptr;
    if (!view || (index && !i))
      return {};
    int64_t element = index ? i->i : 0;
    if (element < 0 || element >= view->getNumElements()) {
      fail(&op, "mbarrier index " + Twine(element) + " is out of range");
      return {};
    }
    std::unique_lock<std::mutex> lock(barriers->mutex);
    out = &barriers->table[{view->storage.get(), view->offset + element}];
    return lock;
  };
  auto notInitialised = [&] { return fail(&op, "mbarrier used before tile.mbarrier_init"); };
  // Arrivals and transaction counts: `change` applied to an initialised barrier under its lock,
  // then the phase settled.
  auto updateBarrier = [&](Value buffer, Value index,
                           llvm::function_ref<LogicalResult(BarrierState::Barrier &)> change) {
    BarrierState::Barrier *b = nullptr;
    auto lock = barrierAt(buffer, index, b);
    if (!lock)
      return failure();
    if (!b->initialised)
      return notInitialised();
    if (failed(change(*b)))
      return failure();
    barriers->settle(*b);
    return success();
  };
  auto arrivals = [&](BarrierState::Barrier &b, int64_t count) {
    b.pending -= count;
    if (b.pending < 0)
      return fail(&op, "more arrivals than the mbarrier expects in one phase");
    return success();
  };

  if (auto init = dyn_cast<tile::MbarrierInitOp>(op)) {
    const BufferView *view = buffer(&op, init.getBarriers());
    if (!view)
      return failure();
    std::lock_guard<std::mutex> lock(barriers->mutex);
    for (int64_t i = 0; i < view->getNumElements(); ++i) {
      BarrierState::Barrier &b = barriers->table[{view->storage.get(), view->offset + i}];
      b = BarrierState::Barrier{init.getCount(), init.getCount(), 0, 0, true};
    }
    return success();
  }
  if (auto arrive = dyn_cast<tile::MbarrierArriveOp>(op)) {
    // Every consumer warp arrives once.
    int64_t warps = op.getParentOfType<tile::WarpSpecializeOp>().getConsumerThreads() / 32;
    return updateBarrier(arrive.getBarriers(), arrive.getIndex(),
                         [&](BarrierState::Barrier &b) { return arrivals(b, warps); });
  }
  if (auto expect = dyn_cast<tile::MbarrierExpectTxOp>(op))
    return updateBarrier(expect.getBarriers(), expect.getIndex(), [&](BarrierState::Barrier &b) {
      b.tx += expect.getBytes();
      return arrivals(b, 1);
    });
  if (auto copy = dyn_cast<tile::TmaCopyOp>(op)) {
    HostTensor *tensor = global(&op, copy.getSource());
    const BufferView *local = buffer(&op, copy.getDest());
    SmallVector<int64_t, 4> origin;
    if (!tensor || !local || failed(indices(&op, copy.getIndices(), origin)))
      return failure();
    copyIn(*tensor, origin, copy.getDims(), *local);
    return updateBarrier(copy.getBarriers(), copy.getBarrierIndex(), [&](BarrierState::Barrier &b) {
      b.tx -= copy.getBytes();
      return success();
    });
  }
  auto wait = cast<tile::MbarrierWaitOp>(op);
  const Scalar *parity = scalar(&op, wait.getParity());
  BarrierState::Barrier *b = nullptr;
  auto lock = barrierAt(wait.getBarriers(), wait.getIndex(), b);
  if (!lock || !parity)
    return failure();
  if (!b->initialised)
    return notInitialised();
  // The phase of parity p has completed once the phase in progress has the other parity.
  bool done = barriers->changed.wait_for(
      lock, kWaitLimit, [&] { return barriers->aborted || b->parity != (parity->i & 1); });
  if (barriers->aborted)
    return fail(&op, "the other side of the tile.warp_specialize failed");
  if (!done)
    return fail(&op, "mbarrier wait made no progress for 20 s: the producer and the "
                     "consumers deadlocked");
  return success();
}
