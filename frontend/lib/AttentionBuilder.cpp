//===- AttentionBuilder.cpp - emit attn.attention from C++ lambdas --------===//
//
// Validates the description, creates the function and the attn.attention with its three
// regions, runs each user lambda with that region's emitter current, checks what the lambda
// returned, and verifies the module, turning diagnostics into the error string.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Frontend/AttentionBuilder.h"
#include "RegionEmitter.h"
#include "metaattn/Dialect/Attn/Transforms/Passes.h"

#include "metaattn/Dialect/Attn/IR/AttnDialect.h"
#include "metaattn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <atomic>
#include <cmath>
#include <set>

using namespace mlir;
using namespace metaattn::frontend;
using metaattn::frontend::detail::RegionEmitter;

namespace {

std::atomic<uint64_t> nextBuilderId{1};

bool isQkvType(DType type) {
  return type == DType::BF16 || type == DType::F16 || type == DType::F32;
}

bool isInputType(DType type) { return type != DType::F64; }

} // namespace

Type metaattn::frontend::detail::toMlirType(MLIRContext &ctx, DType type) {
  Builder b(&ctx);
  switch (type) {
  case DType::BF16:
    return b.getBF16Type();
  case DType::F16:
    return b.getF16Type();
  case DType::F32:
    return b.getF32Type();
  case DType::F64:
    return b.getF64Type();
  case DType::I32:
    return b.getI32Type();
  case DType::I64:
    return b.getI64Type();
  }
  return {};
}

LogicalResult metaattn::frontend::detail::verifyBuilt(ModuleOp module, std::string &error) {
  std::string diagnostics;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    diagnostics += (diagnostics.empty() ? "" : "; ") + diag.str();
    return success();
  });
  if (succeeded(mlir::verify(module)))
    return success();
  error = "the generated IR does not verify: " + diagnostics;
  return failure();
}

namespace {
using metaattn::frontend::detail::toMlirType;

const char *dimName(Dim d) {
  switch (d) {
  case Dim::B:
    return "b";
  case Dim::H:
    return "h";
  case Dim::Q:
    return "q";
  case Dim::KV:
    return "kv";
  }
  return "?";
}

/// Checks that a lambda's result is a valid Sym of `emitter` of the wanted kind; returns the
/// error message or "".
std::string checkResult(const Sym &result, RegionEmitter &emitter, Sym::Kind want,
                        const std::string &what) {
  if (!result.isValid())
    return what + " returned an invalid Sym (default-constructed or the result of an "
                  "earlier error)";
  if (result.emitter().get() != &emitter)
    return what + " returned a Sym of the " + result.emitter()->name() + " region";
  if (result.kind() != want)
    return what + " must return " +
           (want == Sym::Kind::I1 ? std::string("an i1 value (a comparison)")
                                  : std::string("an ") + toString(want) + " value") +
           ", got " + toString(result.kind());
  return "";
}

} // namespace

//===----------------------------------------------------------------------===//
// Inputs, row reductions, normalisers
//===----------------------------------------------------------------------===//

Sym Input::at(const Indices &indices) const { return indices.inputs[*this]; }

Sym InputValues::operator[](const Input &input) const {
  RegionEmitter *cur = RegionEmitter::current();
  if (!cur)
    return Sym();
  if (!emitter || emitter.get() != cur) {
    cur->report("custom input '" + input.name() + "' read in the " + cur->name() +
                " region through the indices of " +
                (emitter ? "the " + emitter->name() + " region" : std::string("no region")));
    return Sym();
  }
  if (input.builderId != builderId || input.pos >= values.size()) {
    cur->report("custom input '" + input.name() + "' was declared on another AttentionBuilder");
    return Sym();
  }
  Value raw = values[input.pos];
  Type type = raw.getType();
  OpBuilder &b = cur->getBuilder();
  if (type.isF32())
    return cur->wrap(raw);
  if (type.isBF16() || type.isF16())
    return cur->wrap(arith::ExtFOp::create(b, cur->getLoc(), b.getF32Type(), raw));
  return cur->wrap(arith::IndexCastOp::create(b, cur->getLoc(), b.getIndexType(), raw));
}

Sym RowOps::reduce(int kind, const Sym &x) {
  static const char *names[] = {"rowMax", "rowSum", "rowAbsSum"};
  RegionEmitter *cur = metaattn::frontend::detail::checkOperands(names[kind], {&x});
  if (!cur)
    return Sym();
  if (!x.isFloat()) {
    cur->report(std::string("'") + names[kind] + "' needs an f32 value, got " + toString(x.kind()));
    return Sym();
  }
  OpBuilder &b = cur->getBuilder();
  auto op = metaattn::attn::RowReduceOp::create(b, cur->getLoc(), b.getF32Type(),
                                                static_cast<metaattn::attn::ReductionKind>(kind),
                                                x.value());
  return cur->wrap(op.getResult());
}

Sym RowOps::rowMax(const Sym &x) { return reduce(0, x); }
Sym RowOps::rowSum(const Sym &x) { return reduce(1, x); }
Sym RowOps::rowAbsSum(const Sym &x) { return reduce(2, x); }

Normalizer Normalizer::softmax() {
  return Normalizer(
      [](Sym s, RowOps &rows) -> std::pair<Sym, Sym> {
        Sym mx = rows.rowMax(s);
        Sym w = exp(s - mx);
        Sym z = rows.rowSum(w);
        return {w, z};
      },
      "softmax");
}

Normalizer Normalizer::identity() {
  return Normalizer([](Sym s, RowOps &) -> std::pair<Sym, Sym> { return {s, constF32(1.0)}; },
                    "identity");
}

Normalizer Normalizer::custom(Fn fn, std::string name) {
  return Normalizer(std::move(fn), std::move(name));
}

//===----------------------------------------------------------------------===//
// AttentionBuilder: configuration
//===----------------------------------------------------------------------===//

AttentionBuilder::AttentionBuilder()
    : id(nextBuilderId.fetch_add(1)), norm(Normalizer::softmax()) {}

AttentionBuilder &AttentionBuilder::heads(int64_t h, int64_t hkv) {
  numHeads = h;
  numKvHeads = hkv;
  return *this;
}

AttentionBuilder &AttentionBuilder::headDims(int64_t d, int64_t dv) {
  headDim = d;
  valueDim = dv;
  return *this;
}

AttentionBuilder &AttentionBuilder::dtype(DType type) {
  elementType = type;
  return *this;
}

AttentionBuilder &AttentionBuilder::scoreFn(ScoreFn fn) {
  score = std::move(fn);
  return *this;
}

AttentionBuilder &AttentionBuilder::mask(MaskFn fn) {
  maskFn = std::move(fn);
  return *this;
}

AttentionBuilder &AttentionBuilder::normalizer(Normalizer n) {
  norm = std::move(n);
  return *this;
}

AttentionBuilder &AttentionBuilder::outputType(DType type) {
  outputElementType = type;
  return *this;
}

AttentionBuilder &AttentionBuilder::withLse(bool enable) {
  lse = enable;
  return *this;
}

Input AttentionBuilder::addInput(std::string name, DType type, std::vector<InputAxis> dims) {
  inputs.push_back({name, type, std::move(dims)});
  return Input(id, inputs.size() - 1, std::move(name));
}

std::string AttentionBuilder::validate() const {
  auto positive = [](const char *what, int64_t v) -> std::string {
    if (v > 0)
      return "";
    return std::string(what) + " must be positive, got " + std::to_string(v);
  };
  for (const std::string &msg :
       {positive("query heads H", numHeads), positive("kv heads Hkv", numKvHeads),
        positive("head dim D", headDim), positive("value head dim Dv", valueDim)})
    if (!msg.empty())
      return msg;
  if (numHeads % numKvHeads != 0)
    return "query heads (" + std::to_string(numHeads) + ") must be a multiple of kv heads (" +
           std::to_string(numKvHeads) + ")";
  if (!isQkvType(elementType))
    return std::string("unsupported dtype ") + toString(elementType) +
           " for q, k and v: expected bf16, f16 or f32";
  if (outputElementType && *outputElementType != elementType && *outputElementType != DType::F32)
    return std::string("unsupported output dtype ") + toString(*outputElementType) +
           ": expected the dtype of q, k and v (" + toString(elementType) + ") or f32";
  std::set<std::string> names;
  for (const InputDecl &in : inputs) {
    if (in.name.empty())
      return "custom inputs need a name";
    if (!names.insert(in.name).second)
      return "custom input name '" + in.name + "' is used twice";
    if (!isInputType(in.type))
      return "custom input '" + in.name + "': unsupported dtype " + toString(in.type) +
             " (expected bf16, f16, f32, i32 or i64)";
    for (size_t i = 1; i < in.dims.size(); ++i)
      if (static_cast<int>(in.dims[i].dim) <= static_cast<int>(in.dims[i - 1].dim))
        return "custom input '" + in.name +
               "': dims must be an ordered subset of {B, H, Q, KV} without repeats";
    for (const InputAxis &axis : in.dims) {
      if (axis.block < 1)
        return "custom input '" + in.name + "': the block size of " + dimName(axis.dim) +
               " must be positive, got " + std::to_string(axis.block);
      if (axis.block != 1 && axis.dim != Dim::Q && axis.dim != Dim::KV)
        return "custom input '" + in.name + "': only Q and KV can be divided into blocks, " +
               "not " + dimName(axis.dim);
    }
  }
  return "";
}

//===----------------------------------------------------------------------===//
// AttentionBuilder: emission
//===----------------------------------------------------------------------===//

namespace {

/// The Indices of a region whose six index arguments start at `first`.
Indices makeIndices(RegionEmitter &emitter, Block &block, unsigned first, InputValues values) {
  Indices idx;
  Sym *slots[] = {&idx.b, &idx.h, &idx.q, &idx.kv, &idx.sq, &idx.skv};
  for (unsigned i = 0; i < metaattn::attn::kNumIndexArgs; ++i)
    *slots[i] = emitter.wrap(block.getArgument(first + i));
  idx.inputs = std::move(values);
  return idx;
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>> AttentionBuilder::build(MLIRContext &ctx, StringRef funcName,
                                                         std::string &error) const {
  error.clear();
  std::string invalid = validate();
  if (invalid.empty() && funcName.empty())
    invalid = "function name must not be empty";
  if (!invalid.empty()) {
    error = invalid;
    return failure();
  }
  ctx.loadDialect<metaattn::attn::AttnDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect>();

  // Types: [batch, seq, heads, dim] with dynamic batch and lengths.
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  int64_t dyn = ShapedType::kDynamic;
  Type elt = toMlirType(ctx, elementType);
  Type f32 = b.getF32Type();
  auto qType = RankedTensorType::get({dyn, dyn, numHeads, headDim}, elt);
  auto kType = RankedTensorType::get({dyn, dyn, numKvHeads, headDim}, elt);
  auto vType = RankedTensorType::get({dyn, dyn, numKvHeads, valueDim}, elt);
  auto oType = RankedTensorType::get({dyn, dyn, numHeads, valueDim},
                                     outputElementType ? toMlirType(ctx, *outputElementType) : elt);
  auto lseType = RankedTensorType::get({dyn, numHeads, dyn}, f32);
  SmallVector<Type> argTypes = {qType, kType, vType};
  SmallVector<Type> inputElts;
  SmallVector<Attribute> inputDims;
  for (const InputDecl &in : inputs) {
    SmallVector<int64_t> shape;
    std::string spec;
    for (const InputAxis &axis : in.dims) {
      shape.push_back(axis.dim == Dim::H ? numHeads : dyn);
      spec += (spec.empty() ? "" : ",") + std::string(dimName(axis.dim));
      if (axis.block != 1)
        spec += "/" + std::to_string(axis.block); // a block index, ceil(S / block) entries
    }
    Type inElt = toMlirType(ctx, in.type);
    argTypes.push_back(RankedTensorType::get(shape, inElt));
    inputElts.push_back(inElt);
    inputDims.push_back(b.getStringAttr(spec));
  }
  SmallVector<Type> resultTypes = {oType};
  if (lse)
    resultTypes.push_back(lseType);

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, loc, funcName, b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  ValueRange args = entry->getArguments();
  auto attention = metaattn::attn::AttentionOp::create(
      b, loc, TypeRange(resultTypes), args[0], args[1], args[2], args.drop_front(3),
      b.getArrayAttr(inputDims), DenseI64ArrayAttr(), /*mask_exact=*/false);
  func::ReturnOp::create(b, loc, attention->getResults());

  auto errors = std::make_shared<metaattn::frontend::detail::BuildErrors>();
  // Creates the block of `region` (leading args, six indices, inputs) and its emitter.
  auto openRegion = [&](Region &region, ArrayRef<Type> leading,
                        const char *name) -> std::pair<std::shared_ptr<RegionEmitter>, Indices> {
    Block *block = new Block();
    region.push_back(block);
    for (Type t : leading)
      block->addArgument(t, loc);
    for (unsigned i = 0; i < metaattn::attn::kNumIndexArgs; ++i)
      block->addArgument(b.getIndexType(), loc);
    for (Type t : inputElts)
      block->addArgument(t, loc);
    auto emitter = std::make_shared<RegionEmitter>(block, loc, name, errors);
    InputValues values;
    values.builderId = id;
    values.emitter = emitter;
    unsigned firstInput = leading.size() + metaattn::attn::kNumIndexArgs;
    for (unsigned i = 0; i < inputElts.size(); ++i)
      values.values.push_back(block->getArgument(firstInput + i));
    for (const InputDecl &in : inputs)
      values.names.push_back(in.name);
    Indices idx = makeIndices(*emitter, *block, leading.size(), std::move(values));
    return {emitter, std::move(idx)};
  };
  auto fail = [&](const std::string &msg) {
    error = errors->first.empty() ? msg : errors->first;
    return failure();
  };

  // Score: default s * (1/sqrt(D)).
  {
    auto [emitter, idx] = openRegion(attention.getScore(), {f32}, "score");
    RegionEmitter::Scope scope(*emitter);
    Sym s = emitter->wrap(attention.getScore().front().getArgument(0));
    Sym result = score ? score(s, idx) : s * (1.0 / std::sqrt(static_cast<double>(headDim)));
    std::string msg = checkResult(result, *emitter, Sym::Kind::F32, "score function");
    if (errors->first.size() || !msg.empty())
      return fail(msg);
    metaattn::attn::YieldOp::create(emitter->getBuilder(), loc, result.value());
  }
  // Mask: default true.
  {
    auto [emitter, idx] = openRegion(attention.getMask(), {}, "mask");
    RegionEmitter::Scope scope(*emitter);
    Sym result = maskFn ? maskFn(idx) : emitter->constBool(true);
    std::string msg = checkResult(result, *emitter, Sym::Kind::I1, "mask");
    if (errors->first.size() || !msg.empty())
      return fail(msg);
    metaattn::attn::YieldOp::create(emitter->getBuilder(), loc, result.value());
  }
  // Normaliser.
  {
    auto [emitter, idx] = openRegion(attention.getNormalizer(), {f32}, "normalizer");
    RegionEmitter::Scope scope(*emitter);
    Sym s = emitter->wrap(attention.getNormalizer().front().getArgument(0));
    RowOps rows(std::move(idx));
    std::pair<Sym, Sym> result = norm.function()(s, rows);
    std::string what = "normalizer '" + norm.name() + "'";
    std::string msg = checkResult(result.first, *emitter, Sym::Kind::F32, what + " weight");
    if (msg.empty())
      msg = checkResult(result.second, *emitter, Sym::Kind::F32, what + " denominator");
    if (errors->first.size() || !msg.empty())
      return fail(msg);
    metaattn::attn::NormalizeOp::create(emitter->getBuilder(), loc, result.first.value(),
                                        result.second.value());
  }

  // Verify; report every diagnostic the verifier emits.
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      if (!diagnostics.empty())
        diagnostics += "; ";
      diagnostics += diag.str();
      for (Diagnostic &note : diag.getNotes())
        diagnostics += " (note: " + note.str() + ")";
      return success();
    });
    if (failed(mlir::verify(*module))) {
      error = "the generated IR does not verify: " + diagnostics;
      return failure();
    }
    // The compiler derives the streaming form later; reject a normaliser it cannot stream now,
    // where the user wrote it, naming the op that breaks it.
    WalkResult streamable = module->walk([&](metaattn::attn::AttentionOp op) {
      return failed(metaattn::attn::checkStreamable(op)) ? WalkResult::interrupt()
                                                         : WalkResult::advance();
    });
    if (streamable.wasInterrupted()) {
      error = diagnostics;
      return failure();
    }
  }
  return module;
}
