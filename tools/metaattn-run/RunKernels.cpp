//===- RunKernels.cpp - run a lowered attention function on the CPU or GPU ---===//
//
// The kernels of one function run in order on its arguments and results; intermediates
// between kernels (attention outputs that a combine reads) are allocated here, shaped from the
// kernels' dimension symbols.
//
//===----------------------------------------------------------------------===//

#include "AttentionProblem.h"

#include "metaattn/Executor/TileExecutor.h"
#include "metaattn/Runtime/Device.h"

#include <algorithm>
#include <chrono>
#include <fstream>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::run;

namespace {

/// The function `name` among `functions`, or an error.
const LoweredFunction *findFunction(const std::vector<LoweredFunction> &functions, StringRef name,
                                    std::string &error) {
  for (const LoweredFunction &f : functions)
    if (f.name == name)
      return &f;
  error = "no kernels of @" + name.str() + " after lowering";
  return nullptr;
}

/// Host intermediates of `function` for the problem's arguments and results.
LogicalResult makeTemporaries(const LoweredFunction &function, const Problem &problem,
                              std::vector<HostTensor> &temps, std::string &error) {
  std::vector<std::vector<int64_t>> args, results;
  for (const HostTensor &t : problem.operands)
    args.push_back(t.sizes);
  for (const HostTensor &t : problem.results)
    results.push_back(t.sizes);
  auto described = function.temporaries(args, results);
  if (!described.ok()) {
    error = described.status().message();
    return failure();
  }
  for (auto &[shape, dlType] : *described) {
    std::optional<DType> dtype = dtypeOf(dlType);
    if (!dtype) {
      error = "an intermediate has a dtype the runner cannot allocate";
      return failure();
    }
    temps.push_back(HostTensor::zeros(shape, *dtype));
  }
  return success();
}

} // namespace

LogicalResult run::runOnCpu(ModuleOp lowered, std::vector<LoweredKernel> kernels, StringRef name,
                            Problem &problem, std::string &error) {
  auto functions = groupByFunction(std::move(kernels));
  if (!functions.ok()) {
    error = functions.status().message();
    return failure();
  }
  const LoweredFunction *function = findFunction(*functions, name, error);
  if (!function)
    return failure();
  std::vector<HostTensor> temps;
  if (failed(makeTemporaries(*function, problem, temps, error)))
    return failure();
  std::vector<HostTensor *> args, results, tempPtrs;
  for (HostTensor &t : problem.operands)
    args.push_back(&t);
  for (HostTensor &t : problem.results)
    results.push_back(&t);
  for (HostTensor &t : temps)
    tempPtrs.push_back(&t);
  for (const LoweredKernel &kernel : function->kernels) {
    auto op = lowered.lookupSymbol<tile::KernelOp>(kernel.name);
    if (!op) {
      error = "no tile.kernel @" + kernel.name + " after lowering";
      return failure();
    }
    if (failed(executeKernel(op, function->select(kernel, args, results, tempPtrs), error)))
      return failure();
  }
  return success();
}

LogicalResult run::runOnGpu(ModuleOp module, const RunOptions &options, Problem &problem,
                            std::optional<double> &milliseconds, std::string &error) {
  auto fail = [&](const rt::Status &status) {
    error = status.message();
    return failure();
  };
  auto device = rt::Device::get(0);
  if (!device.ok())
    return fail(device.status());
  // Compile from a module that still holds the attention function: this lowers it.
  std::string name = problem.func.getSymName().str();
  auto compileStart = std::chrono::steady_clock::now();
  auto wallMs = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                     compileStart)
        .count();
  };
  auto functions = compileAttentionFunctions(module, options.pipeline, *device);
  if (!functions.ok())
    return fail(functions.status());
  // What a caller waits for: the module's lowering (once, for every plan of every function),
  // the kernels of each function's last plan compiled concurrently, then loaded. The other
  // plans compile in the background (PipelineOptions::backgroundPlans); this tool waits for
  // them before it picks a plan, so that a shape runs the same plan every time.
  double readyMs = wallMs();
  for (const AttentionFunction &f : *functions)
    if (auto s = f.waitForPlans(); !s.ok())
      return fail(s);
  double allMs = wallMs();
  size_t readyKernels = 0, numKernels = 0;
  for (const AttentionFunction &f : *functions)
    for (const AttentionFunction::Plan &plan : f.plans()) {
      numKernels += plan.kernels.size();
      if (&plan == &f.plans().back())
        readyKernels += plan.kernels.size();
    }
  const AttentionFunction *function = nullptr;
  for (const AttentionFunction &f : *functions)
    if (f.name() == name)
      function = &f;
  if (!function)
    return fail(rt::Status::error("no kernels of @{} after lowering", name));
  // The per-kernel lines overlap in time.
  for (const AttentionFunction::Plan &plan : function->plans())
    for (const AttentionKernel &kernel : plan.kernels) {
      const JitTimings &jit = kernel.jitTimings();
      llvm::outs() << "  jit: lower " << jit.lowerMs << " ms, compile " << jit.compileMs << " ms ("
                   << jit.compiledBy << "), load " << jit.loadMs << " ms\n";
    }
  auto kernels = [](size_t n) { return std::to_string(n) + (n == 1 ? " kernel" : " kernels"); };
  llvm::outs() << "  jit: ready in " << readyMs << " ms (" << kernels(readyKernels) << ", wall)\n";
  if (numKernels > readyKernels)
    llvm::outs() << "  jit: every plan in " << allMs << " ms (" << kernels(numKernels)
                 << ", wall)\n";
  // Every argument, result and intermediate described as a DLTensor (the plan from the
  // arguments' and results' shapes first: it decides the intermediates), then on the device.
  std::vector<HostTensor *> host;
  for (HostTensor &t : problem.operands)
    host.push_back(&t);
  for (HostTensor &t : problem.results)
    host.push_back(&t);
  size_t numTensors = host.size();
  auto describe = [](HostTensor &t) {
    DLTensor d;
    d.data = nullptr;
    d.device = {kDLCUDA, 0};
    d.ndim = static_cast<int32_t>(t.sizes.size());
    d.dtype = t.dtype == DType::bf16  ? DLDataType{kDLBfloat, 16, 1}
              : t.dtype == DType::f16 ? DLDataType{kDLFloat, 16, 1}
              : t.dtype == DType::i32 ? DLDataType{kDLInt, 32, 1}
                                      : DLDataType{kDLFloat, 32, 1};
    d.shape = t.sizes.data();
    d.strides = t.strides.data();
    d.byte_offset = 0;
    return d;
  };
  std::vector<DLTensor> tensors;
  for (HostTensor *t : host)
    tensors.push_back(describe(*t));
  rt::TensorList list;
  for (DLTensor &d : tensors)
    list.push_back(&d);
  auto plan = function->choose(list);
  if (!plan.ok())
    return fail(plan.status());
  if (function->plans().size() > 1)
    llvm::outs() << "  plan: " << (*plan)->lowered.planName << " (" << (*plan)->kernels.size()
                 << " kernel" << ((*plan)->kernels.size() == 1 ? "" : "s") << ", of "
                 << function->plans().size() << " plans)\n";
  if (!options.dumpCuda.empty()) {
    std::ofstream out(options.dumpCuda);
    for (const AttentionKernel &kernel : (*plan)->kernels)
      out << kernel.cudaSource();
  }
  std::vector<HostTensor> temps;
  if (failed(makeTemporaries((*plan)->lowered, problem, temps, error)))
    return failure();
  for (HostTensor &t : temps) {
    host.push_back(&t);
    tensors.push_back(describe(t));
  }
  std::vector<rt::DeviceBuffer> buffers;
  for (auto [i, t] : llvm::enumerate(host)) {
    auto buffer = (*device)->allocate(std::max<size_t>(t->storage.size(), 16));
    if (!buffer.ok())
      return fail(buffer.status());
    if (auto s = (*device)->copyToDevice(buffer->get(), t->storage.data(), t->storage.size());
        !s.ok())
      return fail(s);
    tensors[i].data = buffer->data();
    buffers.push_back(std::move(*buffer));
  }
  rt::TensorList tempList;
  list.clear();
  for (size_t i = 0; i < tensors.size(); ++i)
    (i < numTensors ? list : tempList).push_back(&tensors[i]);
  if (auto s = function->launch(list, tempList); !s.ok())
    return fail(s);
  if (auto s = (*device)->synchronize(); !s.ok())
    return fail(s);
  for (size_t i = problem.operands.size(); i < numTensors; ++i)
    if (auto s = (*device)->copyToHost(host[i]->storage.data(), buffers[i].get(),
                                       host[i]->storage.size());
        !s.ok())
      return fail(s);

  if (options.bench) {
    auto start = (*device)->createEvent();
    auto stop = (*device)->createEvent();
    if (!start.ok() || !stop.ok())
      return fail(start.ok() ? stop.status() : start.status());
    // The median of --iters timings of `launch` between two events.
    auto median = [&](auto launch) -> rt::StatusOr<double> {
      std::vector<double> times;
      for (int i = 0; i < options.iterations; ++i) {
        (void)start->record();
        METAATTN_RETURN_IF_ERROR(launch());
        (void)stop->record();
        METAATTN_ASSIGN_OR_RETURN(double ms, rt::Event::elapsedMs(*start, *stop));
        times.push_back(ms);
      }
      std::sort(times.begin(), times.end());
      return times[times.size() / 2];
    };
    for (int i = 0; i < 3; ++i)
      (void)function->launch(list, tempList);
    auto whole = median([&] { return function->launch(list, tempList); });
    if (!whole.ok())
      return fail(whole.status());
    milliseconds = *whole;
    // A function of several kernels: each kernel timed alone, on the tensors the run left.
    const AttentionFunction::Plan &chosen = **plan;
    if (chosen.kernels.size() > 1) {
      const LoweredFunction &lowered = chosen.lowered;
      rt::TensorList arguments(list.begin(), list.begin() + lowered.numArguments);
      rt::TensorList results(list.begin() + lowered.numArguments, list.end());
      for (const AttentionKernel &kernel : chosen.kernels) {
        rt::TensorList own = lowered.select(kernel.lowered(), arguments, results, tempList);
        auto ms = median([&] { return kernel.launch(own); });
        if (!ms.ok())
          return fail(ms.status());
        llvm::outs() << "  kernel " << kernel.lowered().name << ": " << *ms << " ms\n";
      }
    }
  }
  if (!options.saveOutput.empty() && !problem.results.empty()) {
    std::ofstream out(options.saveOutput + "/o.bin", std::ios::binary);
    out.write(reinterpret_cast<const char *>(problem.results[0].storage.data()),
              problem.results[0].storage.size());
  }
  return success();
}
