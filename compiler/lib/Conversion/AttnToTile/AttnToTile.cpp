//===- AttnToTile.cpp - convert-attn-to-tile --------------------------------===//
//
// Replaces each function holding one attn.online_attention or one attn.recurrent by a
// tile.kernel of the same name. The kernel bodies are built by AttentionKernelBuilder.cpp and
// RecurrentKernelBuilder.cpp.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Conversion/AttnToTile/AttnToTile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace metaattn {
#define GEN_PASS_DEF_CONVERTATTNTOTILE
#include "metaattn/Conversion/AttnToTile/Passes.h.inc"
} // namespace metaattn

using namespace mlir;
using namespace metaattn;

namespace {

/// The attention of a function `func.func @f(...) { %r = attn.online_attention ...; return %r }`
/// (or of one with an attn.recurrent).
template <class AttentionT>
FailureOr<AttentionT> getSoleAttention(func::FuncOp func) {
  AttentionT attention;
  for (Operation &op : func.getBody().front()) {
    if (auto a = dyn_cast<AttentionT>(op)) {
      if (attention)
        return func.emitError() << "convert-attn-to-tile expects one attention per function";
      attention = a;
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (!attention || ret.getOperands() != ValueRange(attention->getResults()))
        return func.emitError()
               << "convert-attn-to-tile expects the function to return the attention's "
                  "results in order";
    } else {
      return op.emitError() << "convert-attn-to-tile expects the function body to be one "
                               "attention op and a return";
    }
  }
  for (auto [arg, operand] : llvm::zip(func.getArguments(), attention->getOperands()))
    if (arg != operand)
      return func.emitError() << "convert-attn-to-tile expects the attention's operands to be "
                                 "the function's arguments, in order";
  if (func.getNumArguments() != attention->getNumOperands())
    return func.emitError() << "every function argument must be an operand of the attention";
  return attention;
}

struct ConvertAttnToTilePass
    : public metaattn::impl::ConvertAttnToTileBase<ConvertAttnToTilePass> {
  using Base::Base;

  void runOnOperation() override {
    auto target = TargetDesc::get(this->target);
    if (!target) {
      getOperation().emitError() << "convert-attn-to-tile: unknown target '" << this->target
                                 << "' (expected sm_80, sm_90 or gfx90a)";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    getOperation().walk([&](func::FuncOp func) {
      if (!func.getOps<attn::OnlineAttentionOp>().empty())
        funcs.push_back(func);
    });
    getOperation().walk([&](attn::AttentionOp op) {
      op.emitError() << "convert-attn-to-tile needs the streaming form: run "
                        "attn-online-normalize first";
      signalPassFailure();
    });
    SmallVector<func::FuncOp> recurrent;
    getOperation().walk([&](func::FuncOp func) {
      if (!func.getOps<attn::RecurrentOp>().empty())
        recurrent.push_back(func);
    });
    for (func::FuncOp func : recurrent) {
      FailureOr<attn::RecurrentOp> op = getSoleAttention<attn::RecurrentOp>(func);
      if (failed(op))
        return signalPassFailure();
      auto qt = cast<RankedTensorType>(op->getQ().getType());
      auto vt = cast<RankedTensorType>(op->getV().getType());
      RecurrentTileConfig config =
          chooseRecurrentConfig(qt.getDimSize(3), vt.getDimSize(3), op->getGateKind(),
                                qt.getElementTypeBitWidth() / 8, *target);
      if (blockM)
        config.chunk = blockM;
      if (blockN)
        config.blockV = blockN;
      if (numWarps)
        config.warps = numWarps;
      if (numStages)
        config.stages = numStages;
      OpBuilder builder(func);
      std::string name = func.getSymName().str();
      FailureOr<tile::KernelOp> kernel =
          buildRecurrentKernel(builder, *op, name + ".tmp", config);
      if (failed(kernel))
        return signalPassFailure();
      func.erase();
      kernel->setSymName(name);
    }
    for (func::FuncOp func : funcs) {
      FailureOr<attn::OnlineAttentionOp> attention =
          getSoleAttention<attn::OnlineAttentionOp>(func);
      if (failed(attention))
        return signalPassFailure();
      auto qt = cast<RankedTensorType>(attention->getQ().getType());
      auto vt = cast<RankedTensorType>(attention->getV().getType());
      TileConfig config = chooseTileConfig(qt.getDimSize(3), vt.getDimSize(3),
                                           qt.getElementTypeBitWidth() / 8, *target);
      if (blockM)
        config.blockM = blockM;
      if (blockN)
        config.blockN = blockN;
      if (numWarps)
        config.warps = numWarps;
      if (numStages)
        config.stages = numStages;
      OpBuilder builder(func);
      std::string name = func.getSymName().str();
      FailureOr<tile::KernelOp> kernel =
          buildAttentionKernel(builder, *attention, name + ".tmp", config);
      if (failed(kernel))
        return signalPassFailure();
      func.erase();
      kernel->setSymName(name);
    }
  }
};

} // namespace
