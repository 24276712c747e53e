//===- FunctionPlan.cpp - the kernels of a function and its intermediates ---===//
//
// Groups lowered kernels by the function they came from and sizes the intermediates passed
// between them, from the shapes of the function's arguments and results.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Pipeline/Pipeline.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>

using namespace metaattn;

rt::StatusOr<std::vector<LoweredFunction>>
metaattn::groupByFunction(std::vector<LoweredKernel> kernels) {
  std::vector<LoweredFunction> functions;
  std::map<std::string, size_t> position;
  for (LoweredKernel &kernel : kernels) {
    auto [it, inserted] = position.emplace(kernel.function, functions.size());
    if (inserted) {
      functions.emplace_back();
      functions.back().name = kernel.function;
    }
    functions[it->second].kernels.push_back(std::move(kernel));
  }
  for (LoweredFunction &function : functions) {
    std::stable_sort(
        function.kernels.begin(), function.kernels.end(),
        [](const LoweredKernel &a, const LoweredKernel &b) { return a.step < b.step; });
    // Count each kind of tensor; every index below the count must be used, and every
    // temporary written by an earlier kernel (or this one) before it is read.
    std::vector<bool> written;
    unsigned counts[3] = {0, 0, 0};
    for (const LoweredKernel &kernel : function.kernels)
      for (const ParamBinding &b : kernel.bindings)
        counts[b.kind] = std::max(counts[b.kind], b.index + 1);
    function.numArguments = counts[ParamBinding::Argument];
    function.numResults = counts[ParamBinding::Result];
    function.numTemporaries = counts[ParamBinding::Temporary];
    written.assign(function.numTemporaries, false);
    for (auto [k, kernel] : llvm::enumerate(function.kernels)) {
      if (kernel.step != k)
        return rt::Status::error("function '{}': kernel steps are not 0..{}", function.name,
                                 function.kernels.size() - 1);
      for (auto [i, b] : llvm::enumerate(kernel.bindings)) {
        if (b.kind != ParamBinding::Temporary)
          continue;
        if (kernel.signature.params[i].isOutput)
          written[b.index] = true;
        else if (!written[b.index])
          return rt::Status::error("function '{}': kernel '{}' reads intermediate #{} before "
                                   "any kernel writes it",
                                   function.name, kernel.name, b.index);
      }
    }
  }
  return functions;
}

rt::StatusOr<std::vector<std::pair<std::vector<int64_t>, DLDataType>>>
LoweredFunction::temporaries(const std::vector<std::vector<int64_t>> &argumentShapes,
                             const std::vector<std::vector<int64_t>> &resultShapes) const {
  if (argumentShapes.size() != numArguments || resultShapes.size() != numResults)
    return rt::Status::error("function '{}' takes {} arguments and {} results, got {} and {}", name,
                             numArguments, numResults, argumentShapes.size(), resultShapes.size());
  std::vector<std::pair<std::vector<int64_t>, DLDataType>> temps(numTemporaries);
  std::vector<bool> known(numTemporaries, false);
  for (const LoweredKernel &kernel : kernels) {
    std::vector<std::vector<int64_t>> shapes;
    for (const ParamBinding &b : kernel.bindings)
      shapes.push_back(b.kind == ParamBinding::Argument ? argumentShapes[b.index]
                       : b.kind == ParamBinding::Result ? resultShapes[b.index]
                       : known[b.index]                 ? temps[b.index].first
                                                        : std::vector<int64_t>());
    for (auto [i, b] : llvm::enumerate(kernel.bindings)) {
      if (b.kind != ParamBinding::Temporary || known[b.index])
        continue;
      auto shape = rt::inferParamShape(kernel.signature, i, shapes);
      if (!shape.ok())
        return shape.status();
      temps[b.index] = {*shape, kernel.signature.params[i].dtype};
      known[b.index] = true;
    }
  }
  return temps;
}
