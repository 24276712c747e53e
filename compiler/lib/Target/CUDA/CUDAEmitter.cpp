//===- CUDAEmitter.cpp - tile.kernel as CUDA C++ -----------------------------===//
//
// A thin printer: every tile op becomes one call into the device library
// (runtime/device/metaattn), preceded by a comment naming the op; scalar code is printed by
// CUDAScalarEmitter.cpp.
//
//===----------------------------------------------------------------------===//

#include "CUDAEmitterImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <utility>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::cuda;
using namespace metaattn::tile;

//===----------------------------------------------------------------------===//
// Printer basics
//===----------------------------------------------------------------------===//

raw_ostream &Printer::line() {
  for (int i = 0; i < indent; ++i)
    os << "  ";
  return os;
}

std::string Printer::fresh(Value value) {
  std::string n = "v" + std::to_string(counter++);
  names[value] = n;
  return n;
}

std::string Printer::name(Value value) {
  auto it = names.find(value);
  if (it != names.end())
    return it->second;
  return "<unnamed>";
}

FailureOr<std::string> Printer::bufferType(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  FailureOr<std::string> elt = scalarType(type.getElementType());
  if (failed(elt))
    return failure();
  std::string ns = "metaattn::dev::";
  if (isShared(type)) {
    ArrayRef<int64_t> shape = type.getShape();
    // A vector multi-buffered by tile-pipeline-expand: [stages, N], viewed a stage at a time.
    bool stagedVector = shape.size() == 2 && llvm::any_of(buffer.getUsers(), [](Operation *user) {
                          auto stage = dyn_cast<StageOp>(user);
                          return stage && stage.getResult().getType().getRank() == 1;
                        });
    if (stagedVector)
      return ns + "SmemVec<" + *elt + ", " + std::to_string(shape[1]) + ", " +
             std::to_string(shape[0]) + ">";
    if (shape.size() == 2)
      return ns + "SmemTile<" + *elt + ", " + std::to_string(shape[0]) + ", " +
             std::to_string(shape[1]) + ">";
    if (shape.size() == 3)
      return ns + "SmemTile<" + *elt + ", " + std::to_string(shape[1]) + ", " +
             std::to_string(shape[2]) + ", " + std::to_string(shape[0]) + ">";
    if (shape.size() == 1)
      return ns + "SmemVec<" + *elt + ", " + std::to_string(shape[0]) + ">";
    return failure();
  }
  Value root = buffer;
  FragmentLayoutAttr layout = getFragmentLayout(root);
  if (!layout)
    return failure();
  std::string warps = std::to_string(layout.getWarps());
  // 16-bit fragments are held two elements per register (frag.cuh) in wgmma kernels, where
  // the probabilities stay live across the overlapped loop's back edge; mma.sync kernels
  // keep one per register (packed, ptxas needs more registers there: D64 134 against 128).
  bool unpacked = !wgmma && (type.getElementType().isBF16() || type.getElementType().isF16());
  if (type.getRank() == 2)
    return ns + "Frag<" + *elt + ", " + std::to_string(type.getDimSize(0)) + ", " +
           std::to_string(type.getDimSize(1)) + ", " + warps + (unpacked ? ", false>" : ">");
  std::string typeArg = type.getElementType().isF32() ? "" : ", " + *elt;
  if (layout.getKind() == "col")
    return ns + "ColVec<" + std::to_string(type.getDimSize(0)) + typeArg + ">";
  return ns + "RowVec<" + std::to_string(type.getDimSize(0)) + ", " + warps + typeArg + ">";
}

/// The reduction of a float fragment that only tile.reduce ops of one kind read and that
/// only whole-fragment element loops write: every write is the one store of a tile.parallel
/// over the fragment's shape, at the loop's indices, in the loop's body itself (so each loop
/// writes every element exactly once). The fragment then always holds the last such loop's
/// values, and a thread can keep, instead of its elements, their partial row reductions,
/// restarted at every such loop (softpick's |sum| of its unclamped weights, a RetNet row
/// statistic: one register per row slot instead of one per element).
static std::optional<ReduceKind> rowReducedOnly(AllocOp alloc) {
  Value buffer = alloc.getBuffer();
  auto type = cast<MemRefType>(buffer.getType());
  if (isShared(type) || type.getRank() != 2 || !type.getElementType().isF32())
    return std::nullopt;
  FragmentLayoutAttr layout = getFragmentLayout(buffer);
  if (!layout || layout.getKind() == "col")
    return std::nullopt;
  std::optional<ReduceKind> kind;
  bool written = false;
  llvm::DenseSet<Operation *> loops;
  for (Operation *user : buffer.getUsers()) {
    if (auto reduce = dyn_cast<ReduceOp>(user)) {
      if (reduce.getSource() != buffer || (kind && *kind != reduce.getKind()))
        return std::nullopt;
      kind = reduce.getKind();
      continue;
    }
    auto store = dyn_cast<memref::StoreOp>(user);
    if (!store || store.getMemRef() != buffer || store.getValue() == buffer)
      return std::nullopt;
    auto loop = dyn_cast<ParallelOp>(store->getParentOp());
    if (!loop || loop.getShape() != type.getShape() || !loops.insert(loop).second)
      return std::nullopt;
    Block &body = loop.getBody().front();
    if (store.getIndices().size() != 2 || store.getIndices()[0] != body.getArgument(0) ||
        store.getIndices()[1] != body.getArgument(1))
      return std::nullopt;
    Value anchor = getParallelAnchor(loop);
    if (!anchor || cast<MemRefType>(anchor.getType()).getShape() != type.getShape() ||
        getFragmentLayout(anchor) != layout)
      return std::nullopt;
    written = true;
  }
  if (!written)
    return std::nullopt;
  return kind;
}

LogicalResult Printer::printBlock(Block &block) {
  for (Operation &op : block)
    if (failed(printOp(&op)))
      return failure();
  return success();
}

LogicalResult Printer::printOp(Operation *op) {
  if (isa<scf::YieldOp, tile::YieldOp, tile::ReturnOp>(op))
    return success();
  if (isa<scf::ForOp, scf::IfOp>(op))
    return printScf(op);
  if (op->getDialect() && op->getDialect()->getNamespace() == "tile")
    return printTileOp(op);
  if (isa<memref::LoadOp, memref::StoreOp>(op))
    return printLoadStore(op);
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return printScalar(op);
  return op->emitOpError() << "cannot be printed as CUDA";
}

/// Whether `load` reads a shared tile of its tile.parallel's shape at the loop's own indices,
/// in a loop anchored on an `mma` fragment: element e of the loop reads the tile element of
/// the fragment's element e.
static bool fragmentElementLoad(memref::LoadOp load) {
  auto par = dyn_cast<ParallelOp>(load->getParentOp());
  if (!par || par.getShape().size() != 2 ||
      cast<MemRefType>(load.getMemRef().getType()).getShape() != par.getShape())
    return false;
  Block &body = par.getBody().front();
  if (load.getIndices()[0] != body.getArgument(0) || load.getIndices()[1] != body.getArgument(1))
    return false;
  Value anchor = getParallelAnchor(par);
  FragmentLayoutAttr layout = anchor ? getFragmentLayout(anchor) : FragmentLayoutAttr();
  return layout && layout.getKind() == "mma" &&
         cast<MemRefType>(anchor.getType()).getShape() == par.getShape();
}

LogicalResult Printer::printLoadStore(Operation *op) {
  auto load = dyn_cast<memref::LoadOp>(op);
  auto store = dyn_cast<memref::StoreOp>(op);
  Value memref = load ? load.getMemRef() : store.getMemRef();
  ValueRange indices = load ? load.getIndices() : store.getIndices();
  auto type = cast<MemRefType>(memref.getType());
  if (!parallel)
    return op->emitOpError() << "buffer loads and stores are printed only inside tile.parallel";
  std::string ref;
  auto chunked = chunkedAccesses.find(op);
  if (chunked != chunkedAccesses.end()) {
    ref = chunked->second;
  } else if (load && isShared(type) && type.getRank() == 2 && parallel->anchored &&
             parallel->rank == 2 && fragmentElementLoad(load)) {
    // The tile element this thread's fragment element e stands for: a per-thread address
    // plus a compile-time offset.
    ref = name(memref) + ".template fragAt<" + parallel->alias + ">(" + parallel->elem2d + ")";
  } else if (isShared(type)) {
    // Shared buffers are addressed by value: any index computed in the body.
    std::string args;
    llvm::raw_string_ostream a(args);
    llvm::interleaveComma(indices, a, [&](Value v) { a << name(v); });
    ref = name(memref) + (type.getRank() == 1 ? "[" + args + "]" : ".at(" + args + ")");
  } else {
    // Fragments are addressed by the element this thread owns: the indices are the loop's.
    if (!parallel->anchored)
      return op->emitOpError() << "a tile.parallel that touches a fragment must take its "
                                  "thread mapping from a fragment of its rank";
    FragmentLayoutAttr layout = getFragmentLayout(memref);
    bool column = layout && layout.getKind() == "col";
    ref = name(memref) + "[" +
          (type.getRank() == 2 ? parallel->elem2d
           : column            ? parallel->colSlot1d
                               : parallel->slot1d) +
          "]";
  }
  if (load) {
    FailureOr<std::string> scalar = scalarType(load.getType());
    if (failed(scalar))
      return op->emitOpError() << "unsupported element type";
    line() << "const " << *scalar << " " << fresh(load.getResult()) << " = " << ref << ";\n";
    return success();
  }
  auto partial = rowPartials.find(memref);
  if (partial == rowPartials.end()) {
    line() << ref << " = " << name(store.getValue()) << ";\n";
    return success();
  }
  // A fragment that only a row reduction reads: this thread's partial for the element's row.
  std::string slot = name(memref) + "[" + parallel->slot1d + "]", x = name(store.getValue());
  switch (partial->second) {
  case ReduceKind::max:
    line() << slot << " = fmaxf(" << slot << ", " << x << ");\n";
    break;
  case ReduceKind::sum:
    line() << slot << " += " << x << ";\n";
    break;
  case ReduceKind::abs_sum:
    line() << slot << " += fabsf(" << x << ");\n";
    break;
  }
  return success();
}

std::string Printer::origin(ValueRange indices, StringRef tag) {
  std::string var = tag.str() + std::to_string(counter++);
  line() << "const long long " << var << "[" << indices.size() << "] = {";
  llvm::interleaveComma(indices, os, [&](Value v) { os << name(v); });
  os << "};\n";
  return var;
}

//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

LogicalResult Printer::printCopy(CopyOp op) {
  std::string ns = "metaattn::dev::";
  std::string nt = std::to_string(threads);
  auto srcGlobal = dyn_cast<GlobalTensorType>(op.getSource().getType());
  auto dstGlobal = dyn_cast<GlobalTensorType>(op.getDest().getType());
  ArrayRef<int64_t> dims = op.getDims() ? *op.getDims() : ArrayRef<int64_t>();
  if (srcGlobal && isShared(op.getDest().getType())) {
    std::string o = origin(op.getSourceIndices(), "origin");
    if (cast<MemRefType>(op.getDest().getType()).getRank() == 1) {
      line() << ns << "block::" << (op.getAsync() ? "loadVecAsync<" : "loadVec<") << nt << ">("
             << name(op.getDest()) << ", " << name(op.getSource()) << ", " << o << ", " << dims[0]
             << ");\n";
      return success();
    }
    if (std::optional<uint64_t> group = op.getGroupRows()) {
      // Each consumer warpgroup copies its own rows with its own threads.
      if (!consumerThreads)
        return op.emitOpError() << "group_rows needs a warp-specialised consumer region";
      line() << ns << "block::loadTileRowsAsync<128, " << *group << ">(" << name(op.getDest())
             << ", " << name(op.getSource()) << ", " << o << ", " << dims[0] << ", " << dims[1]
             << ", " << ns << "wg::index() * " << *group << ", (int)threadIdx.x % 128);\n";
      return success();
    }
    line() << ns << "block::" << (op.getAsync() ? "loadTileAsync<" : "loadTile<") << nt << ">("
           << name(op.getDest()) << ", " << name(op.getSource()) << ", " << o << ", " << dims[0]
           << ", " << dims[1] << ");\n";
    return success();
  }
  if (dstGlobal && isShared(op.getSource().getType()) &&
      cast<MemRefType>(op.getSource().getType()).getRank() == 2) {
    FailureOr<std::string> elt = scalarType(dstGlobal.getElementType());
    if (failed(elt))
      return op.emitOpError() << "unsupported element type";
    std::string o = origin(op.getDestIndices(), "origin");
    line() << ns << "block::storeTile<" << nt << ", " << *elt << ">(" << name(op.getDest()) << ", "
           << o << ", " << dims[0] << ", " << dims[1] << ", " << name(op.getSource()) << ");\n";
    return success();
  }
  if (dstGlobal && isFragment(op.getSource().getType())) {
    FailureOr<std::string> elt = scalarType(dstGlobal.getElementType());
    if (failed(elt))
      return op.emitOpError() << "unsupported element type";
    std::string o = origin(op.getDestIndices(), "origin");
    if (op.getStaging())
      line() << ns << "block::storeFragStaged<" << nt << ">(" << name(op.getDest()) << ", " << o
             << ", " << dims[0] << ", " << dims[1] << ", " << name(op.getSource()) << ", "
             << name(op.getStaging()) << ");\n";
    else if (cast<MemRefType>(op.getSource().getType()).getRank() == 2)
      line() << ns << "block::storeFrag<" << nt << ", " << *elt << ">(" << name(op.getDest())
             << ", " << o << ", " << dims[0] << ", " << dims[1] << ", " << name(op.getSource())
             << ");\n";
    else
      line() << ns << "block::storeRowVec<" << *elt << ">(" << name(op.getDest()) << ", " << o
             << ", " << dims[0] << ", " << name(op.getSource()) << ");\n";
    return success();
  }
  if (isFragment(op.getSource().getType()) && isFragment(op.getDest().getType())) {
    auto src = cast<MemRefType>(op.getSource().getType());
    auto dst = cast<MemRefType>(op.getDest().getType());
    if (src.getElementType() == dst.getElementType())
      line() << name(op.getDest()) << " = " << name(op.getSource()) << ";\n";
    else
      line() << ns << "warp::convert(" << name(op.getDest()) << ", " << name(op.getSource())
             << ");\n";
    return success();
  }
  if (isFragment(op.getSource().getType()) && isShared(op.getDest().getType()) &&
      cast<MemRefType>(op.getSource().getType()).getRank() == 2) {
    line() << ns << "warp::storeFrag(" << name(op.getDest()) << ", " << name(op.getSource())
           << ");\n";
    return success();
  }
  if (isShared(op.getSource().getType()) && isFragment(op.getDest().getType())) {
    line() << ns << "warp::loadFrag(" << name(op.getDest()) << ", " << name(op.getSource())
           << ");\n";
    return success();
  }
  return op.emitOpError() << "this copy direction has no CUDA lowering yet";
}

/// The row vector a of a 2-D tile.parallel whose body is exactly `x[i, j] = x[i, j] * a[i]`
/// (two loads, the product in either order, the store; x a fragment, a a rank-1 fragment),
/// or null.
static Value unitScaleFactors(ParallelOp op) {
  Block &body = op.getBody().front();
  if (op.getShape().size() != 2 || body.getOperations().size() != 5)
    return Value();
  Value i = body.getArgument(0), j = body.getArgument(1);
  auto store = dyn_cast<memref::StoreOp>(body.getTerminator()->getPrevNode());
  auto mul = store ? store.getValue().getDefiningOp<arith::MulFOp>() : arith::MulFOp();
  if (!mul || store.getIndices().size() != 2 || store.getIndices()[0] != i ||
      store.getIndices()[1] != j)
    return Value();
  for (unsigned k = 0; k < 2; ++k) {
    auto loadX = mul->getOperand(k).getDefiningOp<memref::LoadOp>();
    auto loadA = mul->getOperand(1 - k).getDefiningOp<memref::LoadOp>();
    if (loadX && loadA && loadX.getMemRef() == store.getMemRef() &&
        loadX.getIndices() == store.getIndices() && loadA.getIndices().size() == 1 &&
        loadA.getIndices()[0] == i && isFragment(loadA.getMemRef().getType()))
      return loadA.getMemRef();
  }
  return Value();
}

LogicalResult Printer::printParallel(ParallelOp op) {
  if (parallel)
    return op.emitOpError() << "nested tile.parallel cannot be printed";
  // A rescale by factors that are all exactly 1 in this thread changes nothing: skipped.
  if (op->hasAttr(kSkipUnitScaleAttr))
    if (Value factors = unitScaleFactors(op)) {
      line() << "if (!" << name(factors) << ".allEqual(1.0f)) {  // tile.skip_unit_scale\n";
      LogicalResult printed = success();
      {
        IndentScope scope(*this);
        printed = printParallelLoop(op);
      }
      line() << "}\n";
      return printed;
    }
  return printParallelLoop(op);
}

LogicalResult Printer::printParallelLoop(ParallelOp op) {
  unsigned rank = op.getShape().size();
  // The anchor: a fragment of the iteration space's rank accessed in the body.
  Value anchor = getParallelAnchor(op);
  if (!anchor)
    return printStridedParallel(op);
  FailureOr<std::string> type = bufferType(anchor);
  if (failed(type))
    return op.emitOpError() << "anchor fragment has no layout: run tile-infer-layout first";
  // The loop runs over the anchor's elements: fragments of its rank must span its shape.
  WalkResult spans = op.getBody().walk([&](Operation *inner) {
    Value memref = isa<memref::LoadOp>(inner)    ? cast<memref::LoadOp>(inner).getMemRef()
                   : isa<memref::StoreOp>(inner) ? cast<memref::StoreOp>(inner).getMemRef()
                                                 : Value();
    if (!memref || !isFragment(memref.getType()))
      return WalkResult::advance();
    auto memrefType = cast<MemRefType>(memref.getType());
    if (memrefType.getRank() == int64_t(rank) && memrefType.getShape() != op.getShape()) {
      inner->emitOpError() << "accesses a fragment of shape [" << memrefType.getShape()
                           << "] in a tile.parallel over [" << op.getShape()
                           << "]: an element loop over fragments must span their shape";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (spans.wasInterrupted())
    return failure();
  std::string e = "e" + std::to_string(counter++);
  std::string alias = "P" + std::to_string(counter++);
  line() << "{ // tile.parallel ["
         << llvm::join(llvm::map_range(op.getShape(), [](int64_t x) { return std::to_string(x); }),
                       ", ")
         << "]\n";
  {
    IndentScope scope(*this);
    line() << "using " << alias << " = " << *type << ";\n";
    // The loop rewrites every element of the fragments only row reductions read: their
    // partials restart.
    for (Operation &inner : op.getBody().front()) {
      auto store = dyn_cast<memref::StoreOp>(inner);
      auto partial = store ? rowPartials.find(store.getMemRef()) : rowPartials.end();
      if (partial != rowPartials.end())
        line() << name(store.getMemRef()) << ".fill("
               << (partial->second == ReduceKind::max ? "metaattn::dev::negInf()" : "0.0f")
               << ");\n";
    }
    line() << "#pragma unroll\n";
    line() << "for (int " << e << " = 0; " << e << " < " << alias
           << (rank == 2 ? "::kElems" : "::kSlots") << "; ++" << e << ") {\n";
    IndentScope inner(*this);
    Block &body = op.getBody().front();
    // A 1-D loop anchored on a column vector runs over the columns this thread holds.
    FragmentLayoutAttr anchorLayout = getFragmentLayout(anchor);
    bool columns = rank == 1 && anchorLayout && anchorLayout.getKind() == "col";
    line() << "const int " << fresh(body.getArgument(0)) << " = " << alias
           << (columns ? "::col(" : "::row(") << e << ");\n";
    if (rank == 2)
      line() << "const int " << fresh(body.getArgument(1)) << " = " << alias << "::col(" << e
             << ");\n";
    parallel = ParallelContext{e,
                               rank == 2 ? alias + "::rowSlot(" + e + ")" : e,
                               rank == 2 ? alias + "::colSlot(" + e + ")" : e,
                               true,
                               alias,
                               rank,
                               columns};
    LogicalResult result = printBlock(body);
    parallel.reset();
    if (failed(result))
      return failure();
  }
  line() << "  }\n";
  line() << "}\n";
  return success();
}

Printer::StridedLoop Printer::openStridedLoop(int64_t total, int unroll) {
  // A counted loop (partly unrolled) so that independent iterations overlap their loads.
  StridedLoop loop;
  std::string it = "it" + std::to_string(counter++);
  loop.index = "l" + std::to_string(counter++);
  int64_t trips = (total + threads - 1) / threads;
  line() << "#pragma unroll " << unroll << "\n";
  line() << "for (int " << it << " = 0; " << it << " < " << trips << "; ++" << it << ") {\n";
  ++indent;
  line() << "const int " << loop.index << " = " << it << " * " << threads
         << " + (int)threadIdx.x;\n";
  loop.guarded = total % threads != 0;
  if (loop.guarded) {
    line() << "if (" << loop.index << " < " << total << ") {\n";
    ++indent;
  }
  return loop;
}

void Printer::closeStridedLoop(const StridedLoop &loop) {
  if (loop.guarded) {
    --indent;
    line() << "}\n";
  }
  --indent;
  line() << "}\n";
}

LogicalResult Printer::printStridedParallel(ParallelOp op) {
  if (std::optional<LogicalResult> chunked = printChunkedParallel(op))
    return *chunked;
  ArrayRef<int64_t> shape = op.getShape();
  int64_t cols = shape.size() == 2 ? shape[1] : 1;
  int64_t total = shape[0] * cols;
  line() << "// tile.parallel ["
         << llvm::join(llvm::map_range(shape, [](int64_t x) { return std::to_string(x); }), ", ")
         << "] over shared buffers: indices spread over the threads\n";
  StridedLoop loop = openStridedLoop(total, /*unroll=*/8);
  const std::string &lin = loop.index;
  Block &body = op.getBody().front();
  line() << "const int " << fresh(body.getArgument(0)) << " = " << lin << " / " << cols << ";\n";
  if (shape.size() == 2)
    line() << "const int " << fresh(body.getArgument(1)) << " = " << lin << " % " << cols << ";\n";
  parallel = ParallelContext{"", "", "", false};
  LogicalResult result = printBlock(body);
  parallel.reset();
  if (failed(result))
    return failure();
  closeStridedLoop(loop);
  return success();
}

/// The body of the device helpers that access one element of a TensorRef `t` at indices `i`:
/// `offset` is the element's offset, and an index outside the tensor's sizes runs `exit`.
static std::string elementOffset(llvm::StringRef exit) {
  return "  long long offset = 0;\n"
         "#pragma unroll\n"
         "  for (int d = 0; d < R; ++d) {\n"
         "    if ((unsigned long long)i[d] >= (unsigned long long)t.sizes[d]) " +
         exit.str() +
         "\n"
         "    offset += d == R - 1 ? i[d] : i[d] * t.strides[d];\n"
         "  }\n";
}

/// Whether `read` runs once per block tile rather than in a loop over kv tiles: outside every
/// loop of its kernel (a combine kernel, an attention's epilogue), or in a persistent kernel
/// inside only its walk over tiles.
static bool readOncePerTile(ReadOp read) {
  int loops = 0;
  Operation *p = read->getParentOp();
  for (; p && !isa<KernelOp>(p); p = p->getParentOp())
    loops += isa<scf::ForOp, scf::WhileOp>(p);
  return p && loops == (p->hasAttr(kPersistentAttr) ? 1 : 0);
}

/// The wgmma gemm right after `fill` when `fill` zeroes that gemm's accumulator: the gemm then
/// overwrites it (its first wgmma ignores C) and the fill is not printed. Left to ptxas, the
/// fill sometimes stays as a register move per accumulator element in every kv tile (the
/// persistent softmax kernel's score gemm: 64 moves per thread and tile at D128).
/// Between the two only mbarrier waits, stage views, warpgroup turns (a ping-pong turn's wait)
/// and pure ops may come (none of them touches the accumulator).
static GemmOp overwritingGemm(FillOp fill) {
  if (!matchPattern(fill.getValue(), m_AnyZeroFloat()))
    return {};
  Operation *op = fill->getNextNode();
  while (op && (isa<MbarrierWaitOp, StageOp, WarpgroupTurnOp>(op) ||
                (isPure(op) && op->getNumRegions() == 0)))
    op = op->getNextNode();
  auto gemm = dyn_cast_or_null<GemmOp>(op);
  if (!gemm || !gemm->hasAttr(kWgmmaAttr) || gemm.getC() != fill.getBuffer() ||
      gemm.getA() == fill.getBuffer())
    return {};
  return gemm;
}

/// The fill `overwritingGemm` pairs with `gemm`, if any.
static FillOp overwrittenFill(GemmOp gemm) {
  Operation *op = gemm->getPrevNode();
  while (op && (isa<MbarrierWaitOp, StageOp, WarpgroupTurnOp>(op) ||
                (isPure(op) && op->getNumRegions() == 0)))
    op = op->getPrevNode();
  auto fill = dyn_cast_or_null<FillOp>(op);
  return fill && overwritingGemm(fill) == gemm ? fill : FillOp();
}

bool metaattn::cuda::boundsNarrowIdsPerLane(KeptTilesOp kept) {
  bool any = false, wide = false;
  kept.walk([&](ReadBoundsOp bounds) {
    any = true;
    wide |= bounds.getMin().getType().getIntOrFloatBitWidth() > 32;
  });
  return any && !wide;
}

LogicalResult Printer::printKeptTiles(KeptTilesOp op) {
  // The body becomes a lambda that tests one index (with marks: bit 0 whether it is kept,
  // bit k + 1 its mark k); the count and each tile.tile_at's cursor walk the range 32 indices
  // at a time (kept.cuh), on whole warps, the cursors from the window the count tested first.
  std::string test = fresh(op.getList());
  keptTests[op.getList()] = test;
  std::string j = fresh(op.getIndex());
  size_t marks = op.getMarks().size();
  if (marks > 31)
    return op->emitOpError() << "carries " << marks << " marks per index; at most 31 print";
  // The test's second parameter is a metaattn::dev::Loads<U>: how many loads in flight per
  // lane a bounds read in it may keep (more for the count before the loop than for the cursor
  // inside it, where the accumulators hold the registers).
  std::string loads = test + "_loads";
  line() << "const auto " << test << " = [&](const int " << j << ", auto " << loads << ") -> "
         << (marks ? "unsigned" : "bool") << " {  // tile.kept_tiles: whether tile " << j
         << " is kept\n";
  {
    IndentScope scope(*this);
    Block &body = op.getBody().front();
    std::string saved = std::exchange(keptLoads, loads);
    LogicalResult printed = printBlock(body);
    keptLoads = saved;
    if (failed(printed))
      return failure();
    line() << "return ";
    if (!marks)
      os << name(op.getKept());
    else
      os << "(unsigned)" << name(op.getKept());
    for (auto [k, mark] : llvm::enumerate(op.getMarks()))
      os << " | ((unsigned)" << name(mark) << " << " << k + 1 << ")";
    os << ";\n";
  }
  line() << "};\n";
  std::string lo = name(op.getLower()), hi = name(op.getUpper());
  std::string window = "window" + std::to_string(counter++);
  // The cursors keep the marks' ballots only where a tile.tile_at's marks are used (not in a
  // producer that only copies the kept tiles: with them its 24 registers spilled 12 B).
  bool marksUsed = llvm::any_of(op.getList().getUsers(), [](Operation *user) {
    auto at = dyn_cast<TileAtOp>(user);
    return at && llvm::any_of(at.getMarks(), [](Value mark) { return !mark.use_empty(); });
  });
  std::string m = std::to_string(marksUsed ? marks : 0);
  // Loads in flight per lane for the count (before the kv loop) and for the cursors (inside
  // it, beside the accumulators): 8 and 2, in the producer too, which then keeps 56 registers
  // (CUDAAsyncEmitter.cpp), except with 64-bit ids (one each in 24 registers). On the H100 a
  // producer walking one load at a time in 24 registers held its first copies back: one document at
  // B4 S4k 0.752 ms against 0.717 with 8 and 2 (tests/gpu/kept_loads.sh).
  bool lean = producerWarp && !boundsNarrowIdsPerLane(op);
  std::string countLoads = lean ? "1" : "8", walkLoads = lean ? "1" : "2";
  line() << "metaattn::dev::KeptWindow<" << m << "> " << window << ";\n";
  line() << "const int " << fresh(op.getCount()) << " = metaattn::dev::warp::countKept<" << m
         << ", " << countLoads << ">(" << lo << ", " << hi << ", " << test << ", " << window
         << ");\n";
  for (Operation *user : op.getList().getUsers()) {
    std::string cursor = "kept" + std::to_string(counter++);
    keptCursors[user] = cursor;
    line() << "metaattn::dev::KeptCursor<" << m << ", " << walkLoads << "> " << cursor << "(" << lo
           << ", " << hi << ", " << window << ");\n";
  }
  return success();
}

LogicalResult Printer::printTileOp(Operation *op) {
  std::string ns = "metaattn::dev::";
  if (auto kept = dyn_cast<KeptTilesOp>(op))
    return printKeptTiles(kept);
  if (auto at = dyn_cast<TileAtOp>(op)) {
    auto cursor = keptCursors.find(op);
    if (cursor == keptCursors.end())
      return op->emitOpError() << "reads a list whose tile.kept_tiles was not printed before it";
    line() << "const int " << fresh(at.getResult()) << " = " << cursor->second << ".at("
           << name(at.getRank()) << ", " << keptTests[at.getList()] << ");  // tile.tile_at\n";
    for (auto [k, mark] : llvm::enumerate(at.getMarks()))
      if (!mark.use_empty())
        line() << "const bool " << fresh(mark) << " = " << cursor->second << ".mark(" << k
               << ");\n";
    return success();
  }
  if (isa<KeepOp>(op))
    return success();
  if (auto parts = dyn_cast<IndexPartsOp>(op)) {
    std::string thread = fresh(parts.getThread()), element = fresh(parts.getElement());
    if (!parallel || !parallel->anchored) {
      line() << "const int " << thread << " = " << name(parts.getIndex()) << ";\n";
      line() << "const int " << element << " = 0;  // tile.index_parts\n";
      return success();
    }
    bool column = parallel->rank == 2 ? cast<BlockArgument>(parts.getIndex()).getArgNumber() == 1
                                      : parallel->columns;
    const char *axis = column ? "col" : "row";
    line() << "const int " << thread << " = " << parallel->alias << "::" << axis
           << "Thread();  // tile.index_parts\n";
    line() << "const int " << element << " = " << parallel->alias << "::" << axis << "Const("
           << parallel->elem2d << ");\n";
    return success();
  }
  if (auto id = dyn_cast<BlockIdOp>(op)) {
    static const char *axes[] = {"x", "y", "z"};
    line() << "const int " << fresh(id.getResult()) << " = blockIdx." << axes[id.getDim()] << ";\n";
    return success();
  }
  if (auto n = dyn_cast<NumBlocksOp>(op)) {
    static const char *axes[] = {"x", "y", "z"};
    line() << "const int " << fresh(n.getResult()) << " = gridDim." << axes[n.getDim()] << ";\n";
    return success();
  }
  if (auto range = dyn_cast<RowRangeOp>(op)) {
    std::string first = name(range.getFirst()), last = name(range.getLast());
    std::string lo = fresh(range.getLo()), hi = fresh(range.getHi());
    if (std::optional<int64_t> group = range.getGroupRows()) {
      // Consumer threads come first in the block: warpgroup g is threads [128 g, 128 g + 128).
      line() << "const int " << lo << " = " << first << " + metaattn::dev::wg::index() * " << *group
             << ";  // tile.row_range: this warpgroup's rows\n";
      line() << "const int " << hi << " = ::min(" << last << ", " << lo << " + " << *group - 1
             << ");\n";
    } else {
      line() << "const int " << lo << " = " << first << ";  // tile.row_range: the block's rows\n";
      line() << "const int " << hi << " = " << last << ";\n";
    }
    return success();
  }
  if (auto dim = dyn_cast<DimOp>(op)) {
    line() << "const int " << fresh(dim.getResult()) << " = (int)" << name(dim.getTensor())
           << ".sizes[" << dim.getDim() << "];\n";
    return success();
  }
  if (auto alloc = dyn_cast<AllocOp>(op)) {
    FailureOr<std::string> type = bufferType(alloc.getBuffer());
    if (failed(type))
      return op->emitOpError() << "buffer has no CUDA type (fragments need a layout from "
                                  "tile-infer-layout)";
    std::string var = fresh(alloc.getBuffer());
    if (isShared(alloc.getBuffer().getType())) {
      MemRefType memref = alloc.getBuffer().getType();
      int64_t bytes = memref.getNumElements() * memref.getElementTypeBitWidth() / 8;
      line() << *type << " " << var << "(smem + " << shared.place(memref)
             << ");  // tile.alloc shared, " << bytes << " bytes\n";
    } else if (std::optional<ReduceKind> kind = rowReducedOnly(alloc)) {
      rowPartials[alloc.getBuffer()] = *kind;
      auto memref = cast<MemRefType>(alloc.getBuffer().getType());
      line() << "metaattn::dev::RowVec<" << memref.getDimSize(0) << ", "
             << getFragmentLayout(alloc.getBuffer()).getWarps() << "> " << var
             << ";  // tile.alloc fragment, read by row reductions only: per-thread partials\n";
    } else {
      line() << *type << " " << var << ";  // tile.alloc fragment\n";
    }
    return success();
  }
  if (auto stage = dyn_cast<StageOp>(op)) {
    line() << "const auto " << fresh(stage.getResult()) << " = " << name(stage.getBuffer())
           << ".stage(" << name(stage.getStage()) << ");  // tile.stage\n";
    return success();
  }
  if (auto copy = dyn_cast<CopyOp>(op)) {
    line() << "// tile.copy\n";
    return printCopy(copy);
  }
  if (auto read = dyn_cast<ReadOp>(op)) {
    FailureOr<std::string> type = scalarType(read.getType());
    if (failed(type))
      return op->emitOpError() << "unsupported element type";
    line() << "const " << *type << " " << fresh(read.getResult())
           << (readOncePerTile(read) ? " = metaattn_read_pred<" : " = metaattn_read<") << *type
           << ">(" << name(read.getTensor()) << ", {";
    llvm::interleaveComma(read.getIndices(), os, [&](Value v) { os << "(long long)" << name(v); });
    os << "});\n";
    return success();
  }
  if (auto bounds = dyn_cast<ReadBoundsOp>(op)) {
    FailureOr<std::string> type = scalarType(bounds.getMin().getType());
    if (failed(type))
      return op->emitOpError() << "unsupported element type";
    std::string lo = fresh(bounds.getMin()), hi = fresh(bounds.getMax());
    int64_t rank = cast<GlobalTensorType>(bounds.getTensor().getType()).getRank();
    auto printArgs = [&] {
      os << ">(" << name(bounds.getTensor()) << ", {";
      llvm::interleaveComma(bounds.getIndices(), os,
                            [&](Value v) { os << "(long long)" << name(v); });
      os << "}, " << bounds.getAxis() << ", (long long)" << name(bounds.getLast()) << ", " << lo
         << ", " << hi << ");  // tile.read_bounds\n";
    };
    if (op->getParentOfType<KeptTilesOp>()) {
      // Each lane tests its own index in a tile.kept_tiles body: the lane reads the range
      // alone (with 16-byte loads where it can), as many in flight as the test's caller says.
      readsBoundsLane = true;
      line() << *type << " " << lo << ", " << hi << ";\n";
      line() << "metaattn_read_bounds_lane<" << *type << ", " << rank << ", decltype(" << keptLoads
             << ")::value";
      printArgs();
      return success();
    }
    if (producerWarp) // lane 0 may still be issuing copies: the helper wants the whole warp
      line() << "__syncwarp();\n";
    line() << *type << " " << lo << ", " << hi << ";\n";
    // A producer warp keeps 24 registers: the lean helper, two loads in flight per lane.
    (producerWarp ? readsBoundsLean : readsBounds) = true;
    line() << (producerWarp ? "metaattn_read_bounds_lean<" : "metaattn_read_bounds<") << *type
           << (producerWarp ? ", " + std::to_string(rank) + ", 2" : "");
    printArgs();
    return success();
  }
  if (auto prefetch = dyn_cast<PrefetchOp>(op)) {
    FailureOr<std::string> type =
        scalarType(cast<GlobalTensorType>(prefetch.getTensor().getType()).getElementType());
    if (failed(type))
      return op->emitOpError() << "unsupported element type";
    prefetches = true;
    line() << "metaattn_prefetch<" << *type << ", " << prefetch.getLevel() << ">("
           << name(prefetch.getTensor()) << ", {";
    llvm::interleaveComma(prefetch.getIndices(), os,
                          [&](Value v) { os << "(long long)" << name(v); });
    os << "});  // tile.prefetch\n";
    return success();
  }
  if (auto write = dyn_cast<WriteOp>(op)) {
    FailureOr<std::string> type = scalarType(write.getValue().getType());
    if (failed(type))
      return op->emitOpError() << "unsupported element type";
    // Scalars are uniform over the block: its first thread stores the element.
    writesScalars = true;
    line() << "if (threadIdx.x == 0) metaattn_write<" << *type << ">(" << name(write.getTensor())
           << ", {";
    llvm::interleaveComma(write.getIndices(), os, [&](Value v) { os << "(long long)" << name(v); });
    os << "}, " << name(write.getValue()) << ");  // tile.write\n";
    return success();
  }
  if (auto fill = dyn_cast<FillOp>(op)) {
    if (!isFragment(fill.getBuffer().getType()))
      return op->emitOpError() << "only fragments can be filled in CUDA";
    if (overwritingGemm(fill)) {
      line() << "// tile.fill: " << name(fill.getBuffer()) << " is overwritten by the gemm\n";
      return success();
    }
    line() << name(fill.getBuffer()) << ".fill(" << name(fill.getValue()) << ");  // tile.fill\n";
    return success();
  }
  if (auto gemm = dyn_cast<GemmOp>(op)) {
    bool registerA = isFragment(gemm.getA().getType());
    bool overwrite = static_cast<bool>(overwrittenFill(gemm));
    const char *scope = gemm->hasAttr(kWgmmaAttr) ? "wg::" : "warp::";
    line() << ns << scope
           << (registerA              ? "gemmRS<"
               : gemm.getTransposeA() ? "gemmTS<"
                                      : "gemmSS<")
           << (gemm.getTransposeB() ? "true" : "false")
           << (overwrite ? (gemm.getAsync() ? ", false, true" : ", true, true")
                         : (gemm.getAsync() ? ", false" : ""))
           << ">(" << name(gemm.getC()) << ", " << name(gemm.getA()) << ", " << name(gemm.getB())
           << ");  // tile.gemm" << (gemm.getAsync() ? " (async)" : "")
           << (overwrite ? " (overwrites)" : "") << "\n";
    return success();
  }
  if (auto wait = dyn_cast<GemmWaitOp>(op)) {
    line() << ns << "wg::waitGemms<" << wait.getPending() << ">(";
    llvm::interleaveComma(wait.getAccumulators(), os, [&](Value v) { os << name(v); });
    os << ");  // tile.gemm_wait\n";
    return success();
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    if (rowPartials.count(reduce.getSource())) {
      line() << ns << "warp::"
             << (reduce.getKind() == ReduceKind::max ? "rowMaxOfPartials(" : "rowSumOfPartials(")
             << name(reduce.getSource()) << ", " << name(reduce.getDest()) << ", "
             << (reduce.getAccumulate() ? "true" : "false") << ");  // tile.reduce\n";
      return success();
    }
    const char *fn = reduce.getKind() == ReduceKind::max   ? "rowMax"
                     : reduce.getKind() == ReduceKind::sum ? "rowSum"
                                                           : "rowAbsSum";
    line() << ns << "warp::" << fn << "(" << name(reduce.getSource()) << ", "
           << name(reduce.getDest()) << ", " << (reduce.getAccumulate() ? "true" : "false")
           << ");  // tile.reduce\n";
    return success();
  }
  if (auto par = dyn_cast<ParallelOp>(op))
    return printParallel(par);
  if (auto scan = dyn_cast<ScanOp>(op)) {
    line() << ns << "block::scanRows<" << threads << ">(" << name(scan.getBuffer())
           << ");  // tile.scan\n";
    return success();
  }
  if (auto barrier = dyn_cast<BarrierOp>(op)) {
    if (barrier.getWarpgroup()) {
      if (!consumerThreads)
        return op->emitOpError() << "a warpgroup barrier needs a warp-specialised consumer region";
      line() << ns << "wg::groupBarrier();  // tile.barrier {warpgroup}\n";
      return success();
    }
    // With wgmma, shared writes by threads must also reach wgmma's async proxy.
    if (consumerThreads) {
      if (wgmma)
        line() << ns << "ptx::fenceProxyAsyncShared();\n";
      line() << ns << "block::namedBarrier<1, " << consumerThreads
             << ">();  // tile.barrier (consumers)\n";
      return success();
    }
    line() << ns << (wgmma ? "block::barrierAsyncProxy();\n" : "block::barrier();\n");
    return success();
  }
  if (isa<WarpSpecializeOp, MbarrierInitOp, MbarrierWaitOp, MbarrierArriveOp, MbarrierExpectTxOp,
          TmaCopyOp, WarpgroupTurnOp>(op))
    return printAsyncOp(op);
  if (isa<AsyncCommitOp>(op)) {
    line() << ns << "block::asyncCommit();\n";
    return success();
  }
  if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
    line() << ns << "block::asyncWait<" << wait.getPending() << ">();\n";
    return success();
  }
  if (isa<PipelinedOp>(op))
    return op->emitOpError() << "must be expanded before printing: run tile-pipeline-plan and "
                                "tile-pipeline-expand";
  return op->emitOpError() << "cannot be printed as CUDA";
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

static FailureOr<DLDataType> toDLDataType(Type type) {
  if (type.isBF16())
    return DLDataType{kDLBfloat, 16, 1};
  if (type.isF16())
    return DLDataType{kDLFloat, 16, 1};
  if (type.isF32())
    return DLDataType{kDLFloat, 32, 1};
  if (type.isInteger(32))
    return DLDataType{kDLInt, 32, 1};
  if (type.isInteger(64))
    return DLDataType{kDLInt, 64, 1};
  return failure();
}

static std::string sanitize(StringRef name) {
  std::string out;
  for (char c : name)
    out += llvm::isAlnum(c) ? c : '_';
  if (out.empty() || llvm::isDigit(out[0]))
    out = "k_" + out;
  return out;
}

FailureOr<EmittedKernel> metaattn::emitCuda(KernelOp kernel) {
  EmittedKernel result;
  rt::KernelSignature &sig = result.signature;
  sig.entry = sanitize(kernel.getSymName());
  sig.threads = kernel.getThreads();
  sig.persistent = kernel->hasAttr(kPersistentAttr);
  ArrayRef<int64_t> grid = kernel.getGrid();
  for (int d = 0; d < 3; ++d) {
    if (grid[3 * d] < 0) {
      sig.grid[d].tensor = -1;
      sig.grid[d].constant = grid[3 * d + 2];
    } else {
      sig.grid[d].tensor = grid[3 * d];
      sig.grid[d].dim = grid[3 * d + 1];
      sig.grid[d].divisor = grid[3 * d + 2];
    }
  }
  auto symbolsAttr = kernel->getAttrOfType<ArrayAttr>(kDimSymbolsAttr);
  auto outputsAttr = kernel->getAttrOfType<DenseI64ArrayAttr>(kOutputsAttr);
  Block &entry = kernel.getBody().front();
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    auto type = cast<GlobalTensorType>(arg.getType());
    rt::TensorParam param;
    param.name = "arg" + std::to_string(i);
    if (auto names = kernel.getArgAttrOfType<StringAttr>(i, "tile.name"))
      param.name = names.getValue().str();
    param.rank = type.getRank();
    FailureOr<DLDataType> dtype = toDLDataType(type.getElementType());
    if (failed(dtype))
      return kernel.emitOpError() << "parameter #" << i
                                  << " has an element type the runtime "
                                     "cannot pass: "
                                  << type.getElementType();
    param.dtype = *dtype;
    for (int64_t size : type.getShape())
      param.sizes.push_back(ShapedType::isDynamic(size) ? -1 : size);
    if (symbolsAttr && i < symbolsAttr.size())
      for (Attribute s : cast<ArrayAttr>(symbolsAttr[i]))
        param.symbols.push_back(cast<StringAttr>(s).getValue().str());
    param.isOutput = outputsAttr && llvm::is_contained(outputsAttr.asArrayRef(), (int64_t)i);
    sig.params.push_back(std::move(param));
  }

  std::string body;
  llvm::raw_string_ostream bodyOs(body);
  bool wgmma = false;
  kernel.walk([&](GemmOp gemm) { wgmma |= gemm->hasAttr(kWgmmaAttr); });
  bool specialized = !kernel.getBody().getOps<WarpSpecializeOp>().empty();
  bool tma = false;
  kernel.walk([&](TmaCopyOp) { tma = true; });
  Printer printer(bodyOs, kernel.getThreads(), wgmma, tma);
  std::string params;
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    std::string n = sanitize(sig.params[i].name);
    printer.bind(arg, n);
    params += (i ? ",\n    " : "") + std::string("const metaattn::dev::TensorRef<") +
              std::to_string(sig.params[i].rank) + "> " + n;
  }
  if (failed(printer.printBlock(entry)))
    return failure();
  // TMA descriptors follow the tensors, as the runtime passes them (KernelSignature.h).
  sig.tensorMaps = printer.tensorMaps;
  for (size_t i = 0; i < printer.tensorMaps.size(); ++i)
    params += ",\n    const __grid_constant__ metaattn::dev::TmaDesc tmap" + std::to_string(i);
  // A wgmma/TMA kernel aligns its shared base to 1024 bytes at run time (the dynamic window's
  // alignment is not guaranteed to be that large), which may cost up to 1008 bytes.
  bool align1024 = wgmma || tma;
  sig.dynamicSharedBytes = printer.shared.launchBytes();

  std::string &src = result.source;
  llvm::raw_string_ostream os(src);
  std::string minBlocks;
  if (specialized)
    minBlocks = ", 1";
  else if (auto attr = kernel->getAttrOfType<IntegerAttr>(kMinBlocksPerSmAttr))
    minBlocks = ", " + std::to_string(attr.getInt());
  os << "// Generated by metaattn from tile.kernel @" << kernel.getSymName() << ".\n"
     << "// Launch: " << sig.threads << " threads, " << sig.dynamicSharedBytes
     << " bytes of dynamic shared memory"
     << (sig.persistent ? "; persistent (at most one block per tile, walking the grid)" : "")
     << ".\n";
  if (auto shift = kernel->getAttrOfType<FloatAttr>(kStaticShiftAttr))
    os << "// Shift: the constant " << llvm::format("%.6g", shift.getValueAsDouble())
       << " (a bounded score: no row maximum, no rescaling).\n";
  os << "#include \"metaattn/tile.cuh\"\n"
     << (wgmma ? "#include \"metaattn/warpgroup.cuh\"\n" : "")
     << (specialized ? "#include \"metaattn/tma.cuh\"\n\n" : "\n")
     << "using metaattn::dev::bf16;\nusing metaattn::dev::fp16;\n\n"
     << "[[maybe_unused]] static __device__ __forceinline__ int metaattn_floordiv(int a, int b) {\n"
     << "  const int q = a / b;\n"
     << "  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n"
     << "[[maybe_unused]] static __device__ __forceinline__ int metaattn_ceildiv(int a, int b) {\n"
     << "  const int q = a / b;\n"
     << "  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;\n}\n"
     // The last dim's stride is 1: the launch checks it for every tensor (TensorParam::
     // lastDimContiguous; a size-1 last dim may have any stride, and its in-bounds index is 0).
     // A constant stride lets ptxas fold each element's column into the load's immediate
     // offset (`--resource-report`, bidirectional document mask: 88 B of spills, 192 before).
     << "template <class T, int R>\n"
     << "[[maybe_unused]] static __device__ __forceinline__ T metaattn_read(\n"
     << "    const metaattn::dev::TensorRef<R>& t, const long long (&i)[R]) {\n"
     << elementOffset("return T{};")
     << "  return static_cast<const T*>(t.data)[offset];\n}\n"
     // The same without an early return, for reads made once per block tile (a combine
     // kernel, an attention's combine epilogue): a predicated load lets ptxas issue a tile's
     // reads together, where with a branch per read they went one at a time (the fused
     // differential epilogue 0.6 ms → 0.15 ms at B8 H12 S4k on an H100). In the kv loop it
     // cost the document-mask kernels 1-4% (results/documents_read_helper_ab_h100_*).
     << "template <class T, int R>\n"
     << "[[maybe_unused]] static __device__ __forceinline__ T metaattn_read_pred(\n"
     << "    const metaattn::dev::TensorRef<R>& t, const long long (&i)[R]) {\n"
     << "  long long offset = 0;\n"
     << "  bool in = true;\n"
     << "#pragma unroll\n"
     << "  for (int d = 0; d < R; ++d) {\n"
     << "    in &= (unsigned long long)i[d] < (unsigned long long)t.sizes[d];\n"
     << "    offset += d == R - 1 ? i[d] : i[d] * t.strides[d];\n"
     << "  }\n"
     << "  return in ? static_cast<const T*>(t.data)[offset] : T{};\n}\n";
  if (printer.prefetches)
    // tile.prefetch: the line of an element inside the tensor's sizes, into L1 or L2.
    os << "template <class T, int Level, int R>\n"
       << "[[maybe_unused]] static __device__ __forceinline__ void metaattn_prefetch(\n"
       << "    const metaattn::dev::TensorRef<R>& t, const long long (&i)[R]) {\n"
       << elementOffset("return;") << "  const T* p = static_cast<const T*>(t.data) + offset;\n"
       << "  if (Level == 1) asm volatile(\"prefetch.global.L1 [%0];\" :: \"l\"(p));\n"
       << "  else asm volatile(\"prefetch.global.L2 [%0];\" :: \"l\"(p));\n}\n";
  if (printer.writesScalars)
    // tile.write: nothing outside the tensor's sizes.
    os << "template <class T, int R>\n"
       << "[[maybe_unused]] static __device__ __forceinline__ void metaattn_write(\n"
       << "    const metaattn::dev::TensorRef<R>& t, const long long (&i)[R], T v) {\n"
       << elementOffset("return;") << "  static_cast<T*>(t.data)[offset] = v;\n}\n";
  if (printer.readsBounds || printer.readsBoundsLean)
    os << "template <class T>\n"
       << "[[maybe_unused]] static __device__ __forceinline__ void metaattn_warp_bounds(T& lo, "
          "T& hi) {\n"
       << "  if constexpr (sizeof(T) == 4) {\n"
       << "    lo = __reduce_min_sync(0xffffffffu, lo);\n"
       << "    hi = __reduce_max_sync(0xffffffffu, hi);\n"
       << "  } else {\n"
       << "#pragma unroll\n"
       << "    for (int o = 16; o > 0; o /= 2) {\n"
       << "      const T l = __shfl_xor_sync(0xffffffffu, lo, o);\n"
       << "      const T h = __shfl_xor_sync(0xffffffffu, hi, o);\n"
       << "      lo = l < lo ? l : lo;\n      hi = h > hi ? h : hi;\n    }\n  }\n}\n";
  if (printer.readsBounds)
    os
        // tile.read_bounds: the lanes of a whole warp split the range and combine their bounds
        // (every warp computes them, so every thread has them); a partial warp's lanes each read
        // all of it.
        << "template <class T, int R>\n"
        << "[[maybe_unused]] static __device__ __forceinline__ void metaattn_read_bounds(\n"
        << "    const metaattn::dev::TensorRef<R>& t, const long long (&first)[R], int axis,\n"
        << "    long long last, T& lo, T& hi) {\n"
        << "  constexpr T kMax = T(~0ull >> (65 - 8 * sizeof(T)));\n"
        << "  lo = kMax;\n  hi = -kMax - 1;\n"
        << "  long long i[R];\n"
        << "#pragma unroll\n"
        << "  for (int d = 0; d < R; ++d) i[d] = first[d];\n"
        << "  const bool warp = __activemask() == 0xffffffffu;\n"
        << "  const int step = warp ? 32 : 1;\n"
        // Four loads in flight per lane before any is used: a tile's 128 ids cost one memory
        // latency, not four in a row. (Also prefetching the next range into L1 and checking
        // the fixed indices once ran 5-13% slower on the H100: results/documents_prefetch_*.)
        << "  for (long long base = first[axis] + (warp ? threadIdx.x % 32 : 0); base <= last;\n"
        << "       base += 4 * step) {\n"
        << "    T v[4];\n"
        << "#pragma unroll\n"
        << "    for (int u = 0; u < 4; ++u) {\n"
        << "      i[axis] = base + u * step;\n"
        << "      v[u] = i[axis] <= last ? metaattn_read<T, R>(t, i) : T{};\n"
        << "    }\n"
        << "#pragma unroll\n"
        << "    for (int u = 0; u < 4; ++u) {\n"
        << "      if (base + u * step > last) break;\n"
        << "      lo = v[u] < lo ? v[u] : lo;\n      hi = v[u] > hi ? v[u] : hi;\n    }\n  }\n"
        << "  if (warp) metaattn_warp_bounds(lo, hi);\n}\n";
  if (printer.readsBoundsLean || printer.readsBoundsLane)
    os
        // The lean and lane helpers' range: lo and hi start empty (0 where the range leaves the
        // tensor: positions outside it read as 0, as metaattn_read's, counted once); the fixed
        // indices are checked and the tensor addressed once; returns the range's first element,
        // with its stride and length (a tile's range: its length fits an int).
        << "template <class T, int R>\n"
        << "[[maybe_unused]] static __device__ __forceinline__ const T* metaattn_bounds_span(\n"
        << "    const metaattn::dev::TensorRef<R>& t, const long long (&first)[R], int axis,\n"
        << "    long long last, T& lo, T& hi, long long& stride, int& n) {\n"
        << "  constexpr T kMax = T(~0ull >> (65 - 8 * sizeof(T)));\n"
        << "  lo = kMax;\n  hi = -kMax - 1;\n"
        << "  bool in = true;\n"
        << "  long long offset = 0;\n"
        << "#pragma unroll\n"
        << "  for (int d = 0; d < R; ++d) {\n"
        << "    if (d == axis) continue;\n"
        << "    in = in && (unsigned long long)first[d] < (unsigned long long)t.sizes[d];\n"
        << "    offset += d == R - 1 ? first[d] : first[d] * t.strides[d];\n"
        << "  }\n"
        << "  const long long begin = first[axis] > 0 ? first[axis] : 0;\n"
        << "  const long long end = last < t.sizes[axis] - 1 ? last : t.sizes[axis] - 1;\n"
        << "  if (first[axis] <= last && (!in || begin > first[axis] || end < last)) {\n"
        << "    lo = 0;\n    hi = 0;\n  }\n"
        << "  stride = axis == R - 1 ? 1 : t.strides[axis];\n"
        << "  n = in && end >= begin ? (int)(end - begin + 1) : 0;\n"
        << "  return static_cast<const T*>(t.data) + offset + begin * stride;\n}\n";
  if (printer.readsBoundsLean)
    os
        // tile.read_bounds in a producer warp, which keeps 24 registers: the fixed indices are
        // checked and the tensor addressed once (metaattn_bounds_span), the range walked with an
        // int, U loads in flight per lane. (The consumers' helper above addresses each element
        // through metaattn_read; ptxas spilled 72-128 B in the producer with it.)
        << "template <class T, int R, int U>\n"
        << "[[maybe_unused]] static __device__ __forceinline__ void metaattn_read_bounds_lean(\n"
        << "    const metaattn::dev::TensorRef<R>& t, const long long (&first)[R], int axis,\n"
        << "    long long last, T& lo, T& hi) {\n"
        << "  long long stride;\n"
        << "  int n;\n"
        << "  const T* p = metaattn_bounds_span<T, R>(t, first, axis, last, lo, hi, stride, n);\n"
        << "  const bool warp = __activemask() == 0xffffffffu;\n"
        << "  const int step = warp ? 32 : 1;\n"
        << "  for (int k = warp ? threadIdx.x % 32 : 0; k < n; k += U * step) {\n"
        << "    T v[U];\n"
        << "#pragma unroll\n"
        << "    for (int u = 0; u < U; ++u)\n"
        << "      v[u] = k + u * step < n ? p[(long long)(k + u * step) * stride] : T{};\n"
        << "#pragma unroll\n"
        << "    for (int u = 0; u < U; ++u) {\n"
        << "      if (k + u * step >= n) break;\n"
        << "      lo = v[u] < lo ? v[u] : lo;\n      hi = v[u] > hi ? v[u] : hi;\n    }\n  }\n"
        << "  if (warp) metaattn_warp_bounds(lo, hi);\n}\n";
  if (printer.readsBoundsLane)
    os
        // tile.read_bounds in a tile.kept_tiles test: one lane alone reads the range (each lane
        // tests its own kv tile), U loads in flight (16-byte ones where 32-bit ids are
        // contiguous), addressed as the lean helper's (metaattn_bounds_span). U comes from the
        // test's caller (kept.cuh).
        << "template <class T, int R, int U>\n"
        << "[[maybe_unused]] static __device__ __forceinline__ void metaattn_read_bounds_lane(\n"
        << "    const metaattn::dev::TensorRef<R>& t, const long long (&first)[R], int axis,\n"
        << "    long long last, T& lo, T& hi) {\n"
        << "  long long stride;\n"
        << "  int n;\n"
        << "  const T* p = metaattn_bounds_span<T, R>(t, first, axis, last, lo, hi, stride, n);\n"
        << "  int k = 0;\n"
        << "  if (sizeof(T) == 4 && stride == 1) {\n"
        << "    constexpr int V = 4;\n"
        << "    for (; k < n && (reinterpret_cast<unsigned long long>(p + k) & 15u) != 0; ++k) {\n"
        << "      const T v = p[k];\n"
        << "      lo = v < lo ? v : lo;\n      hi = v > hi ? v : hi;\n    }\n"
        << "    for (; k + U * V <= n; k += U * V) {\n"
        << "      uint4 w[U];\n"
        << "#pragma unroll\n"
        << "      for (int u = 0; u < U; ++u) w[u] = reinterpret_cast<const uint4*>(p + k)[u];\n"
        << "#pragma unroll\n"
        << "      for (int u = 0; u < U; ++u) {\n"
        << "        const T e[V] = {(T)w[u].x, (T)w[u].y, (T)w[u].z, (T)w[u].w};\n"
        << "#pragma unroll\n"
        << "        for (int x = 0; x < V; ++x) {\n"
        << "          lo = e[x] < lo ? e[x] : lo;\n          hi = e[x] > hi ? e[x] : hi;\n"
        << "        }\n      }\n    }\n  }\n"
        << "  for (; k < n; k += U) {\n"
        << "    T v[U];\n"
        << "#pragma unroll\n"
        << "    for (int u = 0; u < U; ++u) v[u] = k + u < n ? p[(long long)(k + u) * stride] : "
           "T{};\n"
        << "#pragma unroll\n"
        << "    for (int u = 0; u < U; ++u) {\n"
        << "      if (k + u >= n) break;\n"
        << "      lo = v[u] < lo ? v[u] : lo;\n      hi = v[u] > hi ? v[u] : hi;\n    }\n  }\n}\n";
  os << "\n"
     // A warp-specialised kernel runs one block per SM: its register budget is the whole file.
     << "extern \"C\" __global__ void __launch_bounds__(" << sig.threads << minBlocks << ") "
     << sig.entry << "(\n    " << params << ") {\n"
     << (align1024 ? "  extern __shared__ __align__(1024) unsigned char smem_raw[];\n"
                     "  unsigned char* const smem = smem_raw + ((1024u - "
                     "(metaattn::dev::detail::sharedAddr(smem_raw) & 1023u)) & 1023u);\n"
                   : "  extern __shared__ __align__(128) unsigned char smem[];\n")
     << body << "}\n";
  return result;
}
