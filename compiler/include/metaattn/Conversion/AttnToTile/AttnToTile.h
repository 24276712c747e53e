//===- AttnToTile.h - attn to tile conversion --------------------*- C++ -*-===//
#ifndef METAATTN_CONVERSION_ATTNTOTILE_ATTNTOTILE_H
#define METAATTN_CONVERSION_ATTNTOTILE_ATTNTOTILE_H

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "metaattn/Dialect/Tile/IR/TileOps.h"
#include "mlir/Pass/Pass.h"

namespace metaattn {

#define GEN_PASS_DECL
#include "metaattn/Conversion/AttnToTile/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "metaattn/Conversion/AttnToTile/Passes.h.inc"

/// What the tiler needs to know about the target.
struct TargetDesc {
  std::string name;            ///< sm_80, sm_90, sm_90a, gfx90a
  int64_t sharedBytesPerBlock; ///< opt-in maximum
  int64_t registersPerThread;  ///< architectural maximum
  bool wgmma = false;          ///< warpgroup wgmma.mma_async (sm_90a)
  static std::optional<TargetDesc> get(llvm::StringRef name);
};

/// The tiling of one attention kernel.
struct TileConfig {
  int64_t blockM = 64, blockN = 64, warps = 4, stages = 2;
  /// Head dims padded to the tensor-core granularity (16).
  int64_t paddedDim = 0, paddedValueDim = 0;
  /// A score function y * c (c > 0 constant; y the score s, or computed from it as a soft
  /// cap's tanh(s·k)) whose score is the shift: keep y raw, take the row maximum of it and
  /// apply c where the maximum and the scores are used, so that exp(c·y − c·m) is one fma per
  /// element (no multiplication by c in the score loop).
  bool foldScoreScale = true;
  /// With foldScoreScale, a raw score y = g(s) with g nondecreasing in the dot product s and
  /// the same over a tile (a soft cap's tanh(s·k)): the row maximum is of s, mapped through g
  /// once per row, and g is computed in the weights' loop after it (monotoneInScore).
  bool monotoneMax = true;
  /// A softmax whose score splits as F(s, kv, ...) + G(q) (RowTermSplit, ALiBi): compute
  /// every row's scores at the block's first row q0 (the weights exp(x − max x) do not change
  /// when a row's scores move together) and add G(q) − G(q0) back to the row maximum that the
  /// finalizer reads (the row statistic). Off by default (PipelineOptions::dropRowTerms).
  bool dropRowTerms = false;
  /// K > 0: the weights' exp(s − m) carry kExp2EmulationAttr = K (every K-th element of the
  /// fragment loop on the FMA pipe); 0: all on the special-function unit.
  int64_t exp2Emulation = 0;
  /// A softmax-family attention whose shift is its score, with the score bounded whatever
  /// the dot product (scoreRange: a soft cap's c·tanh(s·k) in [−c, c]) and at most 104 wide
  /// (bf16; 20.5 with f16 weights, whose range is narrower): the shift is a constant near the
  /// bound instead of the running row maximum, so the kernel takes no row maximum and
  /// rescales nothing (PipelineOptions::boundedShift).
  bool boundedShift = false;
  /// A running maximum that moves only where a row's maximum passes it by more than
  /// kLazyRescaleLog2 (in base-2 exponent units: the weights then reach at most 2^8): most
  /// tiles leave every factor exactly 1, and the output's rescale is skipped in threads whose
  /// factors all are (kSkipUnitScaleAttr). PipelineOptions::lazyRescale.
  bool lazyRescale = false;
  static constexpr double kLazyRescaleLog2 = 8.0;
  /// Classify tiles by the bounds of custom inputs with a plain q or kv axis (document ids,
  /// tile.read_bounds); off, such inputs leave every tile partial.
  bool idBounds = true;
  /// A kv loop whose tiles a mask skips by reading a custom input that is constant over a
  /// tile (a block-sparse map) walks only the kept tiles (tile.kept_tiles): each warp tests
  /// 32 tiles with one read per lane and a ballot, instead of one read and a branch per tile
  /// on the loop's path. On: 1.3x (B4 S4k) to 3x (B1 S16k) faster at 5-20% of the blocks
  /// kept on the H200, 2-5% slower with every block kept (benchmarks/RESULTS.md).
  /// Masks that bound ids over a tile (document masks) get the list too, each kept tile marked
  /// with whether the mask holds on all of it (the loop bounds only the others' ids).
  bool keptTiles = true;
  /// ... those that bound ids: not in persistent kernels, whose D256 consumers spilled 138 B
  /// beside a producer walking the list (`metaattn-run --resource-report --persistent`).
  bool keptTileBounds = true;
  /// Custom inputs a pre-pass bounds per kv tile (kvTileBoundsInputs: a document mask's key
  /// ids) are read as each tile's smallest and largest value from that pre-pass's output
  /// (buildTileBoundsKernel) instead of bounded over the tile's ids in the kernel: two reads
  /// per tile where every block of a sequence would read all of its ids. The kernel then
  /// takes one more parameter per such input, after its others.
  bool kvTileBounds = false;
  /// math.tanh in attention kernels carries kApproxAttr: the CUDA printer computes it with
  /// `tanh.approx.f32` (PipelineOptions::approxTanh).
  bool approxTanh = true;
  /// Whether tile-gemm-overlap, when it runs, should overlap this kernel's gemms (false:
  /// the kernel gets tile.no_gemm_overlap).
  bool gemmOverlap = true;
  /// Whether the consumer warpgroups should take turns on the tensor cores
  /// (tile-warpgroup-pingpong; the kernel gets tile.pingpong where ConvertAttnToTile's
  /// mark-pingpong is set).
  bool pingpong = false;
  /// Store the output through shared memory as whole 16-byte row chunks: the query's tile
  /// (free once the last score gemm is done) where it has the output's shape and type, or
  /// with `ownStagingTile` a tile of its own (persistent kernels, whose producer reloads the
  /// query tile meanwhile).
  bool stagedOutput = false, ownStagingTile = false;
  /// Shared memory of the Q tile and `stages` K and V tiles.
  int64_t sharedBytes(int64_t elementBytes) const;
  /// Whether those tiles plus `extraBytes` fit the target's shared memory per block, with
  /// room for what the emitter adds: up to 1 KB to align the shared base, and up to 2 KB for
  /// the mbarrier arrays (16 bytes apart) and the 1024-byte alignment of the tile after them.
  bool fitsSharedMemory(int64_t elementBytes, const TargetDesc &target,
                        int64_t extraBytes = 0) const;
};

/// How the kernel will be scheduled after convert-attn-to-tile (the passes that follow).
struct KernelSchedule {
  /// tile-warp-specialize will give it a TMA producer warpgroup.
  bool warpSpecialize = true;
  /// tile-gemm-overlap will overlap its kv loop's gemms (more registers live per thread).
  bool gemmOverlap = false;
  /// The kernel will be launched only on long key sequences (at least kLongKeys keys, see
  /// metaattn/Pipeline/Pipeline.h: its long-keys plan), where wider kv tiles may pay.
  bool longKeys = false;
};

/// What the tile model needs of a variant beyond its head dims and its mask.
struct VariantTraits {
  /// Its weights are shifted by a running row maximum (softmax-like); false for
  /// normaliser-free variants (sigmoid, ReLU).
  bool shifted = true;
  /// Its score or mask reads a custom input that varies along the kv axis (per element or per
  /// kv block: a document id, a block map, a bias matrix).
  bool kvInputs = false;
  /// Its score reads such an input per element (a bias matrix), not only its mask (a document
  /// id, a block map).
  bool scoreKvInputs = false;
  /// attn-mask-analysis bounds its mask causally: an affine upper kv bound that moves with the
  /// query row (kv <= q + ...), exact or holding wherever the mask keeps an entry (a document
  /// mask or a block map under a causal one). Others may bound it from below (a sliding window).
  bool causal = false;
  /// Its score function uses the special-function unit per element (a soft cap's tanh, an
  /// exp or a log of the score or of a position: any math op but abs, fma and copysign; not
  /// ALiBi's per-head slope).
  bool specialScore = false;
};

/// Whether `value`, in the score region `block`, is the same for every element of a tile: it
/// depends on no argument but b, h, seq_q and seq_kv, through side-effect-free ops.
bool elementInvariant(mlir::Block &block, mlir::Value value);

/// Chooses tile sizes from the head dims, the element size and the target: the largest kv
/// tile whose shared-memory footprint (Q, plus `stages` copies of K and V) fits, and a
/// register estimate (output accumulator + score tile per thread) under the target's limit.
/// `masked`: the attention has a mask other than `true` (its kv tiles are not all full).
TileConfig chooseTileConfig(int64_t headDim, int64_t valueDim, int64_t elementBytes,
                            const TargetDesc &target, bool masked = true,
                            KernelSchedule schedule = {}, VariantTraits traits = {});

/// Builds the tile.kernel for one online attention (used by convert-attn-to-tile). With
/// `epilogue`, an attn.combine one of whose values is `op`'s output (used by nothing else),
/// the kernel evaluates the combine in its epilogue and writes the combine's output instead
/// of its own: its parameters are q, k, v, the attention's inputs, the combine's other
/// values (in order), the combine's inputs, the combine's output, then the attention's row
/// statistic when it has one.
mlir::FailureOr<tile::KernelOp> buildAttentionKernel(mlir::OpBuilder &builder,
                                                     attn::OnlineAttentionOp op,
                                                     llvm::StringRef name, const TileConfig &config,
                                                     attn::CombineOp epilogue = {});

/// The custom inputs of `op` that a pre-pass can bound per kv tile (TileConfig::kvTileBounds):
/// 32- or 64-bit integer inputs whose axes are one plain kv axis and at most two b or h axes,
/// and which the mask reads (a document mask's key ids), in input order.
llvm::SmallVector<unsigned> kvTileBoundsInputs(attn::OnlineAttentionOp op);

/// The pre-pass of custom input `input` of `op` (one of kvTileBoundsInputs): one warp per
/// kv tile of `tile` keys (and per index of the input's other axes) writes the smallest and
/// largest value of the tile's keys (those below the input's length) to a tensor shaped as
/// the input with its kv axis ceil(Skv / tile) long and a trailing axis of 2 (min, max).
/// Its parameters: the input, the bounds.
mlir::FailureOr<tile::KernelOp> buildTileBoundsKernel(mlir::OpBuilder &builder,
                                                      attn::OnlineAttentionOp op, unsigned input,
                                                      llvm::StringRef name, int64_t tile);

/// Tiling of the chunked linear-attention kernel (attn.recurrent).
struct RecurrentTileConfig {
  /// Tokens per chunk; the key dim padded to whole warp row-tiles; the key rows and value
  /// columns of the state a block of the states kernel owns (in registers), and the value
  /// columns of a block of the output kernel; the pipeline stages of the states kernel's
  /// chunk loop and of the output kernel's key-tile loop.
  int64_t chunk = 64, warps = 4, stages = 2, outputStages = 2;
  /// blockK is the key tile of the output kernel's loop.
  int64_t paddedKeyDim = 0, blockK = 64, blockV = 64, outputBlockV = 64;
  /// The states kernel's blocks: key rows of the state (a divisor of paddedKeyDim, a multiple
  /// of 16·stateWarps) and warps.
  int64_t stateRows = 64, stateWarps = 4;
  /// The states kernel writes each chunk's state through a shared tile of the state's size
  /// (16-byte row chunks, block::storeFragStaged) instead of element pair by pair.
  bool stageStates = false;
  /// Vector gates: the output kernel reuses one pair of sub-chunk operand tiles for its
  /// off-diagonal gemms, one after another, and runs its key loop on one stage, so that two
  /// blocks fit a multiprocessor (about 104 KB of shared memory instead of 173 KB at
  /// Dk = Dv = 128).
  bool compactVectorOutput = false;
  /// Vector gates: a gates kernel runs first and writes the cumulative log-gates (gate_mod
  /// applied, masked, scanned per chunk) to a temporary [B, S, H, padded Dk] f32; the states
  /// and output kernels read them instead of each transforming and scanning the raw gates.
  bool precomputeGates = false;
  /// Blocks per multiprocessor each kernel is compiled for (registers capped to allow them).
  int64_t statesBlocksPerSm = 1, outputBlocksPerSm = 1;
  /// One kernel instead of the states and output kernels (vector gates: up to one key tile of
  /// 16·warps dims, else registers spill): a block per
  /// (value tile, head, batch) walks the chunks with its columns of the state in registers,
  /// the whole key dim of them (paddedKeyDim / blockK fragments of blockK x outputBlockV), and
  /// writes each chunk's output; the chunk states never reach global memory. Its loop runs
  /// `stages` stages of the chunk's Q, K and V; outputBlocksPerSm is its blocks per
  /// multiprocessor.
  bool fused = false;
  /// Fused kernel, scalar gates: the update's V̂ = V ⊙ decay has no tile of its own; it is
  /// written into Q's first key tile once the chunk's Q gemms are done (over V once P·V has
  /// read it where the tiles' shapes differ), instead of a tile written before the chunk's
  /// gemms with which the update is then issued. Either way the update runs during the
  /// output's element-wise work, but over V.
  bool decayValuesInPlace = false;
  /// Vector gates: the output kernel splits a chunk into this many sub-chunks; only the
  /// diagonal ones are computed element-wise, the rest by gemms.
  static constexpr int64_t kSubChunks = 4;
  /// Shared memory of the output kernel (`output`; the fused kernel when `fused`) or of the
  /// states kernel.
  int64_t sharedBytes(int64_t elementBytes, attn::GateKind gate, bool output) const;
};

/// Sizes a caller sets instead of the model (0: from the model): the chunk, the value
/// columns per block of both kernels, the output kernel's warps, the states kernel's
/// pipeline stages, rows of the state and warps per block; whether state stores may be staged.
struct RecurrentTileRequest {
  int64_t chunk = 0, blockV = 0, warps = 0, stages = 0, stateRows = 0, stateWarps = 0;
  /// Let the model stage the state stores (it does where the blocks per multiprocessor stay).
  bool stagedStateStores = true;
  /// Ask for RecurrentTileConfig::compactVectorOutput (vector gates only; on by default:
  /// 20% faster on the H200 at Dk = Dv = 128).
  bool compactVectorOutput = true;
  /// Ask for RecurrentTileConfig::precomputeGates (vector gates only; on by default: 7-8%
  /// faster for GLA on the H200, benchmarks/RESULTS.md, twelfth session).
  bool precomputeGates = true;
  /// Ask for RecurrentTileConfig::fused: granted where the state's columns fit a block's
  /// registers (the padded key dim times the value tile over the threads at most 128 per
  /// thread; vector gates: one key tile) and the tiles its shared memory.
  bool fusedChunks = false;
};

/// The chunk config of a recurrent op with these head dims and gate kind on `target`; the
/// stages and blocks per multiprocessor follow from the sizes, requested or chosen.
RecurrentTileConfig chooseRecurrentConfig(int64_t keyDim, int64_t valueDim, attn::GateKind gate,
                                          int64_t elementBytes, const TargetDesc &target,
                                          const RecurrentTileRequest &request = {});

/// The kernels of the chunked algorithm of `op`, in launch order: the fused kernel alone
/// (`config.fused`: the op's operands, then the output and the final state), or: with
/// `config.precomputeGates` (vector gates) a gates kernel, then the states kernel and the output
/// kernel. Each takes the op's operands; then, with precomputed gates, the cumulative log-gates,
/// [B, S, H, padded Dk] f32, which the gates kernel writes; then (states and output kernels) a
/// buffer of the state entering every chunk, [B, H, ceil(S / chunk), padded Dk, Dv] in the
/// element type, which the states kernel writes (and then the final state, when the op returns
/// one) and the output kernel reads before writing the output. `names` names them, one per
/// kernel (recurrentKernelCount).
mlir::FailureOr<llvm::SmallVector<tile::KernelOp>>
buildRecurrentKernels(mlir::OpBuilder &builder, attn::RecurrentOp op,
                      llvm::ArrayRef<std::string> names, const RecurrentTileConfig &config);

/// How many kernels buildRecurrentKernels makes for `op` under `config` (1 when fused, 2 or 3).
int64_t recurrentKernelCount(attn::RecurrentOp op, const RecurrentTileConfig &config);

/// Builds the tile.kernel of one attn.combine: blocks of `config.blockM` query rows and
/// `config.warps` warps, one per (query tile, head, batch entry).
mlir::FailureOr<tile::KernelOp> buildCombineKernel(mlir::OpBuilder &builder, attn::CombineOp op,
                                                   llvm::StringRef name, const TileConfig &config);

/// Attributes convert-attn-to-tile puts on every kernel it builds, so that a runtime can run
/// the function it came from: the function's name, the kernel's position among its kernels
/// (launch order), and per kernel parameter where its tensor lives: "arg:N" (the function's
/// argument N), "result:N" (its result N) or "temp:N" (an intermediate the caller allocates;
/// its shape follows from the kernel's dimension symbols).
constexpr llvm::StringLiteral kFunctionAttr = "tile.function";
constexpr llvm::StringLiteral kStepAttr = "tile.step";
constexpr llvm::StringLiteral kBindingsAttr = "tile.bindings";

} // namespace metaattn

#endif // METAATTN_CONVERSION_ATTNTOTILE_ATTNTOTILE_H
