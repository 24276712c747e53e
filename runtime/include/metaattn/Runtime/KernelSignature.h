//===- KernelSignature.h - Kernel ABI and DLPack tensor checks --*- C++ -*-===//
//
// The contract between the code generator and the runtime. Every kernel parameter is a tensor
// passed by value as
//
//   template <int R> struct TensorRef { void *data; long long sizes[R]; long long strides[R]; };
//
// (strides in elements; `data` already includes DLTensor::byte_offset), in signature order. A
// KernelSignature describes those parameters, the grid and the block; `validate` checks DLPack
// tensors against it before anything is launched, with messages that name the parameter.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_KERNELSIGNATURE_H
#define METAATTN_RUNTIME_KERNELSIGNATURE_H

#include "metaattn/Runtime/Status.h"

#include <dlpack/dlpack.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace metaattn::rt {

/// One tensor parameter of a kernel.
struct TensorParam {
  std::string name;
  int rank = 0;
  DLDataType dtype = {kDLFloat, 32, 1};
  /// Per dimension: the required size, or -1 for a size known only at run time. Empty means
  /// every dimension is dynamic.
  std::vector<int64_t> sizes;
  /// Per dimension: "" or a symbol such as "B" or "Sq"; dimensions with equal symbols must have
  /// equal sizes across all tensors of a call. Empty means no symbols.
  std::vector<std::string> symbols;
  bool isOutput = false;
  /// The last dimension must have stride 1 (a size-1 last dimension may have any stride).
  bool lastDimContiguous = true;
};

/// One grid dimension: `constant` when `tensor < 0`, else ceil(sizes[dim] / divisor) of the
/// `tensor`-th parameter.
struct GridDim {
  int tensor = -1;
  int dim = 0;
  int64_t divisor = 1;
  int64_t constant = 1;
};

/// A generated kernel's entry point and launch shape.
struct KernelSignature {
  std::string entry;
  std::vector<TensorParam> params;
  GridDim grid[3];
  int threads = 128;
  int dynamicSharedBytes = 0;
};

/// The tensors of one call, in signature order.
using TensorList = std::vector<const DLTensor *>;

/// What `validate` accepts besides the signature.
struct ValidateOptions {
  /// Accept kDLCPU tensors (host-side tests of the checks); kDLCUDA is always accepted.
  bool allowHostTensors = false;
  /// When >= 0, CUDA tensors must live on this device ordinal.
  int deviceOrdinal = -1;
};

/// "float32", "bfloat16", "int64", "float16x2", ...
std::string dtypeName(DLDataType dtype);

/// Checks `signature` itself (sizes/symbols lengths, grid references, block size); a failure is
/// a bug in whoever built it and is reported as such.
Status checkSignature(const KernelSignature &signature);

/// Checks `tensors` against `signature`: count; per tensor non-null, rank, dtype (code, bits,
/// lanes), static sizes, symbol consistency, device type, last-dimension stride, non-null and
/// element-aligned data. Messages name the parameter, e.g.
/// "tensor 'k': dim 2 (Hkv) is 3 but 'v' has 4".
Status validate(const KernelSignature &signature, const TensorList &tensors,
                const ValidateOptions &options = {});

/// The grid of a validated call. An extent may be 0 (launch nothing); extents beyond CUDA's
/// limits are errors.
StatusOr<std::array<int64_t, 3>> computeGrid(const KernelSignature &signature,
                                             const TensorList &tensors);

/// The sizes of parameter `param` from its static sizes and its dimension symbols, bound by
/// the parameters whose shapes are known (`shapes[i]` empty: not known; a block-count symbol
/// "Sq/64" is ceil(Sq / 64)). Used to allocate intermediates between the kernels of a
/// function. Fails, naming the symbol, when a dynamic dimension is not bound.
StatusOr<std::vector<int64_t>> inferParamShape(const KernelSignature &signature, size_t param,
                                               const std::vector<std::vector<int64_t>> &shapes);

/// The strides of `tensor` in elements: its own, or compact row-major when `strides` is null.
std::vector<int64_t> effectiveStrides(const DLTensor &tensor);

} // namespace metaattn::rt

#endif // METAATTN_RUNTIME_KERNELSIGNATURE_H
