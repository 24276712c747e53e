//===- RecurrentKernelBuilder.h - attn.recurrent as chunked tile.kernels -*- C++ -*-===//
//
// The chunked algorithm of linear attention, as two kernels (three with vector gates, by
// default: a gates kernel first applies gate_mod to the raw gates, masks and scans them per
// chunk, and writes the cumulative log-gates, [B, S, H, padded Dk] f32, which the other two
// read instead of each transforming and scanning them again). The states kernel gives one
// block to each (batch b, head h, tile of BK key rows x BV value columns of the state); it
// walks the sequence in chunks of C tokens, keeping its part of the state S (BK x BV, f32) in
// registers, and writes the state entering every chunk to a buffer [B, H, ceil(S / C), Dk, Dv]
// (16-bit) and the final state. The output kernel then computes every (chunk, value tile,
// head, batch) in parallel from that buffer, walking the key dim in tiles of BK (a pipelined
// loop over Q, K and the entering state's rows; V and the gates arrive once).
// With G_i the cumulative log-decay of the chunk up to row i (inclusive; a scan of the gates in
// f32):
//
//   O_c   = ((Q Kᵀ) ⊙ D) V + (Q ⊙ exp(G)) S        D_ij = exp(G_i - G_j) for j <= i, else 0
//   S_new = exp(G_last) ⊙ S + (K ⊙ exp(G_last - G))ᵀ V
//
// Every exponent is <= 0, so nothing overflows however strong the decay. Scalar gates (per
// head or per token) make D a rank-one pattern applied after the Q Kᵀ gemm, and the states
// kernel applies their decay to the rows of its V tile (BV wide) rather than of K; vector
// gates (GLA) decay K per key dim and make every (i, j) of D a sum over the key dim, computed
// element-wise; scalar gates scale the output rows, exp(G_i) (Q S)_i, vector gates Q itself.
// The state update reads K as stored (tile.gemm transpose_a). The q/k/v modifier regions are
// applied in shared memory right after each chunk (or key tile) arrives, the decayed operand's
// in the decay pass; positions past the sequence or the head dims are forced to zero, so any
// length works. Inputs the modifiers read per block are read once, per token once per row.
//
// With RecurrentTileConfig::fused one kernel does both: a block per
// (value tile, head, batch) walks the chunks keeping its columns of the whole state in
// registers (one f32 fragment per key tile) and a 16-bit copy of them in shared memory, from
// which each chunk's Q S is computed before the update; no chunk state reaches global memory.
//
// The builder's members are defined in RecurrentKernelBuilder.cpp (the kernels: parameters,
// grid, buffers, bodies), RecurrentOperands.cpp (the chunk's operands in shared memory: copies,
// gates, modifiers, the initial state) and RecurrentChunkMath.cpp (a chunk's gemms and
// element-wise passes); the tile model is RecurrentTileConfig.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_CONVERSION_ATTNTOTILE_RECURRENTKERNELBUILDER_H
#define METAATTN_CONVERSION_ATTNTOTILE_RECURRENTKERNELBUILDER_H

#include "TileIRBuilder.h"
#include "metaattn/Conversion/AttnToTile/AttnToTile.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace metaattn {

/// Builds one kernel of the chunked algorithm of an attn.recurrent op.
class RecurrentKernelBuilder : public TileIRBuilder {
public:
  RecurrentKernelBuilder(mlir::OpBuilder &b, attn::RecurrentOp op,
                         const RecurrentTileConfig &config)
      : TileIRBuilder(b, op.getLoc()), op(op), cfg(config) {}

  enum class Role { States, Output, Gates, Fused };
  /// One of the kernels: the chunk states, the outputs from them, the gates kernel of
  /// precomputed gates, or the fused kernel (RecurrentTileConfig::fused) that does both.
  mlir::FailureOr<tile::KernelOp> build(llvm::StringRef name, Role role);

private:
  mlir::Value expF(mlir::Value x) { return b.create<mlir::math::ExpOp>(loc, x); }
  mlir::Value subF(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::SubFOp>(loc, x, y);
  }
  mlir::Value mulF(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::MulFOp>(loc, x, y);
  }
  mlir::Value subI(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::SubIOp>(loc, x, y);
  }
  mlir::Value toF32(mlir::Value x) {
    return x.getType().isF32() ? x : b.create<mlir::arith::ExtFOp>(loc, b.getF32Type(), x);
  }
  mlir::Value toElt(mlir::Value x) { return b.create<mlir::arith::TruncFOp>(loc, elt, x); }
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::SelectOp>(loc, c, x, y);
  }
  mlir::Value andI(mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::AndIOp>(loc, x, y);
  }

  /// Custom-input scalars at (b, t, h, d), `row` = t - t0 the chunk row. Inputs indexed by
  /// neither t nor d were read once at the kernel's start; those indexed by t but not d come
  /// from the chunk's copy in shared memory (copyChunkVectors).
  llvm::SmallVector<mlir::Value> readInputs(mlir::Value t, mlir::Value d, mlir::Value row);
  /// `region` applied to `x` at (t, d), or `x` when the region is empty.
  mlir::Value modify(mlir::Region &region, mlir::Value x, mlir::Value t, mlir::Value d,
                     mlir::Value row);
  /// Whether q_mod scales q by a factor that depends on neither q nor the key dim
  /// (`x · f(b, t, h, inputs not indexed by d)`, as 1/√Dk; needs inputDims): it then commutes with
  /// both gemms over the key dim and the output kernel applies f per output row instead of a pass
  /// over every key tile.
  bool qModIsRowFactor();
  /// Whether input `i` is indexed by t but not by d (one value per chunk row).
  bool isRowInput(size_t i) const;
  /// Copies of the chunk's per-token vectors into shared memory: the gates (per token, or
  /// per token and key dim) and the row inputs. Whether any was copied.
  bool copyChunkVectors(mlir::Value t0, bool async);
  /// The cumulative log-decay at chunk row `i` (and key dim `d` for vector gates).
  mlir::Value logDecay(mlir::Value i, mlir::Value d) {
    return vectorGate ? load(gates, {i, d}) : load(gates, {i});
  }

  void declareParams(tile::KernelOp kernel);
  void loadGates(mlir::Value t0);
  void applyModifiers(mlir::Value t0, mlir::Value keyOffset, bool keys, bool values);
  /// `inside()` for chunk positions on or below the diagonal (j <= i), else 0 (an scf.if
  /// whose then-branch `inside` builds).
  mlir::Value causalOrZero(mlir::Value i, mlir::Value j, llvm::function_ref<mlir::Value()> inside);
  void accumulateKeyTile(mlir::Value keyOffset);
  void finishChunk(mlir::Value t0);
  void updateState(mlir::Value t0);
  /// `frag` (key rows from `row0`, the block's value columns) from the initial state, zero
  /// past the head dims, or zero without one.
  void initState(mlir::Value frag, mlir::Value row0);
  /// The loop over the chunks: its chunk index and first token.
  struct ChunkLoop {
    mlir::Value index, start;
  };
  /// Opens the loop over the chunks (cfg.stages), after scanning a constant per-head gate once
  /// (`constantGates`: then not per chunk), and sets the insertion point in its body; the
  /// caller's InsertionGuard returns it to after the loop.
  ChunkLoop beginChunkLoop(bool &constantGates);
  void buildStatesBody();
  void buildOutputBody();
  void buildGatesBody();
  /// The fused kernel: scalar or no gates, the state in registers a key tile at a time.
  void buildFusedBody();
  /// Fused kernel, scalar gates: V̂ = V ⊙ exp(G_last - G_j) into vhS and the state decayed by
  /// exp(G_last), ahead of the update.
  void decayForUpdate(mlir::Value t0);
  /// Fused kernel, vector gates: the same with K decayed per key dim, in place.
  void decayKeysForUpdate(mlir::Value t0);
  /// The vector-gate operand tiles of an output (or fused) kernel.
  void allocVectorOperands();

  attn::RecurrentOp op;
  RecurrentTileConfig cfg;
  mlir::Type elt;
  int64_t heads = 0, qkHeads = 0, keyDim = 0, valueDim = 0, chunk = 0;
  attn::GateKind kind = attn::GateKind::none;
  bool vectorGate = false, hasGate = false;

  bool outputKernel = false;
  /// The fused kernel (also an output kernel: it reads q and writes o).
  bool fusedKernel = false;
  /// The gates kernel (cfg.precomputeGates); whether this kernel reads the cumulative gates it
  /// wrote instead of the raw ones.
  bool gatesKernel = false, readsCumGates = false, precomputedGates = false;
  int64_t blockV = 0;   // value columns per block: cfg.blockV or cfg.outputBlockV
  int64_t keyCols = 0;  // key columns of the Q and K buffers (cfg.blockK)
  int64_t gateCols = 0; // key columns of the vector gates: the block's key tile or all
  mlir::Value qParam, kParam, vParam, gateParam, initParam, statesParam, oParam, finalParam;
  /// Precomputed gates: the cumulative log-gates, [B, S, H, padded Dk] f32.
  mlir::Value cumGatesParam;
  llvm::SmallVector<mlir::Value> inputParams;
  llvm::SmallVector<llvm::SmallVector<attn::RecurrentDim>> inputDims;
  /// Per input: its value read once (neither t nor d), its staged chunk rows, or null.
  llvm::SmallVector<mlir::Value> inputScalars, inputRows;
  mlir::Value batch, head, qkHead, k0, v0, seqLen;
  // Buffers.
  mlir::Value qS, kS, vS, stateS, gates, scores, probs, out, state;
  /// The states kernel's staging tile for the chunk states' stores (cfg.stageStates).
  mlir::Value stateStage;
  /// Vector gates, output kernel: Q ⊙ exp(G), and per sub-chunk s >= 1 Q̃_s and K̃_s.
  mlir::Value qgS;
  llvm::SmallVector<mlir::Value> qtS, ktS;
  /// Vector gates, output kernel: the diagonal sub-chunks' scores, [chunk, sub] (f32), row i
  /// and column j - (first row of i's sub-chunk).
  mlir::Value diagS;
  /// Fused kernel: per key tile of blockK columns, Q's and K's slices of the chunk, the
  /// state's rows (f32 fragments) and their 16-bit copy that the output gemm reads; the
  /// decayed V of the update (scalar gates; V itself otherwise).
  llvm::SmallVector<mlir::Value> qTiles, kTiles, stateFrags, stateTiles;
  mlir::Value vhS;
  /// Whether this kernel writes the final state: the states kernel or the fused one.
  bool writesFinalState() {
    return op.getFinalState() && !gatesKernel && (!outputKernel || fusedKernel);
  }
  /// Rows of a sub-chunk (vector gates): a quarter of the chunk.
  int64_t sub = 16;
  /// Output kernel, scalar or no gates: q_mod is a row factor applied to the output rows.
  bool qRowFactor = false;
};

} // namespace metaattn

#endif // METAATTN_CONVERSION_ATTNTOTILE_RECURRENTKERNELBUILDER_H
