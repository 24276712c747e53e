//===- AttnToTile.cpp - convert-attn-to-tile --------------------------------===//
//
// Replaces each function of attention, combine and recurrent ops by tile.kernels, one per op
// in order (a combine right after the attention whose output it alone reads runs in that
// attention's epilogue, with fuse-combine); a function of one kernel gives it its name. The kernel
// bodies are built by AttentionKernelBuilder.cpp, CombineKernelBuilder.cpp and
// RecurrentKernelBuilder.cpp.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Conversion/AttnToTile/AttnToTile.h"
#include "metaattn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
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
  /// An attn.combine evaluated in this attention's epilogue (fuse-combine), or null.
  attn::CombineOp epilogue = {};
};

/// Whether `combine` can run in the epilogue of `attention`, the op right before it: it
/// takes the attention's output, which nothing else uses, and writes a tensor of that shape
/// (so the attention's grid of query tiles and heads covers it).
static bool fusable(attn::OnlineAttentionOp attention, attn::CombineOp combine) {
  Value out = attention.getOutput();
  if (!llvm::all_of(out.getUsers(), [&](Operation *user) { return user == combine; }) ||
      out.use_empty())
    return false;
  auto outType = cast<RankedTensorType>(out.getType());
  auto combined = cast<RankedTensorType>(combine.getOutput().getType());
  return outType.getShape() == combined.getShape();
}

/// The ops of `func` in order, with the bindings of their operands and results. The body
/// must be attention and combine ops reading function arguments and earlier results, then a
/// return of op results.
FailureOr<SmallVector<Step>> planFunction(func::FuncOp func, bool fuseCombine) {
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
  auto bindOperands = [&](Operation &op, ValueRange operands, unsigned first,
                          Step &step) -> LogicalResult {
    for (auto [i, operand] : llvm::enumerate(operands)) {
      auto it = where.find(operand);
      if (it == where.end())
        return op.emitError() << "convert-attn-to-tile: operand #" << first + i
                              << " must be a function argument or a result of an earlier op";
      step.bindings.push_back(it->second);
    }
    return success();
  };
  auto bindResult = [&](Value result, Step &step) {
    auto [it, inserted] = where.try_emplace(result, "temp:" + std::to_string(temps));
    temps += inserted;
    step.bindings.push_back(it->second);
  };
  for (auto opIt = body.begin(); opIt != std::prev(body.end()); ++opIt) {
    Operation &op = *opIt;
    if (!isa<attn::OnlineAttentionOp, attn::CombineOp, attn::RecurrentOp>(op))
      return op.emitError() << expects;
    Step step{&op, {}};
    if (failed(bindOperands(op, op.getOperands(), 0, step)))
      return failure();
    // The attention's epilogue evaluates the combine right after it: bindings q, k, v,
    // inputs, the combine's other values and inputs, its output, then the attention's
    // statistic.
    auto attention = dyn_cast<attn::OnlineAttentionOp>(op);
    auto combine = dyn_cast<attn::CombineOp>(*std::next(opIt));
    if (fuseCombine && attention && combine && fusable(attention, combine)) {
      step.epilogue = combine;
      for (auto [i, value] : llvm::enumerate(combine.getValues()))
        if (value != attention.getOutput() && failed(bindOperands(*combine, value, i, step)))
          return failure();
      if (failed(bindOperands(*combine, combine.getInputs(), combine.getValues().size(), step)))
        return failure();
      bindResult(combine.getOutput(), step);
      if (Value lse = attention.getLse())
        bindResult(lse, step);
      steps.push_back(std::move(step));
      ++opIt;
      continue;
    }
    for (Value result : op.getResults())
      bindResult(result, step);
    steps.push_back(std::move(step));
  }
  for (BlockArgument arg : func.getArguments())
    if (arg.use_empty())
      return func.emitError() << "convert-attn-to-tile: every function argument must be an "
                                 "operand of an op; argument #"
                              << arg.getArgNumber() << " is unused";
  return steps;
}

/// Whether a mask region keeps every entry (yields the constant true).
static bool maskIsTrue(Region &mask) {
  Operation *yield = mask.front().getTerminator();
  if (yield->getNumOperands() != 1)
    return false;
  return matchPattern(yield->getOperand(0), m_One());
}

/// The variant's traits for the tile model (chooseTileConfig).
static VariantTraits traits(attn::OnlineAttentionOp op) {
  VariantTraits t;
  t.shifted = !op.getShift().empty();
  Block &score = op.getScore().front();
  constexpr unsigned kFixed = 1 + attn::kNumIndexArgs;
  for (auto [i, attr] : llvm::enumerate(op.getInputDims())) {
    std::string error;
    auto dims = attn::parseInputDims(cast<StringAttr>(attr).getValue(), error);
    if (!dims ||
        llvm::none_of(*dims, [](attn::InputAxis a) { return a.dim == attn::InputDim::KV; }))
      continue;
    t.kvInputs = true;
    if (kFixed + i < score.getNumArguments() && !score.getArgument(kFixed + i).use_empty())
      t.scoreKvInputs = true;
  }
  // A causal bound: an upper bound on kv that moves with the row, or the wider of several of
  // which one does (a prefix-LM mask's max(q, p - 1)).
  if (auto encoded = op.getMaskBounds())
    t.causal = llvm::any_of(attn::groupMaskBounds(attn::decodeMaskBounds(*encoded)),
                            [](const SmallVector<attn::KvBound, 2> &g) {
                              return g.front().upper && llvm::any_of(g, [](const attn::KvBound &b) {
                                       return b.cq > 0;
                                     });
                            });
  // Math ops of the score that vary per element (elementInvariant): a per-head slope's exp2
  // (ALiBi) is computed once per block. Those nested in a region op count as per element.
  op.getScore().walk([&](Operation *inner) {
    if (inner->getDialect() && inner->getDialect()->getNamespace() == "math" &&
        !isa<math::AbsFOp, math::FmaOp, math::CopySignOp>(inner) &&
        (inner->getBlock() != &score || !elementInvariant(score, inner->getResult(0))))
      t.specialScore = true;
  });
  return t;
}

struct ConvertAttnToTilePass : public metaattn::impl::ConvertAttnToTileBase<ConvertAttnToTilePass> {
  using Base::Base;

  /// The custom inputs of an attention step that a pre-pass bounds per kv tile (one kernel
  /// each, launched before the attention's).
  SmallVector<unsigned> tileBoundsInputs(const Step &step) {
    auto attention = dyn_cast<attn::OnlineAttentionOp>(step.op);
    if (!attention || !kvTileBounds || !idBounds)
      return {};
    return kvTileBoundsInputs(attention);
  }

  /// The kernel of one step, with tile sizes from the model unless set by the options;
  /// `chosen`, where given, gets its tiling.
  FailureOr<tile::KernelOp> buildStep(OpBuilder &builder, Step step, StringRef name,
                                      const TargetDesc &target, TileConfig *chosen = nullptr) {
    Operation *op = step.op;

    TileConfig config;
    auto attention = dyn_cast<attn::OnlineAttentionOp>(op);
    if (attention) {
      auto qt = cast<RankedTensorType>(attention.getQ().getType());
      auto vt = cast<RankedTensorType>(attention.getV().getType());
      config = chooseTileConfig(qt.getDimSize(3), vt.getDimSize(3), qt.getElementTypeBitWidth() / 8,
                                target, !maskIsTrue(attention.getMask()),
                                KernelSchedule{warpSpecialize, gemmOverlap, longKeys},
                                traits(attention));
    }
    // Tile sizes: the pass options, else the op's attn.tile_config (a tuning file's), else the
    // model's.
    auto fromOp = [&](StringRef key) -> int64_t {
      auto dict = op->getAttrOfType<DictionaryAttr>(attn::kTileConfigAttr);
      auto value = dict ? dict.getAs<IntegerAttr>(key) : IntegerAttr();
      return value ? value.getInt() : 0;
    };
    int64_t rows = blockM ? blockM : fromOp("block_m");
    int64_t cols = blockN ? blockN : fromOp("block_n");
    int64_t warps = numWarps ? numWarps : fromOp("warps");
    int64_t stages = numStages ? numStages : fromOp("stages");
    TileConfig model = config;
    if (rows) {
      config.blockM = rows;
      // Keep at least 16 query rows per warp when only the rows are set.
      config.warps = std::max<int64_t>(1, std::min(config.warps, rows / 16));
    }
    if (cols)
      config.blockN = cols;
    if (warps)
      config.warps = warps;
    if (stages)
      config.stages = stages;
    // The model's ping-pong choice holds for its own tiling only: an override that asks for the
    // same tiles (an autotuned block_n = 128) keeps it, any other drops it. A tuning entry that
    // pins it (autotune timed both) decides for its own tiles, unless options replace them.
    config.pingpong = markPingpong && model.pingpong && config.blockM == model.blockM &&
                      config.blockN == model.blockN && config.warps == model.warps;
    auto dict = op->getAttrOfType<DictionaryAttr>(attn::kTileConfigAttr);
    if (auto tuned = dict ? dict.getAs<IntegerAttr>("pingpong") : IntegerAttr();
        tuned && !blockM && !blockN && !numWarps)
      config.pingpong = markPingpong && tuned.getInt() != 0;
    // Timed on sm_90a only (4-14% faster); on the mma.sync path it costs the D128 GQA kernel
    // a register over ptxas's choice (a 4-byte spill) with no measurement to weigh it against.
    config.foldScoreScale = foldScoreScale && target.wgmma;
    config.monotoneMax = monotoneMax;
    // As the score scale: on the mma.sync path ALiBi's kernel (H16 D128 causal, sm_80) took a
    // 4-byte spill with it, and nothing is timed there to weigh that against.
    config.dropRowTerms = dropRowTerms && target.wgmma;
    config.exp2Emulation = exp2Emulation;
    config.boundedShift = boundedShift;
    config.lazyRescale = lazyRescale;
    config.idBounds = idBounds;
    config.keptTiles = keptTiles;
    config.keptTileBounds = keptTiles && !persistent;
    config.approxTanh = approxTanh;
    config.kvTileBounds = kvTileBounds;
    // A persistent kernel stages its output in a tile of its own, where that fits beside
    // the others (not at D256, whose kv tiles take the room) and the output has the query's
    // element type.
    config.stagedOutput = stagedOutput;
    if (attention && stagedOutput && persistent) {
      auto qt = cast<RankedTensorType>(attention.getQ().getType());
      Value written = step.epilogue ? step.epilogue.getOutput() : attention.getOutput();
      auto ot = cast<RankedTensorType>(written.getType());
      int64_t bytes = qt.getElementTypeBitWidth() / 8;
      config.ownStagingTile = true;
      config.stagedOutput =
          ot.getElementType() == qt.getElementType() &&
          config.fitsSharedMemory(bytes, target, config.blockM * config.paddedValueDim * bytes);
    }
    if (chosen)
      *chosen = config;
    if (attention)
      return buildAttentionKernel(builder, attention, name, config, step.epilogue);
    return buildCombineKernel(builder, cast<attn::CombineOp>(op), name, config);
  }

  /// The chunk config of a recurrent op: from the model unless set by the options (block-m is
  /// the chunk length, block-n the value columns per block).
  RecurrentTileConfig recurrentConfig(attn::RecurrentOp op, const TargetDesc &target) {
    auto qt = cast<RankedTensorType>(op.getQ().getType());
    auto vt = cast<RankedTensorType>(op.getV().getType());
    RecurrentTileRequest request{
        blockM,          blockN,     numWarps,          numStages,
        stateRows,       stateWarps, stagedStateStores, compactVectorOutput,
        precomputeGates, fusedChunks};
    return chooseRecurrentConfig(qt.getDimSize(3), vt.getDimSize(3), op.getGateKind(),
                                 qt.getElementTypeBitWidth() / 8, target, request);
  }

  void runOnOperation() override {
    auto target = TargetDesc::get(this->target);
    if (!target) {
      getOperation().emitError() << "convert-attn-to-tile: unknown target '" << this->target
                                 << "' (expected sm_80, sm_86, sm_89, sm_90, sm_90a or gfx90a)";
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
      FailureOr<SmallVector<Step>> steps = planFunction(func, fuseCombine);
      if (failed(steps))
        return signalPassFailure();
      std::string name = func.getSymName().str();
      // A recurrent op is two kernels (chunk states, then outputs) with a buffer between, and
      // with precomputed gates a gates kernel before them (a second buffer).
      unsigned numKernels = 0, nextTemp = 0;
      for (const Step &step : *steps) {
        auto recurrent = dyn_cast<attn::RecurrentOp>(step.op);
        numKernels += recurrent
                          ? recurrentKernelCount(recurrent, recurrentConfig(recurrent, *target))
                          : 1 + tileBoundsInputs(step).size();
        for (const std::string &binding : step.bindings)
          if (StringRef(binding).starts_with("temp:"))
            nextTemp = std::max<unsigned>(nextTemp, std::stoi(binding.substr(5)) + 1);
      }
      bool single = numKernels == 1;
      OpBuilder builder(func);
      SmallVector<tile::KernelOp> kernels;
      // `ahead`: the name of the kernel recorded that many kernels after the next.
      auto kernelName = [&](size_t ahead = 0) -> FailureOr<std::string> {
        std::string kernelName =
            single ? name + ".tmp" : name + "_step" + std::to_string(kernels.size() + ahead);
        if (symbols.lookup(kernelName))
          return func.emitError() << "convert-attn-to-tile: the kernel name @" << kernelName
                                  << " is taken by another symbol";
        return kernelName;
      };
      auto record = [&](tile::KernelOp kernel, ArrayRef<std::string> bindings) {
        SmallVector<Attribute> attrs;
        for (const std::string &binding : bindings)
          attrs.push_back(builder.getStringAttr(binding));
        kernel->setAttr(kFunctionAttr, builder.getStringAttr(name));
        kernel->setAttr(kStepAttr, builder.getI64IntegerAttr(kernels.size()));
        kernel->setAttr(kBindingsAttr, builder.getArrayAttr(attrs));
        kernels.push_back(kernel);
      };
      for (Step &step : *steps) {
        if (auto recurrent = dyn_cast<attn::RecurrentOp>(step.op)) {
          RecurrentTileConfig config = recurrentConfig(recurrent, *target);
          int64_t count = recurrentKernelCount(recurrent, config);
          SmallVector<std::string> names;
          for (int64_t i = 0; i < count; ++i) {
            std::string candidate = name + "_step" + std::to_string(kernels.size() + i);
            if (symbols.lookup(candidate)) {
              func.emitError() << "convert-attn-to-tile: the kernel name @" << candidate
                               << " is taken by another symbol";
              return signalPassFailure();
            }
            names.push_back(candidate);
          }
          auto built = buildRecurrentKernels(builder, recurrent, names, config);
          if (failed(built))
            return signalPassFailure();
          // Bindings: the operands, the cumulative gates (when precomputed), the chunk states,
          // then the final state or the output.
          unsigned numOperands = recurrent->getNumOperands();
          SmallVector<std::string> operands(step.bindings.begin(),
                                            step.bindings.begin() + numOperands);
          if (count == 1) {
            // Fused: the operands, the output and the final state.
            record(built->front(), step.bindings);
            continue;
          }
          if (count == 3) {
            operands.push_back("temp:" + std::to_string(nextTemp++));
            record(built->front(), operands);
          }
          SmallVector<std::string> statesBindings = operands, outputBindings = operands;
          std::string buffer = "temp:" + std::to_string(nextTemp++);
          statesBindings.push_back(buffer);
          outputBindings.push_back(buffer);
          if (recurrent.getFinalState())
            statesBindings.push_back(step.bindings[numOperands + 1]);
          outputBindings.push_back(step.bindings[numOperands]);
          record((*built)[count - 2], statesBindings);
          record((*built)[count - 1], outputBindings);
          continue;
        }
        // The pre-passes of the inputs bounded per kv tile run first, each writing an
        // intermediate that the attention kernel reads (its last parameters).
        SmallVector<unsigned> bounded = tileBoundsInputs(step);
        FailureOr<std::string> stepName = kernelName(bounded.size());
        if (failed(stepName))
          return signalPassFailure();
        TileConfig config;
        FailureOr<tile::KernelOp> kernel = buildStep(builder, step, *stepName, *target, &config);
        if (failed(kernel))
          return signalPassFailure();
        SmallVector<std::string> bindings = step.bindings;
        for (unsigned input : bounded) {
          FailureOr<std::string> prePassName = kernelName();
          if (failed(prePassName))
            return signalPassFailure();
          FailureOr<tile::KernelOp> prePass = buildTileBoundsKernel(
              builder, cast<attn::OnlineAttentionOp>(step.op), input, *prePassName, config.blockN);
          if (failed(prePass))
            return signalPassFailure();
          std::string buffer = "temp:" + std::to_string(nextTemp++);
          record(*prePass, {step.bindings[3 + input], buffer});
          bindings.push_back(buffer);
        }
        record(*kernel, bindings);
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
