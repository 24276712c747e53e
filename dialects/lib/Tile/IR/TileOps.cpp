//===- TileOps.cpp - tile dialect operations ---------------------------------===//
//
// Kernel, buffer, copy, gemm and reduction ops: assembly and verifiers.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace metaattn::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::optional<MemorySpace> metaattn::tile::getMemorySpace(MemRefType type) {
  if (auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}

MemRefType metaattn::tile::getBufferType(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                         Type elementType, MemorySpace space) {
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         MemorySpaceAttr::get(ctx, space));
}

FragmentLayoutAttr metaattn::tile::getFragmentLayout(Value buffer) {
  if (auto alloc = buffer.getDefiningOp<AllocOp>())
    return alloc.getLayoutAttr();
  return {};
}

Value metaattn::tile::getParallelAnchor(ParallelOp par) {
  size_t rank = par.getShape().size();
  Value anchor;
  par.getBody().walk([&](Operation *inner) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(inner))
      memref = load.getMemRef();
    else if (auto store = dyn_cast<memref::StoreOp>(inner))
      memref = store.getMemRef();
    if (memref && !anchor && isFragment(memref.getType()) &&
        size_t(cast<MemRefType>(memref.getType()).getRank()) == rank)
      anchor = memref;
  });
  return anchor;
}

SharedArena SharedArena::of(KernelOp kernel, Operation *before, MemRefType extra) {
  bool swizzled = false;
  kernel.walk([&](Operation *op) {
    swizzled |= (isa<GemmOp>(op) && op->hasAttr(kWgmmaAttr)) || isa<TmaCopyOp>(op);
  });
  SharedArena arena(swizzled);
  // Program order (the emitter prints a region's ops before the ops after its parent).
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == before && extra)
      arena.place(extra);
    if (auto alloc = dyn_cast<AllocOp>(op); alloc && isShared(alloc.getBuffer().getType()))
      arena.place(alloc.getBuffer().getType());
  });
  return arena;
}

int64_t SharedArena::place(MemRefType type) {
  int64_t align = type.getRank() >= 2 ? tileAlignment() : 16;
  bytes = (bytes + align - 1) / align * align;
  int64_t offset = bytes;
  bytes += type.getNumElements() * type.getElementTypeBitWidth() / 8;
  return offset;
}

std::optional<llvm::SmallDenseSet<Value>> metaattn::tile::getKernelOutputs(KernelOp kernel) {
  auto attr = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.outputs");
  if (!attr)
    return std::nullopt;
  llvm::SmallDenseSet<Value> outputs;
  for (int64_t index : attr.asArrayRef())
    if (index >= 0 && index < int64_t(kernel.getBody().getNumArguments()))
      outputs.insert(kernel.getBody().getArgument(index));
  return outputs;
}

static LogicalResult verifyLocal(Operation *op, Type type, StringRef what) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !getMemorySpace(memref))
    return op->emitOpError() << what
                             << " must be a shared or fragment buffer (memref in "
                                "#tile.space<shared> or #tile.space<fragment>), found "
                             << type;
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(p, *this, /*isVariadic=*/false,
                                           getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                           getResAttrsAttrName());
}

LogicalResult KernelOp::verify() {
  FunctionType type = getFunctionType();
  if (type.getNumResults() != 0)
    return emitOpError() << "must not return values; outputs are tensor parameters";
  for (auto [i, input] : llvm::enumerate(type.getInputs()))
    if (!isa<GlobalTensorType>(input))
      return emitOpError() << "parameter #" << i << " must be a !tile.tensor, found " << input;
  int64_t threads = getThreads();
  if (threads <= 0 || threads > 1024 || threads % 32 != 0)
    return emitOpError() << "threads must be a positive multiple of 32 up to 1024, found "
                         << threads;
  ArrayRef<int64_t> grid = getGrid();
  if (grid.size() != 9)
    return emitOpError() << "grid must hold three (param, dim, divisor) triples, found "
                         << grid.size() << " integers";
  for (int d = 0; d < 3; ++d) {
    int64_t param = grid[3 * d], dim = grid[3 * d + 1], divisor = grid[3 * d + 2];
    if (divisor <= 0)
      return emitOpError() << "grid dimension " << d << " has a non-positive divisor " << divisor;
    if (param == -1)
      continue;
    if (param < 0 || param >= static_cast<int64_t>(type.getNumInputs()))
      return emitOpError() << "grid dimension " << d << " refers to parameter #" << param
                           << ", but the kernel has " << type.getNumInputs();
    auto tensor = cast<GlobalTensorType>(type.getInput(param));
    if (dim < 0 || dim >= tensor.getRank())
      return emitOpError() << "grid dimension " << d << " refers to dim " << dim << " of a rank-"
                           << tensor.getRank() << " parameter";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Simple ops
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  auto type = cast<GlobalTensorType>(getTensor().getType());
  if (getDim() < 0 || getDim() >= type.getRank())
    return emitOpError() << "dim " << getDim() << " is out of range for a rank-" << type.getRank()
                         << " tensor";
  return success();
}

LogicalResult IndexPartsOp::verify() {
  auto arg = dyn_cast<BlockArgument>(getIndex());
  auto par = dyn_cast_if_present<ParallelOp>((*this)->getParentOp());
  if (!arg || !par || arg.getOwner() != &par.getBody().front())
    return emitOpError() << "splits an induction variable of the tile.parallel whose body holds it";
  return success();
}

LogicalResult RowRangeOp::verify() {
  std::optional<int64_t> group = getGroupRows();
  if (!group)
    return success();
  if (getRows() % *group != 0)
    return emitOpError() << "group_rows " << *group << " does not divide rows " << getRows();
  // Groups are consumer warpgroups: the attribute means nothing outside a consumer region.
  auto ws = (*this)->getParentOfType<WarpSpecializeOp>();
  if (!ws || !ws.getConsumer().isAncestor((*this)->getParentRegion()))
    return emitOpError() << "group_rows needs a tile.warp_specialize consumer region around it";
  int64_t groups = ws.getConsumerThreads() / WarpSpecializeOp::kProducerThreads;
  if (getRows() / *group != groups)
    return emitOpError() << "group_rows " << *group << " splits " << getRows() << " rows into "
                         << getRows() / *group << " groups, but the consumer "
                         << "region has " << groups << " warpgroups";
  return success();
}

LogicalResult BarrierOp::verify() {
  if (!getWarpgroup())
    return success();
  auto ws = (*this)->getParentOfType<WarpSpecializeOp>();
  if (!ws || !ws.getConsumer().isAncestor((*this)->getParentRegion()))
    return emitOpError() << "a warpgroup barrier needs a tile.warp_specialize consumer region "
                            "around it";
  return success();
}

LogicalResult AllocOp::verify() {
  MemRefType type = getBuffer().getType();
  auto space = getMemorySpace(type);
  if (!space)
    return emitOpError() << "buffer must be in #tile.space<shared> or #tile.space<fragment>";
  if (!type.hasStaticShape())
    return emitOpError() << "buffer shape must be static, found " << type;
  if (auto layout = getLayoutAttr()) {
    if (*space != MemorySpace::fragment)
      return emitOpError() << "only fragment buffers take a #tile.layout";
    int64_t rank = layout.getKind() == "mma" ? 2 : 1;
    if (type.getRank() != rank)
      return emitOpError() << "#tile.layout<" << layout.getKind() << "> needs a rank-" << rank
                           << " fragment, found " << type;
  }
  return success();
}

LogicalResult StageOp::verify() {
  MemRefType buffer = getBuffer().getType(), result = getResult().getType();
  if (!isShared(buffer) || !isShared(result))
    return emitOpError() << "stages are views of shared buffers";
  if (buffer.getRank() != result.getRank() + 1 ||
      buffer.getShape().drop_front() != result.getShape() ||
      buffer.getElementType() != result.getElementType())
    return emitOpError() << "result must drop the leading (stage) dimension of " << buffer
                         << ", found " << result;
  return success();
}

/// The checks tile.read, tile.write and tile.read_bounds share: one index per dimension of the
/// global tensor, and a scalar (`what`: the result or the value written) of its element type.
static LogicalResult verifyElementAccess(Operation *op, Value tensor, ValueRange indices,
                                         Type scalar, StringRef what) {
  auto type = cast<GlobalTensorType>(tensor.getType());
  if (static_cast<int64_t>(indices.size()) != type.getRank())
    return op->emitOpError() << "needs " << type.getRank() << " indices, found " << indices.size();
  if (scalar != type.getElementType())
    return op->emitOpError() << what << " type must be the element type " << type.getElementType();
  return success();
}

LogicalResult ReadOp::verify() {
  return verifyElementAccess(*this, getTensor(), getIndices(), getResult().getType(), "result");
}

LogicalResult PrefetchOp::verify() {
  auto type = cast<GlobalTensorType>(getTensor().getType());
  if (static_cast<int64_t>(getIndices().size()) != type.getRank())
    return emitOpError() << "needs " << type.getRank() << " indices, found " << getIndices().size();
  return success();
}

LogicalResult WriteOp::verify() {
  return verifyElementAccess(*this, getTensor(), getIndices(), getValue().getType(), "value");
}

LogicalResult ReadBoundsOp::verify() {
  if (failed(verifyElementAccess(*this, getTensor(), getIndices(), getMin().getType(), "result")))
    return failure();
  int64_t rank = cast<GlobalTensorType>(getTensor().getType()).getRank();
  if (getAxis() >= rank)
    return emitOpError() << "axis " << getAxis() << " is not an axis of a rank-" << rank
                         << " tensor";
  if (getMin().getType().isInteger(1))
    return emitOpError() << "needs integers wider than i1";
  return success();
}

LogicalResult FillOp::verify() {
  if (failed(verifyLocal(*this, getBuffer().getType(), "buffer")))
    return failure();
  if (getValue().getType() != getBuffer().getType().getElementType())
    return emitOpError() << "value type " << getValue().getType()
                         << " must match the buffer's element type "
                         << getBuffer().getType().getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

LogicalResult CopyOp::verify() {
  auto srcGlobal = dyn_cast<GlobalTensorType>(getSource().getType());
  auto dstGlobal = dyn_cast<GlobalTensorType>(getDest().getType());
  if (srcGlobal && dstGlobal)
    return emitOpError() << "cannot copy from global memory to global memory";
  if (!srcGlobal && !getSourceIndices().empty())
    return emitOpError() << "only a global source takes indices";
  if (!dstGlobal && !getDestIndices().empty())
    return emitOpError() << "only a global destination takes indices";
  if (!srcGlobal && failed(verifyLocal(*this, getSource().getType(), "source")))
    return failure();
  if (!dstGlobal && failed(verifyLocal(*this, getDest().getType(), "destination")))
    return failure();

  if (!srcGlobal && !dstGlobal) {
    auto src = cast<MemRefType>(getSource().getType());
    auto dst = cast<MemRefType>(getDest().getType());
    if (src.getShape() != dst.getShape())
      return emitOpError() << "local copy needs equal shapes, found " << src << " and " << dst;
    if (getDims())
      return emitOpError() << "local copies take no dims";
    if (getAsync())
      return emitOpError() << "only global-to-shared copies may be async";
    if (getStaging())
      return emitOpError() << "only a copy of a 2-D fragment to global memory may be staged";
    return success();
  }

  GlobalTensorType global = srcGlobal ? srcGlobal : dstGlobal;
  auto local = cast<MemRefType>(srcGlobal ? getDest().getType() : getSource().getType());
  size_t numIndices = srcGlobal ? getSourceIndices().size() : getDestIndices().size();
  if (static_cast<int64_t>(numIndices) != global.getRank())
    return emitOpError() << "global side needs " << global.getRank() << " indices, found "
                         << numIndices;
  if (!getDims())
    return emitOpError() << "a copy to or from global memory needs dims";
  ArrayRef<int64_t> dims = *getDims();
  if (static_cast<int64_t>(dims.size()) != local.getRank())
    return emitOpError() << "dims must name one global dimension per local dimension ("
                         << local.getRank() << "), found " << dims.size();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= global.getRank())
      return emitOpError() << "dims[" << i << "] = " << d << " is out of range for rank "
                           << global.getRank();
    if (llvm::count(dims, d) > 1)
      return emitOpError() << "dims must be distinct";
  }
  if (srcGlobal && isShared(local) && local.getElementType() != global.getElementType())
    return emitOpError() << "global-to-shared copies cannot convert: " << global.getElementType()
                         << " to " << local.getElementType();
  if (getAsync() && !(srcGlobal && isShared(local)))
    return emitOpError() << "only global-to-shared copies may be async";
  if (std::optional<uint64_t> group = getGroupRows()) {
    if (!getAsync() || !isShared(local) || local.getRank() != 2)
      return emitOpError() << "only an async copy into a 2-D shared tile may be split over "
                              "warpgroups (group_rows)";
    int64_t rows = local.getDimSize(0), each = static_cast<int64_t>(*group);
    if (rows % each != 0)
      return emitOpError() << "group_rows " << each << " does not divide the tile's " << rows
                           << " rows";
    auto ws = (*this)->getParentOfType<WarpSpecializeOp>();
    if (!ws || !ws.getConsumer().isAncestor((*this)->getParentRegion()))
      return emitOpError() << "group_rows needs a tile.warp_specialize consumer region around it";
    int64_t groups = ws.getConsumerThreads() / WarpSpecializeOp::kProducerThreads;
    if (rows / each != groups)
      return emitOpError() << "group_rows " << each << " splits " << rows << " rows into "
                           << rows / each << " groups, but the consumer region has " << groups
                           << " warpgroups";
  }
  if (Value staging = getStaging()) {
    auto stage = dyn_cast<MemRefType>(staging.getType());
    if (!dstGlobal || !isFragment(local) || local.getRank() != 2)
      return emitOpError() << "only a copy of a 2-D fragment to global memory may be staged";
    if (!stage || !isShared(stage) || stage.getShape() != local.getShape() ||
        stage.getElementType() != global.getElementType()) {
      std::string want;
      llvm::raw_string_ostream(want)
          << local.getDimSize(0) << "x" << local.getDimSize(1) << "x" << global.getElementType();
      return emitOpError() << "staging buffer must be shared memory of the fragment's shape "
                              "in the destination's element type ("
                           << want << "), found " << staging.getType();
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::verify() {
  auto a = dyn_cast<MemRefType>(getA().getType());
  auto b = dyn_cast<MemRefType>(getB().getType());
  auto c = dyn_cast<MemRefType>(getC().getType());
  if (!a || !b || !c || a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError() << "operands must be 2-D buffers";
  if (!isFragment(c) || !c.getElementType().isF32())
    return emitOpError() << "accumulator must be an f32 fragment, found " << c;
  if (!isShared(a) && !isFragment(a))
    return emitOpError() << "A must be in shared memory or a fragment, found " << a;
  if (!isShared(b))
    return emitOpError() << "B must be in shared memory, found " << b;
  if (a.getElementType() != b.getElementType() ||
      !(a.getElementType().isBF16() || a.getElementType().isF16()))
    return emitOpError() << "A and B must both be bf16 or both f16, found " << a.getElementType()
                         << " and " << b.getElementType();
  if (getTransposeA() && !isShared(a))
    return emitOpError() << "a transposed A (transpose_a) must be in shared memory, found " << a;
  int64_t m = a.getDimSize(getTransposeA() ? 1 : 0), k = a.getDimSize(getTransposeA() ? 0 : 1);
  int64_t bk = getTransposeB() ? b.getDimSize(1) : b.getDimSize(0);
  int64_t n = getTransposeB() ? b.getDimSize(0) : b.getDimSize(1);
  if (bk != k)
    return emitOpError() << "contraction sizes differ: A has K = " << k << ", B has " << bk;
  if (c.getDimSize(0) != m || c.getDimSize(1) != n)
    return emitOpError() << "accumulator must be " << m << "x" << n << ", found " << c;
  if (getAsync() && !(*this)->hasAttr(kWgmmaAttr))
    return emitOpError() << "only a wgmma gemm (tile.wgmma) can be async";
  return success();
}

LogicalResult GemmWaitOp::verify() {
  for (Value acc : getAccumulators()) {
    auto type = cast<MemRefType>(acc.getType());
    if (!isFragment(type) || type.getRank() != 2 || !type.getElementType().isF32())
      return emitOpError() << "waits for gemm accumulators (2-D f32 fragments), found " << type;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  auto src = dyn_cast<MemRefType>(getSource().getType());
  auto dst = dyn_cast<MemRefType>(getDest().getType());
  if (!src || !dst || !isFragment(src) || !isFragment(dst))
    return emitOpError() << "source and destination must be fragments";
  if (src.getRank() != 2 || dst.getRank() != 1)
    return emitOpError() << "reduces a 2-D fragment into a 1-D fragment, found " << src << " to "
                         << dst;
  if (src.getDimSize(0) != dst.getDimSize(0))
    return emitOpError() << "destination must have one element per row (" << src.getDimSize(0)
                         << "), found " << dst.getDimSize(0);
  if (!src.getElementType().isF32() || !dst.getElementType().isF32())
    return emitOpError() << "reductions are in f32";
  return success();
}

LogicalResult ScanOp::verify() {
  MemRefType type = getBuffer().getType();
  if (!isShared(type))
    return emitOpError() << "scans a shared buffer, found " << type;
  if (!type.getElementType().isF32())
    return emitOpError() << "scans are in f32, found " << type.getElementType();
  if (type.getRank() > 2)
    return emitOpError() << "scans a 1-D or 2-D buffer, found rank " << type.getRank();
  return success();
}

#define GET_OP_CLASSES
#include "metaattn/Dialect/Tile/IR/TileOps.cpp.inc"
