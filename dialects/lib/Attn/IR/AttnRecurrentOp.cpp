//===- AttnRecurrentOp.cpp - attn.recurrent verifier -------------------------===//
//
// Shape, gate and modifier-region checks of the recurrent (linear attention) family.
//
//===----------------------------------------------------------------------===//

#include "AttnVerifyUtils.h"
#include "metaattn/Dialect/Attn/IR/AttnOps.h"

using namespace mlir;
using namespace metaattn::attn;
using namespace metaattn::attn::verify;

LogicalResult RecurrentOp::verify() {
  Operation *op = getOperation();
  auto qt = cast<RankedTensorType>(getQ().getType());
  auto kt = cast<RankedTensorType>(getK().getType());
  auto vt = cast<RankedTensorType>(getV().getType());
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"q", qt}, {"k", kt}, {"v", vt}}) {
    if (t.getRank() != 4)
      return emitOpError() << name << " must be a rank-4 tensor [batch, seq, heads, dim], "
                           << "found rank " << t.getRank();
    if (t.isDynamicDim(2) || t.isDynamicDim(3))
      return emitOpError() << name << " heads and head dim (dims 2 and 3) must be static";
  }
  if (!isSupportedElementType(qt.getElementType()) || kt.getElementType() != qt.getElementType() ||
      vt.getElementType() != qt.getElementType())
    return emitOpError() << "q, k and v must share one element type among bf16, f16, f32";
  int64_t qkHeads = qt.getDimSize(2), heads = vt.getDimSize(2);
  int64_t keyDim = qt.getDimSize(3), valueDim = vt.getDimSize(3);
  if (kt.getDimSize(2) != qkHeads || kt.getDimSize(3) != keyDim)
    return emitOpError() << "q and k must have the same heads and head dim, found " << qt << " and "
                         << kt;
  if (heads % qkHeads != 0)
    return emitOpError() << "v heads (" << heads << ") must be a multiple of q/k heads (" << qkHeads
                         << ")";
  int64_t batch = qt.getDimSize(0), seq = qt.getDimSize(1);
  if (failed(verifyDim(op, "k", kt, 0, batch, "batch")) ||
      failed(verifyDim(op, "k", kt, 1, seq, "length")) ||
      failed(verifyDim(op, "v", vt, 0, batch, "batch")) ||
      failed(verifyDim(op, "v", vt, 1, seq, "length")))
    return failure();

  auto ot = cast<RankedTensorType>(getOutput().getType());
  // One diagnostic per problem: verifyDim reports a wrong size itself.
  if (ot.getRank() != 4 || ot.getElementType() != qt.getElementType())
    return emitOpError() << "output must be [batch, seq, heads, value dim] of "
                         << qt.getElementType() << ", found " << ot;
  if (failed(verifyDim(op, "output", ot, 0, batch, "batch")) ||
      failed(verifyDim(op, "output", ot, 1, seq, "length")) ||
      failed(verifyDim(op, "output", ot, 2, heads, "heads")) ||
      failed(verifyDim(op, "output", ot, 3, valueDim, "value dim")))
    return failure();

  // Gate.
  GateKind kind = getGateKind();
  Value gate = getGate();
  if ((kind == GateKind::none) != !gate)
    return emitOpError() << (gate ? "a gate operand needs a gate_kind other than none"
                                  : "gate_kind needs a gate operand");
  if (gate) {
    auto gt = cast<RankedTensorType>(gate.getType());
    if (!gt.getElementType().isF32())
      return emitOpError() << "gate must be f32 (log-space decay), found " << gt.getElementType();
    SmallVector<int64_t> expected;
    StringRef shape;
    switch (kind) {
    case GateKind::head:
      expected = {heads};
      shape = "[heads]";
      break;
    case GateKind::token:
      expected = {batch, seq, heads};
      shape = "[batch, seq, heads]";
      break;
    case GateKind::vector:
      expected = {batch, seq, heads, keyDim};
      shape = "[batch, seq, heads, key dim]";
      break;
    case GateKind::none:
      break;
    }
    if (gt.getRank() != static_cast<int64_t>(expected.size()))
      return emitOpError() << "gate of kind " << stringifyGateKind(kind) << " must be " << shape
                           << ", found " << gt;
    for (auto [d, size] : llvm::enumerate(expected))
      if (failed(verifyDim(op, "gate", gt, d, size, shape)))
        return failure();
  }

  // States.
  auto verifyState = [&](Type type, StringRef name) -> LogicalResult {
    auto st = cast<RankedTensorType>(type);
    if (st.getRank() != 4 || !st.getElementType().isF32())
      return emitOpError() << name << " must be [batch, heads, key dim, value dim] of f32, "
                           << "found " << st;
    if (failed(verifyDim(op, name, st, 0, batch, "batch")) ||
        failed(verifyDim(op, name, st, 1, heads, "heads")) ||
        failed(verifyDim(op, name, st, 2, keyDim, "key dim")) ||
        failed(verifyDim(op, name, st, 3, valueDim, "value dim")))
      return failure();
    return success();
  };
  if (getInitialState() && failed(verifyState(getInitialState().getType(), "initial state")))
    return failure();
  if (getFinalState() && failed(verifyState(getFinalState().getType(), "final state")))
    return failure();

  // Custom inputs.
  static const StringRef names[] = {"b", "t", "h", "d"};
  if (getInputDims().size() != getInputs().size())
    return emitOpError() << "has " << getInputs().size() << " custom input(s) but "
                         << getInputDims().size() << " entries in input_dims";
  for (auto [i, input, attr] : llvm::enumerate(getInputs(), getInputDims())) {
    std::string error;
    auto spec = dyn_cast<StringAttr>(attr);
    auto dims = spec ? parseDimList(spec.getValue(), names, error) : std::nullopt;
    if (!dims)
      return emitOpError() << "input_dims[" << i << "]: " << (spec ? error : "must be a string");
    auto it = cast<RankedTensorType>(input.getType());
    if (it.getRank() != static_cast<int64_t>(dims->size()))
      return emitOpError() << "custom input #" << i << " declared over '" << spec.getValue()
                           << "' must have rank " << dims->size() << ", found " << it;
    const int64_t sizes[] = {batch, seq, heads, ShapedType::kDynamic};
    for (auto [d, pos] : llvm::enumerate(*dims))
      if (failed(
              verifyDim(op, "custom input #" + std::to_string(i), it, d, sizes[pos], names[pos])))
        return failure();
  }
  return success();
}

LogicalResult RecurrentOp::verifyRegions() {
  Builder b(getContext());
  SmallVector<Type> args = {b.getF32Type()};
  args.append(4, b.getIndexType());
  for (Value input : getInputs())
    args.push_back(cast<RankedTensorType>(input.getType()).getElementType());
  std::pair<Region *, StringRef> regions[] = {{&getQMod(), "q_mod"},
                                              {&getKMod(), "k_mod"},
                                              {&getVMod(), "v_mod"},
                                              {&getGateMod(), "gate_mod"}};
  for (auto [region, name] : regions) {
    if (region->empty())
      continue;
    if (!region->hasOneBlock())
      return emitOpError() << "'" << name << "' region must have one block";
    if (failed(verifyRegionSignature(*this, *region, name, args, {b.getF32Type()})))
      return failure();
  }
  if (!getGateMod().empty() && !getGate())
    return emitOpError() << "'gate_mod' region needs a gate operand";
  return success();
}

std::optional<SmallVector<RecurrentDim>>
metaattn::attn::parseRecurrentInputDims(StringRef spec, std::string &error) {
  static const StringRef names[] = {"b", "t", "h", "d"};
  auto positions = parseDimList(spec, names, error);
  if (!positions)
    return std::nullopt;
  SmallVector<RecurrentDim> dims;
  for (unsigned p : *positions)
    dims.push_back(static_cast<RecurrentDim>(p));
  return dims;
}
