//===- RecurrentBuilder.cpp - emit attn.recurrent from C++ lambdas --------===//
//
// Validates the description, creates the function and the attn.recurrent, runs each
// modifier lambda with its region's emitter current, checks what it returned and verifies
// the module, turning diagnostics into the error string.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Frontend/RecurrentBuilder.h"
#include "RegionEmitter.h"

#include "metaattn/Dialect/Attn/IR/AttnDialect.h"
#include "metaattn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <atomic>
#include <set>

using namespace mlir;
using namespace metaattn::frontend;
using metaattn::frontend::detail::RegionEmitter;
using metaattn::frontend::detail::toMlirType;
using metaattn::frontend::detail::verifyBuilt;

namespace {

/// Recurrent builders number their inputs apart from attention builders (high bit set), so
/// an Input of one kind of builder is never taken for another's.
std::atomic<uint64_t> nextRecurrentId{1};

const char *const kModNames[] = {"q_mod", "k_mod", "v_mod", "gate_mod"};

} // namespace

RecurrentBuilder::RecurrentBuilder() : id((uint64_t(1) << 63) | nextRecurrentId.fetch_add(1)) {}

RecurrentBuilder &RecurrentBuilder::heads(int64_t h, int64_t hqk) {
  numHeads = h;
  numQkHeads = hqk;
  return *this;
}
RecurrentBuilder &RecurrentBuilder::headDims(int64_t dk, int64_t dv) {
  keyDim = dk;
  valueDim = dv;
  return *this;
}
RecurrentBuilder &RecurrentBuilder::dtype(DType type) {
  elementType = type;
  return *this;
}
RecurrentBuilder &RecurrentBuilder::gate(Gate kind) {
  gateKind = kind;
  return *this;
}
RecurrentBuilder &RecurrentBuilder::qMod(ModFn fn) {
  mods[0] = std::move(fn);
  return *this;
}
RecurrentBuilder &RecurrentBuilder::kMod(ModFn fn) {
  mods[1] = std::move(fn);
  return *this;
}
RecurrentBuilder &RecurrentBuilder::vMod(ModFn fn) {
  mods[2] = std::move(fn);
  return *this;
}
RecurrentBuilder &RecurrentBuilder::gateMod(ModFn fn) {
  mods[3] = std::move(fn);
  return *this;
}
RecurrentBuilder &RecurrentBuilder::withInitialState(bool enable) {
  initialState = enable;
  return *this;
}
RecurrentBuilder &RecurrentBuilder::withFinalState(bool enable) {
  finalState = enable;
  return *this;
}

Input RecurrentBuilder::addInput(std::string name, DType type, std::vector<TimeDim> dims) {
  inputs.push_back({name, type, std::move(dims)});
  return Input(id, inputs.size() - 1, std::move(name));
}

std::string RecurrentBuilder::validate() const {
  for (auto [what, v] : {std::pair<const char *, int64_t>{"heads H", numHeads},
                         {"q/k heads", numQkHeads},
                         {"key dim Dk", keyDim},
                         {"value dim Dv", valueDim}})
    if (v <= 0)
      return std::string(what) + " must be positive, got " + std::to_string(v);
  if (numHeads % numQkHeads != 0)
    return "heads (" + std::to_string(numHeads) + ") must be a multiple of q/k heads (" +
           std::to_string(numQkHeads) + ")";
  if (elementType != DType::BF16 && elementType != DType::F16 && elementType != DType::F32)
    return std::string("unsupported dtype ") + toString(elementType) +
           " for q, k and v: expected bf16, f16 or f32";
  if (mods[3] && gateKind == Gate::None)
    return "a gate modifier needs a gate (gate kind none has no gate tensor)";
  std::set<std::string> names;
  for (const InputDecl &in : inputs) {
    if (in.name.empty())
      return "custom inputs need a name";
    if (!names.insert(in.name).second)
      return "custom input name '" + in.name + "' is used twice";
    if (in.type == DType::F64)
      return "custom input '" + in.name + "': unsupported dtype f64";
    for (size_t i = 1; i < in.dims.size(); ++i)
      if (static_cast<int>(in.dims[i]) <= static_cast<int>(in.dims[i - 1]))
        return "custom input '" + in.name +
               "': dims must be an ordered subset of {B, T, H, D} without repeats";
  }
  return "";
}

FailureOr<OwningOpRef<ModuleOp>> RecurrentBuilder::build(MLIRContext &ctx, StringRef funcName,
                                                         std::string &error) const {
  error = validate();
  if (error.empty() && funcName.empty())
    error = "function name must not be empty";
  if (!error.empty())
    return failure();
  ctx.loadDialect<metaattn::attn::AttnDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect>();
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  int64_t dyn = ShapedType::kDynamic;
  Type elt = toMlirType(ctx, elementType);
  Type f32 = b.getF32Type();
  auto qkType = RankedTensorType::get({dyn, dyn, numQkHeads, keyDim}, elt);
  auto vType = RankedTensorType::get({dyn, dyn, numHeads, valueDim}, elt);
  auto stateType = RankedTensorType::get({dyn, numHeads, keyDim, valueDim}, f32);
  SmallVector<Type> argTypes = {qkType, qkType, vType};
  metaattn::attn::GateKind kind = metaattn::attn::GateKind::none;
  switch (gateKind) {
  case Gate::None:
    break;
  case Gate::Head:
    kind = metaattn::attn::GateKind::head;
    argTypes.push_back(RankedTensorType::get({numHeads}, f32));
    break;
  case Gate::Token:
    kind = metaattn::attn::GateKind::token;
    argTypes.push_back(RankedTensorType::get({dyn, dyn, numHeads}, f32));
    break;
  case Gate::Vector:
    kind = metaattn::attn::GateKind::vector;
    argTypes.push_back(RankedTensorType::get({dyn, dyn, numHeads, keyDim}, f32));
    break;
  }
  if (initialState)
    argTypes.push_back(stateType);
  SmallVector<Type> inputElts;
  SmallVector<Attribute> inputDims;
  static const char *dimNames[] = {"b", "t", "h", "d"};
  for (const InputDecl &in : inputs) {
    SmallVector<int64_t> shape;
    std::string spec;
    for (TimeDim d : in.dims) {
      shape.push_back(d == TimeDim::H ? numHeads : dyn);
      spec += (spec.empty() ? "" : ",") + std::string(dimNames[static_cast<int>(d)]);
    }
    Type inElt = toMlirType(ctx, in.type);
    argTypes.push_back(RankedTensorType::get(shape, inElt));
    inputElts.push_back(inElt);
    inputDims.push_back(b.getStringAttr(spec));
  }
  SmallVector<Type> resultTypes = {vType};
  if (finalState)
    resultTypes.push_back(stateType);

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, loc, funcName, b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  ValueRange args = entry->getArguments();
  unsigned next = 3;
  Value gateArg = gateKind != Gate::None ? args[next++] : Value();
  Value initArg = initialState ? args[next++] : Value();
  auto op = metaattn::attn::RecurrentOp::create(
      b, loc, vType, finalState ? Type(stateType) : Type(), args[0], args[1], args[2], gateArg,
      initArg, args.drop_front(next), metaattn::attn::GateKindAttr::get(&ctx, kind),
      b.getArrayAttr(inputDims));
  func::ReturnOp::create(b, loc, op->getResults());

  auto errors = std::make_shared<metaattn::frontend::detail::BuildErrors>();
  Region *regions[] = {&op.getQMod(), &op.getKMod(), &op.getVMod(), &op.getGateMod()};
  for (int m = 0; m < 4; ++m) {
    if (!mods[m])
      continue;
    Block *block = new Block();
    regions[m]->push_back(block);
    block->addArgument(f32, loc);
    for (int i = 0; i < 4; ++i)
      block->addArgument(b.getIndexType(), loc);
    for (Type t : inputElts)
      block->addArgument(t, loc);
    auto emitter = std::make_shared<RegionEmitter>(block, loc, kModNames[m], errors);
    RegionEmitter::Scope scope(*emitter);
    RecurrentIndices idx;
    idx.b = emitter->wrap(block->getArgument(1));
    idx.t = emitter->wrap(block->getArgument(2));
    idx.h = emitter->wrap(block->getArgument(3));
    idx.d = emitter->wrap(block->getArgument(4));
    idx.inputs.builderId = id;
    idx.inputs.emitter = emitter;
    for (unsigned i = 0; i < inputElts.size(); ++i)
      idx.inputs.values.push_back(block->getArgument(5 + i));
    for (const InputDecl &in : inputs)
      idx.inputs.names.push_back(in.name);
    Sym result = mods[m](emitter->wrap(block->getArgument(0)), idx);
    std::string what = std::string(kModNames[m]) + " modifier";
    if (errors->first.empty()) {
      if (!result.isValid())
        error = what + " returned an invalid Sym";
      else if (result.emitter().get() != emitter.get())
        error = what + " returned a Sym of the " + result.emitter()->name() + " region";
      else if (!result.isFloat())
        error = what + " must return an f32 value, got " + toString(result.kind());
    }
    if (!errors->first.empty())
      error = errors->first;
    if (!error.empty())
      return failure();
    metaattn::attn::YieldOp::create(emitter->getBuilder(), loc, result.value());
  }

  if (failed(verifyBuilt(*module, error)))
    return failure();
  return module;
}
