//===- CUDAEmitterImpl.h - state of the CUDA printer -------------*- C++ -*-===//
#ifndef METAATTN_LIB_TARGET_CUDA_CUDAEMITTERIMPL_H
#define METAATTN_LIB_TARGET_CUDA_CUDAEMITTERIMPL_H

#include "metaattn/Target/CUDA/CUDAEmitter.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace metaattn::cuda {

/// Whether a tile.kept_tiles test bounds ids lane by lane, all of them 32-bit ones: a
/// producer walking its list then keeps 56 registers and eight loads in flight per lane for
/// the count (with 64-bit ids the consumers spilled 102 B beside such a producer: it keeps 24
/// and one load).
bool boundsNarrowIdsPerLane(metaattn::tile::KeptTilesOp kept);

/// Prints one kernel. Scalar SSA values become `const` locals named v<N>; buffers become
/// device-library objects; tile.parallel bodies become unrolled loops over the owning
/// thread's fragment elements.
class Printer {
public:
  Printer(llvm::raw_ostream &os, int64_t threads, bool wgmma = false, bool tma = false)
      : os(os), threads(threads), wgmma(wgmma), tma(tma), shared(wgmma || tma) {}

  mlir::LogicalResult printBlock(mlir::Block &block);
  mlir::LogicalResult printKeptTiles(tile::KeptTilesOp op);
  mlir::LogicalResult printOp(mlir::Operation *op);

  /// The C++ expression of a value (its name, or an element access inside tile.parallel).
  std::string name(mlir::Value value);
  std::string fresh(mlir::Value value);
  void bind(mlir::Value value, std::string expr) { names[value] = std::move(expr); }
  llvm::raw_ostream &line();

  /// C++ type of a scalar MLIR type (int for index, float, bf16, fp16, bool).
  static mlir::FailureOr<std::string> scalarType(mlir::Type type);
  /// C++ type of a local buffer (SmemTile / Frag / RowVec).
  mlir::FailureOr<std::string> bufferType(mlir::Value buffer);

  /// The shared buffers placed so far (tile::SharedArena, which passes count with too).
  tile::SharedArena shared;
  /// Whether the body calls metaattn_read_bounds (its definition is printed only then).
  bool readsBounds = false;
  /// ... in a producer warp (metaattn_read_bounds_lean).
  bool readsBoundsLean = false;
  /// ... in a tile.kept_tiles test, one lane alone (metaattn_read_bounds_lane).
  bool readsBoundsLane = false;
  /// Whether the body has a tile.write (metaattn_write is printed only then).
  bool writesScalars = false;
  /// Whether a tile.prefetch was printed (its helper goes into the preamble).
  bool prefetches = false;
  /// The TMA descriptors tile.tma_copy ops use, in parameter order (named tmap<i>).
  std::vector<rt::TensorMapParam> tensorMaps;

private:
  mlir::LogicalResult printScalar(mlir::Operation *op);
  mlir::LogicalResult printScf(mlir::Operation *op);
  mlir::LogicalResult printTileOp(mlir::Operation *op);
  mlir::LogicalResult printParallel(tile::ParallelOp op);
  /// printParallel without the guard of a rescale by unit factors (tile.skip_unit_scale).
  mlir::LogicalResult printParallelLoop(tile::ParallelOp op);
  mlir::LogicalResult printStridedParallel(tile::ParallelOp op);
  /// The strided loop with each thread owning runs of 16-byte chunks of the shared tiles the
  /// body addresses at its own row and (a chunk-aligned offset plus) its column
  /// (CUDALoopEmitter.cpp); std::nullopt (nothing printed) where that does not apply.
  std::optional<mlir::LogicalResult> printChunkedParallel(tile::ParallelOp op);
  /// A counted scf.for reading shared row segments along its induction variable, printed a
  /// 16-byte chunk of each segment at a time (CUDALoopEmitter.cpp); std::nullopt (nothing
  /// printed) where that does not apply.
  std::optional<mlir::LogicalResult> printChunkedFor(mlir::scf::ForOp loop);
  /// A local per loop-carried value of `loop`, initialised and bound to its iter arg; their
  /// names.
  mlir::FailureOr<llvm::SmallVector<std::string>> declareCarried(mlir::scf::ForOp loop);
  /// The loop's body, then its yielded values assigned to the `carried` locals.
  mlir::LogicalResult printLoopBody(mlir::scf::ForOp loop, llvm::ArrayRef<std::string> carried);
  /// `for` over `total` indices spread over the block's threads (index `index`, guarded when
  /// the threads do not divide it), opened and closed around a strided loop's body.
  struct StridedLoop {
    std::string index;
    bool guarded = false;
  };
  StridedLoop openStridedLoop(int64_t total, int unroll);
  void closeStridedLoop(const StridedLoop &loop);
  mlir::LogicalResult printLoadStore(mlir::Operation *op);
  mlir::LogicalResult printCopy(tile::CopyOp op);
  mlir::LogicalResult printWarpSpecialize(tile::WarpSpecializeOp op);
  mlir::LogicalResult printAsyncOp(mlir::Operation *op);
  /// The kernel parameter holding the TMA descriptor `copy` reads through.
  std::string tensorMapFor(tile::TmaCopyOp copy);
  std::string origin(mlir::ValueRange indices, llvm::StringRef tag);
  /// The guard of a producer op that one thread does: lane 0 where a warp runs the producer.
  const char *lane0() const { return producerWarp ? "if ((threadIdx.x & 31) == 0) " : ""; }

  llvm::raw_ostream &os;
  int64_t threads;
  /// Some gemm of the kernel runs on wgmma (tile-use-wgmma marked it).
  bool wgmma;
  /// The kernel copies with TMA (tile-warp-specialize).
  bool tma;
  /// Inside a warp_specialize consumer region: its threads, whose barriers are named.
  int64_t consumerThreads = 0;
  /// Inside a producer region that a whole warp runs (it reads id bounds, whose loads the
  /// lanes share): only lane 0 announces bytes and issues TMA copies.
  bool producerWarp = false;
  int indent = 1;
  unsigned counter = 0;
  llvm::DenseMap<mlir::Value, std::string> names;
  /// Inside a tile.parallel: the element-index expression per buffer rank (and for 1-D
  /// fragments, per layout: row or column vectors).
  struct ParallelContext {
    std::string elem2d, slot1d, colSlot1d;
    /// Whether threads own the loop's indices through a fragment (else they are strided).
    bool anchored = true;
    /// Anchored: the layout type's alias and the axes its induction variables index (a 1-D
    /// loop over a column vector indexes columns).
    std::string alias;
    unsigned rank = 0;
    bool columns = false;
  };
  std::optional<ParallelContext> parallel;
  /// Fragments that only row reductions read (see rowReducedOnly in CUDAEmitter.cpp), with
  /// their reduction: printed as a RowVec of this thread's partial reductions, which the
  /// element loops that write the fragment accumulate and tile.reduce combines over the quad.
  llvm::DenseMap<mlir::Value, tile::ReduceKind> rowPartials;
  /// Per tile.kept_tiles list: the lambda that tests an index; per tile.tile_at: its cursor.
  llvm::DenseMap<mlir::Value, std::string> keptTests;
  llvm::DenseMap<mlir::Operation *, std::string> keptCursors;
  /// While a tile.kept_tiles test prints: its parameter saying how many loads per lane a
  /// bounds read in it keeps in flight.
  std::string keptLoads;
  /// Shared loads and stores printChunkedParallel / printChunkedFor turned into an element of a
  /// register array that holds 16-byte chunks of the tile (the expression).
  llvm::DenseMap<mlir::Operation *, std::string> chunkedAccesses;
  /// Whether `index` (a chunked loop's column) has a user other than those accesses, so that
  /// it needs a variable of its own.
  bool usedOutsideChunks(mlir::Value index) const {
    return llvm::any_of(index.getUsers(),
                        [&](mlir::Operation *user) { return !chunkedAccesses.count(user); });
  }
  friend struct IndentScope;
};

struct IndentScope {
  Printer &p;
  explicit IndentScope(Printer &p) : p(p) { ++p.indent; }
  ~IndentScope() { --p.indent; }
};

} // namespace metaattn::cuda

#endif // METAATTN_LIB_TARGET_CUDA_CUDAEMITTERIMPL_H
