//===- KernelSignature.h - Kernel ABI and DLPack tensor checks --*- C++ -*-===//
//
// The contract between the code generator and the runtime. Every kernel parameter is a tensor
// passed by value as
//
//   template <int R> struct TensorRef { void *data; long long sizes[R]; long long strides[R]; };
//
// (strides in elements; `data` already includes DLTensor::byte_offset), in signature order. After
// them come the TMA descriptors, one `const __grid_constant__ metaattn::dev::TmaDesc` per
// TensorMapParam: a 128-byte CUtensorMap that the runtime encodes at launch. A KernelSignature
// describes those parameters, the grid and the block; `validate` checks DLPack tensors against it
// before anything is launched, with messages that name the parameter.
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

/// A TMA descriptor (CUtensorMap) the runtime builds for a tensor parameter at launch and
/// passes after the tensor parameters, in this order. The box is `boxRows` x `boxCols`
/// elements over the tensor dims `rowDim` and `colDim` (size 1 in every other dim), stored
/// with the 128-byte swizzle; `colDim` is the last (contiguous) dim.
struct TensorMapParam {
  int tensor = 0; // index into params
  int rowDim = 0;
  int colDim = 0;
  int boxRows = 0; // 1..256
  int boxCols = 0; // boxCols * element bytes == 128
};

/// A generated kernel's entry point and launch shape.
struct KernelSignature {
  std::string entry;
  std::vector<TensorParam> params;
  /// The TMA descriptors the kernel takes after its tensors, in parameter order. A tensor may
  /// have several (one per box shape); a mapped tensor must be bfloat16 or float16 of rank 2..5.
  std::vector<TensorMapParam> tensorMaps;
  GridDim grid[3];
  int threads = 128;
  int dynamicSharedBytes = 0;
  /// The kernel walks the grid's blocks itself: it is launched with grid (n, 1, 1), n at most
  /// the grid's block count, and reads n as gridDim.x. `launch` picks one block per
  /// multiprocessor when the grid has at most kPersistentRowBlocks along x, else n = the
  /// block count (one tile each).
  bool persistent = false;
};

/// See KernelSignature::persistent.
constexpr int64_t kPersistentRowBlocks = 8;

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

/// Checks `signature` itself (sizes/symbols lengths, grid references, block size, tensor maps);
/// a failure is a bug in whoever built it and is reported as such.
Status checkSignature(const KernelSignature &signature);

/// Checks `tensors` against `signature`: count; per tensor non-null, rank, dtype (code, bits,
/// lanes), static sizes, symbol consistency, device type, last-dimension stride, non-null and
/// element-aligned data. A tensor with a TensorMapParam must also be one that a TMA descriptor
/// can describe: a 16-byte aligned address, a contiguous last dim, every other stride a
/// non-negative multiple of 16 bytes below 2^40 (dims of size 1 excepted) and sizes up to 2^32
/// (an empty tensor is exempt: it gets an all-zero descriptor that its kernel must not use).
/// Messages name the parameter, e.g. "tensor 'k': dim 2 (Hkv) is 3 but 'v' has 4".
Status validate(const KernelSignature &signature, const TensorList &tensors,
                const ValidateOptions &options = {});

/// The grid of a validated call. An extent may be 0 (launch nothing); extents beyond CUDA's
/// limits are errors.
StatusOr<std::array<int64_t, 3>> computeGrid(const KernelSignature &signature,
                                             const TensorList &tensors);

/// The grid `launch` starts for a call whose `computeGrid` is `grid` on a device with `smCount`
/// multiprocessors: `grid` itself, or for a persistent kernel (KernelSignature::persistent)
/// (n, 1, 1) with n = min(blocks, smCount) when grid.x <= kPersistentRowBlocks, else n =
/// blocks (one tile each), blocks = grid.x * grid.y * grid.z.
std::array<int64_t, 3> launchGrid(const KernelSignature &signature, std::array<int64_t, 3> grid,
                                  int smCount);

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
