//===- HostTensor.h - Host tensors and 16-bit floats --------------*- C++ -*-===//
//
// Dense host-memory tensors with element strides, used by the reference evaluator and the CPU
// tile executor, and bit-exact conversions between float and bf16 / f16.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_SUPPORT_HOSTTENSOR_H
#define METAATTN_SUPPORT_HOSTTENSOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir {
class Type;
} // namespace mlir

namespace metaattn {

/// Element type of a host tensor. `i32` holds integer custom inputs (document ids, ...).
enum class DType { f32, f16, bf16, i32 };

/// Size of one element in bytes.
unsigned getDTypeSize(DType dtype);
/// "f32", "f16", "bf16" or "i32".
llvm::StringRef getDTypeName(DType dtype);
/// The DType of an MLIR element type (f32, f16, bf16, i32), or std::nullopt.
std::optional<DType> getDTypeFor(mlir::Type type);

//===----------------------------------------------------------------------===//
// 16-bit floats
//===----------------------------------------------------------------------===//

/// float -> bf16 bits, round to nearest even; NaN stays a (quiet) NaN of the same sign.
uint16_t floatToBF16(float value);
/// bf16 bits -> float (exact).
float bf16ToFloat(uint16_t bits);
/// float -> IEEE binary16 bits, round to nearest even, with subnormals, overflow to inf and
/// NaN kept quiet.
uint16_t floatToF16(float value);
/// IEEE binary16 bits -> float (exact).
float f16ToFloat(uint16_t bits);

/// Rounds a double to the nearest bf16 value once (no double rounding through float).
double roundToBF16(double value);
/// Rounds a double to the nearest f16 value once (no double rounding through float).
double roundToF16(double value);
/// Rounds a double to the values `dtype` can hold (f32: to float; i32: truncates toward zero
/// and wraps).
double roundToDType(double value, DType dtype);

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

/// A tensor in host memory: `sizes` and `strides` in elements, over owned `storage`. Strides
/// may describe any non-overlapping view of the storage (for example a [B,S,H,D] tensor laid
/// out as [B,H,S,D]); element `idx` lives at `Σ idx[i] * strides[i]` elements from the start.
struct HostTensor {
  DType dtype = DType::f32;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  std::vector<uint8_t> storage;

  int64_t getRank() const { return static_cast<int64_t>(sizes.size()); }
  int64_t getNumElements() const;
  /// True when `idx` has one in-range index per dimension.
  bool inBounds(llvm::ArrayRef<int64_t> idx) const;
  /// Element offset of `idx` (which must be in bounds).
  int64_t getOffset(llvm::ArrayRef<int64_t> idx) const;

  /// The element at `idx` as a double (exact for every dtype).
  double get(llvm::ArrayRef<int64_t> idx) const;
  /// Stores `value` at `idx`, rounded to the dtype (round to nearest even).
  void set(llvm::ArrayRef<int64_t> idx, double value);
  /// Raw element access by element offset.
  double getAt(int64_t offset) const;
  void setAt(int64_t offset, double value);

  /// True when the strides are the row-major strides of the sizes.
  bool isContiguous() const;
  /// A copy whose dimensions are permuted: result dim i is this tensor's dim perm[i]. The
  /// storage is shared in content (copied), so the result is a strided view of the same data.
  HostTensor permuted(llvm::ArrayRef<int64_t> perm) const;
  /// A contiguous copy with the same sizes and values.
  HostTensor contiguous() const;
  /// True when the strides address only elements inside the storage.
  bool isWellFormed() const;

  /// Row-major strides of `sizes`.
  static std::vector<int64_t> getContiguousStrides(llvm::ArrayRef<int64_t> sizes);
  /// A contiguous tensor of zeros.
  static HostTensor zeros(llvm::ArrayRef<int64_t> sizes, DType dtype);
  /// Zeros laid out with the given strides (storage covers the largest offset).
  static HostTensor zerosStrided(llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> strides,
                                 DType dtype);
  /// A contiguous tensor of values drawn uniformly from [lo, hi) and rounded to the dtype;
  /// deterministic for a given seed on every platform.
  static HostTensor random(llvm::ArrayRef<int64_t> sizes, DType dtype, uint64_t seed,
                           double lo = -1.0, double hi = 1.0);
};

} // namespace metaattn

#endif // METAATTN_SUPPORT_HOSTTENSOR_H
