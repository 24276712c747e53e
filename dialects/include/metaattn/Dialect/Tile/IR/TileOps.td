//===- TileOps.td - tile dialect operations --------------*- tablegen -*-===//
//
// Operations of the tile dialect.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_DIALECT_TILE_IR_TILEOPS_TD
#define METAATTN_DIALECT_TILE_IR_TILEOPS_TD

include "metaattn/Dialect/Tile/IR/TileBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"

def Tile_LocalBuffer : MemRefRankOf<[AnyType], [1, 2, 3]>;
def Tile_Global : Type<CPred<"::llvm::isa<::metaattn::tile::GlobalTensorType>($_self)">,
                       "global tile tensor", "::metaattn::tile::GlobalTensorType">;

def Tile_KernelOp : Tile_Op<"kernel", [FunctionOpInterface, IsolatedFromAbove,
                                       AutomaticAllocationScope]> {
  let summary = "The program of one thread block";
  let description = [{
    Parameters are global tensors (`!tile.tensor`). `threads` is the block size. `grid` gives
    the three launch-grid extents as triples `(param, dim, divisor)`: the extent is
    `ceil(size(param, dim) / divisor)`, or the constant `divisor` when `param` is -1.

    ```mlir
    tile.kernel @fwd(%q: !tile.tensor<?x?x8x64xbf16>, ...)
        attributes {threads = 128 : i64, grid = array<i64: 0, 1, 64, -1, 8, 0, 0, 0, 1>} {
      ...
      tile.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       DenseI64ArrayAttr:$grid, I64Attr:$threads);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, Terminator, HasParent<"KernelOp">]> {
  let summary = "End of a kernel";
  let assemblyFormat = "attr-dict";
}

def Tile_BlockIdOp : Tile_Op<"block_id", [Pure]> {
  let summary = "Index of this block in the launch grid along dimension 0, 1 or 2";
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<2>]>:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_NumBlocksOp : Tile_Op<"num_blocks", [Pure]> {
  let summary = "Number of blocks in the launch grid along dimension 0, 1 or 2";
  let description = [{
    A persistent kernel (`tile.persistent`) is launched with fewer blocks than its grid names
    and walks the grid's tiles itself, block `tile.block_id 0` taking tiles
    `block_id, block_id + num_blocks, ...`.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<2>]>:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_RowRangeOp : Tile_Op<"row_range", [Pure]> {
  let summary = "The rows of a block's row tile that the calling thread's warpgroup works on";
  let description = [{
    `%lo, %hi = tile.row_range %first, %last {rows = 192}` names the rows of the block's row
    tile `[first, first + rows)` that are in range, the last being `last`. Without
    `group_rows` that is the whole range: `lo = first`, `hi = last`. With `group_rows = R`
    (set by `tile-group-guards` inside a warp-specialised consumer region whose fragments give
    each consumer warpgroup R consecutive rows, and whose guarded code is local to a
    warpgroup) it is the rows of the calling thread's warpgroup g: `lo = first + g·R`,
    `hi = min(last, lo + R - 1)`, so `hi < lo` when all its rows are past `last`. Tile guards
    classified over `[lo, hi]` then skip work per warpgroup.

    An evaluator that runs the whole block at once (the CPU tile executor) takes the whole
    range: the union of the groups' ranges. A guard classified by interval arithmetic over the
    union is conservative for each group, so the results are the same; only less is skipped.
  }];
  let arguments = (ins Index:$first, Index:$last, ConfinedAttr<I64Attr, [IntMinValue<1>]>:$rows,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$group_rows);
  let results = (outs Index:$lo, Index:$hi);
  let assemblyFormat = "$first `,` $last attr-dict";
  let hasVerifier = 1;
}

def Tile_IndexPartsOp : Tile_Op<"index_parts", [Pure]> {
  let summary = "An element loop's index as a part per thread plus a part known per element";
  let description = [{
    `%thread, %element = tile.index_parts %i` splits an induction variable `%i` of the
    enclosing `tile.parallel` into `%thread`, the same for every index the calling thread
    runs, and `%element`, with `%thread + %element = %i`. On the GPU the split follows the
    loop's fragment layout: `%element` is the element's offset within the thread's share (a
    compile-time constant once the emitter unrolls the loop) and `%thread` the thread's
    origin; a loop without a fragment anchor takes `%thread = %i`, `%element = 0`. The CPU
    tile executor takes `%thread = 0`, `%element = %i`. A value that only adds the parts back
    together means the same under every split; tile-split-index-casts uses it to convert
    `%thread` plus a block-wide position to float once per thread and add `%element` in float.
  }];
  let arguments = (ins Index:$index);
  let results = (outs Index:$thread, Index:$element);
  let assemblyFormat = "$index attr-dict";
  let hasVerifier = 1;
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "Runtime size of one dimension of a global tensor";
  let arguments = (ins Tile_Global:$tensor, I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$tensor `,` $dim attr-dict `:` type($tensor)";
  let hasVerifier = 1;
}

def Tile_AllocOp : Tile_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "A block-local buffer in shared memory or in registers";
  let description = [{
    `%s = tile.alloc : memref<64x128xbf16, #tile.space<shared>>`. Fragment buffers may carry a
    `layout` attribute (`#tile.layout<...>`), set by tile-infer-layout.
  }];
  let arguments = (ins OptionalAttr<Tile_FragmentLayoutAttr>:$layout);
  let results = (outs Tile_LocalBuffer:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Tile_StageOp : Tile_Op<"stage", [Pure]> {
  let summary = "One stage of a multi-buffered shared buffer";
  let description = [{
    `tile.stage %buf[%s] : memref<2x64x128xbf16, #shared> -> memref<64x128xbf16, #shared>`
    views stage `%s` (a runtime index) of a buffer whose leading dimension counts stages.
  }];
  let arguments = (ins Tile_LocalBuffer:$buffer, Index:$stage);
  let results = (outs Tile_LocalBuffer:$result);
  let assemblyFormat = "$buffer `[` $stage `]` attr-dict `:` type($buffer) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "Copy a tile between global memory, shared memory and fragments";
  let description = [{
    Exactly one of the two sides may be a global tensor, addressed by one index per dimension
    (the window's origin). `dims` names the global dimensions that run along the local buffer's
    rows and columns (one entry for a 1-D buffer). Reads outside the tensor's sizes give zero;
    writes outside are skipped. Local-to-local copies convert element types. `async` (set by
    pipelining) lets a global-to-shared copy complete later, at a `tile.async_wait`.

    A fragment-to-global copy may name a `staging` buffer (`via`): a shared buffer of the
    fragment's shape in the destination's element type, through which each warp passes its
    own rows so that they reach global memory as whole 16-byte row chunks instead of one
    element pair per store. Only the copy's own warps touch it, each its own rows (no block
    barrier); its contents afterwards are unspecified.

    An async global-to-shared copy inside a warp-specialised consumer region may name
    `group_rows = R`: consumer warpgroup g then copies the window's rows `[g·R, (g+1)·R)`
    alone, with its own 128 threads, so that code guarded per warpgroup (`tile.row_range`
    with `group_rows`) can stage its own rows and wait for them with a warpgroup
    `tile.barrier`. An evaluator that runs the whole block at once copies the whole window,
    the union of the groups' rows.

    ```mlir
    tile.copy %q[%b, %row0, %h, %c0] to %qs {dims = array<i64: 1, 3>}
        : !tile.tensor<?x?x8x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
    tile.copy %state to %states[%b, %h, %j, %k0, %v0] via %stage : memref<...> {dims = ...}
        : memref<128x64xf32, #tile.space<fragment>> to !tile.tensor<?x8x?x128x64xbf16>
    ```
  }];
  let arguments = (ins AnyType:$source, Variadic<Index>:$source_indices, AnyType:$dest,
                       Variadic<Index>:$dest_indices,
                       OptionalAttr<DenseI64ArrayAttr>:$dims, UnitAttr:$async,
                       Optional<AnyType>:$staging,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$group_rows);
  let assemblyFormat = [{
    $source (`[` $source_indices^ `]`)? `to` $dest (`[` $dest_indices^ `]`)?
    (`via` $staging^ `:` type($staging))? attr-dict `:` type($source) `to` type($dest)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$source, "::mlir::ValueRange":$sourceIndices,
                   "::mlir::Value":$dest, "::mlir::ValueRange":$destIndices,
                   "::mlir::DenseI64ArrayAttr":$dims, "bool":$async), [{
      build($_builder, $_state, source, sourceIndices, dest, destIndices, dims, async,
            /*staging=*/::mlir::Value(), /*group_rows=*/::mlir::IntegerAttr());
    }]>,
    OpBuilder<(ins "::mlir::Value":$source, "::mlir::ValueRange":$sourceIndices,
                   "::mlir::Value":$dest, "::mlir::ValueRange":$destIndices,
                   "::mlir::DenseI64ArrayAttr":$dims, "bool":$async, "::mlir::Value":$staging), [{
      build($_builder, $_state, source, sourceIndices, dest, destIndices, dims, async, staging,
            /*group_rows=*/::mlir::IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Tile_ReadOp : Tile_Op<"read"> {
  let summary = "Read one element of a global tensor (zero outside its sizes)";
  let arguments = (ins Tile_Global:$tensor, Variadic<Index>:$indices);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$tensor `[` $indices `]` attr-dict `:` type($tensor) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_PrefetchOp : Tile_Op<"prefetch"> {
  let summary = "Start bringing the cache line of one element of a global tensor closer";
  let description = [{
    `tile.prefetch %t[%i, %j] {level = 1}` asks the memory system to move the cache line that
    holds `%t[%i, %j]` into the L1 cache (`level = 2`: the L2 cache) and returns at once; a
    later `tile.read` of that line then waits less. A hint only: it changes no value, and an
    element outside the tensor's sizes prefetches nothing. The CPU tile executor ignores it.
  }];
  let arguments = (ins Tile_Global:$tensor, Variadic<Index>:$indices,
                       ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<2>]>:$level);
  let assemblyFormat = "$tensor `[` $indices `]` attr-dict `:` type($tensor)";
  let hasVerifier = 1;
}

def Tile_ReadBoundsOp : Tile_Op<"read_bounds", [AllTypesMatch<["min", "max"]>]> {
  let summary = "Smallest and largest value of an integer tensor over a range of one axis";
  let description = [{
    `%lo, %hi = tile.read_bounds %t[%i0, %i1] to %last {axis = 1}` is the signed minimum and
    maximum of `%t[%i0, k]` for `k` in `[%i1, %last]`: the other indices stay fixed, and an
    element outside the tensor's sizes reads as 0, as with `tile.read`. An empty range (`%last`
    below the first index) gives the type's largest value as the minimum and its smallest as
    the maximum, which no comparison can hold as bounds of a value.

    Every thread executing it gets the same values. Tile guards classify a kv tile with it
    from the ids of the tile's rows and columns (a document mask), so that a tile whose ids
    never meet is skipped and one whose ids are all equal is not masked.
  }];
  let arguments = (ins Tile_Global:$tensor, Variadic<Index>:$indices, Index:$last,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$axis);
  let results = (outs AnySignlessInteger:$min, AnySignlessInteger:$max);
  let assemblyFormat = [{
    $tensor `[` $indices `]` `to` $last attr-dict `:` type($tensor) `->` type($min)
  }];
  let hasVerifier = 1;
}

def Tile_WriteOp : Tile_Op<"write"> {
  let summary = "Write one element of a global tensor (nothing outside its sizes)";
  let description = [{
    `tile.write %v, %t[%i0, %i1] : i32, !tile.global<?x?xi32>` stores the scalar `%v` at
    `%t[%i0, %i1]`; an index outside the tensor's sizes stores nothing. Scalars are uniform
    over a block: every thread executing it holds the same `%v`, and the element is written
    once per block (on CUDA by its first thread). A pre-pass writes each kv tile's bounds of
    a document mask's ids with it, which the attention kernel then reads with `tile.read`.
  }];
  let arguments = (ins AnyType:$value, Tile_Global:$tensor, Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $tensor `[` $indices `]` attr-dict `:` type($value) `,` type($tensor)
  }];
  let hasVerifier = 1;
}

def Tile_KeptTilesOp : Tile_Op<"kept_tiles", [RecursiveMemoryEffects]> {
  let summary = "The indices of a range a condition keeps, and how many there are";
  let description = [{
    ```mlir
    %list, %count = tile.kept_tiles %j = %lo to %hi {
      %m = tile.read %map[%b, %h, %qb, %j] : <?x16x?x?xi32> -> i32
      %keep = arith.cmpi ne, %m, %c0 : i32
      tile.keep %keep
    }
    ```
    keeps the `j` in `[lo, hi)` for which the body yields true; `%count` is how many, and
    `tile.tile_at %list[%r]` the `r`-th (from 0, increasing). A kv loop over
    `[0, %count)` then visits only the tiles a block-sparse map keeps, instead of testing
    each tile of the range inside the loop.

    `tile.keep %keep, %m0, %m1` also marks each kept index with one bit per further operand,
    which `tile.tile_at` returns beside the index (`%j, %m0 = tile.tile_at %list[%r] -> i1`):
    a document mask's kv loop learns there which tiles it need not mask, without reading the
    tile's ids in the loop.

    The body holds pure scalar ops, `tile.read`s and `tile.read_bounds` of tensors the kernel
    does not write; it may run any number of times for any `j` of the range, in any order, on
    any thread (a `tile.read_bounds` in it is evaluated by one thread alone). On CUDA the
    lanes of a warp evaluate 32 consecutive `j` at once (a ballot), so `tile.kept_tiles` and
    `tile.tile_at` run on whole warps: in a warp-specialised producer the copies are issued by
    lane 0 of a whole warp.
  }];
  let arguments = (ins Index:$lower, Index:$upper);
  let results = (outs Tile_TileListType:$list, Index:$count);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$lower, "::mlir::Value":$upper)>];
  let extraClassDeclaration = [{
    ::mlir::BlockArgument getIndex() { return getBody().front().getArgument(0); }
    ::mlir::Value getKept();
    /// The marks each kept index carries (tile.keep's operands after the first).
    ::mlir::OperandRange getMarks();
  }];
}

def Tile_KeepOp : Tile_Op<"keep", [Pure, Terminator, HasParent<"KeptTilesOp">]> {
  let summary = "Terminator of tile.kept_tiles: whether its index is kept, and its marks";
  let arguments = (ins I1:$keep, Variadic<I1>:$marks);
  let assemblyFormat = "$keep (`,` $marks^)? attr-dict";
}

def Tile_TileAtOp : Tile_Op<"tile_at", [Pure]> {
  let summary = "The index of a given rank in a tile.kept_tiles list";
  let description = [{
    `%j = tile.tile_at %list[%r]` is the `r`-th index (from 0) that `tile.kept_tiles` kept;
    a rank at or past its count gives the range's upper bound (a guard evaluated one
    iteration ahead reads the tile after the last as past the range). Where the list's
    `tile.keep` marks its indices, `%j, %m = tile.tile_at %list[%r] -> i1` also gives the
    index's marks (false past the count). On CUDA each `tile.tile_at` keeps a cursor over the
    range: asked for ranks in increasing order (a loop's iterations) it reads each 32 indices
    of the range once; a smaller rank than the last restarts the walk.
  }];
  let arguments = (ins Tile_TileListType:$list, Index:$rank);
  let results = (outs Index:$result, Variadic<I1>:$marks);
  let assemblyFormat = "$list `[` $rank `]` attr-dict (`->` type($marks)^)?";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$list, "::mlir::Value":$rank)>];
}

def Tile_FillOp : Tile_Op<"fill"> {
  let summary = "Set every element of a local buffer";
  let arguments = (ins Tile_LocalBuffer:$buffer, AnyType:$value);
  let assemblyFormat = "$buffer `,` $value attr-dict `:` type($buffer) `,` type($value)";
  let hasVerifier = 1;
}

def Tile_GemmOp : Tile_Op<"gemm"> {
  let summary = "C += A · B (or A · Bᵀ) on the tensor cores";
  let description = [{
    `c` is an f32 fragment [M, N]; `a` is [M, K] in shared memory or a fragment, or [K, M] in
    shared memory with `transpose_a` (C += Aᵀ · B: the state update Kᵀ · V of linear attention
    reads K as stored); `b` is [K, N] in shared memory, or [N, K] with `transpose_b`.

    With `async` (only on gemms marked `tile.wgmma`) the gemm is issued and not waited for:
    until a later `tile.gemm_wait` that covers it, `c` must not be read or written, `a` (when
    a fragment) must not be written, and `b` must stay in place.
  }];
  let arguments = (ins Tile_LocalBuffer:$a, Tile_LocalBuffer:$b, Tile_LocalBuffer:$c,
                       UnitAttr:$transpose_b, UnitAttr:$async, UnitAttr:$transpose_a);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
}

def Tile_GemmWaitOp : Tile_Op<"gemm_wait"> {
  let summary = "Wait until at most `pending` async gemms of this warpgroup are in flight";
  let description = [{
    Async gemms (`tile.gemm {async}`) complete in issue order. `tile.gemm_wait 1, %s` returns
    when every async gemm but the most recent one has completed; the listed accumulators are
    those whose gemms are complete now, so their values can be read after the wait (the CUDA
    emitter fences their registers). `pending = 0` waits for all of them.

    ```mlir
    tile.gemm %q, %k, %s {async, tile.wgmma, transpose_b} : ...
    tile.gemm %p, %v, %o {async, tile.wgmma} : ...
    tile.gemm_wait 1, %s : memref<128x128xf32, #tile.space<fragment>>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>]>:$pending,
                       Variadic<Tile_LocalBuffer>:$accumulators);
  let assemblyFormat = [{
    $pending (`,` $accumulators^ `:` type($accumulators))? attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce"> {
  let summary = "Row reduction of a 2-D fragment into a 1-D fragment";
  let description = [{
    `tile.reduce max %s to %m` sets `m[i] = max_j s[i, j]`; with `accumulate`,
    `m[i] = max(m[i], max_j s[i, j])`. `sum` and `abs_sum` likewise.
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind, Tile_LocalBuffer:$source,
                       Tile_LocalBuffer:$dest, UnitAttr:$accumulate);
  let assemblyFormat = [{
    $kind $source `to` $dest attr-dict `:` type($source) `to` type($dest)
  }];
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan"> {
  let summary = "In-place inclusive prefix sum of a shared f32 buffer down its rows";
  let description = [{
    `tile.scan %g : memref<64x128xf32, #tile.space<shared>>` replaces `g[i, j]` by
    `sum_{r <= i} g[r, j]` (a 1-D buffer: `g[i]` by `sum_{r <= i} g[r]`), in f32 and in row
    order. Every thread of the block must reach it; it implies no barrier: writes to the
    buffer need a `tile.barrier` before it and reads of the result one after it. Used for
    the cumulative log-decay of a chunk in linear attention.
  }];
  let arguments = (ins Tile_LocalBuffer:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Tile_ParallelOp : Tile_Op<"parallel", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Element-wise computation over a tile's index space";
  let description = [{
    `tile.parallel (%i, %j) in [64, 64] { ... }` runs its body once per index, in any order,
    spread over the block's threads. The body reads and writes fragments with `memref.load` and
    `memref.store` at indices that are the induction variables (row vectors at the row index);
    it may use values defined above. Each element is written by the thread that owns it.
    When the body touches fragments, the first one of the loop's rank decides which thread
    runs which index; a body that touches only shared buffers (at any computed indices) runs
    its indices spread evenly over all threads. Shared buffers written in one tile.parallel
    and read by other threads need a `tile.barrier` in between.
  }];
  let arguments = (ins DenseI64ArrayAttr:$shape);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape)>];
}

def Tile_PipelinedOp : Tile_Op<"pipelined", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "A loop whose global-to-shared copies overlap with earlier iterations' compute";
  let description = [{
    `tile.pipelined %j = %lo to %hi stages 2 { ... }` iterates `%j` from `%lo` to `%hi` (step 1).
    tile-pipeline-plan assigns each op of the body a stage (`tile.stage` attribute: 0 for the
    copies that feed later ops, 1 for the rest); tile-pipeline-expand multi-buffers the shared
    buffers written at stage 0 and rewrites the loop into a prologue and an `scf.for` whose
    iteration `j` issues the copies of iteration `j + stages - 1`.
  }];
  let arguments = (ins Index:$lower, Index:$upper, I64Attr:$num_stages);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$lower, "::mlir::Value":$upper,
                                 "int64_t":$numStages)>];
  let extraClassDeclaration = [{
    ::mlir::BlockArgument getInductionVar() { return getBody().front().getArgument(0); }
  }];
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator,
    ParentOneOf<["ParallelOp", "PipelinedOp", "WarpSpecializeOp"]>]> {
  let summary = "Terminator of tile.parallel, tile.pipelined and tile.warp_specialize regions";
  let assemblyFormat = "attr-dict";
}

def Tile_BarrierOp : Tile_Op<"barrier"> {
  let summary = "Block-wide barrier (all threads, shared memory visible)";
  let description = [{
    Every thread of the block (of the consumer warps inside a warp-specialised consumer
    region) waits here until all have arrived; their shared-memory writes are then visible.
    With `warpgroup` only the calling thread's warpgroup (128 threads) synchronises: for code
    guarded per warpgroup inside a consumer region, around shared buffers only that warpgroup
    writes and reads (a `tile.copy` with `group_rows`). An evaluator that runs the whole
    block at once has nothing to wait for.
  }];
  let arguments = (ins UnitAttr:$warpgroup);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_AsyncCommitOp : Tile_Op<"async_commit"> {
  let summary = "Close the group of async copies issued by this thread so far";
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait"> {
  let summary = "Wait until at most `pending` committed groups of async copies are in flight";
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
}

//===----------------------------------------------------------------------===//
// Warp specialisation (Hopper): a producer issuing TMA copies, consumers computing, and
// mbarriers between them. Set by tile-warp-specialize.
//===----------------------------------------------------------------------===//

def Tile_Mbarriers : MemRefRankOf<[I64], [1]>;

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Split the block into a producer warpgroup and consumer warps";
  let description = [{
    The block's first `consumer_threads` threads run the `consumer` region; the last
    warpgroup (128 threads; the kernel's `threads` is `consumer_threads + 128`) runs the
    `producer` region on one of its threads. Inside the consumer region every collective op
    (copies, barriers, parallel loops, scans) involves the consumer threads only; the
    producer region holds only scalar code, `tile.stage`, `tile.tma_copy` and mbarrier ops.
    The two regions communicate only through shared buffers guarded by mbarriers. On CUDA
    the producer gives up registers and the consumers take them (`setmaxnreg`).

    ```mlir
    tile.warp_specialize producer {
      ... tile.mbarrier_wait %empty[%s], %p ... tile.tma_copy ...
    } consumer {
      ... tile.mbarrier_wait %full[%s], %p ... tile.mbarrier_arrive %empty[%s] ...
    } {consumer_threads = 256 : i64}
    ```
  }];
  let arguments = (ins I64Attr:$consumer_threads);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let assemblyFormat = "`producer` $producer `consumer` $consumer attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Threads of the producer warpgroup.
    static constexpr int64_t kProducerThreads = 128;
  }];
}

def Tile_MbarrierInitOp : Tile_Op<"mbarrier_init"> {
  let summary = "Initialise every mbarrier of a shared i64 buffer to expect `count` arrivals";
  let description = [{
    Run by the whole block before a `tile.warp_specialize`, followed by a `tile.barrier`.
    A phase of a barrier completes when it has seen `count` arrivals and every byte announced
    by `tile.mbarrier_arrive_expect_tx` in that phase has landed; the next phase then begins.
  }];
  let arguments = (ins Tile_Mbarriers:$barriers, ConfinedAttr<I64Attr, [IntMinValue<1>]>:$count);
  let assemblyFormat = "$barriers `,` $count attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

def Tile_MbarrierArriveOp : Tile_Op<"mbarrier_arrive"> {
  let summary = "Arrive on one mbarrier: once per warp of the consumers, or once from the producer";
  let arguments = (ins Tile_Mbarriers:$barriers, Index:$index);
  let assemblyFormat = "$barriers `[` $index `]` attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

def Tile_MbarrierExpectTxOp : Tile_Op<"mbarrier_arrive_expect_tx"> {
  let summary = "Arrive once on an mbarrier and announce `bytes` of async copies to it";
  let description = [{
    Producer only. The phase completes when, besides the arrivals, `bytes` bytes of
    `tile.tma_copy` writes signalling this barrier have landed. `bytes = 0` is a plain
    arrival: a stage the producer leaves unwritten because its consumers skip it.
  }];
  let arguments = (ins Tile_Mbarriers:$barriers, Index:$index,
                       ConfinedAttr<I64Attr, [IntMinValue<0>]>:$bytes);
  let assemblyFormat = "$barriers `[` $index `]` `,` $bytes attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

def Tile_MbarrierWaitOp : Tile_Op<"mbarrier_wait"> {
  let summary = "Wait until the phase of parity `parity` of one mbarrier has completed";
  let description = [{
    Phases alternate parity 0, 1, 0, ... starting at 0. Waiting for parity 1 before any
    phase completed returns at once (the "previous" phase counts as done), which lets a
    producer's first pass over an empty ring go through.
  }];
  let arguments = (ins Tile_Mbarriers:$barriers, Index:$index, Index:$parity);
  let assemblyFormat = "$barriers `[` $index `]` `,` $parity attr-dict `:` type($barriers)";
  let hasVerifier = 1;
}

def Tile_TmaCopyOp : Tile_Op<"tma_copy"> {
  let summary = "Copy a tile from global to shared memory with the Tensor Memory Accelerator";
  let description = [{
    Like a global-to-shared `tile.copy` (origin indices, `dims` naming the global dims along
    the tile's rows and columns, zeros outside the tensor), but issued by one producer thread
    as `cp.async.bulk.tensor` and completing on mbarrier `barriers[barrier_index]` with the
    tile's bytes. The tile must be 16-bit, with rows of a multiple of 128 bytes (the 128-byte
    swizzled layout) and at most 256 rows; the column dim must be the tensor's last dim.
    The runtime builds the tensor map (one per tensor and tile shape).
  }];
  let arguments = (ins Tile_Global:$source, Variadic<Index>:$indices, Tile_LocalBuffer:$dest,
                       Tile_Mbarriers:$barriers, Index:$barrier_index,
                       DenseI64ArrayAttr:$dims);
  let assemblyFormat = [{
    $source `[` $indices `]` `to` $dest `,` $barriers `[` $barrier_index `]` attr-dict
    `:` type($source) `to` type($dest) `,` type($barriers)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes the copy delivers (the whole tile, zeros included).
    int64_t getBytes();
  }];
}

def Tile_WarpgroupTurnOp : Tile_Op<"warpgroup_turn"> {
  let summary = "Take turns between consumer warpgroups for the tensor cores (ping-pong)";
  let description = [{
    In the consumer region of a `tile.warp_specialize` with W >= 2 warpgroups, orders the
    warpgroups' tensor-core sections round-robin so that one warpgroup's gemms overlap the
    others' element-wise work: `wait` blocks warpgroup g until warpgroup g - 1 (cyclically)
    has passed the turn, `pass` hands it to warpgroup g + 1, `start` (once, before the first
    section: the last warpgroup passes to the first) and `finish` (once, after the last: the
    first warpgroup takes the final pass) balance the named barriers. Every consumer
    warpgroup must run the same sequence of these ops (they sit around block-collective
    gemms, whose control flow is the same for the whole block). Set by
    tile-warpgroup-pingpong; the CPU executor, which runs the block collectively, ignores it.
  }];
  let arguments = (ins StrAttr:$kind);
  let assemblyFormat = "$kind attr-dict";
  let hasVerifier = 1;
}

#endif // METAATTN_DIALECT_TILE_IR_TILEOPS_TD
