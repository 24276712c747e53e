//===- CUDAAsyncEmitter.cpp - warp specialisation, mbarriers, TMA ----------===//
//
// Prints tile.warp_specialize as a branch on the thread's warpgroup (with setmaxnreg), the
// mbarrier ops as metaattn::dev::mbar calls and tile.tma_copy as metaattn::dev::tma::loadTile
// through a tensor-map kernel parameter the runtime builds (runtime/device/metaattn/tma.cuh).
// One producer thread issues the copies; a whole producer warp where the producer reads id
// bounds (tile-warp-specialize skip-loads), lane 0 announcing bytes and issuing copies.
//
//===----------------------------------------------------------------------===//

#include "CUDAEmitterImpl.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace metaattn;
using namespace metaattn::cuda;
using namespace metaattn::tile;

namespace {
/// The fewest registers per thread the producer warpgroup keeps after setmaxnreg.dec: 24, the
/// least setmaxnreg takes; 40 in a persistent kernel, whose producer also carries the walk
/// over the grid's tiles (ptxas spilled 4 B there at D128/D256 with 24, 60 B at D64 with 32;
/// none with 40 and 56).
constexpr int64_t kProducerRegisters = 24;
constexpr int64_t kPersistentProducerRegisters = 40;
/// 56 where the producer walks a kept list whose test bounds ids lane by lane (a document
/// mask's), eight loads in flight per lane for the count: with 24 it could keep one, and on the
/// H100 its first copies waited for the count (one document, B4 S4k: 0.752 ms against 0.717;
/// 16 documents at S16k 0.767 against 0.635; tests/gpu/kept_loads.sh). ptxas spills nothing
/// with 56 (D64, D128, D256) where the ids are 32-bit (boundsNarrowIdsPerLane).
constexpr int64_t kLaneBoundsProducerRegisters = 56;
/// The most registers a thread can hold.
constexpr int64_t kMaxRegisters = 240;
constexpr int64_t kRegisterFile = 65536;
} // namespace

std::string Printer::tensorMapFor(TmaCopyOp copy) {
  auto dest = cast<MemRefType>(copy.getDest().getType());
  rt::TensorMapParam param;
  param.tensor = static_cast<int>(cast<BlockArgument>(copy.getSource()).getArgNumber());
  param.rowDim = static_cast<int>(copy.getDims()[0]);
  param.colDim = static_cast<int>(copy.getDims()[1]);
  param.boxRows = static_cast<int>(dest.getDimSize(0));
  param.boxCols = 128 / (dest.getElementTypeBitWidth() / 8);
  auto same = [&](const rt::TensorMapParam &p) {
    return p.tensor == param.tensor && p.rowDim == param.rowDim && p.colDim == param.colDim &&
           p.boxRows == param.boxRows && p.boxCols == param.boxCols;
  };
  auto it = llvm::find_if(tensorMaps, same);
  size_t index = it - tensorMaps.begin();
  if (it == tensorMaps.end())
    tensorMaps.push_back(param);
  return "tmap" + std::to_string(index);
}

LogicalResult Printer::printWarpSpecialize(WarpSpecializeOp op) {
  int64_t consumers = op.getConsumerThreads();
  constexpr int64_t producerThreads = WarpSpecializeOp::kProducerThreads;
  // The block starts with the registers ptxas gives each of its threads under
  // __launch_bounds__(threads, 1) (the file's share, a multiple of 8); the consumers take
  // what the producer gives up, in multiples of 8, and the producer keeps what is left
  // (32 with three consumer warpgroups, whose 160 are their most at 512 threads; a
  // persistent kernel's producer 56 and 40 with three and two, its consumers 152 and 232).
  int64_t pool = std::min<int64_t>(255, kRegisterFile / (consumers + producerThreads) / 8 * 8) *
                 (consumers + producerThreads);
  auto kernel = op->getParentOfType<KernelOp>();
  // One thread issues the copies; a whole warp where the producer reads id bounds (the
  // lanes split those loads) or walks kept tiles (a ballot), lane 0 issuing the copies.
  bool warp = false;
  op.getProducer().walk(
      [&](Operation *inner) { warp |= isa<ReadBoundsOp, KeptTilesOp, TileAtOp>(inner); });
  int64_t producerLeast = kernel && kernel->hasAttr(kPersistentAttr) ? kPersistentProducerRegisters
                                                                     : kProducerRegisters;
  bool laneBounds = false;
  op.getProducer().walk([&](KeptTilesOp kept) { laneBounds |= boundsNarrowIdsPerLane(kept); });
  if (laneBounds)
    producerLeast = std::max(producerLeast, kLaneBoundsProducerRegisters);
  int64_t consumerRegisters = std::min<int64_t>(
      kMaxRegisters, (pool - producerThreads * producerLeast) / consumers / 8 * 8);
  int64_t producerRegisters = (pool - consumers * consumerRegisters) / producerThreads / 8 * 8;
  // With one consumer warpgroup every thread already starts with the most a thread can use:
  // nothing to hand over (and setmaxnreg takes at most 256).
  bool shift = pool / (consumers + producerThreads) < kMaxRegisters;
  std::string ns = "metaattn::dev::";
  line() << "if ((int)threadIdx.x >= " << consumers << ") {  // tile.warp_specialize producer\n";
  {
    IndentScope scope(*this);
    if (shift)
      line() << ns << "wg::setMaxRegs<false, " << producerRegisters << ">();\n";
    if (warp)
      line() << "if ((int)threadIdx.x < " << consumers + 32 << ") {  // one warp\n";
    else
      line() << "if ((int)threadIdx.x == " << consumers << ") {\n";
    IndentScope inner(*this);
    producerWarp = warp;
    LogicalResult result = printBlock(op.getProducer().front());
    producerWarp = false;
    if (failed(result))
      return failure();
  }
  line() << "  }\n";
  line() << "} else {  // tile.warp_specialize consumer\n";
  {
    IndentScope scope(*this);
    if (shift)
      line() << ns << "wg::setMaxRegs<true, " << consumerRegisters << ">();\n";
    int64_t savedThreads = threads;
    threads = consumerThreads = consumers;
    LogicalResult result = printBlock(op.getConsumer().front());
    threads = savedThreads;
    consumerThreads = 0;
    if (failed(result))
      return failure();
  }
  line() << "}\n";
  return success();
}

LogicalResult Printer::printAsyncOp(Operation *op) {
  std::string ns = "metaattn::dev::";
  if (auto init = dyn_cast<MbarrierInitOp>(op)) {
    int64_t n = cast<MemRefType>(init.getBarriers().getType()).getDimSize(0);
    line() << "if (threadIdx.x == 0) {  // tile.mbarrier_init\n";
    line() << "  for (int i = 0; i < " << n << "; ++i) " << ns << "mbar::init(&"
           << name(init.getBarriers()) << "[i], " << init.getCount() << ");\n";
    line() << "  " << ns << "mbar::fenceInit();\n";
    line() << "}\n";
    return success();
  }
  if (auto wait = dyn_cast<MbarrierWaitOp>(op)) {
    line() << ns << "mbar::wait(&" << name(wait.getBarriers()) << "[" << name(wait.getIndex())
           << "], " << name(wait.getParity()) << ");  // tile.mbarrier_wait\n";
    return success();
  }
  if (auto arrive = dyn_cast<MbarrierArriveOp>(op)) {
    // One arrival per consumer warp, after all of its lanes are done with the stage.
    line() << "__syncwarp();  // tile.mbarrier_arrive\n";
    line() << "if ((threadIdx.x & 31) == 0) " << ns << "mbar::arrive(&"
           << name(arrive.getBarriers()) << "[" << name(arrive.getIndex()) << "]);\n";
    return success();
  }
  if (auto expect = dyn_cast<MbarrierExpectTxOp>(op)) {
    line() << lane0() << ns << "mbar::arriveExpectTx(&" << name(expect.getBarriers()) << "["
           << name(expect.getIndex()) << "], " << expect.getBytes()
           << ");  // tile.mbarrier_arrive_expect_tx\n";
    return success();
  }
  if (auto copy = dyn_cast<TmaCopyOp>(op)) {
    line() << "// tile.tma_copy\n";
    std::string o = origin(copy.getIndices(), "origin");
    line() << lane0() << ns << "tma::loadTile(" << name(copy.getDest()) << ", "
           << tensorMapFor(copy) << ", " << o << ", &" << name(copy.getBarriers()) << "["
           << name(copy.getBarrierIndex()) << "]);\n";
    return success();
  }
  if (auto ws = dyn_cast<WarpSpecializeOp>(op))
    return printWarpSpecialize(ws);
  if (auto turn = dyn_cast<WarpgroupTurnOp>(op)) {
    StringRef kind = turn.getKind();
    std::string fn = "turn" + std::string(1, llvm::toUpper(kind[0])) + kind.drop_front().str();
    line() << ns << "wg::" << fn << "<" << consumerThreads / 128 << ">();  // tile.warpgroup_turn "
           << kind << "\n";
    return success();
  }
  return op->emitOpError() << "cannot be printed as CUDA";
}
