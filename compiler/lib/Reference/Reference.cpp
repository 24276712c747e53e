//===- Reference.cpp - Naive double-precision attn.attention -----------------===//
//
// The oracle: checks the host tensors against the op, then for every (b, h, q) row computes
// the scores, the score function and mask per element, the normaliser per row, and O = P·V.
// The (b, h) pairs run in parallel (llvm::parallelFor).
//
//===----------------------------------------------------------------------===//

#include "metaattn/Reference/Reference.h"
#include "NormalizerEval.h"
#include "ReferenceChecks.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/Parallel.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace metaattn;
using reference::checkTensor;
using reference::prepareResult;

namespace {

/// Sizes of one attention problem, read from the operands.
struct Problem {
  int64_t batch, seqQ, seqKv, heads, kvHeads, dim, valueDim;
};

} // namespace

LogicalResult metaattn::evaluateAttention(attn::AttentionOp op,
                                          ArrayRef<const HostTensor *> operands, HostTensor &output,
                                          HostTensor *lse, std::string &error) {
  auto qType = cast<RankedTensorType>(op.getQ().getType());
  auto kType = cast<RankedTensorType>(op.getK().getType());
  auto vType = cast<RankedTensorType>(op.getV().getType());
  std::optional<DType> dtype = getDTypeFor(qType.getElementType());
  if (!dtype) {
    error = "unsupported element type for q, k, v";
    return failure();
  }
  unsigned numInputs = op.getInputs().size();
  if (operands.size() != 3 + numInputs) {
    error = "expected " + std::to_string(3 + numInputs) + " operands (q, k, v and " +
            std::to_string(numInputs) + " custom inputs), found " + std::to_string(operands.size());
    return failure();
  }
  Problem p;
  p.heads = qType.getDimSize(2);
  p.dim = qType.getDimSize(3);
  p.kvHeads = kType.getDimSize(2);
  p.valueDim = vType.getDimSize(3);
  if (failed(checkTensor(operands[0], "q", {-1, -1, p.heads, p.dim}, dtype, error)))
    return failure();
  p.batch = operands[0]->sizes[0];
  p.seqQ = operands[0]->sizes[1];
  if (failed(checkTensor(operands[1], "k", {p.batch, -1, p.kvHeads, p.dim}, dtype, error)))
    return failure();
  p.seqKv = operands[1]->sizes[1];
  if (failed(
          checkTensor(operands[2], "v", {p.batch, p.seqKv, p.kvHeads, p.valueDim}, dtype, error)))
    return failure();
  for (auto [name, type, idx] : {std::tuple<StringRef, RankedTensorType, int>{"q", qType, 0},
                                 {"k", kType, 1},
                                 {"v", vType, 2}})
    for (int64_t d = 0; d < 2; ++d)
      if (!type.isDynamicDim(d) && type.getDimSize(d) != operands[idx]->sizes[d]) {
        error = (name + " dim " + Twine(d) + " must be " + Twine(type.getDimSize(d))).str();
        return failure();
      }

  // Custom inputs: the dims each one is indexed by.
  SmallVector<SmallVector<attn::InputAxis>> inputDims;
  SmallVector<bool> variesOverKv;
  for (unsigned i = 0; i < numInputs; ++i) {
    auto spec = cast<StringAttr>(op.getInputDims()[i]).getValue();
    auto dims = attn::parseInputDims(spec, error);
    if (!dims)
      return failure();
    SmallVector<int64_t> expected;
    for (attn::InputAxis a : *dims) {
      int64_t length = a.dim == attn::InputDim::B   ? p.batch
                       : a.dim == attn::InputDim::H ? p.heads
                       : a.dim == attn::InputDim::Q ? p.seqQ
                                                    : p.seqKv;
      expected.push_back(attn::blockCount(length, a.divisor));
    }
    Type elt = cast<RankedTensorType>(op.getInputs()[i].getType()).getElementType();
    std::optional<DType> inDType = getDTypeFor(elt);
    if (!inDType) {
      error = "custom input #" + std::to_string(i) + " has an unsupported element type";
      return failure();
    }
    if (failed(checkTensor(operands[3 + i], "custom input #" + std::to_string(i), expected, inDType,
                           error)))
      return failure();
    variesOverKv.push_back(attn::hasInputDim(*dims, attn::InputDim::KV));
    inputDims.push_back(std::move(*dims));
  }

  if (failed(prepareResult(output, "output", {p.batch, p.seqQ, p.heads, p.valueDim},
                           {*dtype, DType::f32}, error)))
    return failure();
  if (lse && failed(prepareResult(*lse, "lse", {p.batch, p.heads, p.seqQ}, {DType::f32}, error)))
    return failure();
  if (p.heads % p.kvHeads != 0) {
    error = "query heads must be a multiple of kv heads";
    return failure();
  }

  Block &scoreBlock = op.getScore().front();
  Block &maskBlock = op.getMask().front();
  Block &normBlock = op.getNormalizer().front();
  int64_t group = p.heads / p.kvHeads;

  // One (b, h) pair's rows. Pairs write disjoint outputs and only read the IR, so they run in
  // parallel; the first error found (in pair order) is the one reported.
  auto evaluatePair = [&](int64_t b, int64_t h, std::string &pairError) -> LogicalResult {
    int64_t q = 0;
    auto inputAt = [&](unsigned i, int64_t kv) -> Scalar {
      SmallVector<int64_t, 4> idx;
      for (attn::InputAxis a : inputDims[i]) {
        int64_t index = a.dim == attn::InputDim::B   ? b
                        : a.dim == attn::InputDim::H ? h
                        : a.dim == attn::InputDim::Q ? q
                                                     : kv;
        idx.push_back(index / a.divisor); // a block index: floor(index / N)
      }
      const HostTensor *t = operands[3 + i];
      double value = t->get(idx);
      return t->dtype == DType::i32 ? Scalar::ofInt(static_cast<int64_t>(value))
                                    : Scalar::ofFloat(value);
    };
    std::vector<double> scores(p.seqKv);
    std::vector<char> keep(p.seqKv);
    SmallVector<Scalar> args, yielded;
    std::vector<double> acc(p.valueDim);
    int64_t hk = h / group;
    // This pair's keys and values, and each query row, read once as doubles.
    auto readRows = [&](const HostTensor *t, int64_t rows, int64_t head, int64_t width) {
      std::vector<double> values(rows * width);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t d = 0; d < width; ++d)
          values[r * width + d] = t->get({b, r, head, d});
      return values;
    };
    std::vector<double> keys = readRows(operands[1], p.seqKv, hk, p.dim);
    std::vector<double> values = readRows(operands[2], p.seqKv, hk, p.valueDim);
    std::vector<double> query(p.dim);
    for (q = 0; q < p.seqQ; ++q) {
      for (int64_t d = 0; d < p.dim; ++d)
        query[d] = operands[0]->get({b, q, h, d});
      bool anyKept = false;
      for (int64_t kv = 0; kv < p.seqKv; ++kv) {
        // Mask first: masked entries need no score.
        args.assign({Scalar::ofInt(b), Scalar::ofInt(h), Scalar::ofInt(q), Scalar::ofInt(kv),
                     Scalar::ofInt(p.seqQ), Scalar::ofInt(p.seqKv)});
        for (unsigned i = 0; i < numInputs; ++i)
          args.push_back(inputAt(i, kv));
        if (failed(
                evaluateScalarBlock(maskBlock, args, yielded, FloatPrecision::Double, pairError)))
          return failure();
        keep[kv] = yielded[0].i != 0;
        anyKept |= keep[kv] != 0;
        if (!keep[kv])
          continue;
        double dot = 0;
        for (int64_t d = 0; d < p.dim; ++d)
          dot += query[d] * keys[kv * p.dim + d];
        args.insert(args.begin(), Scalar::ofFloat(dot));
        if (failed(
                evaluateScalarBlock(scoreBlock, args, yielded, FloatPrecision::Double, pairError)))
          return failure();
        scores[kv] = yielded[0].f;
      }
      if (!anyKept) {
        for (int64_t d = 0; d < p.valueDim; ++d)
          output.set({b, q, h, d}, 0.0);
        if (lse)
          lse->set({b, h, q}, -std::numeric_limits<double>::infinity());
        continue;
      }
      reference::RowInput row{scores, keep, b, h, q, p.seqQ, p.seqKv, inputAt, variesOverKv};
      reference::RowOutput result;
      if (failed(reference::evaluateNormalizerRow(normBlock, row, result, pairError)))
        return failure();
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t kv = 0; kv < p.seqKv; ++kv) {
        if (!keep[kv])
          continue;
        double w = result.weight[kv] / result.denominator[kv];
        for (int64_t d = 0; d < p.valueDim; ++d)
          acc[d] += w * values[kv * p.valueDim + d];
      }
      for (int64_t d = 0; d < p.valueDim; ++d)
        output.set({b, q, h, d}, acc[d]);
      if (lse)
        lse->set({b, h, q}, result.rowStatistic);
    }
    return success();
  };

  int64_t pairs = p.batch * p.heads;
  std::vector<std::string> errors(pairs);
  std::vector<char> failedPair(pairs, 0);
  llvm::parallelFor(0, pairs, [&](size_t i) {
    int64_t b = static_cast<int64_t>(i) / p.heads, h = static_cast<int64_t>(i) % p.heads;
    failedPair[i] = failed(evaluatePair(b, h, errors[i]));
  });
  for (int64_t i = 0; i < pairs; ++i)
    if (failedPair[i]) {
      error = std::move(errors[i]);
      return failure();
    }
  return success();
}
