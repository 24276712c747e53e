//===- BlockInterpreter.h - Interpreter of one tile.kernel block ---*- C++ -*-===//
//
// The state of one thread block while the CPU executor runs it: the values of SSA names
// (scalars, local buffer views, global tensors) and one method per op.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_LIB_EXECUTOR_BLOCKINTERPRETER_H
#define METAATTN_LIB_EXECUTOR_BLOCKINTERPRETER_H

#include "metaattn/Dialect/Tile/IR/TileOps.h"
#include "metaattn/Support/HostTensor.h"
#include "metaattn/Support/ScalarEval.h"

#include "llvm/ADT/DenseMap.h"

#include <array>
#include <deque>
#include <memory>

namespace metaattn::executor {
struct BarrierState;
} // namespace metaattn::executor

namespace metaattn::executor {

/// The dense element array behind a tile.alloc.
struct LocalStorage {
  std::vector<double> data;
};

/// A view of a local buffer: the whole buffer, or one stage of it.
struct BufferView {
  std::shared_ptr<LocalStorage> storage;
  int64_t offset = 0;
  llvm::SmallVector<int64_t, 3> shape;
  llvm::SmallVector<int64_t, 3> strides;
  mlir::Type elementType;

  int64_t getRank() const { return static_cast<int64_t>(shape.size()); }
  int64_t getNumElements() const;
  bool inBounds(llvm::ArrayRef<int64_t> idx) const;
  /// Offset into storage of an in-bounds index.
  int64_t offsetOf(llvm::ArrayRef<int64_t> idx) const;
  double loadF(int64_t off) const { return storage->data[off]; }
  /// Stores `value` rounded to the element type (floats as f32 arithmetic would, integers
  /// wrapped).
  void storeF(int64_t off, double value) const;
  Scalar load(int64_t off) const;
  void store(int64_t off, Scalar value) const;
};

/// A tile.kept_tiles list: the kept indices in order, then the range's end (what a rank past
/// the count reads), and each kept index's marks (bit k: tile.keep's mark k).
struct KeptList {
  std::vector<int64_t> indices;
  std::vector<uint64_t> marks;
};

/// Any runtime value, used where values cross region boundaries.
struct RuntimeValue {
  Scalar scalar;
  BufferView buffer;
  HostTensor *global = nullptr;
  std::shared_ptr<const KeptList> list;
};

/// Runs the ops of one block of the launch grid.
class BlockInterpreter {
public:
  BlockInterpreter(std::array<int64_t, 3> blockId, std::array<int64_t, 3> grid, std::string &error);
  ~BlockInterpreter();

  /// Runs the kernel body with its parameters bound to `params`.
  mlir::LogicalResult runKernel(tile::KernelOp kernel, llvm::ArrayRef<HostTensor *> params);

private:
  // Control flow and scalars (BlockInterpreter.cpp).
  mlir::LogicalResult runRegionBlock(mlir::Block &block, llvm::ArrayRef<RuntimeValue> args,
                                     llvm::SmallVectorImpl<RuntimeValue> *yielded);
  mlir::LogicalResult runOp(mlir::Operation &op);
  mlir::LogicalResult runScalarOp(mlir::Operation &op);
  mlir::LogicalResult runParallel(tile::ParallelOp op);
  mlir::LogicalResult runPipelined(tile::PipelinedOp op);
  mlir::LogicalResult runFor(mlir::Operation &op);
  mlir::LogicalResult runIf(mlir::Operation &op);
  mlir::LogicalResult runLoadStore(mlir::Operation &op);
  mlir::LogicalResult runKeptTiles(tile::KeptTilesOp op);
  mlir::LogicalResult runTileAt(tile::TileAtOp op);

  // Data movement and compute on buffers (TileDataOps.cpp).
  mlir::LogicalResult runAlloc(tile::AllocOp op);
  mlir::LogicalResult runStage(tile::StageOp op);
  mlir::LogicalResult runCopy(tile::CopyOp op);
  mlir::LogicalResult runRead(tile::ReadOp op);
  mlir::LogicalResult runReadBounds(tile::ReadBoundsOp op);
  mlir::LogicalResult runWrite(tile::WriteOp op);
  mlir::LogicalResult runFill(tile::FillOp op);
  mlir::LogicalResult runGemm(tile::GemmOp op);
  mlir::LogicalResult runGemmWait(tile::GemmWaitOp op);
  /// c += a * op(b) for `op`'s shapes.
  mlir::LogicalResult multiply(tile::GemmOp op, const BufferView *a, const BufferView *b,
                               const BufferView *c);
  mlir::LogicalResult runReduce(tile::ReduceOp op);
  mlir::LogicalResult runScan(tile::ScanOp op);

  // Warp specialisation, mbarriers and TMA (TileAsyncOps.cpp). The producer region runs on
  // a second host thread with its own interpreter; mbarriers synchronise the two.
  mlir::LogicalResult runWarpSpecialize(tile::WarpSpecializeOp op);
  mlir::LogicalResult runAsyncOp(mlir::Operation &op);
  /// Copies the window of `tensor` at `origin` (dims along the buffer's dims) into `local`,
  /// zero outside the tensor.
  static void copyIn(const HostTensor &tensor, llvm::ArrayRef<int64_t> origin,
                     llvm::ArrayRef<int64_t> dims, const BufferView &local);

  // Values.
  RuntimeValue get(mlir::Value value) const;
  void bind(mlir::Value value, const RuntimeValue &rv);
  const Scalar *scalar(mlir::Operation *op, mlir::Value value);
  const BufferView *buffer(mlir::Operation *op, mlir::Value value);
  HostTensor *global(mlir::Operation *op, mlir::Value value);
  /// Reads index operands into `out`.
  mlir::LogicalResult indices(mlir::Operation *op, mlir::ValueRange values,
                              llvm::SmallVectorImpl<int64_t> &out);
  mlir::LogicalResult fail(mlir::Operation *op, const llvm::Twine &message);

  std::array<int64_t, 3> blockId;
  std::array<int64_t, 3> grid; // the launched grid (tile.num_blocks)
  std::string &error;
  llvm::DenseMap<mlir::Value, Scalar> scalars;
  llvm::DenseMap<mlir::Value, BufferView> buffers;
  llvm::DenseMap<mlir::Value, HostTensor *> globals;
  llvm::DenseMap<mlir::Value, std::shared_ptr<const KeptList>> lists;
  /// Async gemms issued and not yet retired by a tile.gemm_wait, oldest first.
  struct InFlightGemm {
    tile::GemmOp op;
    BufferView a, b, c;
  };
  std::deque<InFlightGemm> inFlight;
  /// The mbarriers of the block, shared by its producer and consumer interpreters.
  std::shared_ptr<BarrierState> barriers;
};

} // namespace metaattn::executor

#endif // METAATTN_LIB_EXECUTOR_BLOCKINTERPRETER_H
