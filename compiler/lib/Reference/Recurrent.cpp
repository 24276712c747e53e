//===- Recurrent.cpp - Token-by-token double-precision attn.recurrent -------===//
//
// The oracle of the linear family: for every (b, h) the state H (Dk x Dv) is decayed and
// updated one token at a time, with the q/k/v/gate modifier regions evaluated per element.
//
//===----------------------------------------------------------------------===//

#include "ReferenceChecks.h"
#include "metaattn/Reference/Reference.h"
#include "metaattn/Support/ScalarEval.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <string>

using namespace mlir;
using namespace metaattn;
using reference::checkTensor;
using reference::prepareResult;

namespace {

/// One problem's sizes and operands.
struct RecurrentProblem {
  int64_t batch = 0, seq = 0, heads = 0, qkHeads = 0, keyDim = 0, valueDim = 0;
  const HostTensor *q = nullptr, *k = nullptr, *v = nullptr, *gate = nullptr, *initial = nullptr;
  SmallVector<const HostTensor *> inputs;
  SmallVector<SmallVector<attn::RecurrentDim>> inputDims;
};

/// Applies a modifier region (or nothing when it is empty) to the element `x` at (b, t, h, d).
class Modifiers {
public:
  explicit Modifiers(const RecurrentProblem &p) : p(p) {}

  LogicalResult apply(Region &region, double &x, int64_t b, int64_t t, int64_t h, int64_t d,
                      std::string &error) {
    if (region.empty())
      return success();
    args.assign({Scalar::ofFloat(x), Scalar::ofInt(b), Scalar::ofInt(t), Scalar::ofInt(h),
                 Scalar::ofInt(d)});
    for (auto [i, input] : llvm::enumerate(p.inputs)) {
      SmallVector<int64_t, 4> idx;
      for (attn::RecurrentDim dim : p.inputDims[i])
        idx.push_back(dim == attn::RecurrentDim::B   ? b
                      : dim == attn::RecurrentDim::T ? t
                      : dim == attn::RecurrentDim::H ? h
                                                     : d);
      if (!input->inBounds(idx)) {
        error = "custom input #" + std::to_string(i) + " is indexed out of bounds";
        return failure();
      }
      double value = input->get(idx);
      args.push_back(input->dtype == DType::i32 ? Scalar::ofInt(int64_t(value))
                                                : Scalar::ofFloat(value));
    }
    if (failed(evaluateScalarBlock(region.front(), args, yielded, FloatPrecision::Double, error)))
      return failure();
    x = yielded[0].f;
    return success();
  }

private:
  const RecurrentProblem &p;
  SmallVector<Scalar> args, yielded;
};

LogicalResult readOperands(attn::RecurrentOp op, ArrayRef<const HostTensor *> operands,
                           RecurrentProblem &p, std::string &error) {
  auto qType = cast<RankedTensorType>(op.getQ().getType());
  auto vType = cast<RankedTensorType>(op.getV().getType());
  std::optional<DType> dtype = getDTypeFor(qType.getElementType());
  if (!dtype) {
    error = "unsupported element type for q, k, v";
    return failure();
  }
  unsigned expected = op->getNumOperands();
  if (operands.size() != expected) {
    error = "expected " + std::to_string(expected) + " operands (q, k, v" +
            (op.getGate() ? ", gate" : "") + (op.getInitialState() ? ", initial state" : "") +
            " and " + std::to_string(op.getInputs().size()) + " custom inputs), found " +
            std::to_string(operands.size());
    return failure();
  }
  p.qkHeads = qType.getDimSize(2);
  p.keyDim = qType.getDimSize(3);
  p.heads = vType.getDimSize(2);
  p.valueDim = vType.getDimSize(3);
  unsigned next = 0;
  p.q = operands[next++];
  if (failed(checkTensor(p.q, "q", {-1, -1, p.qkHeads, p.keyDim}, dtype, error)))
    return failure();
  p.batch = p.q->sizes[0];
  p.seq = p.q->sizes[1];
  p.k = operands[next++];
  p.v = operands[next++];
  if (failed(checkTensor(p.k, "k", {p.batch, p.seq, p.qkHeads, p.keyDim}, dtype, error)) ||
      failed(checkTensor(p.v, "v", {p.batch, p.seq, p.heads, p.valueDim}, dtype, error)))
    return failure();
  if (op.getGate()) {
    p.gate = operands[next++];
    SmallVector<int64_t> shape;
    switch (op.getGateKind()) {
    case attn::GateKind::head:
      shape = {p.heads};
      break;
    case attn::GateKind::token:
      shape = {p.batch, p.seq, p.heads};
      break;
    case attn::GateKind::vector:
      shape = {p.batch, p.seq, p.heads, p.keyDim};
      break;
    case attn::GateKind::none:
      break;
    }
    if (failed(checkTensor(p.gate, "gate", shape, DType::f32, error)))
      return failure();
  }
  if (op.getInitialState()) {
    p.initial = operands[next++];
    if (failed(checkTensor(p.initial, "initial state", {p.batch, p.heads, p.keyDim, p.valueDim},
                           DType::f32, error)))
      return failure();
  }
  for (auto [i, attr] : llvm::enumerate(op.getInputDims())) {
    auto dims = attn::parseRecurrentInputDims(cast<StringAttr>(attr).getValue(), error);
    if (!dims)
      return failure();
    SmallVector<int64_t> shape;
    for (attn::RecurrentDim d : *dims)
      shape.push_back(d == attn::RecurrentDim::B   ? p.batch
                      : d == attn::RecurrentDim::T ? p.seq
                      : d == attn::RecurrentDim::H ? p.heads
                                                   : -1);
    Type elt = cast<RankedTensorType>(op.getInputs()[i].getType()).getElementType();
    const HostTensor *input = operands[next++];
    if (failed(checkTensor(input, "custom input #" + std::to_string(i), shape, getDTypeFor(elt),
                           error)))
      return failure();
    p.inputs.push_back(input);
    p.inputDims.push_back(std::move(*dims));
  }
  return success();
}

} // namespace

LogicalResult metaattn::evaluateRecurrent(attn::RecurrentOp op,
                                          ArrayRef<const HostTensor *> operands, HostTensor &output,
                                          HostTensor *finalState, std::string &error) {
  RecurrentProblem p;
  if (failed(readOperands(op, operands, p, error)))
    return failure();
  DType dtype = p.q->dtype;
  // Results the caller did not allocate are f32, so the oracle keeps its precision.
  if (output.sizes.empty())
    output = HostTensor::zeros({p.batch, p.seq, p.heads, p.valueDim}, DType::f32);
  if (failed(prepareResult(output, "output", {p.batch, p.seq, p.heads, p.valueDim},
                           {dtype, DType::f32}, error)))
    return failure();
  bool wantsState = finalState && op.getFinalState();
  if (wantsState &&
      failed(prepareResult(*finalState, "final state", {p.batch, p.heads, p.keyDim, p.valueDim},
                           {DType::f32}, error)))
    return failure();

  // The state of one head, in double precision: refuse what the host cannot hold rather than
  // abort in the allocator (a head dim in the hundreds of thousands).
  constexpr int64_t kMaxStateValues = int64_t(1) << 27;
  if (p.keyDim * p.valueDim > kMaxStateValues) {
    error = "the reference keeps a Dk x Dv state per head in double precision: " +
            std::to_string(p.keyDim) + " x " + std::to_string(p.valueDim) + " values (" +
            std::to_string(p.keyDim * p.valueDim * 8 >> 20) +
            " MiB) is more than it evaluates (at most 2^27 values, 1 GiB)";
    return failure();
  }
  Modifiers mods(p);
  int64_t group = p.heads / p.qkHeads;
  attn::GateKind kind = op.getGateKind();
  std::vector<double> state(p.keyDim * p.valueDim), q(p.keyDim), k(p.keyDim), v(p.valueDim),
      decay(p.keyDim);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.heads; ++h) {
      int64_t hq = h / group;
      for (int64_t d = 0; d < p.keyDim; ++d)
        for (int64_t e = 0; e < p.valueDim; ++e)
          state[d * p.valueDim + e] = p.initial ? p.initial->get({b, h, d, e}) : 0.0;
      for (int64_t t = 0; t < p.seq; ++t) {
        for (int64_t d = 0; d < p.keyDim; ++d) {
          q[d] = p.q->get({b, t, hq, d});
          k[d] = p.k->get({b, t, hq, d});
          if (failed(mods.apply(op.getQMod(), q[d], b, t, h, d, error)) ||
              failed(mods.apply(op.getKMod(), k[d], b, t, h, d, error)))
            return failure();
        }
        for (int64_t e = 0; e < p.valueDim; ++e) {
          v[e] = p.v->get({b, t, h, e});
          if (failed(mods.apply(op.getVMod(), v[e], b, t, h, e, error)))
            return failure();
        }
        // log α, per key dim for vector gates, else one value for the token.
        int64_t gateDims = kind == attn::GateKind::vector ? p.keyDim : 1;
        for (int64_t d = 0; d < gateDims; ++d) {
          double g = kind == attn::GateKind::none    ? 0.0
                     : kind == attn::GateKind::head  ? p.gate->get({h})
                     : kind == attn::GateKind::token ? p.gate->get({b, t, h})
                                                     : p.gate->get({b, t, h, d});
          if (kind != attn::GateKind::none &&
              failed(mods.apply(op.getGateMod(), g, b, t, h, d, error)))
            return failure();
          decay[d] = std::exp(g);
        }
        for (int64_t d = 0; d < p.keyDim; ++d) {
          double alpha = decay[gateDims == 1 ? 0 : d];
          for (int64_t e = 0; e < p.valueDim; ++e) {
            double &s = state[d * p.valueDim + e];
            s = alpha * s + k[d] * v[e];
          }
        }
        for (int64_t e = 0; e < p.valueDim; ++e) {
          double o = 0;
          for (int64_t d = 0; d < p.keyDim; ++d)
            o += q[d] * state[d * p.valueDim + e];
          output.set({b, t, h, e}, o);
        }
      }
      if (wantsState)
        for (int64_t d = 0; d < p.keyDim; ++d)
          for (int64_t e = 0; e < p.valueDim; ++e)
            finalState->set({b, h, d, e}, state[d * p.valueDim + e]);
    }
  return success();
}
