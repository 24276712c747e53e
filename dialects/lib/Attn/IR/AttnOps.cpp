//===- AttnOps.cpp - attn parallel-family operations -------------------------===//
//
// Verifiers of attn.attention, attn.online_attention, attn.row_reduce and the shared region
// checks. Every diagnostic says what is wrong in user terms.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "AttnVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace metaattn::attn;
using namespace metaattn::attn::verify;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

bool verify::isSupportedElementType(Type type) {
  return type.isBF16() || type.isF16() || type.isF32();
}

LogicalResult verify::verifyDim(Operation *op, StringRef tensorName, RankedTensorType type,
                                unsigned dim, int64_t expected, StringRef what) {
  if (ShapedType::isDynamic(expected) || type.isDynamicDim(dim))
    return success();
  if (type.getDimSize(dim) != expected)
    return op->emitOpError() << tensorName << " dim " << dim << " (" << what << ") is "
                             << type.getDimSize(dim) << ", expected " << expected;
  return success();
}

std::optional<SmallVector<unsigned>>
verify::parseDimList(StringRef spec, ArrayRef<StringRef> allowed, std::string &error) {
  SmallVector<unsigned> result;
  if (spec.trim().empty())
    return result; // a scalar input
  SmallVector<StringRef> parts;
  spec.split(parts, ',');
  int last = -1;
  for (StringRef part : parts) {
    part = part.trim();
    auto it = llvm::find(allowed, part);
    if (it == allowed.end()) {
      error = ("unknown dim '" + part + "' (expected a subset of " + llvm::join(allowed, ",") + ")")
                  .str();
      return std::nullopt;
    }
    int pos = it - allowed.begin();
    if (pos <= last) {
      error = ("dims '" + spec + "' must be in the order " + llvm::join(allowed, ",") +
               " without repeats")
                  .str();
      return std::nullopt;
    }
    last = pos;
    result.push_back(pos);
  }
  return result;
}

std::optional<SmallVector<InputAxis>> metaattn::attn::parseInputDims(StringRef spec,
                                                                     std::string &error) {
  static const StringRef names[] = {"b", "h", "q", "kv"};
  // Split off the block divisors ("q/64"), then check the names' order.
  SmallVector<StringRef> parts;
  if (!spec.trim().empty())
    spec.split(parts, ',');
  SmallVector<int64_t> divisors;
  std::string namesOnly;
  for (StringRef part : parts) {
    auto [name, divisorText] = part.trim().split('/');
    name = name.trim();
    int64_t divisor = 1;
    if (part.contains('/')) {
      divisorText = divisorText.trim();
      if (divisorText.getAsInteger(10, divisor) || divisor <= 0) {
        error = ("block divisor in '" + part.trim() + "' must be a positive integer").str();
        return std::nullopt;
      }
      if (name != "q" && name != "kv") {
        error = ("only q and kv can be divided into blocks, found '" + part.trim() + "'").str();
        return std::nullopt;
      }
    }
    divisors.push_back(divisor);
    namesOnly += (namesOnly.empty() ? "" : ",") + name.str();
  }
  auto positions = parseDimList(namesOnly, names, error);
  if (!positions) {
    // Quote the entry as written, divisors included.
    size_t at = error.find("'" + namesOnly + "'");
    if (at != std::string::npos)
      error.replace(at, namesOnly.size() + 2, ("'" + spec.trim() + "'").str());
    return std::nullopt;
  }
  SmallVector<InputAxis> dims;
  for (auto [p, divisor] : llvm::zip(*positions, divisors))
    dims.push_back({static_cast<InputDim>(p), divisor});
  return dims;
}

bool metaattn::attn::hasInputDim(ArrayRef<InputAxis> axes, InputDim dim) {
  return llvm::any_of(axes, [&](const InputAxis &a) { return a.dim == dim; });
}

LogicalResult verify::verifyRegionSignature(Operation *op, Region &region, StringRef name,
                                            ArrayRef<Type> argTypes, ArrayRef<Type> yieldTypes,
                                            bool checkYield) {
  if (region.empty())
    return op->emitOpError() << "'" << name << "' region must not be empty";
  Block &block = region.front();
  if (block.getNumArguments() != argTypes.size())
    return op->emitOpError() << "'" << name << "' region must have " << argTypes.size()
                             << " arguments, found " << block.getNumArguments();
  for (auto [i, arg, expected] : llvm::enumerate(block.getArguments(), argTypes))
    if (arg.getType() != expected)
      return op->emitOpError() << "'" << name << "' region argument #" << i << " must be "
                               << expected << ", found " << arg.getType();
  if (!checkYield)
    return success();
  Operation *term = block.getTerminator();
  auto yield = dyn_cast_or_null<YieldOp>(term);
  if (!yield)
    return op->emitOpError() << "'" << name << "' region must end with attn.yield";
  if (yield.getValues().size() != yieldTypes.size())
    return op->emitOpError() << "'" << name << "' region must yield " << yieldTypes.size()
                             << " value(s), found " << yield.getValues().size();
  for (auto [i, value, expected] : llvm::enumerate(yield.getValues(), yieldTypes))
    if (value.getType() != expected)
      return op->emitOpError() << "'" << name << "' region must yield " << expected << " as value #"
                               << i << ", found " << value.getType();
  return success();
}

namespace {

/// Shape checks shared by attn.attention and attn.online_attention.
LogicalResult verifyParallelShapes(Operation *op, Value q, Value k, Value v, ValueRange inputs,
                                   ArrayAttr inputDims, Value output, Value lse) {
  auto qt = cast<RankedTensorType>(q.getType());
  auto kt = cast<RankedTensorType>(k.getType());
  auto vt = cast<RankedTensorType>(v.getType());
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"q", qt}, {"k", kt}, {"v", vt}})
    if (t.getRank() != 4)
      return op->emitOpError() << name << " must be a rank-4 tensor [batch, seq, heads, dim], "
                               << "found rank " << t.getRank();
  if (!isSupportedElementType(qt.getElementType()))
    return op->emitOpError() << "q element type must be bf16, f16 or f32, found "
                             << qt.getElementType();
  if (kt.getElementType() != qt.getElementType() || vt.getElementType() != qt.getElementType())
    return op->emitOpError() << "q, k and v must have one element type, found "
                             << qt.getElementType() << ", " << kt.getElementType() << ", "
                             << vt.getElementType();
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"q", qt}, {"k", kt}, {"v", vt}})
    if (t.isDynamicDim(2) || t.isDynamicDim(3))
      return op->emitOpError() << name << " heads and head dim (dims 2 and 3) must be static";
  int64_t heads = qt.getDimSize(2), dim = qt.getDimSize(3);
  int64_t kvHeads = kt.getDimSize(2), valueDim = vt.getDimSize(3);
  if (heads <= 0 || dim <= 0 || kvHeads <= 0 || valueDim <= 0)
    return op->emitOpError() << "head counts and head dims must be positive";
  if (vt.getDimSize(2) != kvHeads)
    return op->emitOpError() << "k and v must have the same number of heads, found " << kvHeads
                             << " and " << vt.getDimSize(2);
  if (heads % kvHeads != 0)
    return op->emitOpError() << "query heads (" << heads << ") must be a multiple of kv heads ("
                             << kvHeads << ")";
  if (kt.getDimSize(3) != dim)
    return op->emitOpError() << "k head dim (" << kt.getDimSize(3) << ") must equal q head dim ("
                             << dim << ")";
  int64_t batch = qt.getDimSize(0), seqQ = qt.getDimSize(1), seqKv = kt.getDimSize(1);
  if (failed(verifyDim(op, "k", kt, 0, batch, "batch")) ||
      failed(verifyDim(op, "v", vt, 0, batch, "batch")) ||
      failed(verifyDim(op, "v", vt, 1, seqKv, "kv length")))
    return failure();

  // The output has q's element type, or f32 (an intermediate kept at full precision).
  auto ot = cast<RankedTensorType>(output.getType());
  Type outElt = ot.getElementType();
  if (ot.getRank() != 4 || (outElt != qt.getElementType() && !outElt.isF32())) {
    InFlightDiagnostic diag = op->emitOpError()
                              << "output must be [batch, seq_q, heads, value dim] of "
                              << qt.getElementType();
    if (!qt.getElementType().isF32())
      diag << " or 'f32'";
    return diag << ", found " << ot;
  }
  if (failed(verifyDim(op, "output", ot, 0, batch, "batch")) ||
      failed(verifyDim(op, "output", ot, 1, seqQ, "query length")) ||
      failed(verifyDim(op, "output", ot, 2, heads, "heads")) ||
      failed(verifyDim(op, "output", ot, 3, valueDim, "value dim")))
    return failure();
  if (lse) {
    auto lt = cast<RankedTensorType>(lse.getType());
    if (lt.getRank() != 3 || !lt.getElementType().isF32())
      return op->emitOpError() << "row statistics must be [batch, heads, seq_q] of f32, found "
                               << lt;
    if (failed(verifyDim(op, "row statistics", lt, 0, batch, "batch")) ||
        failed(verifyDim(op, "row statistics", lt, 1, heads, "heads")) ||
        failed(verifyDim(op, "row statistics", lt, 2, seqQ, "query length")))
      return failure();
  }

  if (inputDims.size() != inputs.size())
    return op->emitOpError() << "has " << inputs.size() << " custom input(s) but "
                             << inputDims.size() << " entries in input_dims";
  for (auto [i, input, attr] : llvm::enumerate(inputs, inputDims)) {
    auto spec = dyn_cast<StringAttr>(attr);
    std::string error;
    auto dims = spec ? parseInputDims(spec.getValue(), error) : std::nullopt;
    if (!dims)
      return op->emitOpError() << "input_dims[" << i
                               << "]: " << (spec ? error : "must be a string");
    auto it = cast<RankedTensorType>(input.getType());
    if (it.getRank() != static_cast<int64_t>(dims->size()))
      return op->emitOpError() << "custom input #" << i << " declared over '" << spec.getValue()
                               << "' must have rank " << dims->size() << ", found " << it;
    if (!it.getElementType().isIntOrIndexOrFloat())
      return op->emitOpError() << "custom input #" << i << " must have a scalar element type";
    for (auto [d, axis] : llvm::enumerate(*dims)) {
      int64_t expected = ShapedType::kDynamic;
      std::string what;
      switch (axis.dim) {
      case InputDim::B:
        expected = batch;
        what = "batch";
        break;
      case InputDim::H:
        expected = heads;
        what = "heads";
        break;
      case InputDim::Q:
        expected = seqQ;
        what = "query length";
        break;
      case InputDim::KV:
        expected = seqKv;
        what = "kv length";
        break;
      }
      if (axis.isBlock()) {
        // A block index: ceil(length / N) entries.
        what = "blocks of " + std::to_string(axis.divisor) + ": ceil(" + what + " / " +
               std::to_string(axis.divisor) + ")";
        if (!ShapedType::isDynamic(expected))
          expected = blockCount(expected, axis.divisor);
      }
      std::string name = "custom input #" + std::to_string(i);
      if (failed(verifyDim(op, name, it, d, expected, what)))
        return failure();
    }
  }
  return success();
}

/// Types of the block arguments of a parallel-family region: leading values, the six index
/// arguments, then one scalar per custom input.
SmallVector<Type> regionArgTypes(Builder &b, ArrayRef<Type> leading, ValueRange inputs,
                                 unsigned numIndex = kNumIndexArgs) {
  SmallVector<Type> types(leading.begin(), leading.end());
  types.append(numIndex, b.getIndexType());
  for (Value input : inputs)
    types.push_back(cast<RankedTensorType>(input.getType()).getElementType());
  return types;
}

} // namespace

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

/// Checks the mask_bounds attribute shared by both parallel-family ops.
static LogicalResult verifyMaskBounds(Operation *op, std::optional<ArrayRef<int64_t>> bounds) {
  if (!bounds)
    return success();
  if (bounds->size() % 5 != 0)
    return op->emitOpError() << "mask_bounds must hold 5 integers per constraint, found "
                             << bounds->size();
  for (size_t i = 0; i < bounds->size(); i += 5) {
    int64_t kind = (*bounds)[i];
    if (kind < 0 || kind > 3)
      return op->emitOpError() << "mask_bounds constraint kind must be 0 (kv <= e), 1 (kv >= e), "
                               << "2 or 3 (the same, widening the constraint before it), found "
                               << kind;
    if (kind >= 2 && (i == 0 || (*bounds)[i - 5] % 2 != kind % 2))
      return op->emitOpError() << "mask_bounds constraint " << i / 5 << " (kind " << kind
                               << ") must follow a constraint of the same direction";
  }
  return success();
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyMaskBounds(getOperation(), getMaskBounds())))
    return failure();
  return verifyParallelShapes(getOperation(), getQ(), getK(), getV(), getInputs(), getInputDims(),
                              getOutput(), getLse());
}

LogicalResult AttentionOp::verifyRegions() {
  Builder b(getContext());
  Type f32 = b.getF32Type();
  if (failed(verifyRegionSignature(*this, getScore(), "score",
                                   regionArgTypes(b, {f32}, getInputs()), {f32})) ||
      failed(verifyRegionSignature(*this, getMask(), "mask", regionArgTypes(b, {}, getInputs()),
                                   {b.getI1Type()})) ||
      failed(verifyRegionSignature(*this, getNormalizer(), "normalizer",
                                   regionArgTypes(b, {f32}, getInputs()), {},
                                   /*checkYield=*/false)))
    return failure();
  if (!isa<NormalizeOp>(getNormalizer().front().getTerminator()))
    return emitOpError() << "'normalizer' region must end with attn.normalize";
  return success();
}

//===----------------------------------------------------------------------===//
// OnlineAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult OnlineAttentionOp::verify() {
  if (failed(verifyParallelShapes(getOperation(), getQ(), getK(), getV(), getInputs(),
                                  getInputDims(), getOutput(), getLse())))
    return failure();
  unsigned numAcc = getNumAccumulators();
  for (Attribute attr : getReductions()) {
    auto kind = dyn_cast<ReductionKindAttr>(attr);
    if (!kind || kind.getValue() == ReductionKind::max)
      return emitOpError() << "row accumulators must be #attn<reduction sum> or "
                           << "#attn<reduction abs_sum>";
  }
  if (getDegrees().size() != numAcc + 1)
    return emitOpError() << "degrees must list the weight and each of the " << numAcc
                         << " accumulator(s): expected " << numAcc + 1 << " entries, found "
                         << getDegrees().size();
  if (!hasShift() && llvm::any_of(getDegrees(), [](int64_t d) { return d != 0; }))
    return emitOpError() << "degrees must be 0 without a shift region";
  if (failed(verifyMaskBounds(getOperation(), getMaskBounds())))
    return failure();

  Builder b(getContext());
  Type f32 = b.getF32Type();
  SmallVector<Type> yieldTypes(numAcc + 1, f32);
  SmallVector<Type> finalizeArgs(numAcc + 1, f32);
  if (failed(verifyRegionSignature(*this, getScore(), "score",
                                   regionArgTypes(b, {f32}, getInputs()), {f32})) ||
      failed(verifyRegionSignature(*this, getMask(), "mask", regionArgTypes(b, {}, getInputs()),
                                   {b.getI1Type()})) ||
      failed(verifyRegionSignature(*this, getElementwise(), "elementwise",
                                   regionArgTypes(b, {f32, f32}, getInputs()), yieldTypes)) ||
      failed(verifyRegionSignature(*this, getFinalize(), "finalize",
                                   regionArgTypes(b, finalizeArgs, getInputs()), {f32, f32})))
    return failure();
  if (hasShift() && failed(verifyRegionSignature(*this, getShift(), "shift",
                                                 regionArgTypes(b, {f32}, getInputs()), {f32})))
    return failure();
  if (!getShiftInit().empty()) {
    if (!hasShift())
      return emitOpError() << "'shift_init' region needs a 'shift' region";
    if (failed(verifyRegionSignature(*this, getShiftInit(), "shift_init",
                                     regionArgTypes(b, {}, getInputs()), {f32})))
      return failure();
  }
  // The finalize region runs once per row: it must not read the kv index or inputs over kv.
  Block &fin = getFinalize().front();
  unsigned kvArg = numAcc + 1 + static_cast<unsigned>(IndexArg::KV);
  if (!fin.getArgument(kvArg).use_empty())
    return emitOpError() << "'finalize' region must not use the kv index";
  for (auto [i, attr] : llvm::enumerate(getInputDims())) {
    std::string error;
    auto dims = parseInputDims(cast<StringAttr>(attr).getValue(), error);
    if (dims && hasInputDim(*dims, InputDim::KV) &&
        !fin.getArgument(numAcc + 1 + kNumIndexArgs + i).use_empty())
      return emitOpError() << "'finalize' region must not use custom input #" << i
                           << ", which varies over kv";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// RowReduceOp
//===----------------------------------------------------------------------===//

LogicalResult RowReduceOp::verify() {
  auto parent = (*this)->getParentOfType<AttentionOp>();
  if (!parent || !parent.getNormalizer().isAncestor((*this)->getParentRegion()))
    return emitOpError() << "is only allowed in a normalizer region";
  return success();
}

//===----------------------------------------------------------------------===//
// Region syntax
//===----------------------------------------------------------------------===//

/// `custom<IsolatedRegion>($r)`: a region of an attn op, printed as the declarative format
/// prints a region and parsed as its own name scope. The ops are IsolatedFromAbove, but
/// MLIR's generated parsers parse a region in its parent's scope: a block argument
/// there could resolve an earlier forward reference of the same name outside (`%0 = arith.mulf
/// %arg4, ...` before a score region that names `%arg4`), and when a later part of the op
/// failed to parse, the generated parser freed the region with that op still using its
/// argument — the teardown then wrote into freed memory. In its own scope, a region's names
/// never reach out.
static ParseResult parseIsolatedRegion(OpAsmParser &parser, Region &region) {
  return parser.parseRegion(region, /*arguments=*/{}, /*enableNameShadowing=*/true);
}

static void printIsolatedRegion(OpAsmPrinter &printer, Operation *, Region &region) {
  printer.printRegion(region);
}

#define GET_OP_CLASSES
#include "metaattn/Dialect/Attn/IR/AttnOps.cpp.inc"
