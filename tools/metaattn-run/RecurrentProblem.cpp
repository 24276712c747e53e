//===- RecurrentProblem.cpp - operands and oracle of an attn.recurrent run --===//
#include "AttentionProblem.h"

#include "metaattn/Reference/Reference.h"

using namespace mlir;
using namespace metaattn;
using namespace metaattn::run;

LogicalResult run::makeRecurrentProblem(attn::RecurrentOp op, const RunOptions &options,
                                        Problem &problem, std::string &error) {
  problem.recurrent = op;
  problem.hasLse = static_cast<bool>(op.getFinalState());
  int64_t b = options.batch, seq = options.seqQ;
  auto qt = cast<RankedTensorType>(op.getQ().getType());
  auto vt = cast<RankedTensorType>(op.getV().getType());
  std::optional<DType> dtype = getDTypeFor(qt.getElementType());
  if (!dtype) {
    error = "unsupported element type for q";
    return failure();
  }
  int64_t qkHeads = qt.getDimSize(2), keyDim = qt.getDimSize(3);
  int64_t heads = vt.getDimSize(2), valueDim = vt.getDimSize(3);
  uint64_t seed = options.seed;
  auto next = [&](std::vector<int64_t> shape, DType type, double lo, double hi) {
    problem.operands.push_back(HostTensor::random(shape, type, seed, lo, hi));
    seed += 17;
  };
  next({b, seq, qkHeads, keyDim}, *dtype, -1, 1);
  next({b, seq, qkHeads, keyDim}, *dtype, -1, 1);
  next({b, seq, heads, valueDim}, *dtype, -1, 1);
  if (op.getGate()) {
    // Without a modifier the gate is log α itself: a decay in (e^-0.1, 1]. A modifier maps
    // the gate (a step size, a logit) to log α, so it gets values of either sign.
    bool modified = !op.getGateMod().empty();
    double lo = modified ? -1 : -0.1, hi = modified ? 1 : 0;
    switch (op.getGateKind()) {
    case attn::GateKind::head: next({heads}, DType::f32, lo, hi); break;
    case attn::GateKind::token: next({b, seq, heads}, DType::f32, lo, hi); break;
    case attn::GateKind::vector: next({b, seq, heads, keyDim}, DType::f32, lo, hi); break;
    case attn::GateKind::none: break;
    }
  }
  if (op.getInitialState())
    next({b, heads, keyDim, valueDim}, DType::f32, -1, 1);
  for (auto [i, attr] : llvm::enumerate(op.getInputDims())) {
    auto dims = attn::parseRecurrentInputDims(cast<StringAttr>(attr).getValue(), error);
    if (!dims)
      return failure();
    auto it = cast<RankedTensorType>(op.getInputs()[i].getType());
    std::vector<int64_t> shape;
    for (auto [d, dim] : llvm::enumerate(*dims)) {
      int64_t fixed = it.getDimSize(d);
      shape.push_back(!ShapedType::isDynamic(fixed)     ? fixed
                      : dim == attn::RecurrentDim::B   ? b
                      : dim == attn::RecurrentDim::T   ? seq
                      : dim == attn::RecurrentDim::H   ? heads
                                                       : std::max(keyDim, valueDim));
    }
    std::optional<DType> type = getDTypeFor(it.getElementType());
    if (!type) {
      error = "unsupported element type of custom input #" + std::to_string(i);
      return failure();
    }
    if (*type == DType::i32)
      next(shape, *type, 0, 4);
    else
      next(shape, *type, -1, 1);
  }
  problem.output = HostTensor::zeros({b, seq, heads, valueDim}, *dtype);
  if (problem.hasLse)
    problem.lse = HostTensor::zeros({b, heads, keyDim, valueDim}, DType::f32);
  if (options.check) {
    std::vector<const HostTensor *> operands;
    for (const HostTensor &t : problem.operands)
      operands.push_back(&t);
    problem.refOutput = HostTensor::zeros({b, seq, heads, valueDim}, DType::f32);
    if (problem.hasLse)
      problem.refLse = HostTensor::zeros({b, heads, keyDim, valueDim}, DType::f32);
    if (failed(evaluateRecurrent(op, operands, problem.refOutput,
                                 problem.hasLse ? &problem.refLse : nullptr, error)))
      return failure();
  }
  return success();
}
