//===- LinearVariants.cpp - the linear-attention factories ------------------===//
#include "metaattn/Frontend/LinearVariants.h"

#include <cmath>

using namespace metaattn::frontend;

namespace {

/// The shared part: sizes, dtype, states and the q scale.
RecurrentBuilder base(const LinearOptions &o, Gate gate, double defaultScale) {
  RecurrentBuilder r;
  r.heads(o.numHeads, o.numQkHeads > 0 ? o.numQkHeads : o.numHeads)
      .headDims(o.keyDim, o.valueDim)
      .dtype(o.dtype)
      .gate(gate)
      .withInitialState(o.initialState)
      .withFinalState(o.finalState);
  double scale = o.scale.value_or(defaultScale);
  if (scale != 1.0)
    r.qMod([scale](Sym x, const RecurrentIndices &) { return x * scale; });
  return r;
}

double invSqrt(int64_t d) { return d > 0 ? 1.0 / std::sqrt(double(d)) : 1.0; }

} // namespace

RecurrentBuilder metaattn::frontend::linearAttention(const LinearOptions &o) {
  return base(o, Gate::None, invSqrt(o.keyDim));
}

RecurrentBuilder metaattn::frontend::retnet(const LinearOptions &o) {
  return base(o, Gate::Head, invSqrt(o.keyDim));
}

RecurrentBuilder metaattn::frontend::gatedRetention(const LinearOptions &o) {
  return base(o, Gate::Token, invSqrt(o.keyDim));
}

RecurrentBuilder metaattn::frontend::gla(const LinearOptions &o, double normalizer) {
  RecurrentBuilder r = base(o, Gate::Vector, invSqrt(o.keyDim));
  // logsigmoid(x) = -log(1 + exp(-x)), written so that large |x| stays finite.
  r.gateMod([normalizer](Sym x, const RecurrentIndices &) {
    Sym logSigmoid = min(x, 0.0) - log(1.0 + exp(-abs(x)));
    return logSigmoid / normalizer;
  });
  return r;
}

RecurrentBuilder metaattn::frontend::mamba2Ssd(const LinearOptions &o) {
  RecurrentBuilder r = base(o, Gate::Token, 1.0);
  Input dt = r.addInput("dt", DType::F32, {TimeDim::B, TimeDim::T, TimeDim::H});
  Input a = r.addInput("A", DType::F32, {TimeDim::H});
  r.vMod([dt](Sym x, const RecurrentIndices &i) { return x * i.inputs[dt]; });
  r.gateMod([a](Sym x, const RecurrentIndices &i) { return x * i.inputs[a]; });
  return r;
}
