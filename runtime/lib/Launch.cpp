//===- Launch.cpp - Launching a generated kernel on DLPack tensors -------------------------===//

#include "metaattn/Runtime/Launch.h"

#include "Debug.h"

namespace metaattn::rt {

namespace {

/// Shared memory a kernel may use without opting in.
constexpr int kDefaultSharedLimit = 48 * 1024;

} // namespace

PackedArguments packArguments(const KernelSignature &signature, const TensorList &tensors) {
  PackedArguments packed;
  packed.words.resize(tensors.size());
  for (size_t index = 0; index < tensors.size(); ++index) {
    const DLTensor &tensor = *tensors[index];
    std::vector<int64_t> &words = packed.words[index];
    // struct TensorRef<R> { void *data; long long sizes[R]; long long strides[R]; }
    words.reserve(1 + 2 * tensor.ndim);
    auto data = reinterpret_cast<uintptr_t>(tensor.data) + tensor.byte_offset;
    words.push_back(static_cast<int64_t>(data));
    for (int dim = 0; dim < tensor.ndim; ++dim)
      words.push_back(tensor.shape[dim]);
    for (int64_t stride : effectiveStrides(tensor))
      words.push_back(stride);
  }
  // Pointers are taken after every vector has its final size.
  for (std::vector<int64_t> &words : packed.words)
    packed.pointers.push_back(words.data());
  (void)signature;
  return packed;
}

Status launch(const LoadedKernel &kernel, const KernelSignature &signature,
              const TensorList &tensors, CUstream stream) {
  if (!kernel.device || !kernel.function)
    return Status::error("kernel '{}' is not loaded", signature.entry);
  Device &device = *kernel.device;
  ValidateOptions options;
  options.deviceOrdinal = device.ordinal();
  METAATTN_RETURN_IF_ERROR(validate(signature, tensors, options)
                               .withContext(fmt::format("launch of '{}'", signature.entry)));
  METAATTN_ASSIGN_OR_RETURN(auto grid, computeGrid(signature, tensors));
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) {
    detail::debugLog("launch of '{}': empty grid ({}, {}, {}); nothing to do", signature.entry,
                     grid[0], grid[1], grid[2]);
    return Status::success();
  }

  const CudaDriver &cuda = device.driver();
  METAATTN_RETURN_IF_ERROR(device.makeCurrent());
  int shared = signature.dynamicSharedBytes;
  if (shared > kDefaultSharedLimit) {
    int limit = device.properties().maxSharedPerBlockOptin;
    if (limit > 0 && shared > limit)
      return Status::error("launch of '{}': {} bytes of dynamic shared memory, but {} allows at "
                           "most {} per block",
                           signature.entry, shared, device.properties().name, limit);
    METAATTN_RETURN_IF_ERROR(cuda.check(
        cuda.cuFuncSetAttribute(kernel.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                shared),
        fmt::format("launch of '{}': raising the dynamic shared memory limit to {} bytes",
                    signature.entry, shared)));
  }

  PackedArguments arguments = packArguments(signature, tensors);
  detail::debugLog("launch '{}': grid ({}, {}, {}) x {} threads, {} bytes shared", signature.entry,
                   grid[0], grid[1], grid[2], signature.threads, shared);
  return cuda.check(
      cuda.cuLaunchKernel(
          kernel.function, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
          static_cast<unsigned>(grid[2]), static_cast<unsigned>(signature.threads), 1, 1,
          static_cast<unsigned>(shared), stream, arguments.pointers.data(), nullptr),
      fmt::format("launch of '{}' (grid {}x{}x{}, {} threads, {} bytes shared)", signature.entry,
                  grid[0], grid[1], grid[2], signature.threads, shared));
}

} // namespace metaattn::rt
