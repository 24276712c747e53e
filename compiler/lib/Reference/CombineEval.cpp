//===- CombineEval.cpp - the oracle of attn.combine and of whole functions --===//
//
// attn.combine element by element in double precision, and functions of several attn ops
// evaluated op by op with f32 intermediates.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Reference/Reference.h"
#include "metaattn/Support/ScalarEval.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace metaattn;

LogicalResult metaattn::evaluateCombine(attn::CombineOp op, ArrayRef<const HostTensor *> operands,
                                        HostTensor &output, std::string &error) {
  unsigned numValues = op.getValues().size(), numInputs = op.getInputs().size();
  if (operands.size() != numValues + numInputs) {
    error = "attn.combine: expected " + std::to_string(numValues + numInputs) +
            " operands, found " + std::to_string(operands.size());
    return failure();
  }
  const HostTensor &first = *operands[0];
  if (first.getRank() != 4) {
    error = "attn.combine: operand #0 must be [B, Sq, H, Dv]";
    return failure();
  }
  std::vector<int64_t> shape = first.sizes;
  for (unsigned i = 1; i < numValues; ++i)
    if (operands[i]->sizes != shape) {
      error = "attn.combine: operand #" + std::to_string(i) + " differs in shape from #0";
      return failure();
    }
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  for (unsigned d = 2; d < 4; ++d)
    if (shape[d] != outType.getDimSize(d)) {
      error = "attn.combine: operand dim " + std::to_string(d) + " is " + std::to_string(shape[d]) +
              ", expected " + std::to_string(outType.getDimSize(d));
      return failure();
    }
  // Custom inputs: indexed by b, h, q (or a block of q).
  SmallVector<SmallVector<attn::InputAxis>> axes;
  for (unsigned i = 0; i < numInputs; ++i) {
    auto parsed = attn::parseInputDims(cast<StringAttr>(op.getInputDims()[i]).getValue(), error);
    if (!parsed)
      return failure();
    std::vector<int64_t> expected;
    for (const attn::InputAxis &a : *parsed)
      expected.push_back(a.dim == attn::InputDim::B   ? shape[0]
                         : a.dim == attn::InputDim::H ? shape[2]
                                                      : attn::blockCount(shape[1], a.divisor));
    if (operands[numValues + i]->sizes != expected) {
      error = "attn.combine: custom input #" + std::to_string(i) + " has the wrong shape";
      return failure();
    }
    axes.push_back(std::move(*parsed));
  }
  if (output.sizes.empty())
    output = HostTensor::zeros(shape, DType::f32);
  else if (output.sizes != shape) {
    error = "attn.combine: output has the wrong shape";
    return failure();
  }

  Block &block = op.getCombiner().front();
  SmallVector<Scalar> args, yielded;
  for (int64_t b = 0; b < shape[0]; ++b)
    for (int64_t q = 0; q < shape[1]; ++q)
      for (int64_t h = 0; h < shape[2]; ++h)
        for (int64_t d = 0; d < shape[3]; ++d) {
          args.clear();
          for (unsigned i = 0; i < numValues; ++i)
            args.push_back(Scalar::ofFloat(operands[i]->get({b, q, h, d})));
          for (int64_t index : {b, h, q, d})
            args.push_back(Scalar::ofInt(index));
          for (unsigned i = 0; i < numInputs; ++i) {
            SmallVector<int64_t, 3> idx;
            for (const attn::InputAxis &a : axes[i])
              idx.push_back(a.dim == attn::InputDim::B   ? b
                            : a.dim == attn::InputDim::H ? h
                                                         : q / a.divisor);
            const HostTensor *t = operands[numValues + i];
            double value = t->get(idx);
            args.push_back(t->dtype == DType::i32 ? Scalar::ofInt(static_cast<int64_t>(value))
                                                  : Scalar::ofFloat(value));
          }
          if (failed(evaluateScalarBlock(block, args, yielded, FloatPrecision::Double, error)))
            return failure();
          output.set({b, q, h, d}, yielded[0].f);
        }
  return success();
}

LogicalResult metaattn::evaluateFunction(Operation *function,
                                         ArrayRef<const HostTensor *> arguments,
                                         std::vector<HostTensor> &results, std::string &error) {
  auto func = dyn_cast<func::FuncOp>(function);
  if (!func || !llvm::hasSingleElement(func.getBody())) {
    error = "the oracle evaluates a func.func of one block";
    return failure();
  }
  if (arguments.size() != func.getNumArguments()) {
    error = "function @" + func.getSymName().str() + " takes " +
            std::to_string(func.getNumArguments()) + " arguments, got " +
            std::to_string(arguments.size());
    return failure();
  }
  // Every value of the function as a host tensor: arguments by pointer, op results owned.
  llvm::DenseMap<Value, const HostTensor *> tensors;
  std::vector<std::unique_ptr<HostTensor>> owned;
  for (auto [arg, tensor] : llvm::zip(func.getArguments(), arguments))
    tensors[arg] = tensor;
  auto lookup = [&](ValueRange values, SmallVector<const HostTensor *> &out) -> LogicalResult {
    for (Value v : values) {
      auto it = tensors.find(v);
      if (it == tensors.end()) {
        error = "an operand is not a function argument or an earlier result";
        return failure();
      }
      out.push_back(it->second);
    }
    return success();
  };
  auto fresh = [&]() {
    owned.push_back(std::make_unique<HostTensor>());
    return owned.back().get();
  };
  for (Operation &op : func.getBody().front()) {
    SmallVector<const HostTensor *> operands;
    if (auto attention = dyn_cast<attn::AttentionOp>(op)) {
      if (failed(lookup(op.getOperands(), operands)))
        return failure();
      // The output in f32, [B, Sq, H, Dv] (q's batch and length are checked by the evaluator).
      HostTensor *out = fresh();
      const HostTensor *q = operands[0];
      if (q->getRank() != 4) {
        error = "q must be [B, Sq, H, D]";
        return failure();
      }
      int64_t heads = cast<RankedTensorType>(attention.getQ().getType()).getDimSize(2);
      int64_t valueDim = cast<RankedTensorType>(attention.getV().getType()).getDimSize(3);
      *out = HostTensor::zeros({q->sizes[0], q->sizes[1], heads, valueDim}, DType::f32);
      HostTensor *lse = attention.getLse() ? fresh() : nullptr;
      if (failed(evaluateAttention(attention, operands, *out, lse, error)))
        return failure();
      tensors[attention.getOutput()] = out;
      if (lse)
        tensors[attention.getLse()] = lse;
    } else if (auto combine = dyn_cast<attn::CombineOp>(op)) {
      if (failed(lookup(op.getOperands(), operands)))
        return failure();
      HostTensor *out = fresh();
      if (failed(evaluateCombine(combine, operands, *out, error)))
        return failure();
      tensors[combine.getOutput()] = out;
    } else if (auto recurrent = dyn_cast<attn::RecurrentOp>(op)) {
      if (failed(lookup(op.getOperands(), operands)))
        return failure();
      // Output and final state in f32 (allocated by the evaluator).
      HostTensor *out = fresh();
      HostTensor *state = recurrent.getFinalState() ? fresh() : nullptr;
      if (failed(evaluateRecurrent(recurrent, operands, *out, state, error)))
        return failure();
      tensors[recurrent.getOutput()] = out;
      if (state)
        tensors[recurrent.getFinalState()] = state;
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      SmallVector<const HostTensor *> returned;
      if (failed(lookup(ret.getOperands(), returned)))
        return failure();
      results.clear();
      for (const HostTensor *t : returned)
        results.push_back(*t);
    } else {
      error = "the oracle evaluates attn.attention, attn.combine and attn.recurrent ops, found " +
              op.getName().getStringRef().str();
      return failure();
    }
  }
  return success();
}
