//===- HostTensor.cpp - Strided host tensors ---------------------------------===//
//
// Element access with strides, rounding stores, and deterministic random tensors.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Support/HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cassert>
#include <cstring>

using namespace metaattn;

unsigned metaattn::getDTypeSize(DType dtype) {
  switch (dtype) {
  case DType::f32:
  case DType::i32:
    return 4;
  case DType::f16:
  case DType::bf16:
    return 2;
  }
  return 4;
}

llvm::StringRef metaattn::getDTypeName(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return "f32";
  case DType::f16:
    return "f16";
  case DType::bf16:
    return "bf16";
  case DType::i32:
    return "i32";
  }
  return "?";
}

std::optional<DType> metaattn::getDTypeFor(mlir::Type type) {
  if (type.isF32())
    return DType::f32;
  if (type.isF16())
    return DType::f16;
  if (type.isBF16())
    return DType::bf16;
  if (type.isSignlessInteger(32))
    return DType::i32;
  return std::nullopt;
}

int64_t HostTensor::getNumElements() const {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

bool HostTensor::inBounds(llvm::ArrayRef<int64_t> idx) const {
  if (idx.size() != sizes.size())
    return false;
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] < 0 || idx[i] >= sizes[i])
      return false;
  return true;
}

int64_t HostTensor::getOffset(llvm::ArrayRef<int64_t> idx) const {
  assert(inBounds(idx) && "host tensor index out of bounds");
  int64_t offset = 0;
  for (size_t i = 0; i < idx.size(); ++i)
    offset += idx[i] * strides[i];
  return offset;
}

double HostTensor::getAt(int64_t offset) const {
  const uint8_t *p = storage.data() + offset * getDTypeSize(dtype);
  switch (dtype) {
  case DType::f32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::i32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::f16:
  case DType::bf16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return dtype == DType::f16 ? f16ToFloat(bits) : bf16ToFloat(bits);
  }
  }
  return 0;
}

void HostTensor::setAt(int64_t offset, double value) {
  uint8_t *p = storage.data() + offset * getDTypeSize(dtype);
  switch (dtype) {
  case DType::f32: {
    float v = static_cast<float>(value);
    std::memcpy(p, &v, 4);
    return;
  }
  case DType::i32: {
    int32_t v = static_cast<int32_t>(roundToDType(value, DType::i32));
    std::memcpy(p, &v, 4);
    return;
  }
  case DType::f16:
  case DType::bf16: {
    double rounded = dtype == DType::f16 ? roundToF16(value) : roundToBF16(value);
    float f = static_cast<float>(rounded);
    uint16_t bits = dtype == DType::f16 ? floatToF16(f) : floatToBF16(f);
    std::memcpy(p, &bits, 2);
    return;
  }
  }
}

double HostTensor::get(llvm::ArrayRef<int64_t> idx) const { return getAt(getOffset(idx)); }

void HostTensor::set(llvm::ArrayRef<int64_t> idx, double value) { setAt(getOffset(idx), value); }

std::vector<int64_t> HostTensor::getContiguousStrides(llvm::ArrayRef<int64_t> sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * sizes[i + 1];
  return strides;
}

bool HostTensor::isContiguous() const { return strides == getContiguousStrides(sizes); }

bool HostTensor::isWellFormed() const {
  if (strides.size() != sizes.size())
    return false;
  int64_t maxOffset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || strides[i] < 0)
      return false;
    if (sizes[i] == 0)
      return true; // no elements
    maxOffset += (sizes[i] - 1) * strides[i];
  }
  return static_cast<uint64_t>(maxOffset + 1) * getDTypeSize(dtype) <= storage.size();
}

HostTensor HostTensor::zerosStrided(llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> strides,
                                    DType dtype) {
  assert(sizes.size() == strides.size() && "one stride per dimension");
  HostTensor t;
  t.dtype = dtype;
  t.sizes.assign(sizes.begin(), sizes.end());
  t.strides.assign(strides.begin(), strides.end());
  int64_t extent = 1;
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    empty |= sizes[i] == 0;
    extent += (sizes[i] - 1) * strides[i];
  }
  t.storage.assign(empty ? 0 : extent * getDTypeSize(dtype), 0);
  return t;
}

HostTensor HostTensor::zeros(llvm::ArrayRef<int64_t> sizes, DType dtype) {
  return zerosStrided(sizes, getContiguousStrides(sizes), dtype);
}

HostTensor HostTensor::permuted(llvm::ArrayRef<int64_t> perm) const {
  assert(perm.size() == sizes.size() && "one entry per dimension");
  HostTensor t = *this;
  for (size_t i = 0; i < perm.size(); ++i) {
    t.sizes[i] = sizes[perm[i]];
    t.strides[i] = strides[perm[i]];
  }
  return t;
}

/// Visits every index of `sizes` in row-major order.
template <typename Fn> static void forEachIndex(llvm::ArrayRef<int64_t> sizes, Fn fn) {
  for (int64_t s : sizes)
    if (s == 0)
      return;
  std::vector<int64_t> idx(sizes.size(), 0);
  while (true) {
    fn(idx);
    int64_t d = static_cast<int64_t>(sizes.size()) - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < sizes[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

HostTensor HostTensor::contiguous() const {
  HostTensor t = zeros(sizes, dtype);
  forEachIndex(sizes, [&](llvm::ArrayRef<int64_t> idx) { t.set(idx, get(idx)); });
  return t;
}

/// SplitMix64: a small, portable, deterministic generator.
static uint64_t splitMix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

HostTensor HostTensor::random(llvm::ArrayRef<int64_t> sizes, DType dtype, uint64_t seed, double lo,
                              double hi) {
  HostTensor t = zeros(sizes, dtype);
  uint64_t state = seed;
  int64_t n = t.getNumElements();
  for (int64_t i = 0; i < n; ++i) {
    double u = static_cast<double>(splitMix64(state) >> 11) * 0x1.0p-53; // [0, 1)
    t.setAt(i, lo + (hi - lo) * u);
  }
  return t;
}
