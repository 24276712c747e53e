//===- Launch.cpp - Launching a generated kernel on DLPack tensors -------------------------===//

#include "metaattn/Runtime/Launch.h"

#include "Debug.h"

#include <algorithm>

namespace metaattn::rt {

namespace {

/// Shared memory a kernel may use without opting in.
constexpr int kDefaultSharedLimit = 48 * 1024;

/// TMA's alignment for global addresses and strides.
constexpr uint64_t kTmaAlignment = 16;

/// "[2, 77, 4, 64]".
std::string shapeString(const DLTensor &tensor) {
  std::string text = "[";
  for (int dim = 0; dim < tensor.ndim; ++dim)
    text += fmt::format("{}{}", dim ? ", " : "", tensor.shape[dim]);
  return text + "]";
}

/// The byte strides TMA is given for `tensor`, per tensor dim (innermost is the element size).
/// A size-1 dim's stride is never used, so it is replaced by the span of the dims inside it,
/// rounded up to TMA's alignment: DLPack producers give such dims arbitrary strides.
std::vector<uint64_t> tmaByteStrides(const DLTensor &tensor, uint64_t elementBytes) {
  std::vector<int64_t> strides = effectiveStrides(tensor);
  std::vector<uint64_t> bytes(tensor.ndim);
  uint64_t span = elementBytes;
  for (int dim = tensor.ndim - 1; dim >= 0; --dim) {
    if (dim == tensor.ndim - 1)
      bytes[dim] = elementBytes;
    else if (tensor.shape[dim] == 1)
      bytes[dim] = (span + kTmaAlignment - 1) / kTmaAlignment * kTmaAlignment;
    else
      bytes[dim] = static_cast<uint64_t>(strides[dim]) * elementBytes;
    span = std::max(span, bytes[dim] * static_cast<uint64_t>(tensor.shape[dim]));
  }
  return bytes;
}

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

Status encodeTensorMaps(const CudaDriver &driver, const KernelSignature &signature,
                        const TensorList &tensors, PackedArguments &packed) {
  if (tensors.size() != signature.params.size() || packed.words.size() != tensors.size())
    return Status::error("kernel '{}': tensor maps for {} tensors and {} packed structs, "
                         "expected {} of each",
                         signature.entry, tensors.size(), packed.words.size(),
                         signature.params.size());
  if (!signature.tensorMaps.empty() && !driver.cuTensorMapEncodeTiled)
    return Status::error("kernel '{}' takes TMA descriptors, but the CUDA driver does not "
                         "provide cuTensorMapEncodeTiled",
                         signature.entry);
  // All-zero maps; sized once, so the pointers taken below stay valid.
  packed.maps.assign(signature.tensorMaps.size(), CUtensorMap{});
  packed.pointers.resize(packed.words.size());
  for (size_t index = 0; index < signature.tensorMaps.size(); ++index) {
    const TensorMapParam &map = signature.tensorMaps[index];
    packed.pointers.push_back(&packed.maps[index]);
    if (map.tensor < 0 || map.tensor >= static_cast<int>(tensors.size()) || !tensors[map.tensor])
      return Status::error("kernel '{}': tensor map #{} refers to tensor #{}, which was not "
                           "given",
                           signature.entry, index, map.tensor);
    const DLTensor &tensor = *tensors[map.tensor];
    const TensorParam &param = signature.params[map.tensor];
    int rank = tensor.ndim;
    std::string what = fmt::format("tensor '{}' {} {}: encoding TMA map #{} (box {} x {} over "
                                   "dims {} and {})",
                                   param.name, shapeString(tensor), dtypeName(tensor.dtype), index,
                                   map.boxRows, map.boxCols, map.rowDim, map.colDim);
    CUtensorMapDataType dataType;
    if (tensor.dtype.code == kDLBfloat && tensor.dtype.bits == 16 && tensor.dtype.lanes == 1)
      dataType = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    else if (tensor.dtype.code == kDLFloat && tensor.dtype.bits == 16 && tensor.dtype.lanes == 1)
      dataType = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    else
      return Status::error("{}: the element type must be bfloat16 or float16", what);
    if (rank < 1 || rank > 5 || map.rowDim < 0 || map.rowDim >= rank || map.colDim < 0 ||
        map.colDim >= rank)
      return Status::error("{}: the dims do not fit the tensor's rank {}", what, rank);
    if (std::any_of(tensor.shape, tensor.shape + rank, [](int64_t size) { return size == 0; }))
      continue; // nothing to load: the kernel has no tiles of this tensor

    // TMA dims are innermost first: TMA dim i is tensor dim rank-1-i.
    constexpr uint64_t elementBytes = 2;
    std::vector<uint64_t> byteStrides = tmaByteStrides(tensor, elementBytes);
    std::vector<cuuint64_t> globalDim(rank), globalStrides(rank > 1 ? rank - 1 : 0);
    std::vector<cuuint32_t> boxDim(rank), elementStrides(rank, 1);
    for (int i = 0; i < rank; ++i) {
      int dim = rank - 1 - i;
      globalDim[i] = static_cast<cuuint64_t>(tensor.shape[dim]);
      if (i > 0)
        globalStrides[i - 1] = byteStrides[dim];
      boxDim[i] = dim == map.colDim   ? static_cast<cuuint32_t>(map.boxCols)
                  : dim == map.rowDim ? static_cast<cuuint32_t>(map.boxRows)
                                      : 1;
    }
    auto *address = reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(tensor.data) +
                                             static_cast<uintptr_t>(tensor.byte_offset));
    // Out-of-range elements of a box read as zero (FLOAT_OOB_FILL_NONE).
    METAATTN_RETURN_IF_ERROR(driver.check(
        driver.cuTensorMapEncodeTiled(
            &packed.maps[index], dataType, static_cast<cuuint32_t>(rank), address, globalDim.data(),
            globalStrides.data(), boxDim.data(), elementStrides.data(),
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        what));
  }
  return Status::success();
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

  grid = launchGrid(signature, grid, device.properties().smCount);
  PackedArguments arguments = packArguments(signature, tensors);
  METAATTN_RETURN_IF_ERROR(encodeTensorMaps(cuda, signature, tensors, arguments)
                               .withContext(fmt::format("launch of '{}'", signature.entry)));
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
