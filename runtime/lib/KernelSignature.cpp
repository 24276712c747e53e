//===- KernelSignature.cpp - Checking DLPack tensors against a kernel signature ------------===//

#include "metaattn/Runtime/KernelSignature.h"

#include <algorithm>
#include <map>
#include <optional>

namespace metaattn::rt {

namespace {

std::string deviceTypeName(int type) {
  switch (type) {
  case kDLCPU:
    return "cpu";
  case kDLCUDA:
    return "cuda";
  case kDLCUDAHost:
    return "cuda_host (pinned host memory)";
  case kDLCUDAManaged:
    return "cuda_managed";
  case kDLROCM:
    return "rocm";
  default:
    return fmt::format("device type {}", type);
  }
}

/// " (Sq)" when `param` names dimension `dim`, else "".
std::string symbolSuffix(const TensorParam &param, int dim) {
  if (dim < static_cast<int>(param.symbols.size()) && !param.symbols[dim].empty())
    return fmt::format(" ({})", param.symbols[dim]);
  return std::string();
}

bool sameDtype(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/// Bytes per element, at least 1 (sub-byte types are checked at byte alignment).
int64_t elementBytes(DLDataType dtype) {
  int64_t bytes = (int64_t(dtype.bits) * dtype.lanes + 7) / 8;
  return bytes > 0 ? bytes : 1;
}

/// TMA's limits (cuTensorMapEncodeTiled): ranks, box extents, the 128-byte swizzle span, the
/// alignment of addresses and strides, and the largest stride and size.
constexpr int kTmaMaxRank = 5;
constexpr int kTmaMaxBox = 256;
constexpr int64_t kTmaSwizzleBytes = 128;
constexpr int64_t kTmaAlignment = 16;
constexpr int64_t kTmaMaxStrideBytes = int64_t(1) << 40;
constexpr int64_t kTmaMaxSize = int64_t(1) << 32;

/// The element types a TMA map is built for: bfloat16 and float16.
bool isTmaElementType(DLDataType dtype) {
  return (dtype.code == kDLBfloat || dtype.code == kDLFloat) && dtype.bits == 16 &&
         dtype.lanes == 1;
}

/// Checks one TensorMapParam of a signature whose tensor parameters are already checked;
/// returns the problem, or "" when there is none.
std::string tensorMapProblem(const KernelSignature &signature, size_t index) {
  const TensorMapParam &map = signature.tensorMaps[index];
  if (map.tensor < 0 || map.tensor >= static_cast<int>(signature.params.size()))
    return fmt::format("tensor map #{} refers to tensor #{} of {}", index, map.tensor,
                       signature.params.size());
  const TensorParam &param = signature.params[map.tensor];
  std::string what = fmt::format("tensor map #{} of '{}'", index, param.name);
  if (param.rank < 2 || param.rank > kTmaMaxRank)
    return fmt::format("{}: the tensor has rank {} (TMA needs 2..{})", what, param.rank,
                       kTmaMaxRank);
  for (auto [field, dim] : {std::pair{"rowDim", map.rowDim}, std::pair{"colDim", map.colDim}})
    if (dim < 0 || dim >= param.rank)
      return fmt::format("{}: {} is {} (rank {})", what, field, dim, param.rank);
  if (map.rowDim == map.colDim)
    return fmt::format("{}: rowDim and colDim are both {}", what, map.rowDim);
  if (map.colDim != param.rank - 1)
    return fmt::format("{}: colDim is {}, expected the last dim {}", what, map.colDim,
                       param.rank - 1);
  for (auto [field, box] : {std::pair{"boxRows", map.boxRows}, std::pair{"boxCols", map.boxCols}})
    if (box < 1 || box > kTmaMaxBox)
      return fmt::format("{}: {} is {} (must be 1..{})", what, field, box, kTmaMaxBox);
  if (!isTmaElementType(param.dtype))
    return fmt::format("{}: the tensor is {}, expected bfloat16 or float16", what,
                       dtypeName(param.dtype));
  int64_t rowBytes = int64_t(map.boxCols) * elementBytes(param.dtype);
  if (rowBytes != kTmaSwizzleBytes)
    return fmt::format("{}: boxCols {} spans {} bytes, expected {} (the swizzle span)", what,
                       map.boxCols, rowBytes, kTmaSwizzleBytes);
  return std::string();
}

/// Checks that `tensor`, already validated against `param`, is one a TMA map can describe.
Status checkTensorMapOperand(const TensorParam &param, const DLTensor &tensor) {
  int64_t bytes = elementBytes(param.dtype);
  int64_t elements = 1;
  for (int dim = 0; dim < tensor.ndim; ++dim)
    elements *= tensor.shape[dim];
  if (elements == 0)
    return Status::success();
  uint64_t address = reinterpret_cast<uint64_t>(tensor.data) + tensor.byte_offset;
  if (address % kTmaAlignment != 0)
    return Status::error("tensor '{}': TMA needs a {}-byte aligned data address, got {:#x} (with "
                         "byte_offset {}); pass a contiguous tensor with aligned storage",
                         param.name, kTmaAlignment, address, tensor.byte_offset);
  std::vector<int64_t> strides = effectiveStrides(tensor);
  int last = tensor.ndim - 1;
  if (strides[last] != 1 && tensor.shape[last] > 1)
    return Status::error("tensor '{}': TMA needs a contiguous last dim, got stride {}; pass a "
                         "contiguous tensor",
                         param.name, strides[last]);
  for (int dim = 0; dim < tensor.ndim; ++dim)
    if (tensor.shape[dim] > kTmaMaxSize)
      return Status::error("tensor '{}': dim {}{} is {}, beyond TMA's limit of 2^32; split the "
                           "call",
                           param.name, dim, symbolSuffix(param, dim), tensor.shape[dim]);
  for (int dim = 0; dim < last; ++dim) {
    // The stride of a size-1 dim is never used; the launch substitutes a valid one.
    if (tensor.shape[dim] == 1)
      continue;
    int64_t stride = strides[dim];
    if (stride < 0)
      return Status::error("tensor '{}': dim {}{} has negative stride {}, which TMA cannot "
                           "describe; pass a contiguous tensor",
                           param.name, dim, symbolSuffix(param, dim), stride);
    if (stride >= kTmaMaxStrideBytes / bytes)
      return Status::error("tensor '{}': dim {}{} has stride {} ({}-byte elements), beyond TMA's "
                           "limit of 2^40 bytes",
                           param.name, dim, symbolSuffix(param, dim), stride, bytes);
    int64_t strideBytes = stride * bytes;
    if (strideBytes % kTmaAlignment != 0)
      return Status::error("tensor '{}': TMA needs every stride but the last dim's to be a "
                           "multiple of {} bytes, but dim {}{} has stride {} ({} bytes); pad the "
                           "last dim to a multiple of {} elements",
                           param.name, kTmaAlignment, dim, symbolSuffix(param, dim), stride,
                           strideBytes, kTmaAlignment / bytes);
  }
  return Status::success();
}

/// Where a symbol was first bound in this call.
struct SymbolBinding {
  int64_t size;
  int tensor;
  int dim;
};

/// A block-count symbol "S/N": the dimension has ceil(S / N) entries.
struct BlockSymbol {
  std::string base;
  int64_t divisor = 0;
};

/// Splits "Sq/64" into ("Sq", 64); std::nullopt for a plain symbol or a malformed divisor
/// (`malformed` is then set).
std::optional<BlockSymbol> parseBlockSymbol(const std::string &symbol, bool &malformed) {
  malformed = false;
  size_t slash = symbol.find('/');
  if (slash == std::string::npos)
    return std::nullopt;
  BlockSymbol block{symbol.substr(0, slash), 0};
  std::string digits = symbol.substr(slash + 1);
  bool ok = !block.base.empty() && !digits.empty() && digits.size() <= 18 &&
            digits.find_first_not_of("0123456789") == std::string::npos;
  if (ok)
    block.divisor = std::stoll(digits);
  if (!ok || block.divisor <= 0) {
    malformed = true;
    return std::nullopt;
  }
  return block;
}

/// A dimension whose symbol is a block count, checked once every plain symbol is bound.
struct PendingBlockDim {
  BlockSymbol block;
  std::string symbol;
  int64_t size;
  int tensor;
  int dim;
};

} // namespace

std::string dtypeName(DLDataType dtype) {
  std::string base;
  switch (dtype.code) {
  case kDLFloat:
    base = fmt::format("float{}", dtype.bits);
    break;
  case kDLBfloat:
    base = fmt::format("bfloat{}", dtype.bits);
    break;
  case kDLInt:
    base = fmt::format("int{}", dtype.bits);
    break;
  case kDLUInt:
    base = fmt::format("uint{}", dtype.bits);
    break;
  case kDLComplex:
    base = fmt::format("complex{}", dtype.bits);
    break;
  case kDLOpaqueHandle:
    base = fmt::format("opaque{}", dtype.bits);
    break;
  default:
    base = fmt::format("dtype(code={}, bits={})", int(dtype.code), int(dtype.bits));
    break;
  }
  if (dtype.lanes != 1)
    base += fmt::format("x{}", dtype.lanes);
  return base;
}

std::vector<int64_t> effectiveStrides(const DLTensor &tensor) {
  std::vector<int64_t> strides(tensor.ndim > 0 ? tensor.ndim : 0);
  if (tensor.strides) {
    for (int i = 0; i < tensor.ndim; ++i)
      strides[i] = tensor.strides[i];
    return strides;
  }
  int64_t running = 1;
  for (int i = tensor.ndim - 1; i >= 0; --i) {
    strides[i] = running;
    running *= tensor.shape[i];
  }
  return strides;
}

Status checkSignature(const KernelSignature &signature) {
  auto invalid = [&](std::string problem) {
    return Status::error("invalid kernel signature for '{}': {}", signature.entry, problem);
  };
  if (signature.entry.empty())
    return invalid("the entry name is empty");
  for (const TensorParam &param : signature.params) {
    if (param.rank < 0)
      return invalid(fmt::format("tensor '{}' has negative rank {}", param.name, param.rank));
    if (!param.sizes.empty() && static_cast<int>(param.sizes.size()) != param.rank)
      return invalid(fmt::format("tensor '{}' has {} sizes for rank {}", param.name,
                                 param.sizes.size(), param.rank));
    if (!param.symbols.empty() && static_cast<int>(param.symbols.size()) != param.rank)
      return invalid(fmt::format("tensor '{}' has {} symbols for rank {}", param.name,
                                 param.symbols.size(), param.rank));
    for (const std::string &symbol : param.symbols) {
      bool malformed = false;
      (void)parseBlockSymbol(symbol, malformed);
      if (malformed)
        return invalid(fmt::format("tensor '{}' has the symbol '{}' (a block count must be "
                                   "'NAME/N' with N a positive integer)",
                                   param.name, symbol));
    }
    if (param.dtype.bits == 0 || param.dtype.lanes == 0)
      return invalid(fmt::format("tensor '{}' has an empty dtype", param.name));
  }
  for (int axis = 0; axis < 3; ++axis) {
    const GridDim &grid = signature.grid[axis];
    if (grid.tensor < 0) {
      if (grid.constant < 0)
        return invalid(fmt::format("grid[{}] is the negative constant {}", axis, grid.constant));
      continue;
    }
    if (grid.tensor >= static_cast<int>(signature.params.size()))
      return invalid(fmt::format("grid[{}] refers to tensor #{} of {}", axis, grid.tensor,
                                 signature.params.size()));
    const TensorParam &param = signature.params[grid.tensor];
    if (grid.dim < 0 || grid.dim >= param.rank)
      return invalid(fmt::format("grid[{}] refers to dim {} of '{}' (rank {})", axis, grid.dim,
                                 param.name, param.rank));
    if (grid.divisor <= 0)
      return invalid(fmt::format("grid[{}] has divisor {}", axis, grid.divisor));
  }
  for (size_t index = 0; index < signature.tensorMaps.size(); ++index) {
    std::string problem = tensorMapProblem(signature, index);
    if (!problem.empty())
      return invalid(problem);
  }
  if (signature.threads < 1 || signature.threads > 1024)
    return invalid(fmt::format("{} threads per block (must be 1..1024)", signature.threads));
  if (signature.dynamicSharedBytes < 0)
    return invalid(fmt::format("negative dynamic shared memory {}", signature.dynamicSharedBytes));
  return Status::success();
}

Status validate(const KernelSignature &signature, const TensorList &tensors,
                const ValidateOptions &options) {
  METAATTN_RETURN_IF_ERROR(checkSignature(signature));
  if (tensors.size() != signature.params.size())
    return Status::error("kernel '{}' takes {} tensors, got {}", signature.entry,
                         signature.params.size(), tensors.size());

  std::map<std::string, SymbolBinding> symbols;
  std::vector<PendingBlockDim> blockDims;
  for (size_t index = 0; index < tensors.size(); ++index) {
    const TensorParam &param = signature.params[index];
    const DLTensor *tensor = tensors[index];
    if (!tensor)
      return Status::error("tensor '{}' (argument {}) is null", param.name, index);
    if (tensor->ndim != param.rank)
      return Status::error("tensor '{}': rank is {}, expected {}", param.name, tensor->ndim,
                           param.rank);
    if (!sameDtype(tensor->dtype, param.dtype))
      return Status::error("tensor '{}': dtype is {}, expected {}", param.name,
                           dtypeName(tensor->dtype), dtypeName(param.dtype));

    DLDeviceType deviceType = tensor->device.device_type;
    bool deviceOk = deviceType == kDLCUDA || (options.allowHostTensors && deviceType == kDLCPU);
    if (!deviceOk)
      return Status::error("tensor '{}': is on {}, expected a CUDA device tensor (kDLCUDA)",
                           param.name, deviceTypeName(deviceType));
    if (deviceType == kDLCUDA && options.deviceOrdinal >= 0 &&
        tensor->device.device_id != options.deviceOrdinal)
      return Status::error("tensor '{}': is on cuda:{}, but the kernel runs on cuda:{}", param.name,
                           tensor->device.device_id, options.deviceOrdinal);
    if (param.rank > 0 && !tensor->shape)
      return Status::error("tensor '{}': shape is null", param.name);

    int64_t elements = 1;
    for (int dim = 0; dim < param.rank; ++dim) {
      int64_t size = tensor->shape[dim];
      if (size < 0)
        return Status::error("tensor '{}': dim {}{} has negative size {}", param.name, dim,
                             symbolSuffix(param, dim), size);
      elements *= size;
      if (!param.sizes.empty() && param.sizes[dim] >= 0 && param.sizes[dim] != size)
        return Status::error("tensor '{}': dim {}{} is {}, expected {}", param.name, dim,
                             symbolSuffix(param, dim), size, param.sizes[dim]);
      if (dim >= static_cast<int>(param.symbols.size()) || param.symbols[dim].empty())
        continue;
      const std::string &symbol = param.symbols[dim];
      bool malformed = false;
      if (auto block = parseBlockSymbol(symbol, malformed))
        blockDims.push_back({*block, symbol, size, static_cast<int>(index), dim});
      auto [it, inserted] =
          symbols.emplace(symbol, SymbolBinding{size, static_cast<int>(index), dim});
      const SymbolBinding &bound = it->second;
      if (inserted || bound.size == size)
        continue;
      if (bound.tensor == static_cast<int>(index))
        return Status::error("tensor '{}': dim {} ({}) is {} but dim {} has {}", param.name, dim,
                             symbol, size, bound.dim, bound.size);
      return Status::error("tensor '{}': dim {} ({}) is {} but '{}' has {}", param.name, dim,
                           symbol, size, signature.params[bound.tensor].name, bound.size);
    }

    if (param.lastDimContiguous && param.rank > 0 && tensor->strides) {
      int64_t stride = tensor->strides[param.rank - 1];
      if (stride != 1 && tensor->shape[param.rank - 1] > 1)
        return Status::error("tensor '{}': last dim has stride {}, expected 1 (contiguous)",
                             param.name, stride);
    }

    if (elements == 0)
      continue;
    if (!tensor->data)
      return Status::error("tensor '{}': data is null but the tensor has {} elements", param.name,
                           elements);
    uint64_t address = reinterpret_cast<uint64_t>(tensor->data) + tensor->byte_offset;
    int64_t alignment = elementBytes(param.dtype);
    if (address % alignment != 0)
      return Status::error("tensor '{}': data address {:#x} (with byte_offset {}) is not "
                           "aligned to its {}-byte elements",
                           param.name, address, tensor->byte_offset, alignment);
  }
  // Block counts: "Sq/64" must be ceil(Sq / 64) where Sq is bound by some tensor of the call.
  for (const PendingBlockDim &pending : blockDims) {
    auto it = symbols.find(pending.block.base);
    if (it == symbols.end())
      continue; // only consistent among its own uses (checked above)
    int64_t base = it->second.size;
    int64_t expected = (base + pending.block.divisor - 1) / pending.block.divisor;
    if (pending.size != expected)
      return Status::error("tensor '{}': dim {} ({}) is {}, expected ceil({} / {}) = {} from "
                           "'{}'",
                           signature.params[pending.tensor].name, pending.dim, pending.symbol,
                           pending.size, base, pending.block.divisor, expected,
                           signature.params[it->second.tensor].name);
  }
  for (const TensorMapParam &map : signature.tensorMaps)
    METAATTN_RETURN_IF_ERROR(
        checkTensorMapOperand(signature.params[map.tensor], *tensors[map.tensor]));
  return Status::success();
}

StatusOr<std::vector<int64_t>> inferParamShape(const KernelSignature &signature, size_t param,
                                               const std::vector<std::vector<int64_t>> &shapes) {
  if (param >= signature.params.size() || shapes.size() != signature.params.size())
    return Status::error("kernel '{}': cannot infer the shape of parameter #{} from {} shapes",
                         signature.entry, param, shapes.size());
  // Bind the plain symbols from the known shapes.
  std::map<std::string, int64_t> bound;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const TensorParam &p = signature.params[i];
    if (i == param || shapes[i].empty())
      continue;
    for (size_t d = 0; d < p.symbols.size() && d < shapes[i].size(); ++d)
      if (!p.symbols[d].empty())
        bound.emplace(p.symbols[d], shapes[i][d]);
  }
  const TensorParam &target = signature.params[param];
  std::vector<int64_t> sizes(target.rank, -1);
  for (int d = 0; d < target.rank; ++d) {
    if (d < static_cast<int>(target.sizes.size()) && target.sizes[d] >= 0) {
      sizes[d] = target.sizes[d];
      continue;
    }
    std::string symbol = d < static_cast<int>(target.symbols.size()) ? target.symbols[d] : "";
    bool malformed = false;
    std::optional<BlockSymbol> block = parseBlockSymbol(symbol, malformed);
    auto it = bound.find(block ? block->base : symbol);
    if (symbol.empty() || it == bound.end())
      return Status::error("kernel '{}': dim {} of '{}'{} is not bound by any other tensor",
                           signature.entry, d, target.name,
                           symbol.empty() ? std::string() : " (" + symbol + ")");
    sizes[d] = block ? (it->second + block->divisor - 1) / block->divisor : it->second;
  }
  return sizes;
}

StatusOr<std::array<int64_t, 3>> computeGrid(const KernelSignature &signature,
                                             const TensorList &tensors) {
  METAATTN_RETURN_IF_ERROR(checkSignature(signature));
  static constexpr int64_t kLimits[3] = {2147483647, 65535, 65535};
  static constexpr const char *kAxes[3] = {"x", "y", "z"};
  std::array<int64_t, 3> extents;
  for (int axis = 0; axis < 3; ++axis) {
    const GridDim &grid = signature.grid[axis];
    if (grid.tensor < 0) {
      extents[axis] = grid.constant;
    } else {
      if (grid.tensor >= static_cast<int>(tensors.size()) || !tensors[grid.tensor])
        return Status::error("kernel '{}': grid.{} needs tensor #{}, which was not given",
                             signature.entry, kAxes[axis], grid.tensor);
      const DLTensor &tensor = *tensors[grid.tensor];
      if (grid.dim >= tensor.ndim || !tensor.shape)
        return Status::error("kernel '{}': grid.{} needs dim {} of '{}', which has rank {}",
                             signature.entry, kAxes[axis], grid.dim,
                             signature.params[grid.tensor].name, tensor.ndim);
      int64_t size = tensor.shape[grid.dim];
      extents[axis] = (size + grid.divisor - 1) / grid.divisor;
    }
    if (extents[axis] > kLimits[axis])
      return Status::error("kernel '{}': grid.{} is {}, beyond CUDA's limit of {}", signature.entry,
                           kAxes[axis], extents[axis], kLimits[axis]);
  }
  return extents;
}

std::array<int64_t, 3> launchGrid(const KernelSignature &signature, std::array<int64_t, 3> grid,
                                  int smCount) {
  if (!signature.persistent)
    return grid;
  // Short rows of tiles (short sequences): one block per multiprocessor (a persistent kernel
  // is warp-specialised, its consumers take the whole register file), each walking the grid,
  // so that the next tile's loads overlap this one's end. Longer rows: one block per tile, in
  // the hardware's order, which keeps a causal kernel's unequal tiles balanced where a static
  // walk measured up to 40% slower (benchmarks/RESULTS.md, sixteenth session).
  int64_t blocks = grid[0] * grid[1] * grid[2];
  int64_t sms = std::max(smCount, 1);
  return {grid[0] <= kPersistentRowBlocks ? std::min(blocks, sms) : blocks, 1, 1};
}

} // namespace metaattn::rt
