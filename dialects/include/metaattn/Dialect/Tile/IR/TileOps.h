//===- TileOps.h - tile dialect operations, types, attributes ----*- C++ -*-===//
#ifndef METAATTN_DIALECT_TILE_IR_TILEOPS_H
#define METAATTN_DIALECT_TILE_IR_TILEOPS_H

#include "metaattn/Dialect/Tile/IR/TileDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

#include "metaattn/Dialect/Tile/IR/TileEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "metaattn/Dialect/Tile/IR/TileAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "metaattn/Dialect/Tile/IR/TileTypes.h.inc"
#define GET_OP_CLASSES
#include "metaattn/Dialect/Tile/IR/TileOps.h.inc"

namespace metaattn::tile {

/// The memory space of a local buffer, or std::nullopt for a memref outside tile's spaces.
std::optional<MemorySpace> getMemorySpace(mlir::MemRefType type);
inline bool isShared(mlir::Type type) {
  auto m = mlir::dyn_cast<mlir::MemRefType>(type);
  return m && getMemorySpace(m) == MemorySpace::shared;
}
inline bool isFragment(mlir::Type type) {
  auto m = mlir::dyn_cast<mlir::MemRefType>(type);
  return m && getMemorySpace(m) == MemorySpace::fragment;
}
/// memref<shape x elementType, #tile.space<space>>.
mlir::MemRefType getBufferType(mlir::MLIRContext *ctx, llvm::ArrayRef<int64_t> shape,
                               mlir::Type elementType, MemorySpace space);
/// The layout a fragment was given by tile-infer-layout (null when none yet).
FragmentLayoutAttr getFragmentLayout(mlir::Value buffer);
/// The fragment that maps a tile.parallel's indices to threads: the first fragment of the
/// loop's rank its body loads or stores (null when it touches none: the indices are spread
/// over the threads).
mlir::Value getParallelAnchor(ParallelOp par);
/// The arguments a kernel writes (its `tile.outputs` list), or std::nullopt when it has no
/// such list (then any argument may be written).
std::optional<llvm::SmallDenseSet<mlir::Value>> getKernelOutputs(KernelOp kernel);

/// A kernel's dynamic shared memory as the CUDA emitter lays it out: shared tile.alloc
/// buffers in program order, tiles (rank >= 2) at the tile alignment, vectors and mbarrier
/// arrays at 16 bytes. Passes that must fit a buffer in (tile-stage-element-reads) count with
/// the same arena the emitter places buffers with.
class SharedArena {
public:
  /// 1024 in a kernel whose shared tiles wgmma or TMA access (the 128-byte swizzle repeats
  /// every 1024 bytes and is computed from the address; the base is then aligned at run time,
  /// which costs up to 1024 more bytes), else 128.
  explicit SharedArena(bool swizzled) : swizzled(swizzled) {}
  /// The arena of `kernel`'s shared buffers (swizzled where a gemm has kWgmmaAttr or a
  /// tile.tma_copy is present); with `before` and `extra`, as if a buffer of type `extra`
  /// were allocated right before the op `before` (a pass asking whether one more fits).
  static SharedArena of(KernelOp kernel, mlir::Operation *before = nullptr,
                        mlir::MemRefType extra = {});

  int64_t tileAlignment() const { return swizzled ? 1024 : 128; }
  /// Places a buffer of `type` after those placed before; returns its byte offset.
  int64_t place(mlir::MemRefType type);
  /// Bytes placed so far.
  int64_t size() const { return bytes; }
  /// The dynamic shared bytes a launch requests: size() plus the base's alignment slack.
  int64_t launchBytes() const { return bytes + (swizzled && bytes ? 1024 : 0); }

private:
  bool swizzled;
  int64_t bytes = 0;
};

/// Unit attribute of a tile.gemm that runs on Hopper's warpgroup wgmma (set by
/// tile-use-wgmma, read by the CUDA emitter).
constexpr llvm::StringLiteral kWgmmaAttr = "tile.wgmma";

/// Unit attribute of a tile.kernel that tile-warp-specialize leaves alone: one meant to run
/// several blocks per multiprocessor, where the producer/consumer form (consumers raised to
/// 240 registers) would leave room for one.
constexpr llvm::StringLiteral kNoWarpSpecializeAttr = "tile.no_warp_specialize";

/// Unit attribute of a tile.kernel whose kv loop tile-gemm-overlap leaves alone (set by
/// convert-attn-to-tile where the tile model says the overlap loses; TileConfig::gemmOverlap).
constexpr llvm::StringLiteral kNoGemmOverlapAttr = "tile.no_gemm_overlap";

/// Unit attribute of a tile.kernel whose consumer warpgroups should take turns on the tensor
/// cores (set by convert-attn-to-tile where the tile model picks the ping-pong schedule,
/// TileConfig::pingpong; tile-warpgroup-pingpong with only-marked wraps only such kernels).
constexpr llvm::StringLiteral kPingpongAttr = "tile.pingpong";

/// i64 attribute of a tile.kernel: the blocks per multiprocessor its register use must allow
/// (the CUDA emitter's second __launch_bounds__ argument).
constexpr llvm::StringLiteral kMinBlocksPerSmAttr = "tile.min_blocks_per_sm";

/// Unit attribute of a tile.kernel that walks its grid's tiles itself (set by
/// tile-warp-specialize's `persistent` mode): it is launched with grid (n, 1, 1) for some
/// n <= the grid's block count (`tile.num_blocks 0`), block `tile.block_id 0` taking tiles
/// block_id, block_id + n, ...
constexpr llvm::StringLiteral kPersistentAttr = "tile.persistent";

/// Unit attribute of a 2-D tile.parallel whose body scales a fragment by a row vector,
/// `x[i, j] = x[i, j] * a[i]` (a softmax's rescale of its output): the CUDA emitter skips the
/// loop in threads whose factors are all exactly 1, where it would change nothing (set by
/// convert-attn-to-tile's lazy-rescale, which makes unit factors common).
constexpr llvm::StringLiteral kSkipUnitScaleAttr = "tile.skip_unit_scale";

/// f64 attribute of a tile.kernel whose softmax weights subtract a constant instead of a
/// running row maximum (convert-attn-to-tile bounded-shift): that constant. The CUDA emitter
/// names it in the kernel's header comment, and `metaattn-run --resource-report` prints it.
constexpr llvm::StringLiteral kStaticShiftAttr = "tile.static_shift";

} // namespace metaattn::tile

#endif // METAATTN_DIALECT_TILE_IR_TILEOPS_H
