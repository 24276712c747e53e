//===- CUDALoopEmitter.cpp - loops over shared tiles, 16 bytes at a time ----===//
//
// A strided tile.parallel over shared tiles that addresses them at its own (row, column), or at
// the row and a chunk-aligned column offset plus its column, gives each thread a run of
// consecutive columns: one 16-byte load per tile and chunk into a register array, the body once
// per column on the registers, one store back for the tiles it writes. Tiles of 16- and 32-bit
// elements mix (eight columns a run: one chunk of a bf16 tile, two of an f32 one).
//
// A counted scf.for (0 to N, step 1) whose body reads shared tiles along one row, at the
// column `iv` or `offset + iv` (offset and row fixed for the loop), is printed as a loop over
// 16-byte chunks: each such row segment is loaded into registers with vector loads once per
// chunk and the body runs, unrolled, on the registers. Reductions over a head dim written as
// such loops (GLA's decayed diagonal scores) then cost one shared load per eight bf16 elements
// instead of one per element, and the unrolled iterations overlap.
//
//===----------------------------------------------------------------------===//

#include "CUDAEmitterImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

#include <numeric>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::cuda;
using namespace metaattn::tile;

static std::optional<int64_t> constantInt(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// A positive integer every value `v` can take is a multiple of (1 when nothing is known).
static int64_t knownMultiple(Value v, int depth = 0) {
  constexpr int64_t kAny = int64_t(1) << 30; // zero is a multiple of everything
  if (depth > 8)
    return 1;
  if (std::optional<int64_t> c = constantInt(v))
    return *c == 0 ? kAny : std::abs(*c);
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (loop && arg == loop.getInductionVar())
      return std::gcd(knownMultiple(loop.getLowerBound(), depth + 1),
                      knownMultiple(loop.getStep(), depth + 1));
    return 1;
  }
  Operation *def = v.getDefiningOp();
  if (auto add = dyn_cast<arith::AddIOp>(def))
    return std::gcd(knownMultiple(add.getLhs(), depth + 1), knownMultiple(add.getRhs(), depth + 1));
  if (auto sub = dyn_cast<arith::SubIOp>(def))
    return std::gcd(knownMultiple(sub.getLhs(), depth + 1), knownMultiple(sub.getRhs(), depth + 1));
  if (auto mul = dyn_cast<arith::MulIOp>(def))
    return std::min(kAny, knownMultiple(mul.getLhs(), depth + 1) *
                              knownMultiple(mul.getRhs(), depth + 1));
  return 1;
}

namespace {
/// A row segment of a shared tile the loop reads (or writes) a chunk at a time: the tile, the
/// row, the column offset (null: none) and the elements of one 16-byte chunk.
struct Segment {
  Value tile, row, offset;
  int64_t chunkElems;
  SmallVector<Operation *> accesses;
};

/// The column offset of `col` against `iv`: null when `col` is `iv` itself, the other operand
/// of `iv + x` when that operand satisfies `invariant`, std::nullopt otherwise.
std::optional<Value> columnOffset(Value col, Value iv, llvm::function_ref<bool(Value)> invariant) {
  if (col == iv)
    return Value();
  auto add = col.getDefiningOp<arith::AddIOp>();
  if (!add || (add.getLhs() != iv && add.getRhs() != iv))
    return std::nullopt;
  Value offset = add.getLhs() == iv ? add.getRhs() : add.getLhs();
  if (!invariant(offset))
    return std::nullopt;
  return offset;
}

/// The segment of `segments` for (tile, row, offset), added when new.
Segment &segmentFor(SmallVectorImpl<Segment> &segments, Value tile, Value row, Value offset,
                    int64_t chunkElems) {
  for (Segment &s : segments)
    if (s.tile == tile && s.row == row && s.offset == offset)
      return s;
  segments.push_back({tile, row, offset, chunkElems, {}});
  return segments.back();
}
} // namespace

/// Loads (or, `store`, stores) the `lanes` columns of run `first` of segment `s` a 16-byte
/// chunk at a time into (from) its register array.
static void printSegmentChunks(Printer &p, const Segment &s, const std::string &array,
                               int64_t lanes, const std::string &first, bool store) {
  int64_t perStep = lanes / s.chunkElems;
  for (int64_t q = 0; q < perStep; ++q) {
    std::string chunk = first;
    if (perStep != 1)
      chunk += " * " + std::to_string(perStep) + " + " + std::to_string(q);
    if (s.offset)
      chunk = p.name(s.offset) + " / " + std::to_string(s.chunkElems) + " + " + chunk;
    std::string ptr = p.name(s.tile) + ".chunkPtr(" + p.name(s.row) + ", " + chunk + ")";
    // The register side: read from when storing, written when loading.
    std::string cast = store ? "reinterpret_cast<const uint4*>(" : "reinterpret_cast<uint4*>(";
    std::string reg =
        perStep == 1 ? "*" + cast + array + ")" : cast + array + ")[" + std::to_string(q) + "]";
    if (store)
      p.line() << "*reinterpret_cast<uint4*>(" << ptr << ") = " << reg << ";\n";
    else
      p.line() << reg << " = *reinterpret_cast<const uint4*>(" << ptr << ");\n";
  }
}

std::optional<LogicalResult> Printer::printChunkedParallel(ParallelOp op) {
  ArrayRef<int64_t> shape = op.getShape();
  if (shape.size() != 2)
    return std::nullopt;
  Block &body = op.getBody().front();
  Value row = body.getArgument(0), col = body.getArgument(1);
  auto invariant = [&](Value v) { return !op.getBody().isAncestor(v.getParentRegion()); };
  // The segments: tiles addressed at (row, [offset +] col), or read at a row fixed for the loop.
  // A tile written must be addressed through one segment only, at the loop's row (another
  // access would read what the arrays hold).
  SmallVector<Segment> segments;
  llvm::DenseSet<Value> elsewhere, written;
  bool ok = true;
  body.walk([&](Operation *inner) {
    auto load = dyn_cast<memref::LoadOp>(inner);
    auto store = dyn_cast<memref::StoreOp>(inner);
    if (!load && !store)
      return;
    // A run's loads are issued before the body: one at another row or column offset than the
    // loop's own counts only where the body reads it unconditionally (a guard could be what
    // keeps it inside the tile).
    bool direct = inner->getBlock() == &body;
    Value memref = load ? load.getMemRef() : store.getMemRef();
    ValueRange indices = load ? load.getIndices() : store.getIndices();
    if (!isShared(memref.getType())) {
      ok = false;
      return;
    }
    if (store)
      written.insert(memref);
    FailureOr<std::string> cxx = bufferType(memref);
    std::optional<Value> offset;
    // Loads may also read another row fixed for the whole loop (a reference row).
    if (indices.size() == 2 && (indices[0] == row || (load && direct && invariant(indices[0]))) &&
        succeeded(cxx) && StringRef(*cxx).starts_with("metaattn::dev::SmemTile<"))
      offset = columnOffset(indices[1], col, invariant);
    int64_t chunkElems = 128 / cast<MemRefType>(memref.getType()).getElementTypeBitWidth();
    if (!offset || (*offset && (!direct || knownMultiple(*offset) % chunkElems != 0))) {
      elsewhere.insert(memref);
      return;
    }
    segmentFor(segments, memref, indices[0], *offset, chunkElems).accesses.push_back(inner);
  });
  if (!ok || segments.empty())
    return std::nullopt;
  int64_t lanes = 0;
  for (const Segment &s : segments) {
    int64_t width = 16 / s.chunkElems;
    if (width != 2 && width != 4)
      return std::nullopt;
    lanes = std::max(lanes, s.chunkElems);
    if (written.contains(s.tile) &&
        (elsewhere.contains(s.tile) || s.row != row ||
         llvm::count_if(segments, [&](const Segment &o) { return o.tile == s.tile; }) != 1))
      return std::nullopt;
  }
  if (shape[1] % lanes != 0)
    return std::nullopt;
  bool mixed = llvm::any_of(segments, [&](const Segment &s) { return s.chunkElems != lanes; });
  int64_t runsPerRow = shape[1] / lanes;
  int64_t total = shape[0] * runsPerRow;
  line() << "// tile.parallel [" << shape[0] << ", " << shape[1] << "] over shared tiles: " << lanes
         << " consecutive elements ("
         << (mixed ? "16-byte chunks of each tile" : "one 16-byte chunk") << ") per thread\n";
  StridedLoop loop = openStridedLoop(total, /*unroll=*/4);
  const std::string &lin = loop.index;
  std::string lane = "u" + std::to_string(counter++);
  std::string col0 = "c" + std::to_string(counter++);
  std::string r = fresh(row);
  line() << "const int " << r << " = " << lin << " / " << runsPerRow << ";\n";
  line() << "const int " << col0 << " = " << lin << " % " << runsPerRow << ";\n";
  SmallVector<std::string> arrays;
  for (const Segment &s : segments) {
    FailureOr<std::string> elt = scalarType(cast<MemRefType>(s.tile.getType()).getElementType());
    if (failed(elt))
      return op.emitOpError() << "unsupported element type";
    arrays.push_back("a" + std::to_string(counter++));
    line() << "alignas(16) " << *elt << " " << arrays.back() << "[" << lanes << "];\n";
    printSegmentChunks(*this, s, arrays.back(), lanes, col0, /*store=*/false);
    for (Operation *access : s.accesses)
      chunkedAccesses[access] = arrays.back() + "[" + lane + "]";
  }
  line() << "#pragma unroll\n";
  line() << "for (int " << lane << " = 0; " << lane << " < " << lanes << "; ++" << lane << ") {\n";
  ++indent;
  if (usedOutsideChunks(col))
    line() << "const int " << fresh(col) << " = " << col0 << " * " << lanes << " + " << lane
           << ";\n";
  parallel = ParallelContext{"", "", "", false};
  LogicalResult result = printBlock(body);
  parallel.reset();
  if (failed(result))
    return result;
  --indent;
  line() << "}\n";
  for (auto [s, array] : llvm::zip(segments, arrays))
    if (written.contains(s.tile))
      printSegmentChunks(*this, s, array, lanes, col0, /*store=*/true);
  closeStridedLoop(loop);
  return success();
}

std::optional<LogicalResult> Printer::printChunkedFor(scf::ForOp loop) {
  std::optional<int64_t> lb = constantInt(loop.getLowerBound());
  std::optional<int64_t> ub = constantInt(loop.getUpperBound());
  std::optional<int64_t> step = constantInt(loop.getStep());
  if (!parallel || !lb || !ub || !step || *lb != 0 || *step != 1 || *ub <= 0)
    return std::nullopt;
  Value iv = loop.getInductionVar();
  auto invariant = [&](Value v) { return !loop.getRegion().isAncestor(v.getParentRegion()); };
  // The row segments: (tile, row, column offset) -> the loads reading them.
  SmallVector<Segment> segments;
  bool writes = false;
  loop.getBody()->walk([&](Operation *inner) {
    if (isa<memref::StoreOp>(inner))
      writes = true;
    auto load = dyn_cast<memref::LoadOp>(inner);
    // Loads are issued at the start of each chunk: only those the body makes unconditionally
    // (a guard could be what keeps one inside the tile).
    if (!load || inner->getBlock() != loop.getBody() || load.getIndices().size() != 2 ||
        !isShared(load.getMemRef().getType()))
      return;
    std::optional<Value> offset = columnOffset(load.getIndices()[1], iv, invariant);
    Value tile = load.getMemRef(), row = load.getIndices()[0];
    FailureOr<std::string> cxx = bufferType(tile);
    if (!offset || !invariant(row) || !invariant(tile) || failed(cxx) ||
        !StringRef(*cxx).starts_with("metaattn::dev::SmemTile<"))
      return;
    int64_t chunkElems = 128 / cast<MemRefType>(tile.getType()).getElementTypeBitWidth();
    if (*offset && knownMultiple(*offset) % chunkElems != 0)
      return;
    segmentFor(segments, tile, row, *offset, chunkElems).accesses.push_back(inner);
  });
  // Stores in the body could write what the registers hold.
  if (writes || segments.empty())
    return std::nullopt;
  int64_t lanes = 0;
  for (const Segment &s : segments)
    lanes = std::max(lanes, s.chunkElems);
  if (*ub % lanes != 0)
    return std::nullopt;

  FailureOr<SmallVector<std::string>> carried = declareCarried(loop);
  if (failed(carried))
    return failure();
  std::string chunk = "k" + std::to_string(counter++);
  std::string lane = "u" + std::to_string(counter++);
  line() << "// scf.for [0, " << *ub << "): shared row segments read " << lanes
         << " elements (16-byte chunks) at a time\n";
  line() << "#pragma unroll 1\n";
  line() << "for (int " << chunk << " = 0; " << chunk << " < " << *ub / lanes << "; ++" << chunk
         << ") {\n";
  {
    IndentScope scope(*this);
    for (const Segment &s : segments) {
      FailureOr<std::string> elt = scalarType(cast<MemRefType>(s.tile.getType()).getElementType());
      if (failed(elt))
        return loop.emitOpError() << "unsupported element type";
      std::string array = "a" + std::to_string(counter++);
      line() << "alignas(16) " << *elt << " " << array << "[" << lanes << "];\n";
      printSegmentChunks(*this, s, array, lanes, chunk, /*store=*/false);
      for (Operation *load : s.accesses)
        chunkedAccesses[load] = array + "[" + lane + "]";
    }
    line() << "#pragma unroll\n";
    line() << "for (int " << lane << " = 0; " << lane << " < " << lanes << "; ++" << lane
           << ") {\n";
    {
      IndentScope inner(*this);
      if (usedOutsideChunks(iv))
        line() << "const int " << fresh(iv) << " = " << chunk << " * " << lanes << " + " << lane
               << ";\n";
      if (failed(printLoopBody(loop, *carried)))
        return failure();
    }
    line() << "}\n";
  }
  line() << "}\n";
  return success();
}
