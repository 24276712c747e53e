//===- Launch.h - Launching a generated kernel on DLPack tensors -*- C++ -*-===//
//
// `launch` validates the tensors against the kernel's signature, computes the grid, packs one
// `TensorRef<R>` struct per tensor (see KernelSignature.h), encodes one CUtensorMap per
// TensorMapParam and calls cuLaunchKernel. Nothing is launched when validation fails; a grid
// with a zero extent launches nothing and succeeds.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_LAUNCH_H
#define METAATTN_RUNTIME_LAUNCH_H

#include "metaattn/Runtime/Device.h"
#include "metaattn/Runtime/KernelSignature.h"
#include "metaattn/Runtime/Status.h"

#include <cstdint>
#include <vector>

namespace metaattn::rt {

/// Kernel arguments in the TensorRef ABI: `words[i]` is the i-th tensor's struct as 64-bit words
/// (data pointer, sizes[R], strides[R]); `maps[j]` is the j-th TensorMapParam's descriptor.
/// `pointers` points at each of them in parameter order (the tensors, then the maps), as
/// cuLaunchKernel expects. Moving keeps the pointers valid; copying would not.
struct PackedArguments {
  std::vector<std::vector<int64_t>> words;
  /// CUtensorMap is over-aligned (64 bytes at least); std::allocator honours that in C++17.
  std::vector<CUtensorMap> maps;
  std::vector<void *> pointers;

  PackedArguments() = default;
  PackedArguments(const PackedArguments &) = delete;
  PackedArguments &operator=(const PackedArguments &) = delete;
  PackedArguments(PackedArguments &&) = default;
  PackedArguments &operator=(PackedArguments &&) = default;
};

/// Packs the TensorRef structs for `tensors` (which must already be validated). The result has
/// no tensor maps; `encodeTensorMaps` adds them.
PackedArguments packArguments(const KernelSignature &signature, const TensorList &tensors);

/// Encodes one CUtensorMap per `signature.tensorMaps` entry with `driver.cuTensorMapEncodeTiled`
/// into `packed.maps` (replacing any there) and points `packed.pointers` at them after the
/// tensors. `tensors` must be validated and `packed` must come from `packArguments` for them.
/// An empty tensor gets an all-zero map, which its kernel must not use. A driver error names
/// the tensor, its shape and the box.
Status encodeTensorMaps(const CudaDriver &driver, const KernelSignature &signature,
                        const TensorList &tensors, PackedArguments &packed);

/// Validates `tensors` for `kernel`'s device, then launches `kernel` on `stream` (null: the
/// legacy default stream). Raises the kernel's dynamic shared memory limit when the signature
/// asks for more than 48 KB. Errors carry the driver's message; nothing is launched on error.
Status launch(const LoadedKernel &kernel, const KernelSignature &signature,
              const TensorList &tensors, CUstream stream = nullptr);

} // namespace metaattn::rt

#endif // METAATTN_RUNTIME_LAUNCH_H
