//===- CUDALoopEmitter.cpp - scf.for over shared rows, 16 bytes at a time ----===//
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

std::optional<LogicalResult> Printer::printChunkedFor(scf::ForOp loop) {
  std::optional<int64_t> lb = constantInt(loop.getLowerBound());
  std::optional<int64_t> ub = constantInt(loop.getUpperBound());
  std::optional<int64_t> step = constantInt(loop.getStep());
  if (!parallel || !lb || !ub || !step || *lb != 0 || *step != 1 || *ub <= 0)
    return std::nullopt;
  Value iv = loop.getInductionVar();
  auto invariant = [&](Value v) { return !loop.getRegion().isAncestor(v.getParentRegion()); };
  // The row segments: (tile, row, column offset) -> the loads reading them.
  struct Segment {
    Value tile, row, offset;
    int64_t chunkElems;
    SmallVector<Operation *> loads;
  };
  SmallVector<Segment> segments;
  bool writes = false;
  loop.getBody()->walk([&](Operation *inner) {
    if (isa<memref::StoreOp>(inner))
      writes = true;
    auto load = dyn_cast<memref::LoadOp>(inner);
    if (!load || load.getIndices().size() != 2 || !isShared(load.getMemRef().getType()))
      return;
    Value col = load.getIndices()[1], offset;
    if (col != iv) {
      auto add = col.getDefiningOp<arith::AddIOp>();
      if (!add || (add.getLhs() != iv && add.getRhs() != iv))
        return;
      offset = add.getLhs() == iv ? add.getRhs() : add.getLhs();
      if (!invariant(offset))
        return;
    }
    Value tile = load.getMemRef(), row = load.getIndices()[0];
    FailureOr<std::string> cxx = bufferType(tile);
    if (!invariant(row) || !invariant(tile) || failed(cxx) ||
        !StringRef(*cxx).starts_with("metaattn::dev::SmemTile<"))
      return;
    int64_t chunkElems = 128 / cast<MemRefType>(tile.getType()).getElementTypeBitWidth();
    if (offset && knownMultiple(offset) % chunkElems != 0)
      return;
    for (Segment &s : segments)
      if (s.tile == tile && s.row == row && s.offset == offset) {
        s.loads.push_back(inner);
        return;
      }
    segments.push_back({tile, row, offset, chunkElems, {inner}});
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
      int64_t perStep = lanes / s.chunkElems;
      for (int64_t q = 0; q < perStep; ++q) {
        std::string first = chunk + " * " + std::to_string(perStep) + " + " + std::to_string(q);
        if (s.offset)
          first = name(s.offset) + " / " + std::to_string(s.chunkElems) + " + " + first;
        line() << "reinterpret_cast<uint4*>(" << array << ")[" << q
               << "] = *reinterpret_cast<const uint4*>(" << name(s.tile) << ".chunkPtr("
               << name(s.row) << ", " << first << "));\n";
      }
      for (Operation *load : s.loads)
        chunkedLoads[load] = array + "[" + lane + "]";
    }
    line() << "#pragma unroll\n";
    line() << "for (int " << lane << " = 0; " << lane << " < " << lanes << "; ++" << lane
           << ") {\n";
    {
      IndentScope inner(*this);
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
