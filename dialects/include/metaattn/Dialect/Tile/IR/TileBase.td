//===- TileBase.td - tile dialect definition -------------*- tablegen -*-===//
//
// The tile dialect: how an attention is computed by one thread block, TileLang-like and
// target-neutral.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_DIALECT_TILE_IR_TILEBASE_TD
#define METAATTN_DIALECT_TILE_IR_TILEBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::metaattn::tile";
  let summary = "Block-level tile programs: kernels, buffers, copies, gemms, reductions";
  let description = [{
    A `tile.kernel` is the program of one thread block of a launch grid. Global tensors
    (`!tile.tensor`) are kernel parameters with runtime sizes and strides. Local buffers are
    memrefs in shared memory (`#tile.space<shared>`) or in registers distributed over the
    block's threads (`#tile.space<fragment>`); operations on them (`tile.copy`, `tile.fill`,
    `tile.gemm`, `tile.reduce`, `tile.parallel`) are collective over the block. Loops are
    `scf.for` or `tile.pipelined` (software-pipelined by tile-pipeline-plan and
    tile-pipeline-expand). How a fragment is spread over threads is a layout attribute chosen
    by tile-infer-layout, never by hand.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

def Tile_MemorySpace : I32EnumAttr<"MemorySpace", "where a local buffer lives", [
    I32EnumAttrCase<"shared", 1>,
    I32EnumAttrCase<"fragment", 2>]> {
  let cppNamespace = "::metaattn::tile";
  let genSpecializedAttr = 0;
}
def Tile_MemorySpaceAttr : EnumAttr<Tile_Dialect, Tile_MemorySpace, "space"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "row reduction of a fragment", [
    I32EnumAttrCase<"max", 0>,
    I32EnumAttrCase<"sum", 1>,
    I32EnumAttrCase<"abs_sum", 2>]> {
  let cppNamespace = "::metaattn::tile";
  let genSpecializedAttr = 0;
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce">;

def Tile_FragmentLayoutAttr : AttrDef<Tile_Dialect, "FragmentLayout"> {
  let mnemonic = "layout";
  let summary = "How a fragment is distributed over the block's threads";
  let description = [{
    `#tile.layout<"mma", warps = W>`: a 2-D fragment whose rows are split into W equal slabs, one
    per warp, each slab in the mma m16n8 accumulator layout (also the m16n8k16 A-operand layout
    for 16-bit elements). `#tile.layout<"row", warps = W>`: a 1-D fragment holding one value per
    row of an `mma` fragment with the same rows and warps (replicated over the four lanes of a
    quad). `#tile.layout<"col", warps = W>`: a 1-D fragment holding one value per column of an
    `mma` fragment with the same columns: each thread holds the columns its own elements of
    that fragment touch (replicated over the quads of a warp and over its warps).
  }];
  let parameters = (ins StringRefParameter<"mma, row or col">:$kind, "unsigned":$warps);
  let assemblyFormat = "`<` $kind `,` `warps` `=` $warps `>`";
  let genVerifyDecl = 1;
}

def Tile_GlobalTensorType : TypeDef<Tile_Dialect, "GlobalTensor"> {
  let mnemonic = "tensor";
  let summary = "A global tensor parameter with runtime sizes and strides";
  let description = [{
    `!tile.tensor<?x?x8x64xbf16>`: a kernel parameter in global memory. Dynamic sizes are read
    with `tile.dim`; strides are runtime values in elements (the innermost may be required to
    be 1 by the runtime's signature).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
  }];
}

def Tile_TileListType : TypeDef<Tile_Dialect, "TileList"> {
  let mnemonic = "tile_list";
  let summary = "The kept indices of a range, in increasing order (tile.kept_tiles)";
  let description = [{
    `!tile.tile_list`: what `tile.kept_tiles` keeps of its range; `tile.tile_at` reads it by
    rank. It has no storage of its own in the IR: a target keeps whatever state walking the
    range in order needs (on CUDA a 32-tile window and a bit mask per reader).
  }];
}

#endif // METAATTN_DIALECT_TILE_IR_TILEBASE_TD
