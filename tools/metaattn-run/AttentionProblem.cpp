//===- AttentionProblem.cpp - operands, CPU and GPU runs, oracle check ------===//
#include "AttentionProblem.h"

#include "metaattn/Dialect/Attn/Transforms/Passes.h"
#include "metaattn/Reference/Reference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::run;

namespace {

/// Concrete sizes of a tensor type, dynamic dims taken from `dynamic` in order.
std::vector<int64_t> concreteShape(RankedTensorType type, ArrayRef<int64_t> bySymbol) {
  std::vector<int64_t> shape;
  for (auto [i, size] : llvm::enumerate(type.getShape()))
    shape.push_back(ShapedType::isDynamic(size) ? bySymbol[i] : size);
  return shape;
}

bool readFile(const std::string &path, std::vector<uint8_t> &bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  bytes.assign(std::istreambuf_iterator<char>(in), {});
  return true;
}

} // namespace

namespace {

/// The concrete sizes of argument `arg` of `func` from its first use: q/k/v of an attention,
/// an operand of a combine, or a custom input of either. `blockMap` is set for inputs indexed
/// by a block index; `axes` holds the dims of a custom input (empty otherwise).
LogicalResult argumentShape(BlockArgument arg, const RunOptions &o, std::vector<int64_t> &shape,
                            bool &blockMap, SmallVector<attn::InputAxis> &axes,
                            std::pair<double, double> &range, std::string &error) {
  int64_t b = o.batch, sq = o.seqQ, skv = o.seqKv;
  auto type = cast<RankedTensorType>(arg.getType());
  blockMap = false;
  axes.clear();
  auto fromInput = [&](StringRef spec) -> LogicalResult {
    auto dims = attn::parseInputDims(spec, error);
    if (!dims)
      return failure();
    axes = *dims;
    std::vector<int64_t> dyn;
    for (attn::InputAxis a : *dims) {
      int64_t length = a.dim == attn::InputDim::B    ? b
                       : a.dim == attn::InputDim::Q  ? sq
                       : a.dim == attn::InputDim::KV ? skv
                                                     : 0;
      dyn.push_back(attn::blockCount(length, a.divisor));
      blockMap |= a.isBlock();
    }
    shape = concreteShape(type, dyn);
    return success();
  };
  for (OpOperand &use : arg.getUses()) {
    unsigned n = use.getOperandNumber();
    if (auto attention = dyn_cast<attn::AttentionOp>(use.getOwner())) {
      if (n < 3) {
        shape = concreteShape(type, {b, n == 0 ? sq : skv, 0, 0});
        return success();
      }
      return fromInput(cast<StringAttr>(attention.getInputDims()[n - 3]).getValue());
    }
    if (auto recurrent = dyn_cast<attn::RecurrentOp>(use.getOwner())) {
      // Sequence length = --seq-q. q, k, v and gates follow [B, S, ...]; states [B, ...].
      Value v = use.get();
      if (v == recurrent.getInitialState()) {
        shape = concreteShape(type, {b, 0, 0, 0});
        return success();
      }
      if (v == recurrent.getGate()) {
        // Without a modifier the gate is log α itself: a decay in (e^-0.1, 1]. A modifier
        // maps it (a step size, a logit) to log α, so it gets values of either sign.
        if (recurrent.getGateMod().empty())
          range = {-0.1, 0.0};
        shape = concreteShape(type, {b, sq, 0, 0});
        return success();
      }
      if (n < 3) {
        shape = concreteShape(type, {b, sq, 0, 0});
        return success();
      }
      unsigned firstInput = recurrent.getInputs().getBeginOperandIndex();
      auto dims = attn::parseRecurrentInputDims(
          cast<StringAttr>(recurrent.getInputDims()[n - firstInput]).getValue(), error);
      if (!dims)
        return failure();
      auto qt = cast<RankedTensorType>(recurrent.getQ().getType());
      auto vt = cast<RankedTensorType>(recurrent.getV().getType());
      std::vector<int64_t> dyn;
      for (attn::RecurrentDim d : *dims)
        dyn.push_back(d == attn::RecurrentDim::B   ? b
                      : d == attn::RecurrentDim::T ? sq
                      : d == attn::RecurrentDim::H ? 0
                                                   : std::max(qt.getDimSize(3), vt.getDimSize(3)));
      shape = concreteShape(type, dyn);
      return success();
    }
    if (auto combine = dyn_cast<attn::CombineOp>(use.getOwner())) {
      unsigned numValues = combine.getValues().size();
      if (n < numValues) {
        shape = concreteShape(type, {b, sq, 0, 0});
        return success();
      }
      return fromInput(cast<StringAttr>(combine.getInputDims()[n - numValues]).getValue());
    }
  }
  error = "argument #" + std::to_string(arg.getArgNumber()) +
          " is not an operand of an attn.attention, attn.combine or attn.recurrent";
  return failure();
}

} // namespace

LogicalResult run::makeProblem(func::FuncOp func, const RunOptions &options, Problem &problem,
                               std::string &error) {
  problem.func = func;
  int64_t b = options.batch, sq = options.seqQ;
  static const char *names[] = {"q", "k", "v"};
  // --load-inputs replaces q, k and v: arguments 0..2 when they are those of the function's
  // only attention.
  SmallVector<attn::AttentionOp> attentions(func.getOps<attn::AttentionOp>());
  bool loadable = attentions.size() == 1 && func.getNumArguments() >= 3 &&
                  attentions[0].getQ() == func.getArgument(0) &&
                  attentions[0].getK() == func.getArgument(1) &&
                  attentions[0].getV() == func.getArgument(2);
  if (!options.loadInputs.empty() && !loadable) {
    error = "--load-inputs needs a function of one attention whose first arguments are q, k, v";
    return failure();
  }
  bool drewDocuments = false;
  for (BlockArgument arg : func.getArguments()) {
    unsigned i = arg.getArgNumber();
    std::vector<int64_t> shape;
    bool blockMap = false;
    SmallVector<attn::InputAxis> axes;
    std::pair<double, double> range = {-1.0, 1.0};
    if (failed(argumentShape(arg, options, shape, blockMap, axes, range, error)))
      return failure();
    Type elt = cast<RankedTensorType>(arg.getType()).getElementType();
    std::optional<DType> t = getDTypeFor(elt);
    if (!t) {
      error = "unsupported element type of argument #" + std::to_string(i);
      return failure();
    }
    // Integer inputs indexed by a block index are block maps: random 0/1 (about half the
    // blocks kept), or drawn with --block-density; other integer inputs (ids) take values in
    // [0, 4).
    uint64_t seed = options.seed + 17 * i;
    HostTensor tensor;
    if (*t == DType::i32 && blockMap && options.blockDensity >= 0) {
      int64_t kept = 0;
      tensor =
          makeBlockMap(shape, axes, options.seqQ, options.seqKv, options.blockDensity, seed, kept);
      problem.notes.push_back("block map (argument #" + std::to_string(i) +
                              "): " + std::to_string(kept) + " of " +
                              std::to_string(tensor.getNumElements()) + " blocks kept");
    } else if (*t == DType::i32 && !blockMap && options.documents > 0 &&
               llvm::any_of(axes, [](const attn::InputAxis &axis) {
                 return (axis.dim == attn::InputDim::Q || axis.dim == attn::InputDim::KV) &&
                        !axis.isBlock();
               })) {
      std::vector<int64_t> lengths;
      tensor = makeDocumentIds(shape, axes, options.documents, options.seed, lengths);
      drewDocuments = true;
      std::string note = "document ids (argument #" + std::to_string(i) +
                         "): " + std::to_string(options.documents) +
                         " documents, sorted along the sequence; the first one's lengths";
      for (size_t d = 0; d < lengths.size() && d < 8; ++d)
        note += " " + std::to_string(lengths[d]);
      problem.notes.push_back(lengths.size() > 8 ? note + " ..." : note);
    } else if (*t == DType::i32) {
      tensor = HostTensor::random(shape, *t, seed, 0, blockMap ? 2 : 4);
    } else {
      tensor = HostTensor::random(shape, *t, seed, range.first, range.second);
    }
    if (!options.loadInputs.empty() && i < 3) {
      std::string path = options.loadInputs + "/" + names[i] + ".bin";
      std::vector<uint8_t> bytes;
      if (!readFile(path, bytes) || bytes.size() != tensor.storage.size()) {
        error = "cannot read " + path + " with " + std::to_string(tensor.storage.size()) +
                " bytes (contiguous [B, S, H, D])";
        return failure();
      }
      tensor.storage = std::move(bytes);
    }
    problem.operands.push_back(std::move(tensor));
  }
  if (options.documents > 0 && !drewDocuments)
    problem.notes.push_back("--documents: no i32 input indexed by a plain q or kv axis, so no "
                            "document ids were drawn");
  // Results: [B, Sq, H, Dv] outputs, [B, H, Sq] row statistics, [B, H, Dk, Dv] final states
  // (only the batch is dynamic there).
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (Value value : ret.getOperands()) {
    auto type = cast<RankedTensorType>(value.getType());
    auto attention = value.getDefiningOp<attn::AttentionOp>();
    bool lse = attention && value == attention.getLse();
    std::optional<DType> t = getDTypeFor(type.getElementType());
    if (!t || (type.getRank() != 4 && !lse)) {
      error = "a result of @" + func.getSymName().str() +
              " is not an attention output, row statistic, combination or recurrent result";
      return failure();
    }
    std::vector<int64_t> shape =
        lse ? concreteShape(type, {b, 0, sq}) : concreteShape(type, {b, sq, 0, 0});
    problem.results.push_back(HostTensor::zeros(shape, *t));
    problem.isRowStatistic.push_back(lse);
  }
  if (options.check) {
    std::vector<const HostTensor *> operands;
    for (const HostTensor &t : problem.operands)
      operands.push_back(&t);
    if (failed(evaluateFunction(func, operands, problem.refResults, error)))
      return failure();
  }
  return success();
}

HostTensor run::makeDocumentIds(ArrayRef<int64_t> shape, ArrayRef<attn::InputAxis> axes,
                                int64_t documents, uint64_t seed, std::vector<int64_t> &lengths) {
  HostTensor ids = HostTensor::random(shape, DType::i32, seed, 0, static_cast<double>(documents));
  lengths.clear();
  int axis = -1;
  for (auto [a, dim] : llvm::enumerate(axes))
    if ((dim.dim == attn::InputDim::Q || dim.dim == attn::InputDim::KV) && !dim.isBlock())
      axis = static_cast<int>(a);
  if (axis < 0)
    return ids; // makeProblem draws only inputs with such an axis this way
  // Contiguous: the axis has stride `inner`; sort each run of shape[axis] values along it.
  int64_t inner = 1, n = shape[axis];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  std::vector<double> run(n);
  for (int64_t outer = 0, total = ids.getNumElements() / std::max<int64_t>(n * inner, 1);
       outer < total; ++outer)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = outer * n * inner + i;
      for (int64_t k = 0; k < n; ++k)
        run[k] = ids.getAt(base + k * inner);
      llvm::sort(run);
      for (int64_t k = 0; k < n; ++k)
        ids.setAt(base + k * inner, run[k]);
      // The first sequence's documents, as runs of equal ids (empty documents have none).
      if (base == 0)
        for (int64_t k = 0; k < n; ++k) {
          if (k == 0 || run[k] != run[k - 1])
            lengths.push_back(0);
          ++lengths.back();
        }
    }
  return ids;
}

HostTensor run::makeBlockMap(ArrayRef<int64_t> shape, ArrayRef<attn::InputAxis> axes, int64_t seqQ,
                             int64_t seqKv, double density, uint64_t seed, int64_t &kept) {
  HostTensor draws = HostTensor::random(shape, DType::f32, seed, 0.0, 1.0);
  HostTensor map = HostTensor::zeros(shape, DType::i32);
  int qAxis = -1, kvAxis = -1;
  for (auto [a, axis] : llvm::enumerate(axes)) {
    if (axis.dim == attn::InputDim::Q)
      qAxis = static_cast<int>(a);
    if (axis.dim == attn::InputDim::KV)
      kvAxis = static_cast<int>(a);
  }
  int64_t off = seqKv - seqQ;
  kept = 0;
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t e = 0, n = map.getNumElements(); e < n; ++e) {
    // Both tensors are contiguous: element e is at offset e.
    bool keep = density >= 1 || draws.getAt(e) < density;
    if (!keep && qAxis >= 0 && kvAxis >= 0) {
      int64_t dq = axes[qAxis].divisor, dkv = axes[kvAxis].divisor;
      int64_t q0 = idx[qAxis] * dq, q1 = std::min(q0 + dq, seqQ) - 1;
      int64_t k0 = idx[kvAxis] * dkv, k1 = std::min(k0 + dkv, seqKv) - 1;
      // The diagonal keys of the block's queries, within [0, seqKv).
      int64_t lo = std::max<int64_t>(q0 + off, 0), hi = std::min(q1 + off, seqKv - 1);
      keep = lo <= hi && lo <= k1 && k0 <= hi;
    }
    map.setAt(e, keep ? 1 : 0);
    kept += keep;
    for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
  return map;
}

/// The smallest magnitude that rounds to infinity in `dtype` (round to nearest even: the
/// largest finite value plus half its last unit).
static double overflowAt(DType dtype) {
  switch (dtype) {
  case DType::f16:
    return 65520.0;
  case DType::bf16:
    return std::ldexp(511.0, 119); // (2 - 2^-8) * 2^127
  default:
    return std::ldexp(33554431.0, 103); // (2 - 2^-24) * 2^127
  }
}

bool run::compareWithOracle(const Problem &problem, const RunOptions &options,
                            llvm::raw_ostream &os) {
  auto compare = [&](const HostTensor &got, const HostTensor &ref, const char *what, double a,
                     double r, bool scaleByMagnitude) {
    double maxErr = 0, worstRatio = 0;
    int64_t bad = 0, n = ref.getNumElements();
    // The first element outside the tolerance: where, what the run gave, what the oracle did.
    std::vector<int64_t> firstBad;
    double firstGot = 0, firstWant = 0;
    std::vector<int64_t> idx(ref.sizes.size(), 0);
    // The absolute tolerance scales with the output's magnitude: weights are rounded to
    // 16 bits before P·V, so un-normalised variants (sigmoid, ReLU) whose outputs sum many
    // weighted values carry errors proportional to that sum, not to each element.
    double maxRef = 0;
    for (int64_t e = 0; e < n; ++e) {
      double y = ref.getAt(ref.getOffset(idx));
      if (std::isfinite(y))
        maxRef = std::max(maxRef, std::fabs(y));
      for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
        if (++idx[d] < ref.sizes[d])
          break;
        idx[d] = 0;
      }
    }
    if (scaleByMagnitude)
      a *= std::max(1.0, maxRef);
    for (int64_t e = 0; e < n; ++e) {
      double x = got.get(idx), y = ref.get(idx);
      bool ok;
      double err = 0;
      if (std::isinf(y) || std::isnan(y)) {
        ok = (std::isnan(y) && std::isnan(x)) || x == y;
      } else if (!std::isfinite(x)) {
        // Where the reference lies past the largest finite value of the output's type (an
        // fp16 recurrence that grows), or within the tolerance of it, the output cannot hold
        // it: an infinity of its sign is its rounding, and a NaN is what an intermediate that
        // overflowed in that type became (inf - inf); any other non-finite output is wrong.
        bool pastRange = std::fabs(y) + a + r * std::fabs(y) >= overflowAt(got.dtype);
        ok = pastRange && (std::isnan(x) || (x > 0) == (y > 0));
        err = ok ? 0 : HUGE_VAL;
      } else {
        err = std::fabs(x - y);
        ok = err <= a + r * std::fabs(y);
        worstRatio = std::max(worstRatio, err / (a + r * std::fabs(y)));
      }
      maxErr = std::max(maxErr, err);
      if (!ok && bad == 0) {
        firstBad = idx;
        firstGot = x;
        firstWant = y;
      }
      bad += !ok;
      for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
        if (++idx[d] < ref.sizes[d])
          break;
        idx[d] = 0;
      }
    }
    os << "  " << what << ": max |err| " << maxErr << " (tolerance " << a << " + " << r
       << "·|ref|, worst " << worstRatio << " of it), " << bad << " of " << n
       << " elements outside\n";
    if (bad) {
      os << "    first outside at [";
      llvm::interleaveComma(firstBad, os);
      os << "]: got " << firstGot << ", the oracle " << firstWant << "\n";
    }
    return bad == 0;
  };
  bool ok = problem.refResults.size() == problem.results.size();
  if (!ok)
    os << "  the oracle gives " << problem.refResults.size() << " results, the run "
       << problem.results.size() << "\n";
  for (size_t i = 0; ok && i < problem.results.size(); ++i) {
    const HostTensor &got = problem.results[i];
    if (got.sizes != problem.refResults[i].sizes) {
      os << "  result #" << i << ": the oracle's shape differs from the run's\n";
      ok = false;
      break;
    }
    if (problem.isRowStatistic[i]) {
      ok &= compare(got, problem.refResults[i], "lse", 2e-3, 1e-3, false);
      continue;
    }
    DType dtype = got.dtype;
    double atol = options.atol >= 0 ? options.atol : (dtype == DType::bf16 ? 8e-3 : 2e-3);
    double rtol = options.rtol >= 0 ? options.rtol : (dtype == DType::bf16 ? 8e-3 : 2e-3);
    ok &= compare(got, problem.refResults[i], "output", atol, rtol, true);
  }
  return ok;
}

double run::attentionFlops(func::FuncOp func, int64_t batch, int64_t seqQ, int64_t seqKv) {
  double flops = 0;
  func.walk([&](attn::AttentionOp op) {
    attn::MaskInfo info = attn::analyzeMask(op.getMask());
    auto qt = cast<RankedTensorType>(op.getQ().getType());
    auto vt = cast<RankedTensorType>(op.getV().getType());
    double pairs = 0;
    for (int64_t q = 0; q < seqQ; ++q) {
      int64_t lo = 0, hi = seqKv; // [lo, hi)
      for (const auto &group : attn::groupMaskBounds(info.bounds)) {
        bool upper = group.front().upper;
        int64_t widest =
            upper ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
        for (const attn::KvBound &b : group) {
          int64_t e = b.cq * q + b.csq * seqQ + b.cskv * seqKv + b.c;
          widest = upper ? std::max(widest, e) : std::min(widest, e);
        }
        if (upper)
          hi = std::min(hi, widest + 1);
        else
          lo = std::max(lo, widest);
      }
      pairs += std::max<int64_t>(0, hi - lo);
    }
    flops += 2.0 * pairs * batch * qt.getDimSize(2) * double(qt.getDimSize(3) + vt.getDimSize(3));
  });
  return flops;
}

std::optional<DType> run::dtypeOf(DLDataType dtype) {
  if (dtype.lanes != 1)
    return std::nullopt;
  if (dtype.code == kDLBfloat && dtype.bits == 16)
    return DType::bf16;
  if (dtype.code == kDLFloat && dtype.bits == 16)
    return DType::f16;
  if (dtype.code == kDLFloat && dtype.bits == 32)
    return DType::f32;
  if (dtype.code == kDLInt && dtype.bits == 32)
    return DType::i32;
  return std::nullopt;
}
