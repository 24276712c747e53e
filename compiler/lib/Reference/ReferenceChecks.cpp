//===- ReferenceChecks.cpp - operand checks shared by the oracles -----------===//
#include "ReferenceChecks.h"

#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace metaattn;

static std::string describeSizes(ArrayRef<int64_t> sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    text += (i ? "," : "") + std::to_string(sizes[i]);
  return text + "]";
}

LogicalResult reference::checkTensor(const HostTensor *tensor, StringRef name,
                                     ArrayRef<int64_t> expected, std::optional<DType> dtype,
                                     std::string &error) {
  if (!tensor) {
    error = (name + Twine(" is missing")).str();
    return failure();
  }
  bool shapeOk = tensor->getRank() == static_cast<int64_t>(expected.size());
  for (size_t i = 0; shapeOk && i < expected.size(); ++i)
    shapeOk = expected[i] < 0 || tensor->sizes[i] == expected[i];
  if (!shapeOk) {
    std::vector<int64_t> shown(expected.begin(), expected.end());
    error = (name + Twine(" has sizes ") + describeSizes(tensor->sizes) + ", expected " +
             describeSizes(shown) + " (-1: any)")
                .str();
    return failure();
  }
  if (dtype && tensor->dtype != *dtype) {
    error = (name + Twine(" has dtype ") + getDTypeName(tensor->dtype) + ", expected " +
             getDTypeName(*dtype))
                .str();
    return failure();
  }
  if (!tensor->isWellFormed()) {
    error = (name + Twine(" has strides that reach outside its storage")).str();
    return failure();
  }
  return success();
}

LogicalResult reference::prepareResult(HostTensor &tensor, StringRef name, ArrayRef<int64_t> sizes,
                                       ArrayRef<DType> dtypes, std::string &error) {
  if (tensor.sizes.empty()) {
    tensor = HostTensor::zeros(sizes, dtypes.front());
    return success();
  }
  if (failed(checkTensor(&tensor, name, sizes, std::nullopt, error)))
    return failure();
  if (!llvm::is_contained(dtypes, tensor.dtype)) {
    error = (name + Twine(" has dtype ") + getDTypeName(tensor.dtype) + ", expected " +
             getDTypeName(dtypes.front()) + " or f32")
                .str();
    return failure();
  }
  return success();
}
