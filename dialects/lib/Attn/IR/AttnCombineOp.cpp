//===- AttnCombineOp.cpp - attn.combine verifier -----------------------------===//
//
// Shape, custom-input and region checks of the element-wise combination of attention outputs.
//
//===----------------------------------------------------------------------===//

#include "AttnVerifyUtils.h"
#include "metaattn/Dialect/Attn/IR/AttnOps.h"

using namespace mlir;
using namespace metaattn::attn;
using namespace metaattn::attn::verify;

namespace {

/// Checks one [batch, seq_q, heads, value dim] tensor of the combination against `ref`.
LogicalResult verifyOutputLike(Operation *op, const std::string &name, Type type,
                               RankedTensorType ref) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || t.getRank() != 4 || !isSupportedElementType(t.getElementType()))
    return op->emitOpError() << name
                             << " must be a rank-4 tensor [batch, seq_q, heads, value dim] of "
                                "bf16, f16 or f32, found "
                             << type;
  if (t.isDynamicDim(2) || t.isDynamicDim(3))
    return op->emitOpError() << name << " heads and value dim (dims 2 and 3) must be static";
  static const char *what[] = {"batch", "query length", "heads", "value dim"};
  for (unsigned d = 0; d < 4; ++d)
    if (failed(verifyDim(op, name, t, d,
                         ref.isDynamicDim(d) ? ShapedType::kDynamic : ref.getDimSize(d), what[d])))
      return failure();
  return success();
}

} // namespace

LogicalResult CombineOp::verify() {
  Operation *op = getOperation();
  if (getValues().empty())
    return emitOpError() << "needs at least one attention output to combine";
  auto first = dyn_cast<RankedTensorType>(getValues().front().getType());
  if (failed(verifyOutputLike(op, "operand #0", first, first)))
    return failure();
  for (auto [i, value] : llvm::enumerate(getValues()))
    if (i > 0 &&
        failed(verifyOutputLike(op, "operand #" + std::to_string(i), value.getType(), first)))
      return failure();
  if (failed(verifyOutputLike(op, "output", getOutput().getType(), first)))
    return failure();

  if (getInputDims().size() != getInputs().size())
    return emitOpError() << "has " << getInputs().size() << " custom input(s) but "
                         << getInputDims().size() << " entries in input_dims";
  int64_t dims[] = {first.getDimSize(0), first.getDimSize(2), first.getDimSize(1)};
  for (auto [i, input, attr] : llvm::enumerate(getInputs(), getInputDims())) {
    auto spec = dyn_cast<StringAttr>(attr);
    std::string error;
    auto axes = spec ? parseInputDims(spec.getValue(), error) : std::nullopt;
    if (!axes)
      return emitOpError() << "input_dims[" << i << "]: " << (spec ? error : "must be a string");
    if (hasInputDim(*axes, InputDim::KV))
      return emitOpError() << "input_dims[" << i << "]: custom inputs of attn.combine vary "
                           << "over b, h and q only, found '" << spec.getValue() << "'";
    auto it = cast<RankedTensorType>(input.getType());
    if (it.getRank() != static_cast<int64_t>(axes->size()))
      return emitOpError() << "custom input #" << i << " declared over '" << spec.getValue()
                           << "' must have rank " << axes->size() << ", found " << it;
    if (!it.getElementType().isIntOrIndexOrFloat())
      return emitOpError() << "custom input #" << i << " must have a scalar element type";
    static const char *what[] = {"batch", "heads", "query length"};
    for (auto [d, axis] : llvm::enumerate(*axes)) {
      unsigned k = static_cast<unsigned>(axis.dim);
      int64_t expected = dims[k];
      std::string desc = what[k];
      if (axis.isBlock()) {
        desc = "blocks of " + std::to_string(axis.divisor) + ": ceil(" + desc + " / " +
               std::to_string(axis.divisor) + ")";
        if (!ShapedType::isDynamic(expected))
          expected = blockCount(expected, axis.divisor);
      }
      if (failed(verifyDim(op, "custom input #" + std::to_string(i), it, d, expected, desc)))
        return failure();
    }
  }
  return success();
}

LogicalResult CombineOp::verifyRegions() {
  Builder b(getContext());
  SmallVector<Type> args(getValues().size(), b.getF32Type());
  args.append(4, b.getIndexType()); // b, h, q, d
  for (Value input : getInputs())
    args.push_back(cast<RankedTensorType>(input.getType()).getElementType());
  return verifyRegionSignature(*this, getCombiner(), "combiner", args, {b.getF32Type()});
}
