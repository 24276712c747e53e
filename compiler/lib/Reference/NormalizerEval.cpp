//===- NormalizerEval.cpp - Row-wise evaluation of a normaliser --------------===//
//
// Each SSA value of the normaliser region is either a per-row scalar or a vector over the
// row's kv positions. Element-wise ops broadcast; attn.row_reduce reduces a vector over the
// kept positions into a per-row scalar; attn.normalize ends the row.
//
//===----------------------------------------------------------------------===//

#include "NormalizerEval.h"

#include "metaattn/Dialect/Attn/IR/AttnOps.h"

#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::reference;

namespace {

/// A per-row scalar or a per-element vector (entries at masked positions are unused).
struct RowValue {
  bool perElement = false;
  Scalar scalar;
  std::vector<Scalar> elements;

  Scalar at(int64_t kv) const { return perElement ? elements[kv] : scalar; }
};

/// Evaluates one row; owns the value environment.
class RowEvaluator {
public:
  RowEvaluator(const RowInput &row, std::string &error) : row(row), error(error) {}

  LogicalResult run(Block &block, RowOutput &result);

private:
  LogicalResult bindArguments(Block &block);
  LogicalResult elementwise(Operation &op);
  LogicalResult rowReduce(attn::RowReduceOp op);
  LogicalResult finish(attn::NormalizeOp op, Block &block, RowOutput &result);

  int64_t numKv() const { return static_cast<int64_t>(row.keep.size()); }

  const RowInput &row;
  std::string &error;
  llvm::DenseMap<Value, RowValue> env;
};

} // namespace

LogicalResult RowEvaluator::bindArguments(Block &block) {
  unsigned numInputs = row.inputVariesOverKv.size();
  if (block.getNumArguments() != 1 + attn::kNumIndexArgs + numInputs) {
    error = "normalizer region has an unexpected number of arguments";
    return failure();
  }
  RowValue s;
  s.perElement = true;
  s.elements.resize(numKv());
  for (int64_t kv = 0; kv < numKv(); ++kv)
    s.elements[kv] = Scalar::ofFloat(row.scores[kv]);
  env[block.getArgument(0)] = std::move(s);

  auto scalar = [](int64_t v) {
    RowValue r;
    r.scalar = Scalar::ofInt(v);
    return r;
  };
  env[block.getArgument(1)] = scalar(row.b);
  env[block.getArgument(2)] = scalar(row.h);
  env[block.getArgument(3)] = scalar(row.q);
  RowValue kvIndex;
  kvIndex.perElement = true;
  for (int64_t kv = 0; kv < numKv(); ++kv)
    kvIndex.elements.push_back(Scalar::ofInt(kv));
  env[block.getArgument(4)] = std::move(kvIndex);
  env[block.getArgument(5)] = scalar(row.sq);
  env[block.getArgument(6)] = scalar(row.skv);
  for (unsigned i = 0; i < numInputs; ++i) {
    RowValue in;
    in.perElement = row.inputVariesOverKv[i];
    if (in.perElement) {
      in.elements.resize(numKv());
      for (int64_t kv = 0; kv < numKv(); ++kv)
        in.elements[kv] = row.input(i, kv);
    } else {
      in.scalar = row.input(i, 0);
    }
    env[block.getArgument(1 + attn::kNumIndexArgs + i)] = std::move(in);
  }
  return success();
}

LogicalResult RowEvaluator::elementwise(Operation &op) {
  if (!isSupportedScalarOp(&op) || op.getNumRegions() != 0 || op.getNumResults() != 1) {
    error = formatOpError(&op, "unsupported op in a normalizer region");
    return failure();
  }
  SmallVector<const RowValue *> args;
  bool perElement = false;
  for (Value v : op.getOperands()) {
    auto it = env.find(v);
    if (it == env.end()) {
      error = formatOpError(&op, "operand defined outside the normalizer region");
      return failure();
    }
    args.push_back(&it->second);
    perElement |= it->second.perElement;
  }
  RowValue result;
  result.perElement = perElement;
  SmallVector<Scalar, 3> operands, results;
  auto evalAt = [&](int64_t kv) -> LogicalResult {
    operands.clear();
    results.clear();
    for (const RowValue *a : args)
      operands.push_back(a->at(kv));
    if (failed(evaluateScalarOp(&op, operands, results, FloatPrecision::Double, error)))
      return failure();
    return success();
  };
  if (!perElement) {
    if (failed(evalAt(0)))
      return failure();
    result.scalar = results[0];
  } else {
    result.elements.resize(numKv());
    for (int64_t kv = 0; kv < numKv(); ++kv) {
      if (!row.keep[kv])
        continue;
      if (failed(evalAt(kv)))
        return failure();
      result.elements[kv] = results[0];
    }
  }
  env[op.getResult(0)] = std::move(result);
  return success();
}

LogicalResult RowEvaluator::rowReduce(attn::RowReduceOp op) {
  const RowValue &x = env[op.getValue()];
  bool isMax = op.getKind() == attn::ReductionKind::max;
  double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
  for (int64_t kv = 0; kv < numKv(); ++kv) {
    if (!row.keep[kv])
      continue;
    double v = x.at(kv).f;
    switch (op.getKind()) {
    case attn::ReductionKind::max:
      acc = std::isnan(v) || std::isnan(acc) ? v + acc : std::max(acc, v);
      break;
    case attn::ReductionKind::sum:
      acc += v;
      break;
    case attn::ReductionKind::abs_sum:
      acc += std::fabs(v);
      break;
    }
  }
  RowValue result;
  result.scalar = Scalar::ofFloat(acc);
  env[op.getResult()] = std::move(result);
  return success();
}

LogicalResult RowEvaluator::finish(attn::NormalizeOp op, Block &block, RowOutput &result) {
  const RowValue &w = env[op.getWeight()];
  const RowValue &z = env[op.getDenominator()];
  result.weight.assign(numKv(), 0.0);
  result.denominator.assign(numKv(), 1.0);
  for (int64_t kv = 0; kv < numKv(); ++kv) {
    if (!row.keep[kv])
      continue;
    result.weight[kv] = w.at(kv).f;
    result.denominator[kv] = z.at(kv).f;
  }
  // The row statistic: shifted by the row max of the score when the normaliser has one.
  double logZ = z.perElement ? std::numeric_limits<double>::quiet_NaN() : std::log(z.scalar.f);
  result.rowStatistic = logZ;
  for (Operation &inner : block)
    if (auto reduce = dyn_cast<attn::RowReduceOp>(inner))
      if (reduce.getKind() == attn::ReductionKind::max &&
          reduce.getValue() == block.getArgument(0)) {
        // The shift is the row max, or max(row max, c) when that is what the weights use
        // (a sink logit joining the maximum).
        Value shift = reduce.getResult();
        if (shift.hasOneUse()) {
          Operation *user = *shift.getUsers().begin();
          if (isa<arith::MaximumFOp, arith::MaxNumFOp>(user) && !env[user->getResult(0)].perElement)
            shift = user->getResult(0);
        }
        result.rowStatistic = env[shift].scalar.f + logZ;
        break;
      }
  return success();
}

LogicalResult RowEvaluator::run(Block &block, RowOutput &result) {
  if (failed(bindArguments(block)))
    return failure();
  for (Operation &op : block) {
    if (auto normalize = dyn_cast<attn::NormalizeOp>(op))
      return finish(normalize, block, result);
    if (auto reduce = dyn_cast<attn::RowReduceOp>(op)) {
      if (failed(rowReduce(reduce)))
        return failure();
      continue;
    }
    if (failed(elementwise(op)))
      return failure();
  }
  error = "normalizer region does not end with attn.normalize";
  return failure();
}

LogicalResult reference::evaluateNormalizerRow(Block &block, const RowInput &row, RowOutput &result,
                                               std::string &error) {
  RowEvaluator evaluator(row, error);
  return evaluator.run(block, result);
}
