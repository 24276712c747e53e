//===- Passes.td - tile dialect passes -------------------*- tablegen -*-===//
#ifndef METAATTN_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define METAATTN_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileInferLayout : Pass<"tile-infer-layout", "::metaattn::tile::KernelOp"> {
  let summary = "Assign thread layouts to fragments and check that their uses agree";
  let description = [{
    Every 2-D fragment gets `#tile.layout<mma, warps = W>` and every 1-D fragment
    `#tile.layout<row, warps = W>`, with `W` the kernel's warps, rows split over warps. The
    pass then checks what the layouts require: fragment rows a multiple of 16·W, gemm
    accumulators and register A operands with the same rows, `tile.parallel` bodies that
    index 2-D fragments by the induction variables and 1-D fragments by the row variable
    (so each element is touched by the thread that owns it), and row reductions between
    fragments of the same rows. Violations are errors on the offending op.

    Before: `%s = tile.alloc : memref<64x64xf32, #tile.space<fragment>>` in a 128-thread
    kernel. After: `%s = tile.alloc {layout = #tile.layout<mma, warps = 4>} : ...`.
  }];
}

def TilePipelinePlan : Pass<"tile-pipeline-plan", "::metaattn::tile::KernelOp"> {
  let summary = "Assign pipeline stages to the ops of tile.pipelined loops";
  let description = [{
    In each `tile.pipelined` loop, copies from global to shared memory whose destination is
    read later in the body are stage 0 (issued `stages - 1` iterations ahead); every other op
    is stage 1. The stage is recorded as `tile.pipeline_stage` on each op of the body, and the
    loop gets `tile.pipeline_planned`. Shared buffers written at stage 0 must be allocated
    outside the loop and not written elsewhere in it; otherwise the pass reports why and sets
    `stages` to 1 (no overlap).

    After: `tile.copy %k[...] to %ks {dims = ..., tile.pipeline_stage = 0 : i64}`.
  }];
}

def TilePipelineExpand : Pass<"tile-pipeline-expand", "::metaattn::tile::KernelOp"> {
  let summary = "Rewrite planned tile.pipelined loops into a multi-buffered cp.async pipeline";
  let description = [{
    For a planned loop with S stages over [lo, hi): every shared buffer written at stage 0
    gets a leading dimension of S (one copy per stage, viewed with `tile.stage`); a prologue
    issues the stage-0 copies of iterations lo .. lo+S-2 (each group closed by
    `tile.async_commit`); the loop becomes an `scf.for` whose iteration j waits for its own
    copies (`tile.async_wait S-2`), synchronises the block (`tile.barrier`), issues the copies
    of iteration j+S-1 into stage (j+S-1) mod S when that iteration exists, commits, then runs
    the stage-1 ops on stage j mod S. Copies issued ahead are `async`.

    Before:
    ```mlir
    tile.pipelined %j = %lo to %hi stages 2 {
      tile.copy %k[...] to %ks {tile.pipeline_stage = 0 : i64, ...}
      tile.gemm %qs, %ks, %s {tile.pipeline_stage = 1 : i64, transpose_b}
    } {tile.pipeline_planned}
    ```
    After: `%ksb = tile.alloc : memref<2x64x64xbf16, ...>`, a prologue copy into
    `tile.stage %ksb[0]`, and an `scf.for` as described.
  }];
}

def TileUseWgmma : Pass<"tile-use-wgmma", "::metaattn::tile::KernelOp"> {
  let summary = "Run the gemms that fit a warpgroup on Hopper's wgmma";
  let description = [{
    On a target with wgmma (`sm_90a`), marks every `tile.gemm` whose operands fit
    `wgmma.mma_async.m64nNk16` with the unit attribute `tile.wgmma`; the CUDA emitter prints a
    marked gemm as a warpgroup call (`wg::gemmSS` / `wg::gemmRS`) and, in a kernel with one,
    aligns shared buffers to 1024 bytes and publishes shared writes to the async proxy at
    every barrier. A gemm fits when its operands are 16-bit, its f32 accumulator has 16 rows
    per warp with whole warpgroups (`rows = 16 · warps`, warps a multiple of 4) and 16..256
    columns in steps of 16, A is a fragment with the same layout or a shared tile, and every
    shared operand's rows are a multiple of 128 bytes (the 128-byte swizzled layout wgmma
    reads). Other gemms keep the warp-level mma.sync path. Adjacent marked gemms into
    different accumulators, none reading another's accumulator, are then issued together
    (`async`) and waited for once by a `tile.gemm_wait 0` after the last. Needs
    `tile-infer-layout` first.

    Before: `tile.gemm %qs, %ks, %s {transpose_b} : ...` in a 256-thread kernel with
    `%s : memref<128x128xf32, #tile.space<fragment>>`, `%qs : memref<128x128xbf16, ...>`.
    After: `tile.gemm %qs, %ks, %s {tile.wgmma, transpose_b} : ...`.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "GPU architecture (wgmma needs sm_90a; any other target leaves the gemms alone)">
  ];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "::metaattn::tile::KernelOp"> {
  let summary = "Rewrite a planned tile.pipelined loop into a TMA producer and mbarrier-synchronised consumers";
  let description = [{
    On Hopper (`sm_90a`), a kernel whose one planned `tile.pipelined` loop (S >= 2 stages, at
    the top of the kernel) prefetches only tiles TMA can copy (16-bit, rows of a multiple of
    128 bytes, at most 256 rows, columns along the tensor's last dim with a static size of a
    multiple of 16 bytes) becomes:

    - a ring of S stages per prefetched tile and, per ring, two `memref<Sxi64>` mbarrier
      arrays, `full` (1 arrival + the stage's bytes) and `empty` (one arrival per consumer
      warp), initialised before a `tile.warp_specialize`;
    - a producer region that recomputes the loop bounds and copy origins and, for iteration
      j in stage s = (j - lo) mod S, round r = (j - lo) / S, and each ring, waits for its
      `empty[s]` (parity (r & 1) ^ 1), announces the ring's bytes on its `full[s]` and issues
      its `tile.tma_copy` ops;
    - a consumer region holding the rest of the kernel, where the loop waits for a ring's
      `full[s]` (parity r & 1) right before the first op that reads its stage and arrives on
      its `empty[s]` right after the last one (K is released after the score gemm, before
      the softmax).

    The kernel gains a producer warpgroup (`threads` + 128). Other kernels are left for
    tile-pipeline-expand; with `verbose` the pass says why as a remark.

    With `persistent`, the kernel is marked `tile.persistent` and both regions loop
    `for t = block_id 0 to (the grid's block count) step num_blocks 0`, decoding the grid
    coordinates from t (x fastest and reversed: a causal kernel's longest tiles first) in place
    of `tile.block_id`. The rings' slot and round count kv iterations across the block's
    tiles; the query tiles' mbarrier phase alternates per tile, and an extra "empty" mbarrier
    (one arrival per consumer warp after the tile's last read of them) tells the producer when
    it may copy the next tile's. Consumers that write shared buffers of their own meet at a
    `tile.barrier` at the end of each tile.

    With `skip-loads`, where every read of the prefetched tiles in the loop body sits
    in one `scf.if` whose condition reads kernel inputs (a document mask's tile guard, built
    from `tile.read_bounds` of the ids), the producer evaluates that condition too, one
    iteration ahead (the next iteration's right after the first ring's copies, carried by its
    loop, so the reads are in flight while it waits for the later rings' stages): for an
    iteration whose tile the consumers skip it waits for the stage as usual but copies
    nothing and arrives on `full[s]` announcing 0 bytes, so the consumers' wait passes at once
    and the slots and phases stay those of the iteration count. The consumers' own guard may
    be narrower (tile-group-guards decides it per warpgroup); it skips whatever the block's
    guard skips, because the classification over a warpgroup's rows only tightens the bounds.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "GPU architecture (TMA and setmaxnreg need sm_90a; other targets are left alone)">,
    Option<"verbose", "verbose", "bool", /*default=*/"false",
           "Emit a remark on each pipelined loop that stays on cp.async, saying why">,
    Option<"persistent", "persistent", "bool", /*default=*/"false",
           "Both sides loop over the grid's tiles (tile.persistent)">,
    Option<"skipLoads", "skip-loads", "bool", /*default=*/"false",
           "The producer copies nothing for a tile the loop's input-dependent guard skips">
  ];
}

def TileGemmOverlap : Pass<"tile-gemm-overlap", "::metaattn::tile::KernelOp"> {
  let summary = "Run one kv tile's output gemm behind the next tile's scores and softmax";
  let description = [{
    In the consumer region of a `tile.warp_specialize`, an `scf.for` whose body holds two
    wgmma gemms, `S = A·K(j)` then `O += P·V(j)` with P a 16-bit fragment shaped like S, is
    software-pipelined inside each warpgroup (FlashAttention-3's intra-warpgroup overlap):

    - the score gemm becomes `async`; right after it, for j > lo, the output gemm of
      iteration j - 1 is issued `async` on V(j - 1) (after that stage's `full` wait), and
      `tile.gemm_wait 1, %S` lets the softmax start while it runs (j = lo: `tile.gemm_wait 0`);
    - every `store (truncf x), P[i, j]` becomes `store x, S[i, j]` (P(j - 1) is still being
      read), and at the end of the body `tile.gemm_wait 0, %O` (unconditional: ptxas serialises
      all wgmma when some path may read an accumulator in flight), the release of V(j - 1), the
      element-wise rescales of O (moved from between the gemms) and `P = truncf(S)` run;
    - after the loop, the last iteration's output gemm runs on its V stage.

    The rewrite checks that it computes the same thing: O is touched between the gemms only
    by element-wise loops that write nothing else and read fragments not written later, P is
    written only by rounding stores at the element indices, S is not written after them, and
    only mbarrier waits precede and arrives follow the output gemm. Other loops are left as
    they are; with `verbose` the pass says why as a remark.
  }];
  let options = [
    Option<"verbose", "verbose", "bool", /*default=*/"false",
           "Emit a remark on each consumer loop that is not overlapped, saying why">
  ];
}

def TileWarpgroupPingpong : Pass<"tile-warpgroup-pingpong", "::metaattn::tile::KernelOp"> {
  let summary = "Make the consumer warpgroups take turns on the tensor cores";
  let description = [{
    In the consumer region of a `tile.warp_specialize` with two or more warpgroups, every
    maximal run of consecutive `tile.gemm` ops is preceded by `tile.warpgroup_turn "wait"` and
    followed by `tile.warpgroup_turn "pass"`; the region starts with `"start"` and ends with
    `"finish"`. The CUDA emitter turns these into named barriers that let warpgroup g
    multiply only after warpgroup g - 1 has, so one warpgroup's gemms run while the others
    compute their softmax.

    Before: `tile.gemm %q, %k, %s ...` in a 256-consumer-thread region. After:
    `tile.warpgroup_turn "wait"`, the gemm, `tile.warpgroup_turn "pass"`.

    With `only-marked`, only kernels carrying `tile.pingpong` (the tile model's choice,
    TileConfig::pingpong) are rewritten; the others are left as they are.
  }];
  let options = [
    Option<"onlyMarked", "only-marked", "bool", /*default=*/"false",
           "Only kernels marked tile.pingpong by convert-attn-to-tile">,
  ];
}

def TileGroupGuards : Pass<"tile-group-guards", "::metaattn::tile::KernelOp"> {
  let summary = "Let each consumer warpgroup skip the tiles its own rows do not need";
  let description = [{
    In the consumer region of a `tile.warp_specialize` with G >= 2 warpgroups, every fragment
    of a block's R-row tile gives warpgroup g the rows [g·R/G, (g+1)·R/G). A `tile.row_range`
    there whose results only decide `scf.if` guards (directly or through arithmetic and
    `tile.read`) and per-element work gets `group_rows = R/G`, so each warpgroup classifies a
    kv tile over its own rows: under a causal mask a 64-row group skips the tiles past its own
    diagonal, and a group whose rows all lie past the sequence's end skips every tile.

    That is only safe when the code those guards hold is local to a warpgroup: gemms,
    fills, row reductions, element-wise loops and copies between fragments whose rows are the
    tile's rows. A guard that holds a barrier, a turn of `tile-warpgroup-pingpong`, an
    mbarrier op, a copy through shared or global memory, a scan, or any other op leaves the
    range whole.

    Before: `%lo, %hi = tile.row_range %q0, %last {rows = 192 : i64}` in a 384-thread consumer
    region. After: the same with `group_rows = 64 : i64`.
  }];
}

def TileUnswitchParallel : Pass<"tile-unswitch-parallel", "::metaattn::tile::KernelOp"> {
  let summary = "Hoist a block-uniform branch out of a tile.parallel body";
  let description = [{
    When a `tile.parallel` body holds an `scf.if` whose condition is defined outside the loop
    (the same for every element, such as "the kv tile lies entirely inside the mask"), the
    loop is cloned under an `scf.if` on that condition, with the condition replaced by `true`
    in one copy and `false` in the other. Canonicalization then removes the per-element
    branch, so tiles the mask does not cut run the mask-free body. One condition per loop
    (the first), so the code at most doubles.

    Before: `tile.parallel (%i, %j) in [64, 64] { %m = scf.if %full -> i1 {...} ... }`.
    After: `scf.if %full { tile.parallel ... (true) } else { tile.parallel ... (false) }`.
  }];
}

def TileHoistInvariantReads : Pass<"tile-hoist-invariant-reads", "::metaattn::tile::KernelOp"> {
  let summary = "Move reads of kernel inputs out of the branches and element loops they do not depend on";
  let description = [{
    A `tile.read` of a kernel input (an argument not listed in `tile.outputs`, which the
    kernel never writes) whose indices are defined outside an enclosing `scf.if` or
    `tile.parallel` is moved in front of the outermost such op, and identical reads that end
    up in the same block are merged. A per-head parameter read by a score function (a sigmoid
    bias, an ALiBi slope) is then loaded once per kv tile instead of in each element loop and
    mask branch. Reads are total (zero outside the tensor's sizes), so moving one out of a
    branch is safe. Loops (`scf.for`) and the regions of other ops (`tile.warp_specialize`)
    are not crossed: a value held across the kv loop costs a register for all of it. Bounds
    (`tile.read_bounds`), two registers that cost a warp's loads and reductions each time,
    do leave loops whose iterations do not change them (a block's query ids).

    Before: `scf.if %full { tile.parallel ... { %b = tile.read %bias[%h] ... } } else {...}`.
    After: `%b = tile.read %bias[%h]` followed by `scf.if %full { tile.parallel ... } ...`.
  }];
}

def TilePrefetchBounds : Pass<"tile-prefetch-bounds", "::metaattn::tile::KernelOp"> {
  let summary = "Read each kv tile's id bounds one iteration early, behind the previous tile's score gemm";
  let description = [{
    A `tile.read_bounds` at the top of an `scf.for` body, whose operands pure ops compute
    from the induction variable and values defined above the loop (a kv tile's key ids),
    decides whether the iteration's guarded work runs; its loads and warp reductions then
    sit in front of that work in every iteration. When the body has an `scf.if` after it
    whose then-block issues an async gemm (`tile.gemm {async}`, the score gemm of a
    warp-specialised consumer), the bounds of iteration i + 1 are computed in iteration i
    instead: right after that gemm is issued (its work hides their latency) and in the
    else-block, yielded by the `scf.if` and carried by the loop. The first iteration's
    bounds are read before the loop. Reads are total, so the last iteration's read past
    the loop's range is safe.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def TileHoistAxisReads : Pass<"tile-hoist-axis-reads", "::metaattn::tile::KernelOp"> {
  let summary = "Read kernel inputs that vary along one axis of an element loop once per row or column";
  let description = [{
    In a 2-D `tile.parallel` over an `mma` fragment, a `tile.read` of a kernel input (not in
    `tile.outputs`) whose indices are computed by pure ops from the row induction variable
    and values defined above the loop (or from the column one) is replaced by a load of a row
    (`#tile.layout<"row">`) or column (`#tile.layout<"col">`) vector. A 1-D `tile.parallel`
    in front of the loop fills the vector: each thread reads only the rows or columns its own
    elements touch. Identical reads share one vector. A document mask's query ids and key ids
    (one read each per element) are then read once per row and once per column of the
    thread's elements: 2 + 32 reads per kv tile instead of 128 (D64, 128 x 128 tiles, two
    consumer warpgroups). Reads are total, so a read taken out of a branch is safe.

    Before: `tile.parallel (%i, %j) in [128, 128] { %d = tile.read %doc[%b, %j] ... }`.
    After: `%v = tile.alloc {layout = #tile.layout<"col", warps = 8>} : memref<128xi32, ...>`,
    `tile.parallel (%c) in [128] { %x = tile.read %doc[%b, %c] ...; memref.store %x, %v[%c] }`,
    then `tile.parallel (%i, %j) in [128, 128] { %d = memref.load %v[%j] ... }`.
  }];
}

def TilePrefetchElementReads : Pass<"tile-prefetch-element-reads", "::metaattn::tile::KernelOp"> {
  let summary = "Prefetch into L1 the rows of a matrix input the score loop reads, right after the score gemm is issued";
  let description = [{
    In a 2-D `tile.parallel` over an `mma` fragment written by an async `tile.gemm` earlier
    in the same iteration (in the loop's block or a block of an enclosing `scf.if`), a
    `tile.read` of a kernel input (not in `tile.outputs`) whose last index depends on the
    column variable alone and whose other indices do not depend on it (a row of a bias
    matrix along the keys) gets a 1-D `tile.parallel` over the loop's rows right after the
    gemm: `tile.prefetch {level = 1}` of the row's columns 0, L, 2L, ... and its last column
    (L elements to a 128-byte line), a row to a thread. The read stays; it then finds its
    line in L1 instead of waiting for L2 or memory behind the gemm's wait. Identical reads
    after the same gemm (the masked and the unmasked branch of the score loop) are
    prefetched once. A read whose indices need a value not available at the gemm is left.

    Before: `tile.gemm %q, %k, %s {async}; ...; tile.gemm_wait 0, %s;
    tile.parallel (%i, %j) in [128, 128] { %x = tile.read %bias[%h, %q0 + %i, %k0 + %j] }`.
    After: `tile.gemm %q, %k, %s {async}; tile.parallel (%r) in [128] {
    tile.prefetch %bias[%h, %q0 + %r, %k0] {level = 1}; ... %k0 + 32 ...; ... %k0 + 127 ... };
    ...` and the element loop as before.
  }];
}

def TileStageElementReads : Pass<"tile-stage-element-reads", "::metaattn::tile::KernelOp"> {
  let summary = "Stage the window of a matrix input the score loop reads through shared memory, copied while the score gemm runs";
  let description = [{
    In a warp-specialised consumer region (TMA-fed, without ping-pong turns or other cp.async
    copies), a 2-D `tile.parallel` over an `mma` fragment written by an async `tile.gemm`
    earlier in the same iteration may read a kernel input (not in `tile.outputs`) element by
    element as a window: its last index is the column variable plus values independent of
    it, the one before the row variable plus values independent of it, the others depend on
    neither (a relative-position bias `[H, Sq, Skv]` read at `[h, q0 + i, k0 + j]`). Read so,
    each warp instruction touches eight 128-byte lines for 128 useful bytes, and the loop
    waits for L2 behind the gemm's wait.

    The pass gives such a read a shared tile of the loop's shape and, right after the gemm:
    a warpgroup `tile.barrier` (its readers of the previous tile are done), an async
    `tile.copy` of the window with `group_rows` (each consumer warpgroup copies its own rows,
    16-byte `cp.async`, coalesced) and a `tile.async_commit`; right before the loop a
    `tile.async_wait 0` and a warpgroup barrier; the read becomes a load of the tile at the
    loop's own indices. Identical reads after the same gemm (the masked and the unmasked
    branch) share one tile. Everything it adds is local to a warpgroup, so guards
    classified per warpgroup stay valid. A read is left alone when the kernel's shared
    memory (counted as the CUDA emitter lays it out) would pass `shared-bytes`.

    Before: `tile.gemm %q, %k, %s {async}; ...; tile.gemm_wait 0, %s;
    tile.parallel (%i, %j) in [128, 128] { %x = tile.read %bias[%h, %q0 + %i, %k0 + %j] }`.
    After: `tile.gemm %q, %k, %s {async}; tile.barrier {warpgroup};
    tile.copy %bias[%h, %q0, %k0] to %t {async, dims = [1, 2], group_rows = 64};
    tile.async_commit; ...; tile.gemm_wait 0, %s; tile.async_wait 0;
    tile.barrier {warpgroup}; tile.parallel (%i, %j) in [128, 128] { %x = memref.load %t[%i, %j] }`.

    With `ahead`, where the gemm sits in an `scf.for` (through result-less `scf.if`s only)
    and the window's indices are pure functions of the loop's variable, the loop's
    variables and values above the loop, the copy moves one iteration ahead: before the
    loop a warpgroup barrier and the first iteration's copy; in the loop, right after the
    tile's last reader in the gemm's block (and at the end of each enclosing guard's other
    branch), `scf.if %iv + %step < %ub { tile.async_wait 0; tile.barrier {warpgroup};
    <copy of the next iteration's window>; tile.async_commit }`; after the loop a
    `tile.async_wait 0`. The copy then runs behind the rest of the iteration and the next
    score gemm instead of behind that gemm alone. Off by default: on an H100 the relative
    bias ran 0.583x our softmax with it against 0.642x without (B4 H16 S4k D128 causal).
  }];
  let options = [
    Option<"sharedBytes", "shared-bytes", "int64_t", /*default=*/"227 * 1024",
           "dynamic shared memory a block may use on the target">,
    Option<"ahead", "ahead", "bool", /*default=*/"false",
           "copy one iteration ahead: where the gemm's loop allows, the first window before "
           "the loop and each iteration's next window right after the tile's last reader">
  ];
}

def TileSplitIndexCasts : Pass<"tile-split-index-casts", "::metaattn::tile::KernelOp"> {
  let summary = "Convert a position's block-wide part and its element offset to float separately";
  let description = [{
    In a `tile.parallel`, an `arith.sitofp` to f32 or f64 of an integer that is a sum of
    values the same for every element (defined above the loop or computed from them) and of
    the loop's induction variables (times constants, plus a constant) becomes the sum, in
    float, of the two parts converted separately. The block-wide part is converted once, in
    front of the loop when its terms are defined there; the element part is a compile-time
    constant per element once the CUDA emitter unrolls the loop, so an integer add and a
    conversion per element become one float add per distinct offset. ALiBi's slope times
    q - k is such a conversion. A conversion of a clamp, `max(a, b)` or `min(a, b)` with a
    side that splits (RetNet's decay to the power max(q - k, 0)), becomes the clamp in float
    of the sides' conversions (conversion is monotone), which then split. Only loops whose
    threads own their indices through a fragment (an anchor) are rewritten. ALiBi at D128
    ran 1.05-1.06x faster with it on an H100 (benchmarks/RESULTS.md).

    The result is the same when both parts are below 2^24 in magnitude for f32 (a float sum of
    two exact values rounds like the conversion of their exact sum): positions of sequences
    shorter than 16,777,216 tokens. Beyond that both forms round, by at most one unit in the
    last place of the position.

    Before: `tile.parallel (%i, %j) in [64, 64] { %q = arith.addi %q0, %i : index;
    %k = arith.addi %k0, %j : index; %d = arith.subi %q, %k : index;
    %n = arith.index_cast %d : index to i64; %f = arith.sitofp %n : i64 to f32 ... }`.
    After: `%b = arith.subi %q0, %k0 : index`, its conversion to f32 `%bf` in front of the loop,
    and in the loop `%e = arith.subi %i, %j : index`, its conversion `%ef`, and
    `%f = arith.addf %bf, %ef : f32`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // METAATTN_DIALECT_TILE_TRANSFORMS_PASSES_TD
