//===- AttnBase.td - attn dialect definition -------------*- tablegen -*-===//
//
// The attn dialect: what an attention variant computes, logically and untiled.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_DIALECT_ATTN_IR_ATTNBASE_TD
#define METAATTN_DIALECT_ATTN_IR_ATTNBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Attn_Dialect : Dialect {
  let name = "attn";
  let cppNamespace = "::metaattn::attn";
  let summary = "Attention variants as logical dataflow";
  let description = [{
    The `attn` dialect describes one attention problem per op, untiled. The parallel family
    (`attn.attention`) computes scores `S = Q·Kᵀ`, applies an element-wise score function and a
    boolean mask (regions over the score and the indices `b, h, q_idx, kv_idx` and the lengths
    `sq, skv`), normalises each row with a normaliser region built from row reductions, and
    multiplies by V. The recurrent family (`attn.recurrent`) is linear attention with a decaying
    state. Batch and sequence lengths are dynamic; head counts and head dims are static.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect"];
}

class Attn_Op<string mnemonic, list<Trait> traits = []>
    : Op<Attn_Dialect, mnemonic, traits>;

def Attn_ReductionKind : I32EnumAttr<"ReductionKind", "row reduction", [
    I32EnumAttrCase<"max", 0>,
    I32EnumAttrCase<"sum", 1>,
    I32EnumAttrCase<"abs_sum", 2>]> {
  let cppNamespace = "::metaattn::attn";
  let genSpecializedAttr = 0;
}
def Attn_ReductionKindAttr : EnumAttr<Attn_Dialect, Attn_ReductionKind, "reduction">;

def Attn_GateKind : I32EnumAttr<"GateKind", "decay gate of a recurrent attention", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"head", 1>,
    I32EnumAttrCase<"token", 2>,
    I32EnumAttrCase<"vector", 3>]> {
  let cppNamespace = "::metaattn::attn";
  let genSpecializedAttr = 0;
}
def Attn_GateKindAttr : EnumAttr<Attn_Dialect, Attn_GateKind, "gate">;

#endif // METAATTN_DIALECT_ATTN_IR_ATTNBASE_TD
