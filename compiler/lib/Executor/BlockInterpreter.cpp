//===- BlockInterpreter.cpp - Control flow and scalars of the executor -------===//
//
// Walks the ops of one block of a tile kernel: region bodies (tile.parallel, tile.pipelined,
// scf.for, scf.if), scalar arith/math through the scalar evaluator in float mode, and
// memref.load / memref.store on local buffers with bounds checks.
//
//===----------------------------------------------------------------------===//

#include "BlockInterpreter.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace metaattn;
using namespace metaattn::executor;

LogicalResult BlockInterpreter::fail(Operation *op, const Twine &message) {
  error = formatOpError(op, message);
  return failure();
}

RuntimeValue BlockInterpreter::get(Value value) const {
  RuntimeValue rv;
  if (auto it = scalars.find(value); it != scalars.end())
    rv.scalar = it->second;
  else if (auto it = buffers.find(value); it != buffers.end())
    rv.buffer = it->second;
  else if (auto it = globals.find(value); it != globals.end())
    rv.global = it->second;
  else if (auto it = lists.find(value); it != lists.end())
    rv.list = it->second;
  return rv;
}

void BlockInterpreter::bind(Value value, const RuntimeValue &rv) {
  Type type = value.getType();
  if (isa<MemRefType>(type))
    buffers[value] = rv.buffer;
  else if (isa<tile::GlobalTensorType>(type))
    globals[value] = rv.global;
  else if (isa<tile::TileListType>(type))
    lists[value] = rv.list;
  else
    scalars[value] = rv.scalar;
}

const Scalar *BlockInterpreter::scalar(Operation *op, Value value) {
  auto it = scalars.find(value);
  if (it == scalars.end()) {
    fail(op, "operand has no scalar value (defined by an op that did not run?)");
    return nullptr;
  }
  return &it->second;
}

const BufferView *BlockInterpreter::buffer(Operation *op, Value value) {
  auto it = buffers.find(value);
  if (it == buffers.end()) {
    fail(op, "operand is not a local buffer the executor knows");
    return nullptr;
  }
  return &it->second;
}

HostTensor *BlockInterpreter::global(Operation *op, Value value) {
  auto it = globals.find(value);
  if (it == globals.end()) {
    fail(op, "operand is not a global tensor parameter");
    return nullptr;
  }
  return it->second;
}

LogicalResult BlockInterpreter::indices(Operation *op, ValueRange values,
                                        SmallVectorImpl<int64_t> &out) {
  out.clear();
  for (Value v : values) {
    const Scalar *s = scalar(op, v);
    if (!s)
      return failure();
    out.push_back(s->i);
  }
  return success();
}

LogicalResult BlockInterpreter::runKernel(tile::KernelOp kernel, ArrayRef<HostTensor *> params) {
  Block &body = kernel.getBody().front();
  SmallVector<RuntimeValue> args;
  for (HostTensor *param : params) {
    RuntimeValue rv;
    rv.global = param;
    args.push_back(rv);
  }
  if (failed(runRegionBlock(body, args, nullptr)))
    return failure();
  if (!inFlight.empty())
    return fail(inFlight.front().op, "async gemm never waited for (tile.gemm_wait)");
  return success();
}

LogicalResult BlockInterpreter::runRegionBlock(Block &block, ArrayRef<RuntimeValue> args,
                                               SmallVectorImpl<RuntimeValue> *yielded) {
  for (auto [arg, value] : llvm::zip(block.getArguments(), args))
    bind(arg, value);
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (yielded) {
        yielded->clear();
        for (Value v : op.getOperands())
          yielded->push_back(get(v));
      }
      return success();
    }
    if (failed(runOp(op)))
      return failure();
  }
  return success();
}

LogicalResult BlockInterpreter::runScalarOp(Operation &op) {
  SmallVector<Scalar, 3> operands, results;
  for (Value v : op.getOperands()) {
    const Scalar *s = scalar(&op, v);
    if (!s)
      return failure();
    operands.push_back(*s);
  }
  if (failed(evaluateScalarOp(&op, operands, results, FloatPrecision::Float, error)))
    return failure();
  for (auto [res, value] : llvm::zip(op.getResults(), results))
    scalars[res] = value;
  return success();
}

LogicalResult BlockInterpreter::runParallel(tile::ParallelOp op) {
  ArrayRef<int64_t> shape = op.getShape();
  Block &body = op.getBody().front();
  SmallVector<RuntimeValue, 2> ivs(shape.size());
  int64_t rows = shape[0], cols = shape.size() > 1 ? shape[1] : 1;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      ivs[0].scalar = Scalar::ofInt(i);
      if (shape.size() > 1)
        ivs[1].scalar = Scalar::ofInt(j);
      if (failed(runRegionBlock(body, ivs, nullptr)))
        return failure();
    }
  return success();
}

LogicalResult BlockInterpreter::runPipelined(tile::PipelinedOp op) {
  const Scalar *lo = scalar(op, op.getLower()), *hi = scalar(op, op.getUpper());
  if (!lo || !hi)
    return failure();
  Block &body = op.getBody().front();
  RuntimeValue iv;
  for (int64_t j = lo->i, end = hi->i; j < end; ++j) {
    iv.scalar = Scalar::ofInt(j);
    if (failed(runRegionBlock(body, iv, nullptr)))
      return failure();
  }
  return success();
}

LogicalResult BlockInterpreter::runFor(Operation &op) {
  auto forOp = cast<scf::ForOp>(op);
  const Scalar *lo = scalar(&op, forOp.getLowerBound());
  const Scalar *hi = scalar(&op, forOp.getUpperBound());
  const Scalar *step = scalar(&op, forOp.getStep());
  if (!lo || !hi || !step)
    return failure();
  if (step->i <= 0)
    return fail(&op, "step must be positive, found " + Twine(step->i));
  SmallVector<RuntimeValue> args(1), yielded;
  for (Value init : forOp.getInitArgs())
    args.push_back(get(init));
  Block &body = *forOp.getBody();
  bool isUnsigned = forOp.getUnsignedCmp();
  for (int64_t iv = lo->i, end = hi->i, s = step->i;
       isUnsigned ? static_cast<uint64_t>(iv) < static_cast<uint64_t>(end) : iv < end; iv += s) {
    args[0].scalar = Scalar::ofInt(wrapInt(iv, forOp.getInductionVar().getType()));
    if (failed(runRegionBlock(body, args, &yielded)))
      return failure();
    for (auto [i, value] : llvm::enumerate(yielded))
      args[i + 1] = value;
  }
  for (auto [res, value] : llvm::zip(forOp.getResults(), ArrayRef(args).drop_front()))
    bind(res, value);
  return success();
}

LogicalResult BlockInterpreter::runKeptTiles(tile::KeptTilesOp op) {
  const Scalar *lo = scalar(op, op.getLower()), *hi = scalar(op, op.getUpper());
  if (!lo || !hi)
    return failure();
  if (op.getMarks().size() > 64)
    return fail(op, "more than 64 marks per index");
  // The bounds by value: running the body adds scalars, which may move the map's entries.
  int64_t begin = lo->i, end = hi->i;
  auto kept = std::make_shared<KeptList>();
  SmallVector<RuntimeValue> index(1), yielded;
  for (int64_t j = begin; j < end; ++j) {
    index[0].scalar = Scalar::ofInt(j);
    if (failed(runRegionBlock(op.getBody().front(), index, &yielded)))
      return failure();
    if (!yielded.front().scalar.i)
      continue;
    uint64_t marks = 0;
    for (auto [k, mark] : llvm::enumerate(ArrayRef(yielded).drop_front()))
      marks |= uint64_t(mark.scalar.i != 0) << k;
    kept->indices.push_back(j);
    kept->marks.push_back(marks);
  }
  scalars[op.getCount()] = Scalar::ofInt(static_cast<int64_t>(kept->indices.size()));
  // Ranks past the last kept index read the range's end (a guard read one tile ahead), with
  // no mark set.
  kept->indices.push_back(end);
  kept->marks.push_back(0);
  lists[op.getList()] = std::move(kept);
  return success();
}

LogicalResult BlockInterpreter::runTileAt(tile::TileAtOp op) {
  auto it = lists.find(op.getList());
  const Scalar *rank = scalar(op, op.getRank());
  if (it == lists.end())
    return fail(op, "operand is not a tile.kept_tiles list the executor knows");
  if (!rank)
    return failure();
  const KeptList &kept = *it->second;
  if (rank->i < 0)
    return fail(op, "rank " + Twine(rank->i) + " is negative");
  size_t at = static_cast<size_t>(
      std::min<int64_t>(rank->i, static_cast<int64_t>(kept.indices.size()) - 1));
  scalars[op.getResult()] = Scalar::ofInt(kept.indices[at]);
  for (auto [k, mark] : llvm::enumerate(op.getMarks()))
    scalars[mark] = Scalar::ofInt(static_cast<int64_t>((kept.marks[at] >> k) & 1));
  return success();
}

LogicalResult BlockInterpreter::runIf(Operation &op) {
  auto ifOp = cast<scf::IfOp>(op);
  const Scalar *cond = scalar(&op, ifOp.getCondition());
  if (!cond)
    return failure();
  Region &region = cond->i ? ifOp.getThenRegion() : ifOp.getElseRegion();
  if (region.empty())
    return success();
  SmallVector<RuntimeValue> yielded;
  if (failed(runRegionBlock(region.front(), {}, &yielded)))
    return failure();
  for (auto [res, value] : llvm::zip(ifOp.getResults(), yielded))
    bind(res, value);
  return success();
}

/// Describes an index tuple and a shape for out-of-bounds messages.
static std::string describeAccess(ArrayRef<int64_t> idx, ArrayRef<int64_t> shape) {
  std::string text = "index [";
  for (size_t i = 0; i < idx.size(); ++i)
    text += (i ? ", " : "") + std::to_string(idx[i]);
  text += "] is out of bounds for a buffer of shape [";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

LogicalResult BlockInterpreter::runLoadStore(Operation &op) {
  bool isLoad = isa<memref::LoadOp>(op);
  Value memref =
      isLoad ? cast<memref::LoadOp>(op).getMemRef() : cast<memref::StoreOp>(op).getMemRef();
  ValueRange idxValues =
      isLoad ? cast<memref::LoadOp>(op).getIndices() : cast<memref::StoreOp>(op).getIndices();
  const BufferView *view = buffer(&op, memref);
  SmallVector<int64_t, 3> idx;
  if (!view || failed(indices(&op, idxValues, idx)))
    return failure();
  if (!view->inBounds(idx))
    return fail(&op, describeAccess(idx, view->shape));
  int64_t off = view->offsetOf(idx);
  if (isLoad) {
    scalars[op.getResult(0)] = view->load(off);
    return success();
  }
  const Scalar *value = scalar(&op, cast<memref::StoreOp>(op).getValue());
  if (!value)
    return failure();
  view->store(off, *value);
  return success();
}

LogicalResult BlockInterpreter::runOp(Operation &op) {
  if (isSupportedScalarOp(&op))
    return runScalarOp(op);
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<tile::BlockIdOp>([&](auto o) {
        scalars[o.getResult()] = Scalar::ofInt(blockId[o.getDim()]);
        return success();
      })
      .Case<tile::IndexPartsOp>([&](auto o) -> LogicalResult {
        // One thread runs every element here: its part is 0.
        const Scalar *index = scalar(&op, o.getIndex());
        if (!index)
          return failure();
        scalars[o.getThread()] = Scalar::ofInt(0);
        scalars[o.getElement()] = *index;
        return success();
      })
      .Case<tile::NumBlocksOp>([&](auto o) {
        scalars[o.getResult()] = Scalar::ofInt(grid[o.getDim()]);
        return success();
      })
      .Case<tile::RowRangeOp>([&](auto o) -> LogicalResult {
        // The whole block runs at once here: the union of the warpgroups' rows.
        const Scalar *first = scalar(&op, o.getFirst()), *last = scalar(&op, o.getLast());
        if (!first || !last)
          return failure();
        Scalar lo = *first, hi = *last;
        scalars[o.getLo()] = lo;
        scalars[o.getHi()] = hi;
        return success();
      })
      .Case<tile::DimOp>([&](auto o) -> LogicalResult {
        HostTensor *t = global(&op, o.getTensor());
        if (!t)
          return failure();
        scalars[o.getResult()] = Scalar::ofInt(t->sizes[o.getDim()]);
        return success();
      })
      .Case<tile::AllocOp>([&](auto o) { return runAlloc(o); })
      .Case<tile::StageOp>([&](auto o) { return runStage(o); })
      .Case<tile::CopyOp>([&](auto o) { return runCopy(o); })
      .Case<tile::ReadOp>([&](auto o) { return runRead(o); })
      .Case<tile::PrefetchOp>([&](auto) { return success(); }) // a cache hint
      .Case<tile::ReadBoundsOp>([&](auto o) { return runReadBounds(o); })
      .Case<tile::WriteOp>([&](auto o) { return runWrite(o); })
      .Case<tile::FillOp>([&](auto o) { return runFill(o); })
      .Case<tile::GemmOp>([&](auto o) { return runGemm(o); })
      .Case<tile::GemmWaitOp>([&](auto o) { return runGemmWait(o); })
      .Case<tile::ReduceOp>([&](auto o) { return runReduce(o); })
      .Case<tile::ScanOp>([&](auto o) { return runScan(o); })
      .Case<tile::ParallelOp>([&](auto o) { return runParallel(o); })
      .Case<tile::PipelinedOp>([&](auto o) { return runPipelined(o); })
      .Case<scf::ForOp>([&](auto) { return runFor(op); })
      .Case<scf::IfOp>([&](auto) { return runIf(op); })
      .Case<tile::KeptTilesOp>([&](auto o) { return runKeptTiles(o); })
      .Case<tile::TileAtOp>([&](auto o) { return runTileAt(o); })
      .Case<memref::LoadOp, memref::StoreOp>([&](auto) { return runLoadStore(op); })
      .Case<tile::WarpSpecializeOp>([&](auto o) { return runWarpSpecialize(o); })
      .Case<tile::MbarrierInitOp, tile::MbarrierArriveOp, tile::MbarrierExpectTxOp,
            tile::MbarrierWaitOp, tile::TmaCopyOp>([&](auto) { return runAsyncOp(op); })
      .Case<tile::BarrierOp, tile::AsyncCommitOp, tile::AsyncWaitOp, tile::WarpgroupTurnOp>(
          [&](auto) { return success(); })
      .Default([&](Operation *) { return fail(&op, "unsupported op in the tile executor"); });
}
