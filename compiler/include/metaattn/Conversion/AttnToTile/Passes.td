//===- Passes.td - attn to tile conversion ---------------*- tablegen -*-===//
#ifndef METAATTN_CONVERSION_ATTNTOTILE_PASSES_TD
#define METAATTN_CONVERSION_ATTNTOTILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertAttnToTile : Pass<"convert-attn-to-tile", "::mlir::ModuleOp"> {
  let summary = "Tile attn.online_attention (flash-attention schedule) and attn.recurrent "
                "(chunked linear attention) into tile.kernel ops";
  let description = [{
    Each `func.func` whose body is one `attn.online_attention` (and a `return` of its results)
    becomes a `tile.kernel` of the same name whose parameters are the function's arguments
    followed by its results (output, then row statistics). One block computes `block-m` query
    rows of one (batch, head): Q is copied to shared memory once; a `tile.pipelined` loop over
    the kv tiles that the mask bounds leave visible copies K and V, computes `S = Q·Kᵀ`, applies
    the score function, masks only tiles that are not inside every bound, updates the running
    maximum, rescales the accumulators by `exp(d·(m_old - m_new))`, forms the weights with the
    element-wise region, accumulates the row sums and `O += P·V`. After the loop the finalize
    region gives the denominator and the row statistic. Batch and lengths are read from the
    tensors at run time: one kernel serves every length.

    An `attn.recurrent` becomes the two kernels of the chunked linear-attention algorithm
    (RecurrentKernelBuilder.cpp), bound to the function like the kernels of several ops (see
    below) with a chunk-states buffer as an intermediate: the states kernel (one block per value
    tile, head and batch) walks the sequence in chunks keeping the state in registers, writes
    the state entering each chunk, decays and updates it; the output kernel (one block per
    chunk, head x value tile and batch) computes the parallel form `(Q·Kᵀ ⊙ decay)·V` plus
    `(Q ⊙ exp(G))·S` from the state entering its chunk. Gates are scanned in f32 in log space.
    For these kernels `block-m` is the chunk length and `block-n` the value columns per block.

    Tile sizes come from the head dims and the target (see TileConfig.h) unless set by the
    options or, per op, by its `attn.tile_config` dictionary (`block_m`, `block_n`, `warps`,
    `stages`, and `pingpong` = 0 or 1 to pin the ping-pong mark under `mark-pingpong`; what a
    tuning file records, see metaattn/Pipeline/Tuning.h). Options win: a tile size given as an
    option also drops the dictionary's `pingpong`.

    A function made of several ops — `attn.online_attention`s and `attn.combine`s, each
    reading function arguments and results of earlier ops, ending in a `return` — becomes one
    kernel per op, named `@<function>_step<k>` in order (a function of one op keeps its name).
    An `attn.combine` becomes a kernel whose blocks each cover `block-m` rows of one (batch,
    head) and read their elements with `tile.read`. Every kernel carries `tile.function`,
    `tile.step` and `tile.bindings` (for each parameter "arg:N", "result:N" or "temp:N"), so a
    runtime can allocate the intermediates and launch the kernels in order.
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", "0", "query rows per block (0: from the model)">,
    Option<"blockN", "block-n", "int64_t", "0", "kv positions per tile (0: from the model)">,
    Option<"numWarps", "warps", "int64_t", "0", "warps per block (0: from the model)">,
    Option<"numStages", "stages", "int64_t", "0", "pipeline stages (0: from the model)">,
    Option<"stateRows", "state-rows", "int64_t", "0",
           "attn.recurrent: key rows of the state per block of the states kernel (0: model)">,
    Option<"stateWarps", "state-warps", "int64_t", "0",
           "attn.recurrent: warps per block of the states kernel (0: from the model)">,
    Option<"compactVectorOutput", "compact-vector-output", "bool", "true",
           "attn.recurrent with vector gates: the output kernel reuses one pair of sub-chunk "
           "operand tiles and one stage (two blocks per multiprocessor)">,
    Option<"precomputeGates", "precompute-gates", "bool", "true",
           "attn.recurrent with vector gates: a gates kernel writes the cumulative log-gates "
           "once; the states and output kernels read them">,
    Option<"fusedChunks", "fused-chunks", "bool", "false",
           "attn.recurrent: one kernel keeps the state on chip instead of writing every "
           "chunk's state for an output kernel, where the state fits the registers (vector "
           "gates: a key dim of one key tile)">,
    Option<"warpSpecialize", "warp-specialize", "bool", "true",
           "the kernels will be warp-specialised where they fit (tile-warp-specialize): the "
           "tile sizes measured with a TMA producer">,
    Option<"gemmOverlap", "gemm-overlap", "bool", "false",
           "the kernels' kv loops will be overlapped (tile-gemm-overlap): at most two consumer "
           "warpgroups (three would spill)">,
    Option<"markPingpong", "mark-pingpong", "bool", "false",
           "mark the kernels the tile model picks for the ping-pong schedule with tile.pingpong "
           "(tile-warpgroup-pingpong only-marked then rewrites those)">,
    Option<"longKeys", "long-keys", "bool", "false",
           "the kernels will be launched only on at least 8192 keys (the long-keys plan): "
           "192-wide kv tiles where they measured faster there">,
    Option<"stagedOutput", "staged-output", "bool", "false",
           "attn.attention: the output goes through shared memory as whole 16-byte row chunks: "
           "the query's tile (where D = Dv and the types match), or in persistent kernels, "
           "whose producer reloads that tile, a tile of its own where shared memory has room">,
    Option<"persistent", "persistent", "bool", "false",
           "the kernels will be persistent (tile-warp-specialize persistent)">,
    Option<"fuseCombine", "fuse-combine", "bool", "true",
           "an attn.combine right after the attention that makes one of its values (used "
           "by nothing else) runs in that attention kernel's epilogue: no kernel and no "
           "intermediate of its own for that value">,
    Option<"idBounds", "id-bounds", "bool", "true",
           "attn.attention: a custom integer input with a plain q or kv axis (a document "
           "mask's ids) is bounded over each tile (tile.read_bounds) to skip or unmask it">,
    Option<"kvTileBounds", "kv-tile-bounds", "bool", "true",
           "attn.attention: a pre-pass kernel writes each kv tile's bounds of a custom integer "
           "input with a plain kv axis (a document mask's key ids), which the attention kernel "
           "reads instead of bounding the tile's ids in every block">,
    Option<"keptTiles", "kept-tiles", "bool", "true",
           "attn.attention: a kv loop whose tiles a mask skips by a custom input constant over "
           "each tile (a block-sparse map) walks only the kept tiles (tile.kept_tiles)">,
    Option<"approxTanh", "approx-tanh", "bool", "true",
           "attn.attention: math.tanh gets tile.approx (the CUDA printer then uses "
           "tanh.approx.f32, relative error about 2^-11, instead of tanhf)">,
    Option<"foldScoreScale", "fold-score-scale", "bool", "true",
           "attn.attention with a score y * c (c > 0; y the score s, or computed from it as a "
           "soft cap's tanh) and the score as its shift: raw y, c applied with the maximum (one "
           "fma per exponent); wgmma targets only">,
    Option<"monotoneMax", "monotone-max", "bool", "true",
           "with fold-score-scale, a score y * c whose y is computed from s by a function "
           "nondecreasing in it (a soft cap's tanh(s * k)): the row maximum is taken of s and "
           "mapped through that function once per row">,
    Option<"dropRowTerms", "drop-row-terms", "bool", "false",
           "attn.attention with the score as its shift and weights of s - m: a score term of "
           "the query row alone (ALiBi's slope * q) is computed at the block's first row, and "
           "the maximum read by the finalizer moves back by the difference; wgmma targets "
           "only">,
    Option<"exp2Emulation", "exp2-emulation", "int64_t", "0",
           "attn.attention with the score as its shift: every K-th weight exp(s - m) of a "
           "fragment loop runs on the FMA pipe (a cubic for 2^x) instead of the "
           "special-function unit (0: none)">,
    Option<"boundedShift", "bounded-shift", "bool", "false",
           "attn.attention with the score as its shift and a score bounded whatever the dot "
           "product (a soft cap's c * tanh(s * k)): the shift is a constant near the bound, "
           "with no running row maximum and no rescaling">,
    Option<"lazyRescale", "lazy-rescale", "bool", "false",
           "attn.attention with a running maximum: it moves only where a row's maximum passes "
           "it by more than 2^8 in the weights, and the output's rescale is skipped in threads "
           "whose factors are all 1">,
    Option<"stagedStateStores", "staged-state-stores", "bool", "true",
           "attn.recurrent: the states kernel writes each chunk's state through shared "
           "memory in 16-byte row chunks where that keeps its blocks per multiprocessor">,
    Option<"target", "target", "std::string", "\"sm_90\"",
           "target architecture (sm_80, sm_86, sm_89, sm_90, sm_90a with wgmma, gfx90a)">
  ];
  let dependentDialects = ["::metaattn::tile::TileDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // METAATTN_CONVERSION_ATTNTOTILE_PASSES_TD
