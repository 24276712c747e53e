//===- CombinedAttentionBuilder.cpp - several attentions combined ----------===//
//
// Builds each attention with its own AttentionBuilder (f32 output, no row statistic), clones
// the attention ops into one function whose arguments they share, then emits the attn.combine
// region from the user's lambda and verifies the module.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Frontend/CombinedAttentionBuilder.h"
#include "RegionEmitter.h"

#include "metaattn/Dialect/Attn/IR/AttnDialect.h"
#include "metaattn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace metaattn::frontend;
using metaattn::frontend::detail::RegionEmitter;

CombinedAttentionBuilder &CombinedAttentionBuilder::attention(AttentionBuilder builder,
                                                              std::vector<unsigned> arguments) {
  parts.push_back({std::move(builder), std::move(arguments)});
  return *this;
}

unsigned CombinedAttentionBuilder::addInput(std::string name, DType type,
                                            std::vector<InputAxis> dims) {
  inputs.push_back({std::move(name), type, std::move(dims)});
  return inputs.size() - 1;
}

CombinedAttentionBuilder &CombinedAttentionBuilder::combine(CombineFn f) {
  fn = std::move(f);
  return *this;
}

CombinedAttentionBuilder &CombinedAttentionBuilder::outputType(DType type) {
  resultType = type;
  return *this;
}

namespace {

/// The `input_dims` entry of a combine input, or "" with `error` set.
std::string combineSpec(const std::string &name, const std::vector<InputAxis> &dims,
                        std::string &error) {
  static const char *names[] = {"b", "h", "q", "kv"};
  std::string spec;
  for (size_t i = 0; i < dims.size(); ++i) {
    const InputAxis &a = dims[i];
    if (a.dim == Dim::KV || (i > 0 && static_cast<int>(a.dim) <= static_cast<int>(dims[i - 1].dim)))
      error = "combine input '" + name + "': dims must be an ordered subset of {B, H, Q}";
    else if (a.block < 1 || (a.block != 1 && a.dim != Dim::Q))
      error = "combine input '" + name + "': only Q can be divided into blocks, of size >= 1";
    if (!error.empty())
      return "";
    spec += (spec.empty() ? "" : ",") + std::string(names[static_cast<int>(a.dim)]);
    if (a.block != 1)
      spec += "/" + std::to_string(a.block);
  }
  return spec;
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>>
CombinedAttentionBuilder::build(MLIRContext &ctx, StringRef funcName, std::string &error) const {
  error.clear();
  if (parts.empty()) {
    error = "a combined attention needs at least one attention";
    return failure();
  }
  if (!fn) {
    error = "a combined attention needs a combine function";
    return failure();
  }
  if (funcName.empty()) {
    error = "function name must not be empty";
    return failure();
  }
  ctx.loadDialect<metaattn::attn::AttnDialect, func::FuncDialect, arith::ArithDialect>();

  // Each attention on its own, with an f32 output and no row statistic.
  std::vector<OwningOpRef<ModuleOp>> built;
  SmallVector<Type> argTypes;
  SmallVector<bool> argSet;
  for (auto [k, part] : llvm::enumerate(parts)) {
    AttentionBuilder b = part.builder;
    b.outputType(DType::F32).withLse(false);
    std::string partError;
    auto module = b.build(ctx, "part" + std::to_string(k), partError);
    if (failed(module)) {
      error = "attention #" + std::to_string(k) + ": " + partError;
      return failure();
    }
    auto func = *(*module)->getOps<func::FuncOp>().begin();
    if (func.getNumArguments() != part.arguments.size()) {
      error = "attention #" + std::to_string(k) + " has " + std::to_string(func.getNumArguments()) +
              " operands (q, k, v and inputs) but " + std::to_string(part.arguments.size()) +
              " argument positions";
      return failure();
    }
    for (auto [j, position] : llvm::enumerate(part.arguments)) {
      if (position >= argTypes.size()) {
        argTypes.resize(position + 1);
        argSet.resize(position + 1, false);
      }
      Type t = func.getArgument(j).getType();
      if (argSet[position] && argTypes[position] != t) {
        std::string a, b2;
        llvm::raw_string_ostream(a) << argTypes[position];
        llvm::raw_string_ostream(b2) << t;
        error = "argument #" + std::to_string(position) + " is used as " + a + " and as " + b2;
        return failure();
      }
      argTypes[position] = t;
      argSet[position] = true;
    }
    built.push_back(std::move(*module));
  }
  for (auto [i, set] : llvm::enumerate(argSet))
    if (!set) {
      error = "argument #" + std::to_string(i) + " is not read by any attention";
      return failure();
    }

  // The combination's inputs follow the attentions' arguments.
  unsigned firstInput = argTypes.size();
  SmallVector<Attribute> inputDims;
  SmallVector<Type> inputElts;
  OpBuilder b(&ctx);
  auto firstOut =
      cast<RankedTensorType>((*built.front()->getOps<func::FuncOp>().begin()).getResultTypes()[0]);
  int64_t heads = firstOut.getDimSize(2);
  for (const InputDecl &in : inputs) {
    std::string spec = combineSpec(in.name, in.dims, error);
    if (!error.empty())
      return failure();
    SmallVector<int64_t> shape;
    for (const InputAxis &a : in.dims)
      shape.push_back(a.dim == Dim::H ? heads : ShapedType::kDynamic);
    Type elt = detail::toMlirType(ctx, in.type);
    argTypes.push_back(RankedTensorType::get(shape, elt));
    inputElts.push_back(elt);
    inputDims.push_back(b.getStringAttr(spec));
  }
  Type qElt = cast<RankedTensorType>(argTypes[parts.front().arguments[0]]).getElementType();
  Type outElt = resultType ? detail::toMlirType(ctx, *resultType) : qElt;
  auto outType = RankedTensorType::get(firstOut.getShape(), outElt);

  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, loc, funcName, b.getFunctionType(argTypes, {outType}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  SmallVector<Value> outputs;
  for (auto [k, part] : llvm::enumerate(parts)) {
    auto partFunc = *built[k]->getOps<func::FuncOp>().begin();
    IRMapping mapping;
    for (auto [j, position] : llvm::enumerate(part.arguments))
      mapping.map(partFunc.getArgument(j), entry->getArgument(position));
    auto attention = *partFunc.getOps<metaattn::attn::AttentionOp>().begin();
    outputs.push_back(b.clone(*attention, mapping)->getResult(0));
  }
  auto combineOp = metaattn::attn::CombineOp::create(b, loc, outType, outputs,
                                                     entry->getArguments().drop_front(firstInput),
                                                     b.getArrayAttr(inputDims));
  func::ReturnOp::create(b, loc, combineOp.getOutput());

  // The combiner region from the user's function.
  auto errors = std::make_shared<detail::BuildErrors>();
  Block *block = new Block();
  combineOp.getCombiner().push_back(block);
  for (size_t i = 0; i < outputs.size(); ++i)
    block->addArgument(b.getF32Type(), loc);
  for (int i = 0; i < 4; ++i)
    block->addArgument(b.getIndexType(), loc);
  for (Type t : inputElts)
    block->addArgument(t, loc);
  auto emitter = std::make_shared<RegionEmitter>(block, loc, "combine", errors);
  {
    RegionEmitter::Scope scope(*emitter);
    std::vector<Sym> xs;
    for (size_t i = 0; i < outputs.size(); ++i)
      xs.push_back(emitter->wrap(block->getArgument(i)));
    CombineIndices idx;
    unsigned first = outputs.size();
    idx.b = emitter->wrap(block->getArgument(first));
    idx.h = emitter->wrap(block->getArgument(first + 1));
    idx.q = emitter->wrap(block->getArgument(first + 2));
    idx.d = emitter->wrap(block->getArgument(first + 3));
    OpBuilder &eb = emitter->getBuilder();
    for (size_t i = 0; i < inputElts.size(); ++i) {
      Value raw = block->getArgument(first + 4 + i);
      Type t = raw.getType();
      if (t.isBF16() || t.isF16())
        raw = arith::ExtFOp::create(eb, loc, eb.getF32Type(), raw);
      else if (!t.isF32())
        raw = arith::IndexCastOp::create(eb, loc, eb.getIndexType(), raw);
      idx.inputs.push_back(emitter->wrap(raw));
    }
    Sym result = fn(xs, idx);
    if (!errors->first.empty()) {
      error = errors->first;
      return failure();
    }
    if (!result.isValid() || result.emitter().get() != emitter.get() || !result.isFloat()) {
      error = "the combine function must return an f32 value of the combine region";
      return failure();
    }
    metaattn::attn::YieldOp::create(eb, loc, result.value());
  }

  if (failed(detail::verifyBuilt(*module, error)))
    return failure();
  return module;
}
