//===- metaattn/types.cuh - Element types and tensor references -*- CUDA -*-===//
///
/// \file
/// The 16-bit storage types (`bf16`, `fp16`), their conversions to and from
/// `float` (inline PTX, no CUDA headers), and `TensorRef<R>`, the kernel
/// parameter through which global tensors reach generated code.
///
/// Everything here compiles under NVRTC with no include path and no host
/// headers: only built-in CUDA types, intrinsics and inline PTX are used.
///
//===----------------------------------------------------------------------===//
#pragma once

#define METAATTN_DEV __device__ __forceinline__
#define METAATTN_HD __host__ __device__ __forceinline__

namespace metaattn {
namespace dev {

/// bfloat16 storage: the raw bits, no arithmetic. Trivially copyable.
struct alignas(2) bf16 {
  unsigned short bits;
};

/// IEEE binary16 storage: the raw bits, no arithmetic. Trivially copyable.
struct alignas(2) fp16 {
  unsigned short bits;
};

namespace detail {
/// Compile-time type equality (no <type_traits> under NVRTC).
template <class A, class B> struct IsSame {
  static constexpr bool value = false;
};
template <class A> struct IsSame<A, A> {
  static constexpr bool value = true;
};
/// True for the 16-bit element types the mma paths accept.
template <class T> struct Is16Bit {
  static constexpr bool value = IsSame<T, bf16>::value || IsSame<T, fp16>::value;
};
} // namespace detail

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

/// Exact widening: a bf16 is the top half of a float.
METAATTN_DEV float toFloat(bf16 x) { return __uint_as_float(unsigned(x.bits) << 16); }
METAATTN_DEV float toFloat(fp16 x) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x.bits));
  return f;
}
METAATTN_DEV float toFloat(float x) { return x; }

/// Round-to-nearest-even narrowing from float; `fromFloat<float>` is identity.
template <class T> METAATTN_DEV T fromFloat(float x);
template <> METAATTN_DEV float fromFloat<float>(float x) { return x; }
template <> METAATTN_DEV bf16 fromFloat<bf16>(float x) {
  bf16 r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r.bits) : "f"(x));
  return r;
}
template <> METAATTN_DEV fp16 fromFloat<fp16>(float x) {
  fp16 r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r.bits) : "f"(x));
  return r;
}

/// Converts any supported element to any other (through float).
template <class To, class From> METAATTN_DEV To convertElem(From x) {
  if constexpr (detail::IsSame<To, From>::value)
    return x;
  else
    return fromFloat<To>(toFloat(x));
}

/// Packs two floats into one 32-bit register of two 16-bit elements: `lo` in
/// bits 0..15 (the lower column / k index of an mma operand), `hi` above.
template <class T> METAATTN_DEV unsigned packFloat2(float lo, float hi);
template <> METAATTN_DEV unsigned packFloat2<bf16>(float lo, float hi) {
  unsigned r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
template <> METAATTN_DEV unsigned packFloat2<fp16>(float lo, float hi) {
  unsigned r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

/// Packs two 16-bit elements into one register (`lo` in bits 0..15).
template <class T> METAATTN_DEV unsigned packPair(T lo, T hi) {
  static_assert(detail::Is16Bit<T>::value, "packPair: T must be bf16 or fp16");
  return unsigned(lo.bits) | (unsigned(hi.bits) << 16);
}
/// Inverse of packPair.
template <class T> METAATTN_DEV void unpackPair(unsigned v, T& lo, T& hi) {
  static_assert(detail::Is16Bit<T>::value, "unpackPair: T must be bf16 or fp16");
  lo.bits = (unsigned short)(v & 0xffffu);
  hi.bits = (unsigned short)(v >> 16);
}

/// `c`, which the caller knows to be the same in every lane of its whole, converged warp
/// (a tile kernel's scalars are uniform over the block), passed through a vote so that ptxas
/// knows it too: a branch on it stays uniform, and the wgmma descriptors and shared addresses
/// computed under it stay in uniform registers instead of being moved there before each wgmma
/// (a document mask's kv loop branches on values read from memory).
METAATTN_DEV bool warpUniform(bool c) { return __all_sync(0xffffffffu, c); }

//===----------------------------------------------------------------------===//
// TensorRef
//===----------------------------------------------------------------------===//

/// A global tensor of rank R as a kernel parameter (passed by value). Sizes and
/// strides are in elements; the element type is named at each use. The host
/// runtime packs exactly this layout: an 8-byte pointer, then R int64 sizes,
/// then R int64 strides.
template <int R> struct TensorRef {
  static_assert(R >= 1, "TensorRef: rank must be at least 1");
  void* data;
  long long sizes[R];
  long long strides[R];
};

namespace detail {
/// Element offset of `origin` (all dims), and whether every dim other than
/// `skipA`/`skipB` has its origin in bounds.
template <int R>
METAATTN_DEV long long originOffset(const TensorRef<R>& t, const long long (&origin)[R], int skipA,
                                    int skipB, bool& othersIn) {
  long long off = 0;
  bool in = true;
#pragma unroll
  for (int d = 0; d < R; ++d) {
    off += origin[d] * t.strides[d];
    if (d != skipA && d != skipB)
      in = in && (unsigned long long)origin[d] < (unsigned long long)t.sizes[d];
  }
  othersIn = in;
  return off;
}
} // namespace detail

} // namespace dev
} // namespace metaattn
