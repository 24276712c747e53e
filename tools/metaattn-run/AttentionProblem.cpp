//===- AttentionProblem.cpp - operands, CPU and GPU runs, oracle check ------===//
#include "AttentionProblem.h"

#include "metaattn/Dialect/Attn/Transforms/Passes.h"
#include "metaattn/Executor/TileExecutor.h"
#include "metaattn/Reference/Reference.h"
#include "metaattn/Runtime/Device.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <fstream>

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

LogicalResult run::makeProblem(attn::AttentionOp op, const RunOptions &options, Problem &problem,
                               std::string &error) {
  problem.op = op;
  problem.hasLse = static_cast<bool>(op.getLse());
  int64_t b = options.batch, sq = options.seqQ, skv = options.seqKv;
  auto qt = cast<RankedTensorType>(op.getQ().getType());
  std::optional<DType> dtype = getDTypeFor(qt.getElementType());
  if (!dtype) {
    error = "unsupported element type for q";
    return failure();
  }
  auto shapeOf = [&](Value v, ArrayRef<int64_t> dyn) {
    return concreteShape(cast<RankedTensorType>(v.getType()), dyn);
  };
  std::vector<std::vector<int64_t>> shapes = {shapeOf(op.getQ(), {b, sq, 0, 0}),
                                              shapeOf(op.getK(), {b, skv, 0, 0}),
                                              shapeOf(op.getV(), {b, skv, 0, 0})};
  // Integer inputs indexed by a block index are block maps: random 0/1 (about half the blocks
  // kept); other integer inputs (ids) take values in [0, 4).
  std::vector<bool> blockMaps = {false, false, false};
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    std::string err;
    auto dims = attn::parseInputDims(cast<StringAttr>(op.getInputDims()[i]).getValue(), err);
    std::vector<int64_t> dyn;
    bool blockMap = false;
    for (attn::InputAxis a : *dims) {
      int64_t length = a.dim == attn::InputDim::B    ? b
                       : a.dim == attn::InputDim::Q  ? sq
                       : a.dim == attn::InputDim::KV ? skv
                                                     : 0;
      dyn.push_back(attn::blockCount(length, a.divisor));
      blockMap |= a.isBlock();
    }
    shapes.push_back(shapeOf(input, dyn));
    blockMaps.push_back(blockMap);
  }
  static const char *names[] = {"q", "k", "v"};
  for (auto [i, shape] : llvm::enumerate(shapes)) {
    Type elt = cast<RankedTensorType>(op->getOperand(i).getType()).getElementType();
    std::optional<DType> t = getDTypeFor(elt);
    if (!t) {
      error = "unsupported element type of operand #" + std::to_string(i);
      return failure();
    }
    HostTensor tensor =
        *t == DType::i32
            ? HostTensor::random(shape, *t, options.seed + 17 * i, 0, blockMaps[i] ? 2 : 4)
            : HostTensor::random(shape, *t, options.seed + 17 * i, -1, 1);
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
  int64_t heads = qt.getDimSize(2);
  int64_t valueDim = cast<RankedTensorType>(op.getV().getType()).getDimSize(3);
  problem.output = HostTensor::zeros({b, sq, heads, valueDim}, *dtype);
  problem.lse = HostTensor::zeros({b, heads, sq}, DType::f32);
  if (options.check) {
    std::vector<const HostTensor *> operands;
    for (const HostTensor &t : problem.operands)
      operands.push_back(&t);
    problem.refOutput = HostTensor::zeros({b, sq, heads, valueDim}, DType::f32);
    if (failed(evaluateAttention(op, operands, problem.refOutput,
                                 problem.hasLse ? &problem.refLse : nullptr, error)))
      return failure();
  }
  return success();
}

LogicalResult run::runOnCpu(ModuleOp lowered, StringRef name, Problem &problem,
                            std::string &error) {
  auto kernel = lowered.lookupSymbol<tile::KernelOp>(name);
  if (!kernel) {
    error = "no tile.kernel @" + name.str() + " after lowering";
    return failure();
  }
  std::vector<HostTensor *> params;
  for (HostTensor &t : problem.operands)
    params.push_back(&t);
  params.push_back(&problem.output);
  if (problem.hasLse)
    params.push_back(&problem.lse);
  return executeKernel(kernel, params, error);
}

LogicalResult run::runOnGpu(ModuleOp lowered, const RunOptions &options, Problem &problem,
                            std::optional<double> &milliseconds, std::string &error) {
  auto fail = [&](const rt::Status &status) {
    error = status.message();
    return failure();
  };
  auto device = rt::Device::get(0);
  if (!device.ok())
    return fail(device.status());
  // Compile from a module that still holds the attention function: compileAttention lowers.
  auto kernels = compileAttention(lowered, options.pipeline, *device);
  if (!kernels.ok())
    return fail(kernels.status());
  const AttentionKernel &kernel = kernels->front();
  if (!options.dumpCuda.empty()) {
    std::ofstream out(options.dumpCuda);
    out << kernel.cudaSource();
  }

  // Device copies of every parameter, described as DLTensors.
  std::vector<HostTensor *> host;
  for (HostTensor &t : problem.operands)
    host.push_back(&t);
  host.push_back(&problem.output);
  if (problem.hasLse)
    host.push_back(&problem.lse);
  std::vector<rt::DeviceBuffer> buffers;
  std::vector<DLTensor> tensors(host.size());
  std::vector<std::vector<int64_t>> shapes(host.size()), strides(host.size());
  for (auto [i, t] : llvm::enumerate(host)) {
    auto buffer = (*device)->allocate(std::max<size_t>(t->storage.size(), 16));
    if (!buffer.ok())
      return fail(buffer.status());
    if (auto s = (*device)->copyToDevice(buffer->get(), t->storage.data(), t->storage.size());
        !s.ok())
      return fail(s);
    shapes[i] = t->sizes;
    strides[i] = t->strides;
    DLTensor &d = tensors[i];
    d.data = buffer->data();
    d.device = {kDLCUDA, 0};
    d.ndim = static_cast<int32_t>(t->sizes.size());
    d.dtype = t->dtype == DType::bf16  ? DLDataType{kDLBfloat, 16, 1}
              : t->dtype == DType::f16 ? DLDataType{kDLFloat, 16, 1}
              : t->dtype == DType::i32 ? DLDataType{kDLInt, 32, 1}
                                       : DLDataType{kDLFloat, 32, 1};
    d.shape = shapes[i].data();
    d.strides = strides[i].data();
    d.byte_offset = 0;
    buffers.push_back(std::move(*buffer));
  }
  rt::TensorList list;
  for (DLTensor &d : tensors)
    list.push_back(&d);
  if (auto s = kernel.launch(list); !s.ok())
    return fail(s);
  if (auto s = (*device)->synchronize(); !s.ok())
    return fail(s);
  size_t first = problem.operands.size();
  for (size_t i = first; i < host.size(); ++i)
    if (auto s = (*device)->copyToHost(host[i]->storage.data(), buffers[i].get(),
                                       host[i]->storage.size());
        !s.ok())
      return fail(s);

  if (options.bench) {
    auto start = (*device)->createEvent();
    auto stop = (*device)->createEvent();
    if (!start.ok() || !stop.ok())
      return fail(start.ok() ? stop.status() : start.status());
    for (int i = 0; i < 3; ++i)
      (void)kernel.launch(list);
    std::vector<double> times;
    for (int i = 0; i < options.iterations; ++i) {
      (void)start->record();
      if (auto s = kernel.launch(list); !s.ok())
        return fail(s);
      (void)stop->record();
      auto ms = rt::Event::elapsedMs(*start, *stop);
      if (!ms.ok())
        return fail(ms.status());
      times.push_back(*ms);
    }
    std::sort(times.begin(), times.end());
    milliseconds = times[times.size() / 2];
  }
  if (!options.saveOutput.empty()) {
    std::ofstream out(options.saveOutput + "/o.bin", std::ios::binary);
    out.write(reinterpret_cast<const char *>(problem.output.storage.data()),
              problem.output.storage.size());
  }
  return success();
}

bool run::compareWithOracle(const Problem &problem, const RunOptions &options,
                            llvm::raw_ostream &os) {
  DType dtype = problem.output.dtype;
  double atol = options.atol >= 0 ? options.atol : (dtype == DType::bf16 ? 8e-3 : 2e-3);
  double rtol = options.rtol >= 0 ? options.rtol : (dtype == DType::bf16 ? 8e-3 : 2e-3);
  auto compare = [&](const HostTensor &got, const HostTensor &ref, const char *what,
                     double a, double r, bool scaleByMagnitude) {
    double maxErr = 0, worstRatio = 0;
    int64_t bad = 0, n = ref.getNumElements();
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
      if (std::isinf(y) || std::isnan(y))
        ok = (std::isnan(y) && std::isnan(x)) || x == y;
      else {
        err = std::fabs(x - y);
        ok = err <= a + r * std::fabs(y);
        worstRatio = std::max(worstRatio, err / (a + r * std::fabs(y)));
      }
      if (!std::isfinite(x) && std::isfinite(y))
        ok = false;
      maxErr = std::max(maxErr, err);
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
    return bad == 0;
  };
  bool ok = compare(problem.output, problem.refOutput, "output", atol, rtol, true);
  if (problem.hasLse)
    ok &= compare(problem.lse, problem.refLse, "lse", 2e-3, 1e-3, false);
  return ok;
}

double run::visiblePairs(attn::AttentionOp op, int64_t batch, int64_t seqQ, int64_t seqKv) {
  attn::MaskInfo info = attn::analyzeMask(op.getMask());
  int64_t heads = cast<RankedTensorType>(op.getQ().getType()).getDimSize(2);
  double pairs = 0;
  for (int64_t q = 0; q < seqQ; ++q) {
    int64_t lo = 0, hi = seqKv; // [lo, hi)
    for (const attn::KvBound &b : info.bounds) {
      int64_t e = b.cq * q + b.csq * seqQ + b.cskv * seqKv + b.c;
      if (b.upper)
        hi = std::min(hi, e + 1);
      else
        lo = std::max(lo, e);
    }
    pairs += std::max<int64_t>(0, hi - lo);
  }
  return pairs * batch * heads;
}
