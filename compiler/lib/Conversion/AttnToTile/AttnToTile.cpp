//===- AttnToTile.cpp - convert-attn-to-tile --------------------------------===//
//
// Replaces each function of attention, combine and recurrent ops by tile.kernels, one per op
// in order; a function of one op gives one kernel of the same name. The kernel bodies are
// built by AttentionKernelBuilder.cpp, CombineKernelBuilder.cpp and RecurrentKernelBuilder.cpp.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Conversion/AttnToTile/AttnToTile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace metaattn {
#define GEN_PASS_DEF_CONVERTATTNTOTILE
#include "metaattn/Conversion/AttnToTile/Passes.h.inc"
} // namespace metaattn

using namespace mlir;
using namespace metaattn;

namespace {

/// One op of a function (attn.online_attention, attn.combine or attn.recurrent), lowered to one
/// kernel, and
/// where each of its operands and results lives ("arg:N", "result:N" or "temp:N").
struct Step {
  Operation *op;
  SmallVector<std::string> bindings;
};

/// The ops of `func` in order, with the bindings of their operands and results. The body
/// must be attention and combine ops reading function arguments and earlier results, then a
/// return of op results.
FailureOr<SmallVector<Step>> planFunction(func::FuncOp func) {
  const char *expects = "convert-attn-to-tile expects the function body to be attention, "
                        "combine and recurrent ops and a return";
  if (!llvm::hasSingleElement(func.getBody()))
    return func.emitError() << expects;
  Block &body = func.getBody().front();
  llvm::DenseMap<Value, std::string> where;
  for (BlockArgument arg : func.getArguments())
    where[arg] = "arg:" + std::to_string(arg.getArgNumber());
  auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!ret)
    return func.emitError() << expects;
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    if (isa<BlockArgument>(value))
      return ret.emitError() << "convert-attn-to-tile: result #" << i
                             << " is a function argument; results must be computed by an op";
    if (!where.try_emplace(value, "result:" + std::to_string(i)).second)
      return ret.emitError() << "convert-attn-to-tile: result #" << i
                             << " returns the same value as an earlier result";
  }
  SmallVector<Step> steps;
  unsigned temps = 0;
  for (Operation &op : body.without_terminator()) {
    if (!isa<attn::OnlineAttentionOp, attn::CombineOp, attn::RecurrentOp>(op))
      return op.emitError() << expects;
    Step step{&op, {}};
    for (auto [i, operand] : llvm::enumerate(op.getOperands())) {
      auto it = where.find(operand);
      if (it == where.end())
        return op.emitError() << "convert-attn-to-tile: operand #" << i
                              << " must be a function argument or a result of an earlier op";
      step.bindings.push_back(it->second);
    }
    for (Value result : op.getResults()) {
      auto [it, inserted] = where.try_emplace(result, "temp:" + std::to_string(temps));
      temps += inserted;
      step.bindings.push_back(it->second);
    }
    steps.push_back(std::move(step));
  }
  for (BlockArgument arg : func.getArguments())
    if (arg.use_empty())
      return func.emitError() << "convert-attn-to-tile: every function argument must be an "
                                 "operand of an op; argument #"
                              << arg.getArgNumber() << " is unused";
  return steps;
}

struct ConvertAttnToTilePass
    : public metaattn::impl::ConvertAttnToTileBase<ConvertAttnToTilePass> {
  using Base::Base;

  /// The kernel of one step, with tile sizes from the model unless set by the options.
  FailureOr<tile::KernelOp> buildStep(OpBuilder &builder, Operation *op, StringRef name,
                                      const TargetDesc &target) {
    if (auto recurrent = dyn_cast<attn::RecurrentOp>(op)) {
      auto qt = cast<RankedTensorType>(recurrent.getQ().getType());
      auto vt = cast<RankedTensorType>(recurrent.getV().getType());
      RecurrentTileConfig config =
          chooseRecurrentConfig(qt.getDimSize(3), vt.getDimSize(3), recurrent.getGateKind(),
                                qt.getElementTypeBitWidth() / 8, target);
      // For the chunked kernel block-m is the chunk length and block-n the value tile.
      if (blockM)
        config.chunk = blockM;
      if (blockN)
        config.blockV = blockN;
      if (numWarps)
        config.warps = numWarps;
      if (numStages)
        config.stages = numStages;
      return buildRecurrentKernel(builder, recurrent, name, config);
    }
    TileConfig config;
    auto attention = dyn_cast<attn::OnlineAttentionOp>(op);
    if (attention) {
      auto qt = cast<RankedTensorType>(attention.getQ().getType());
      auto vt = cast<RankedTensorType>(attention.getV().getType());
      config = chooseTileConfig(qt.getDimSize(3), vt.getDimSize(3), qt.getElementTypeBitWidth() / 8,
                                target);
    }
    if (blockM)
      config.blockM = blockM;
    if (blockN)
      config.blockN = blockN;
    if (numWarps)
      config.warps = numWarps;
    if (numStages)
      config.stages = numStages;
    if (attention)
      return buildAttentionKernel(builder, attention, name, config);
    return buildCombineKernel(builder, cast<attn::CombineOp>(op), name, config);
  }

  void runOnOperation() override {
    auto target = TargetDesc::get(this->target);
    if (!target) {
      getOperation().emitError() << "convert-attn-to-tile: unknown target '" << this->target
                                 << "' (expected sm_80, sm_90 or gfx90a)";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    getOperation().walk([&](func::FuncOp func) {
      if (!func.getOps<attn::OnlineAttentionOp>().empty() ||
          !func.getOps<attn::CombineOp>().empty() || !func.getOps<attn::RecurrentOp>().empty())
        funcs.push_back(func);
    });
    bool notStreamed = false;
    getOperation().walk([&](attn::AttentionOp op) {
      op.emitError() << "convert-attn-to-tile needs the streaming form: run "
                        "attn-online-normalize first";
      notStreamed = true;
    });
    if (notStreamed)
      return signalPassFailure();
    SymbolTable symbols(getOperation());
    for (func::FuncOp func : funcs) {
      FailureOr<SmallVector<Step>> steps = planFunction(func);
      if (failed(steps))
        return signalPassFailure();
      std::string name = func.getSymName().str();
      bool single = steps->size() == 1;
      OpBuilder builder(func);
      SmallVector<tile::KernelOp> kernels;
      for (auto [k, step] : llvm::enumerate(*steps)) {
        std::string kernelName = single ? name + ".tmp" : name + "_step" + std::to_string(k);
        if (symbols.lookup(kernelName)) {
          func.emitError() << "convert-attn-to-tile: the kernel name @" << kernelName
                           << " is taken by another symbol";
          return signalPassFailure();
        }
        FailureOr<tile::KernelOp> kernel = buildStep(builder, step.op, kernelName, *target);
        if (failed(kernel))
          return signalPassFailure();
        SmallVector<Attribute> bindings;
        for (const std::string &binding : step.bindings)
          bindings.push_back(builder.getStringAttr(binding));
        (*kernel)->setAttr(kFunctionAttr, builder.getStringAttr(name));
        (*kernel)->setAttr(kStepAttr, builder.getI64IntegerAttr(k));
        (*kernel)->setAttr(kBindingsAttr, builder.getArrayAttr(bindings));
        kernels.push_back(*kernel);
      }
      symbols.erase(func);
      for (tile::KernelOp kernel : kernels) {
        if (single)
          kernel.setSymName(name);
        symbols.insert(kernel);
      }
    }
  }
};

} // namespace
