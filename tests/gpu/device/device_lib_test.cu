//===- device_lib_test.cu - GPU tests of the metaattn device library ------===//
///
/// \file
/// Standalone test program (run on the H200): each device-library primitive
/// against a CPU loop, then a FlashAttention-2 forward kernel written only
/// with the library against double-precision CPU attention. One PASS/FAIL
/// line per test; exit status 1 on any failure, 2 when no GPU is usable.
///
/// Build: tests/gpu/device/build.sh <output-binary>
///
//===----------------------------------------------------------------------===//
#include "fa2_kernel.cuh"
#include "metaattn/scan.cuh"
#include "metaattn/tile.cuh"
#include "metaattn/warpgroup.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using namespace metaattn::dev;

#define CUDA_CHECK(x)                                                                              \
  do {                                                                                             \
    cudaError_t err_ = (x);                                                                        \
    if (err_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_), __FILE__,       \
                   __LINE__, cudaGetErrorString(err_));                                            \
      std::exit(3);                                                                                \
    }                                                                                              \
  } while (0)

//===----------------------------------------------------------------------===//
// Host helpers
//===----------------------------------------------------------------------===//

namespace {

int gFailures = 0;

void report(const std::string& name, bool ok, const std::string& detail = "") {
  std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), detail.empty() ? "" : "  ",
              detail.c_str());
  std::fflush(stdout);
  if (!ok)
    ++gFailures;
}

uint16_t f2bf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return 0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}
float bf2f(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t f2h(float f) {
  __half h = __float2half_rn(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
float h2f(uint16_t b) {
  __half h;
  std::memcpy(&h, &b, 2);
  return __half2float(h);
}

/// Host mirror of a 16-bit or float element type.
template <class T> struct HostElem;
template <> struct HostElem<bf16> {
  using Bits = uint16_t;
  static Bits from(float f) { return f2bf(f); }
  static float to(Bits b) { return bf2f(b); }
};
template <> struct HostElem<fp16> {
  using Bits = uint16_t;
  static Bits from(float f) { return f2h(f); }
  static float to(Bits b) { return h2f(b); }
};
template <> struct HostElem<float> {
  using Bits = float;
  static Bits from(float f) { return f; }
  static float to(Bits b) { return b; }
};

template <class T> struct DevBuf {
  T* p = nullptr;
  size_t n = 0;
  explicit DevBuf(size_t count) : n(count) {
    CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(1, n) * sizeof(T)));
  }
  DevBuf(const std::vector<T>& h) : DevBuf(h.size()) { up(h); }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  void up(const std::vector<T>& h) {
    CUDA_CHECK(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> down() const {
    std::vector<T> h(n);
    CUDA_CHECK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

template <int R>
TensorRef<R> makeRef(void* data, std::initializer_list<long long> sizes,
                     std::initializer_list<long long> strides) {
  TensorRef<R> t;
  t.data = data;
  int d = 0;
  for (long long s : sizes)
    t.sizes[d++] = s;
  d = 0;
  for (long long s : strides)
    t.strides[d++] = s;
  return t;
}

template <int R> struct Origin {
  long long v[R];
};

template <int R> bool inBounds(const TensorRef<R>& t, const long long (&idx)[R], long long* off) {
  long long o = 0;
  for (int d = 0; d < R; ++d) {
    if (idx[d] < 0 || idx[d] >= t.sizes[d])
      return false;
    o += idx[d] * t.strides[d];
  }
  *off = o;
  return true;
}

std::string fmtErr(double maxErr, double tol) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "max_err=%.3g tol=%.3g", maxErr, tol);
  return buf;
}

} // namespace

//===----------------------------------------------------------------------===//
// 1. loadTileAsync / loadTile
//===----------------------------------------------------------------------===//

template <bool Async, int NT, class T, int Rows, int Cols, int R>
__global__ void kLoadTile(TensorRef<R> src, Origin<R> origin, int rowDim, int colDim, T* out,
                          int stage) {
  extern __shared__ __align__(1024) unsigned char smem[];
  SmemTile<T, Rows, Cols, 2> tile(smem);
  // Poison both stages so that missing zero-fill is visible.
  for (int i = threadIdx.x; i < tile.kBytes / 2; i += NT)
    reinterpret_cast<unsigned short*>(smem)[i] = 0x7777;
  block::barrier();
  long long o[R];
  for (int d = 0; d < R; ++d)
    o[d] = origin.v[d];
  if (Async) {
    block::loadTileAsync<NT>(tile.stage(stage), src, o, rowDim, colDim);
    block::asyncCommit();
    block::asyncWait<0>();
  } else {
    block::loadTile<NT>(tile.stage(stage), src, o, rowDim, colDim);
  }
  block::barrier();
  auto st = tile.stage(stage);
  for (int i = threadIdx.x; i < Rows * Cols; i += NT)
    out[i] = st.at(i / Cols, i % Cols);
}

template <bool Async, class T, int Rows, int Cols, int R>
void testLoadTile(const std::string& name, std::initializer_list<long long> sizes,
                  std::initializer_list<long long> strides, Origin<R> origin, int rowDim,
                  int colDim, int stage = 0) {
  using H = HostElem<T>;
  using Bits = typename H::Bits;
  constexpr int NT = 128;
  TensorRef<R> ref = makeRef<R>(nullptr, sizes, strides);
  long long span = 1;
  for (int d = 0; d < R; ++d)
    span += (ref.sizes[d] - 1) * ref.strides[d];
  std::vector<Bits> host(span + 8);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = H::from((float)((i * 37) % 1001) * 0.125f - 50.f);
  DevBuf<Bits> dsrc(host);
  DevBuf<T> dout(Rows * Cols);
  ref.data = dsrc.p;
  constexpr int kSmem = SmemTile<T, Rows, Cols, 2>::kBytes;
  kLoadTile<Async, NT, T, Rows, Cols, R>
      <<<1, NT, kSmem>>>(ref, origin, rowDim, colDim, dout.p, stage);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> out = dout.down();
  int bad = 0;
  char detail[160] = "";
  for (int r = 0; r < Rows; ++r)
    for (int c = 0; c < Cols; ++c) {
      long long idx[R];
      for (int d = 0; d < R; ++d)
        idx[d] = origin.v[d];
      idx[rowDim] += r;
      idx[colDim] += c;
      long long off;
      Bits want = inBounds(ref, idx, &off) ? host[off] : H::from(0.f);
      Bits got;
      std::memcpy(&got, &out[r * Cols + c], sizeof(Bits));
      if (std::memcmp(&want, &got, sizeof(Bits)) != 0) {
        if (!bad)
          std::snprintf(detail, sizeof detail, "first mismatch at (%d,%d): want %g got %g", r, c,
                        (double)H::to(want), (double)H::to(got));
        ++bad;
      }
    }
  report(std::string(Async ? "loadTileAsync " : "loadTile ") + name, bad == 0,
         bad ? std::to_string(bad) + " mismatches; " + detail : "");
}

void testLoads() {
  using O3 = Origin<3>;
  // [2, 50, 69] padded to a row stride of 72 (144 B): the 16-byte path, with a
  // partial last chunk (cols 64..68 valid of 64..71) and out-of-bounds rows.
  for (int a = 0; a < 2; ++a) {
    auto run = [&](auto async) {
      constexpr bool A = decltype(async)::value;
      testLoadTile<A, bf16, 32, 64, 3>("bf16 aligned, partial chunk, rows OOB", {2, 50, 69},
                                       {3600, 72, 1}, O3{{1, 30, 8}}, 1, 2);
      testLoadTile<A, bf16, 32, 64, 3>("bf16 aligned, in bounds, stage 1", {2, 50, 69},
                                       {3600, 72, 1}, O3{{0, 2, 0}}, 1, 2, 1);
      testLoadTile<A, bf16, 32, 64, 3>("bf16 fully OOB window", {2, 50, 69}, {3600, 72, 1},
                                       O3{{1, 60, 0}}, 1, 2);
      testLoadTile<A, bf16, 32, 64, 3>("bf16 OOB batch index", {2, 50, 69}, {3600, 72, 1},
                                       O3{{2, 0, 0}}, 1, 2);
      testLoadTile<A, bf16, 32, 64, 3>("bf16 row stride 37 (slow path)", {2, 50, 37}, {1850, 37, 1},
                                       O3{{1, 20, 5}}, 1, 2);
      testLoadTile<A, bf16, 32, 64, 3>("bf16 misaligned corner (col 3)", {2, 50, 69}, {3600, 72, 1},
                                       O3{{1, 7, 3}}, 1, 2);
      testLoadTile<A, bf16, 32, 64, 3>("bf16 negative origin", {2, 50, 69}, {3600, 72, 1},
                                       O3{{0, -5, -11}}, 1, 2);
      testLoadTile<A, bf16, 64, 48, 3>("bf16 transposed view (colDim stride 72)", {2, 50, 69},
                                       {3600, 72, 1}, O3{{1, 10, 20}}, 2, 1);
      testLoadTile<A, bf16, 48, 40, 3>("bf16 odd chunk count (Cols=40)", {3, 45, 33},
                                       {45 * 40, 40, 1}, O3{{2, 10, 0}}, 1, 2);
      testLoadTile<A, fp16, 16, 96, 3>("fp16 aligned, 12 chunks/row", {1, 20, 100}, {2000, 104, 1},
                                       O3{{0, 8, 8}}, 1, 2);
      testLoadTile<A, float, 16, 32, 3>("float aligned, partial chunk", {1, 20, 30}, {640, 32, 1},
                                        O3{{0, 9, 4}}, 1, 2);
      testLoadTile<A, bf16, 64, 128, 4>("bf16 rank-4 BSHD-strided", {2, 3, 77, 128},
                                        {77 * 3 * 128, 128, 3 * 128, 1}, Origin<4>{{1, 2, 64, 0}},
                                        2, 3);
    };
    if (a == 0)
      run(std::true_type{});
    else
      run(std::false_type{});
  }
}

//===----------------------------------------------------------------------===//
// 2. Fragment indexing, storeFrag, storeRowVec, loadFrag
//===----------------------------------------------------------------------===//

template <int M, int N, int W>
__global__ void kFragIndex(TensorRef<2> out, TensorRef<1> rows, int* errors) {
  using F = Frag<float, M, N, W>;
  using V = RowVec<M, W>;
  using C = ColVec<N, int>;
  F f;
  V rv;
  C cv;
  rv.fill(-1.f);
  cv.fill(-1);
  // Every column slot holds a column one of this thread's elements touches.
#pragma unroll
  for (int s = 0; s < C::kSlots; ++s)
    cv[s] = C::col(s);
#pragma unroll
  for (int e = 0; e < F::kElems; ++e) {
    const int i = F::row(e), j = F::col(e);
    f[e] = (float)(i * 1000 + j);
    rv[F::rowSlot(e)] = (float)i;
    if (V::row(F::rowSlot(e)) != i || cv[F::colSlot(e)] != j)
      atomicAdd(errors, 1);
  }
  const long long o2[2] = {0, 0};
  const long long o1[1] = {0};
  block::storeFrag<W * 32, float>(out, o2, 0, 1, f);
  block::storeRowVec<float>(rows, o1, 0, rv);
}

template <int M, int N, int W> void testFragIndex() {
  DevBuf<float> out(M * N), rows(M);
  DevBuf<int> errs(1);
  CUDA_CHECK(cudaMemset(out.p, 0xff, M * N * 4));
  CUDA_CHECK(cudaMemset(rows.p, 0xff, M * 4));
  CUDA_CHECK(cudaMemset(errs.p, 0, 4));
  kFragIndex<M, N, W>
      <<<1, W * 32>>>(makeRef<2>(out.p, {M, N}, {N, 1}), makeRef<1>(rows.p, {M}, {1}), errs.p);
  CUDA_CHECK(cudaDeviceSynchronize());
  auto o = out.down();
  auto rv = rows.down();
  int bad = errs.down()[0];
  for (int i = 0; i < M; ++i) {
    bad += rv[i] != (float)i;
    for (int j = 0; j < N; ++j)
      bad += o[i * N + j] != (float)(i * 1000 + j);
  }
  report("Frag row/col/rowSlot/colSlot + RowVec::row + ColVec::col " + std::to_string(M) + "x" +
             std::to_string(N) + " W=" + std::to_string(W),
         bad == 0, bad ? std::to_string(bad) + " wrong" : "");
}

/// Fills a float Frag with a function of (row, col), stores it as T into a
/// clipped window of a strided destination.
template <class T, int M, int N, int W>
__global__ void kStoreFrag(TensorRef<3> dst, Origin<3> origin, int rowDim, int colDim, int viaT,
                           int staged) {
  extern __shared__ __align__(1024) unsigned char smem[];
  SmemTile<T, M, N> stage(smem);
  Frag<float, M, N, W> f;
#pragma unroll
  for (int e = 0; e < Frag<float, M, N, W>::kElems; ++e)
    f[e] = (float)(Frag<float, M, N, W>::row(e) * 3 - Frag<float, M, N, W>::col(e)) * 0.25f;
  // Also exercise the 16-bit source path: half the calls go through Frag<T>.
  Frag<T, M, N, W> g;
  warp::convert(g, f);
  long long o[3] = {origin.v[0], origin.v[1], origin.v[2]};
  if (staged == 2) {
    // block::storeTile from a shared tile: of T (16-byte chunks), or of float (converted).
    SmemTile<float, M, N> wide(smem);
    for (int i = (int)threadIdx.x; i < M * N; i += W * 32) {
      const float x = (float)((i / N) * 3 - i % N) * 0.25f;
      if (viaT)
        stage.at(i / N, i % N) = convertElem<T>(x);
      else
        wide.at(i / N, i % N) = x;
    }
    __syncthreads();
    if (viaT)
      block::storeTile<W * 32, T>(dst, o, rowDim, colDim, stage);
    else
      block::storeTile<W * 32, T>(dst, o, rowDim, colDim, wide);
    return;
  }
  if (staged && !viaT)
    block::storeFragStaged<W * 32>(dst, o, rowDim, colDim, f, stage);
  else if (staged)
    block::storeFragStaged<W * 32>(dst, o, rowDim, colDim, g, stage);
  else if (!viaT)
    block::storeFrag<W * 32, T>(dst, o, rowDim, colDim, f);
  else
    block::storeFrag<W * 32, T>(dst, o, rowDim, colDim, g);
}

template <class T, int M, int N, int W>
void testStoreFrag(const std::string& name, std::initializer_list<long long> sizes,
                   std::initializer_list<long long> strides, Origin<3> origin, int rowDim,
                   int colDim) {
  using H = HostElem<T>;
  using Bits = typename H::Bits;
  TensorRef<3> ref = makeRef<3>(nullptr, sizes, strides);
  long long span = 1;
  for (int d = 0; d < 3; ++d)
    span += (ref.sizes[d] - 1) * ref.strides[d];
  // Modes: float or Frag<T> source, each direct (storeFrag) and through shared memory
  // (storeFragStaged); then a shared tile of float or of T (storeTile).
  for (int mode = 0; mode < 6; ++mode) {
    const int viaFragT = mode & 1, staged = mode >> 1;
    const Bits sentinel = H::from(-777.f);
    std::vector<Bits> host(span + 4, sentinel);
    DevBuf<Bits> d(host);
    ref.data = d.p;
    kStoreFrag<T, M, N, W><<<1, W * 32, SmemTile<float, M, N>::kBytes>>>(ref, origin, rowDim,
                                                                         colDim, viaFragT, staged);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    auto got = d.down();
    std::vector<Bits> want(span + 4, sentinel);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        long long idx[3] = {origin.v[0], origin.v[1], origin.v[2]};
        idx[rowDim] += i;
        idx[colDim] += j;
        long long off;
        if (inBounds(ref, idx, &off))
          want[off] = H::from((float)(i * 3 - j) * 0.25f);
      }
    int bad = 0;
    for (size_t k = 0; k < want.size(); ++k)
      bad += std::memcmp(&want[k], &got[k], sizeof(Bits)) != 0;
    report(std::string(staged == 2 ? "storeTile "
                       : staged    ? "storeFragStaged "
                                   : "storeFrag ") +
               name +
               (staged == 2 ? (viaFragT ? " (shared T tile)" : " (shared float tile)")
                            : (viaFragT ? " (Frag<T> source)" : " (float source)")),
           bad == 0, bad ? std::to_string(bad) + " wrong elements" : "");
  }
}

/// Element-wise writes into a 16-bit fragment, in reverse order (each write keeps the other
/// half of its word), a copy through the proxy (`g[e] = f[e ^ 1]`), reads by value and whole
/// words (element 2i in the low half of word i), packed (wgmma kernels) and unpacked (mma.sync).
template <class T, int M, int N, int W, bool Packed> __global__ void kFragHalves(int* errors) {
  using F = Frag<T, M, N, W, Packed>;
  F f, g;
  auto bitsOf = [](int e) { return (unsigned short)(0x3f80u + 3u * (unsigned)e + threadIdx.x); };
#pragma unroll
  for (int e = F::kElems - 1; e >= 0; --e) {
    T x;
    x.bits = bitsOf(e);
    f[e] = x;
  }
#pragma unroll
  for (int e = 0; e < F::kElems; ++e)
    g[e] = f[e ^ 1];
  int bad = 0;
#pragma unroll
  for (int e = 0; e < F::kElems; ++e) {
    const T x = f[e], y = g[e];
    bad += x.bits != bitsOf(e);
    bad += y.bits != bitsOf(e ^ 1);
  }
#pragma unroll
  for (int i = 0; i < F::kElems / 2; ++i)
    bad += f.word(i) != (unsigned(bitsOf(2 * i)) | (unsigned(bitsOf(2 * i + 1)) << 16));
  if (bad)
    atomicAdd(errors, bad);
}

template <class T, int M, int N, int W, bool Packed> void testFragHalves() {
  DevBuf<int> errors(std::vector<int>{0});
  kFragHalves<T, M, N, W, Packed><<<1, W * 32>>>(errors.p);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  const int bad = errors.down()[0];
  report(std::string("Frag 16-bit halves (") + (Packed ? "packed" : "unpacked") + ") " +
             std::to_string(M) + "x" + std::to_string(N) + " W=" + std::to_string(W),
         bad == 0, bad ? std::to_string(bad) + " wrong" : "");
}

template <class T, int M, int N, int W, bool Packed = metaattn::dev::detail::Is16Bit<T>::value>
__global__ void kLoadFrag(TensorRef<2> src, TensorRef<2> dst) {
  extern __shared__ __align__(1024) unsigned char smem[];
  SmemTile<T, M, N> tile(smem);
  const long long o[2] = {0, 0};
  block::loadTile<W * 32>(tile, src, o, 0, 1);
  block::barrier();
  Frag<T, M, N, W, Packed> f;
  warp::loadFrag(f, tile);
  block::storeFrag<W * 32, T>(dst, o, 0, 1, f);
}

template <class T, int M, int N, int W, bool Packed = metaattn::dev::detail::Is16Bit<T>::value>
void testLoadFrag() {
  using H = HostElem<T>;
  std::vector<uint16_t> host(M * N);
  for (int i = 0; i < M * N; ++i)
    host[i] = H::from((float)(i % 509) - 200.f);
  DevBuf<uint16_t> src(host), dst(M * N);
  kLoadFrag<T, M, N, W, Packed><<<1, W * 32, SmemTile<T, M, N>::kBytes>>>(
      makeRef<2>(src.p, {M, N}, {N, 1}), makeRef<2>(dst.p, {M, N}, {N, 1}));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  auto got = dst.down();
  int bad = 0;
  for (int i = 0; i < M * N; ++i)
    bad += got[i] != host[i];
  report("loadFrag (ldmatrix) " + std::to_string(M) + "x" + std::to_string(N) +
             " W=" + std::to_string(W) + (Packed ? "" : " unpacked"),
         bad == 0, bad ? std::to_string(bad) + " wrong" : "");
}

/// warp::storeFrag: an f32 fragment (the fused linear kernel's state) written into a 16-bit
/// shared tile, read back through storeTile.
template <class T, int M, int N, int W> __global__ void kStoreFragShared(TensorRef<2> dst) {
  using F = Frag<float, M, N, W>;
  extern __shared__ __align__(1024) unsigned char smem[];
  SmemTile<T, M, N> tile(smem);
  F f;
#pragma unroll
  for (int e = 0; e < F::kElems; ++e)
    f[e] = (float)((F::row(e) * N + F::col(e)) % 200) - 100.f;
  warp::storeFrag(tile, f);
  block::barrier();
  const long long o[2] = {0, 0};
  block::storeTile<W * 32, T>(dst, o, 0, 1, tile);
}

template <class T, int M, int N, int W> void testStoreFragShared() {
  using H = HostElem<T>;
  DevBuf<uint16_t> dst(M * N);
  kStoreFragShared<T, M, N, W>
      <<<1, W * 32, SmemTile<T, M, N>::kBytes>>>(makeRef<2>(dst.p, {M, N}, {N, 1}));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  auto got = dst.down();
  int bad = 0;
  for (int i = 0; i < M * N; ++i)
    bad += got[i] != H::from((float)(i % 200) - 100.f);
  report("storeFrag (f32 fragment to a shared tile) " + std::to_string(M) + "x" +
             std::to_string(N) + " W=" + std::to_string(W),
         bad == 0, bad ? std::to_string(bad) + " wrong" : "");
}

//===----------------------------------------------------------------------===//
// 3. Gemm
//===----------------------------------------------------------------------===//

/// mode 0: gemmSS; 1: gemmRS with A via loadFrag; 2: gemmRS with A built as a
/// float Frag element-wise (row/col) then warp::convert'ed; 3: wg::gemmSS
/// (wgmma); 4: wg::gemmRS (wgmma) with A via loadFrag; 5: gemmTS (A stored K x M);
/// 6, 7: wg::gemmSS and wg::gemmRS with Overwrite (C = A·B: C starts as NaN, which must not
/// be read).
template <int Mode, bool TransB, class T, int M, int N, int K, int W>
__global__ void kGemm(TensorRef<2> a, TensorRef<2> b, TensorRef<2> c) {
  constexpr int BR = TransB ? N : K, BC = TransB ? K : N;
  extern __shared__ __align__(1024) unsigned char smem[];
  using TA = std::conditional_t<Mode == 5, SmemTile<T, K, M>, SmemTile<T, M, K>>;
  TA sA(smem);
  SmemTile<T, BR, BC> sB(smem + (sA.kBytes + 1023) / 1024 * 1024);
  const long long o[2] = {0, 0};
  block::loadTileAsync<W * 32>(sA, a, o, 0, 1);
  block::loadTileAsync<W * 32>(sB, b, o, 0, 1);
  block::asyncCommit();
  block::asyncWait<0>();
  block::barrierAsyncProxy();
  Frag<float, M, N, W> acc;
#pragma unroll
  for (int e = 0; e < acc.kElems; ++e)
    acc[e] = Mode >= 6 ? __int_as_float(0x7fc00000)
                       : 1.0f + 0.001f * Frag<float, M, N, W>::row(e); // C += ... starts here
  if constexpr (Mode == 0) {
    warp::gemmSS<TransB>(acc, sA, sB);
  } else if constexpr (Mode == 5) {
    warp::gemmTS<TransB>(acc, sA, sB);
  } else if constexpr (Mode == 1) {
    Frag<T, M, K, W> fa;
    warp::loadFrag(fa, sA);
    warp::gemmRS<TransB>(acc, fa, sB);
  } else if constexpr (Mode == 3) {
    wg::gemmSS<TransB>(acc, sA, sB);
  } else if constexpr (Mode == 4) {
    Frag<T, M, K, W> fa;
    warp::loadFrag(fa, sA);
    wg::gemmRS<TransB>(acc, fa, sB);
  } else if constexpr (Mode == 6) {
    wg::gemmSS<TransB, true, true>(acc, sA, sB);
  } else if constexpr (Mode == 7) {
    Frag<T, M, K, W> fa;
    warp::loadFrag(fa, sA);
    wg::gemmRS<TransB, true, true>(acc, fa, sB);
  } else {
    using FA = Frag<float, M, K, W>;
    FA fa;
    const T* ap = static_cast<const T*>(a.data);
#pragma unroll
    for (int e = 0; e < FA::kElems; ++e)
      fa[e] = toFloat(ap[FA::row(e) * a.strides[0] + FA::col(e)]);
    Frag<T, M, K, W> fb;
    warp::convert(fb, fa);
    warp::gemmRS<TransB>(acc, fb, sB);
  }
  block::storeFrag<W * 32, float>(c, o, 0, 1, acc);
}

template <int Mode, bool TransB, class T, int M, int N, int K, int W> void testGemm() {
  using H = HostElem<T>;
  std::mt19937 rng(M * 7 + N * 13 + K + Mode * 101 + TransB);
  std::normal_distribution<float> nd;
  std::vector<uint16_t> A(M * K), B(N * K);
  for (auto& x : A)
    x = H::from(nd(rng));
  for (auto& x : B)
    x = H::from(nd(rng));
  std::vector<uint16_t> At(M * K); // A transposed (K x M), what gemmTS reads
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k)
      At[k * M + i] = A[i * K + k];
  DevBuf<uint16_t> dA(Mode == 5 ? At : A), dB(B);
  DevBuf<float> dC(M * N);
  constexpr int smemB = (SmemTile<T, M, K>::kBytes + 1023) / 1024 * 1024 + (N * K * 2);
  auto bRef = TransB ? makeRef<2>(dB.p, {N, K}, {K, 1}) : makeRef<2>(dB.p, {K, N}, {N, 1});
  CUDA_CHECK(cudaFuncSetAttribute(kGemm<Mode, TransB, T, M, N, K, W>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, smemB));
  auto aRef = Mode == 5 ? makeRef<2>(dA.p, {K, M}, {M, 1}) : makeRef<2>(dA.p, {M, K}, {K, 1});
  kGemm<Mode, TransB, T, M, N, K, W>
      <<<1, W * 32, smemB>>>(aRef, bRef, makeRef<2>(dC.p, {M, N}, {N, 1}));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  auto C = dC.down();
  double maxErr = 0, maxRatio = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = Mode >= 6 ? 0.0 : 1.0 + 0.001f * i, mag = 1.0;
      for (int k = 0; k < K; ++k) {
        double av = H::to(A[i * K + k]);
        double bv = TransB ? H::to(B[j * K + k]) : H::to(B[k * N + j]);
        s += av * bv;
        mag += std::fabs(av * bv);
      }
      double err = std::fabs(C[i * N + j] - s);
      maxErr = std::max(maxErr, err);
      maxRatio = std::max(maxRatio, err / (1e-5 * mag)); // fp32 accumulation bound
    }
  const char* modes[] = {"gemmSS",
                         "gemmRS(loadFrag A)",
                         "gemmRS(convert float Frag A)",
                         "wg::gemmSS",
                         "wg::gemmRS(loadFrag A)",
                         "gemmTS (A transposed)",
                         "wg::gemmSS(Overwrite)",
                         "wg::gemmRS(Overwrite, loadFrag A)"};
  char name[160];
  std::snprintf(name, sizeof name, "%s<TransB=%d> %s M=%d N=%d K=%d W=%d", modes[Mode], (int)TransB,
                sizeof(T) == 2 && std::is_same<T, bf16>::value ? "bf16" : "fp16", M, N, K, W);
  report(name, maxRatio <= 1.0, fmtErr(maxErr, 1e-5) + "*sum|ab|");
}

//===----------------------------------------------------------------------===//
// 4. Row reductions
//===----------------------------------------------------------------------===//

template <int M, int N, int W>
__global__ void kReduce(const float* x, TensorRef<2> out, TensorRef<1> outBf16) {
  using F = Frag<float, M, N, W>;
  F f;
#pragma unroll
  for (int e = 0; e < F::kElems; ++e)
    f[e] = x[F::row(e) * N + F::col(e)];
  RowVec<M, W> mx, mxAcc, sum, sumAcc, abs;
  warp::rowMax(f, mx, false);
  mxAcc.fill(0.5f);
  warp::rowMax(f, mxAcc, true);
  warp::rowSum(f, sum, false);
  sumAcc.fill(10.f);
  warp::rowSum(f, sumAcc, true);
  abs.fill(123.f);
  warp::rowAbsSum(f, abs, false);
  long long o[2] = {0, 0};
  block::storeRowVec<float>(out, o, 1, mx);
  o[0] = 1;
  block::storeRowVec<float>(out, o, 1, mxAcc);
  o[0] = 2;
  block::storeRowVec<float>(out, o, 1, sum);
  o[0] = 3;
  block::storeRowVec<float>(out, o, 1, sumAcc);
  o[0] = 4;
  block::storeRowVec<float>(out, o, 1, abs);
  // The same reductions from per-thread partials, accumulated as the emitter prints them for a
  // fragment only row reductions read.
  RowVec<M, W> pMax, pSum, pAbs, mxP, sumAccP, absP;
  pMax.fill(negInf());
  pSum.fill(0.0f);
  pAbs.fill(0.0f);
#pragma unroll
  for (int e = 0; e < F::kElems; ++e) {
    pMax[F::rowSlot(e)] = fmaxf(pMax[F::rowSlot(e)], f[e]);
    pSum[F::rowSlot(e)] += f[e];
    pAbs[F::rowSlot(e)] += fabsf(f[e]);
  }
  warp::rowMaxOfPartials(pMax, mxP, false);
  sumAccP.fill(10.f);
  warp::rowSumOfPartials(pSum, sumAccP, true);
  warp::rowSumOfPartials(pAbs, absP, false);
  o[0] = 5;
  block::storeRowVec<float>(out, o, 1, mxP);
  o[0] = 6;
  block::storeRowVec<float>(out, o, 1, sumAccP);
  o[0] = 7;
  block::storeRowVec<float>(out, o, 1, absP);
  const long long o1[1] = {0};
  block::storeRowVec<bf16>(outBf16, o1, 0, mx);
}

template <int M, int N, int W> void testReduce() {
  std::mt19937 rng(M + N);
  std::normal_distribution<float> nd;
  const float ninf = -std::numeric_limits<float>::infinity();
  std::vector<float> x(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float v = nd(rng) * 3.f - 1.f;
      if (i % 7 == 3)
        v = ninf; // whole row -inf
      else if (i % 5 == 1 && j % 3 != 0)
        v = ninf; // partly -inf
      else if (i % 11 == 2)
        v = -100.f - j; // all negative, below the accumulate seed
      x[i * N + j] = v;
    }
  DevBuf<float> dx(x), out(8 * M);
  DevBuf<uint16_t> outB(M);
  kReduce<M, N, W>
      <<<1, W * 32>>>(dx.p, makeRef<2>(out.p, {8, M}, {M, 1}), makeRef<1>(outB.p, {M}, {1}));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  auto o = out.down();
  auto ob = outB.down();
  // Float summation of N terms: |err| <= N * 2^-24 * sum|x| (scale below).
  auto same = [](double want, double got, double tol) {
    if (std::isinf(want) || std::isinf(got))
      return want == got;
    return std::fabs(want - got) <= tol;
  };
  int badMax = 0, badSum = 0, badAbs = 0, badPartials = 0;
  for (int i = 0; i < M; ++i) {
    double mx = ninf, s = 0, a = 0;
    bool hasInf = false;
    for (int j = 0; j < N; ++j) {
      float v = x[i * N + j];
      mx = std::max<double>(mx, v);
      if (std::isinf(v))
        hasInf = true;
      else {
        s += v;
        a += std::fabs(v);
      }
    }
    badMax += !same(mx, o[i], 0) + !same(std::max(mx, 0.5), o[M + i], 0);
    badMax += ob[i] != f2bf((float)mx);
    double sWant = hasInf ? (double)ninf : s;
    double aWant = hasInf ? (double)INFINITY : a;
    const double tol = (N + 1) * std::ldexp(1.0, -24) * (a + 10.0);
    badSum += !same(sWant, o[2 * M + i], tol) + !same(hasInf ? sWant : s + 10, o[3 * M + i], tol);
    badAbs += !same(aWant, o[4 * M + i], tol);
    badPartials += !same(mx, o[5 * M + i], 0) + !same(hasInf ? sWant : s + 10, o[6 * M + i], tol) +
                   !same(aWant, o[7 * M + i], tol);
  }
  std::string shape = std::to_string(M) + "x" + std::to_string(N) + " W=" + std::to_string(W);
  report("rowMax (+accumulate, -inf rows, storeRowVec<float/bf16>) " + shape, badMax == 0,
         badMax ? std::to_string(badMax) + " wrong" : "");
  report("rowSum (+accumulate, -inf rows) " + shape, badSum == 0,
         badSum ? std::to_string(badSum) + " wrong" : "");
  report("rowAbsSum " + shape, badAbs == 0, badAbs ? std::to_string(badAbs) + " wrong" : "");
  report("rowMax/SumOfPartials (max, sum +accumulate, |sum|) " + shape, badPartials == 0,
         badPartials ? std::to_string(badPartials) + " wrong" : "");
}

//===----------------------------------------------------------------------===//
// 4b. Prefix sums down the rows of a shared tile (tile.scan)
//===----------------------------------------------------------------------===//

template <int NThreads, int Rows, int Cols> __global__ void kScanRows(const float* x, float* y) {
  extern __shared__ __align__(1024) unsigned char smem[];
  SmemTile<float, Rows, Cols> t(smem);
  for (int i = (int)threadIdx.x; i < Rows * Cols; i += NThreads)
    t.at(i / Cols, i % Cols) = x[i];
  __syncthreads();
  block::scanRows<NThreads>(t);
  __syncthreads();
  for (int i = (int)threadIdx.x; i < Rows * Cols; i += NThreads)
    y[i] = t.at(i / Cols, i % Cols);
}

template <int NThreads, int Rows, int Cols> void testScanRows() {
  std::mt19937 rng(Rows * 131 + Cols * 7 + NThreads);
  std::uniform_real_distribution<float> ud(-1.f, 1.f);
  std::vector<float> x(Rows * Cols);
  for (float& v : x)
    v = ud(rng);
  DevBuf<float> dx(x), dy(x.size());
  constexpr int smem = Rows * Cols * (int)sizeof(float);
  CUDA_CHECK(cudaFuncSetAttribute(kScanRows<NThreads, Rows, Cols>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kScanRows<NThreads, Rows, Cols><<<1, NThreads, smem>>>(dx.p, dy.p);
  CUDA_CHECK(cudaDeviceSynchronize());
  auto y = dy.down();
  double worst = 0;
  for (int c = 0; c < Cols; ++c) {
    double acc = 0;
    for (int r = 0; r < Rows; ++r) {
      acc += x[r * Cols + c];
      worst =
          std::max(worst, std::fabs(y[r * Cols + c] - acc) / (Rows * Rows * std::ldexp(1.0, -24)));
    }
  }
  report("scanRows<" + std::to_string(NThreads) + "> " + std::to_string(Rows) + "x" +
             std::to_string(Cols) + " (" +
             std::to_string(block::detail::scanParts(NThreads, Rows, Cols)) + " lanes per column)",
         worst <= 1, fmtErr(worst, 1) + " (x bound)");
}

//===----------------------------------------------------------------------===//
// 5. Math
//===----------------------------------------------------------------------===//

__global__ void kMath(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  y[8 * i + 0] = metaattn::dev::exp(x[i]);
  y[8 * i + 1] = exp2Approx(x[i]);
  y[8 * i + 2] = metaattn::dev::log(std::fabs(x[i]));
  y[8 * i + 3] = metaattn::dev::tanh(x[i] * 0.1f);
  y[8 * i + 4] = metaattn::dev::max(x[i], negInf());
  y[8 * i + 5] = metaattn::dev::expSub(x[i], 37.5f);
  y[8 * i + 6] = metaattn::dev::expSubScaled(x[i], 0.125f, 2.5f);
  y[8 * i + 7] = metaattn::dev::sigmoid(x[i] * 0.25f);
}

void testMath() {
  const int n = 4001;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = -80.f + 160.f * i / (n - 1) + 1e-3f;
  DevBuf<float> dx(x), dy(8 * n);
  kMath<<<(n + 127) / 128, 128>>>(dx.p, dy.p, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  auto y = dy.down();
  double eExp = 0, eExp2 = 0, eLog = 0, eTanh = 0, eSub = 0, eScaled = 0, eSigmoid = 0;
  int badMax = 0;
  for (int i = 0; i < n; ++i) {
    double xi = x[i];
    // Documented bounds: exp rel <= 2^-22 + |x| 2^-24 (x2 margin); ex2 rel
    // 2^-22 (x2); log abs <= 2^-21 + rel 2^-22; tanh.approx rel 2^-11 (x2).
    eExp = std::max(eExp, std::fabs(y[8 * i] - std::exp(xi)) / std::exp(xi) /
                              (2 * (std::ldexp(1.0, -22) + std::fabs(xi) * std::ldexp(1.0, -24))));
    eExp2 = std::max(eExp2, std::fabs(y[8 * i + 1] - std::exp2(xi)) / std::exp2(xi) /
                                (2 * std::ldexp(1.0, -22)));
    double lw = std::log(std::fabs(xi));
    eLog = std::max(eLog, std::fabs(y[8 * i + 2] - lw) /
                              (std::ldexp(1.0, -21) + std::ldexp(1.0, -22) * std::fabs(lw)));
    double tw = std::tanh(xi * 0.1f);
    eTanh = std::max(eTanh,
                     std::fabs(y[8 * i + 3] - tw) / (std::ldexp(1.0, -10) * std::fabs(tw) + 1e-6));
    badMax += y[8 * i + 4] != x[i];
    // expSub(a, b): ex2's 2^-22 plus the roundings of b*log2e and of the fma, |b| 2^-24 and
    // |a - b| 2^-24 in the exponent (x2 margin).
    // expSubScaled(x, k, b): also k·log2e rounded, |x·k| 2^-24 in the exponent (x2 margin).
    double xk = xi * 0.125, ek = std::exp(xk - 2.5);
    eScaled = std::max(
        eScaled, std::fabs(y[8 * i + 6] - ek) / ek /
                     (2 * (std::ldexp(1.0, -22) +
                           (std::fabs(xk - 2.5) + 2.5 + std::fabs(xk)) * std::ldexp(1.0, -24))));
    // sigmoid(x): absolute error 2^-12 (x2 margin), on x/4 in [-20, 20].
    double sg = 1.0 / (1.0 + std::exp(-(double)(x[i] * 0.25f)));
    eSigmoid = std::max(eSigmoid, std::fabs(y[8 * i + 7] - sg) / (2 * std::ldexp(1.0, -12)));
    double es = std::exp(xi - 37.5);
    if (xi - 37.5 < -87) // below 2^-126: flushed to zero (-ftz), as documented
      continue;
    eSub = std::max(eSub, std::fabs(y[8 * i + 5] - es) / es /
                              (2 * (std::ldexp(1.0, -22) +
                                    (std::fabs(xi - 37.5) + 37.5) * std::ldexp(1.0, -24))));
  }
  report("exp (exp2Approx(x*log2e)) on [-80,80]", eExp <= 1, fmtErr(eExp, 1) + " (x bound)");
  report("exp2Approx on [-80,80]", eExp2 <= 1, fmtErr(eExp2, 1) + " (x bound)");
  report("log on |x| in [1e-3,80]", eLog <= 1, fmtErr(eLog, 1) + " (x bound)");
  report("tanh (tanh.approx)", eTanh <= 1, fmtErr(eTanh, 1) + " (x bound)");
  report("max(x, negInf())", badMax == 0);
  report("expSub(a, b) (one fma) on a in [-49.5,80], b = 37.5", eSub <= 1,
         fmtErr(eSub, 1) + " (x bound)");
  report("expSubScaled(x, 0.125, 2.5) (one fma) on x in [-80,80]", eScaled <= 1,
         fmtErr(eScaled, 1) + " (x bound)");
  report("sigmoid (tanh.approx) on [-20,20]", eSigmoid <= 1, fmtErr(eSigmoid, 1) + " (x bound)");
}

// exp2Poly (2^x on the FMA pipe) and exp2Mixed, which picks it for every K-th element.
__global__ void kExp2Poly(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  y[4 * i + 0] = metaattn::dev::exp2Poly(x[i]);
  y[4 * i + 1] = metaattn::dev::exp2Mixed<4>(3, x[i]); // the poly
  y[4 * i + 2] = metaattn::dev::exp2Mixed<4>(2, x[i]); // ex2.approx
  y[4 * i + 3] = metaattn::dev::expSubScaledMixed<2>(1, x[i], 0.125f, 2.5f);
}

void testExp2Poly() {
  const int n = 4001;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = -125.f + 125.4f * i / (n - 1);
  DevBuf<float> dx(x), dy(4 * n);
  kExp2Poly<<<(n + 127) / 128, 128>>>(dx.p, dy.p, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  auto y = dy.down();
  // Documented: relative error at most 1.1e-4 (x1.1 margin); the same value through
  // exp2Mixed's poly element, ex2.approx's 2^-22 through its other elements.
  double ePoly = 0, eScaled = 0;
  int wrongPick = 0;
  for (int i = 0; i < n; ++i) {
    double want = std::exp2((double)x[i]);
    ePoly = std::max(ePoly, std::fabs(y[4 * i] - want) / want / 1.21e-4);
    wrongPick += y[4 * i + 1] != y[4 * i];
    wrongPick += std::fabs(y[4 * i + 2] - want) / want > 2 * std::ldexp(1.0, -22);
    double ek = std::exp(x[i] * 0.125 - 2.5);
    eScaled = std::max(eScaled, std::fabs(y[4 * i + 3] - ek) / ek / 1.21e-4);
  }
  report("exp2Poly on [-125,0.4]", ePoly <= 1, fmtErr(ePoly, 1) + " (x bound)");
  report("exp2Mixed<4> picks exp2Poly for element 3 only", wrongPick == 0);
  report("expSubScaledMixed<2>(1, x, 0.125, 2.5) on x in [-125,0.4]", eScaled <= 1,
         fmtErr(eScaled, 1) + " (x bound)");
}

// warp::countKept and KeptCursor (kept.cuh) against the host: per warp a range [lo, hi) of a
// random keep pattern (0: skipped, 1: kept, 2: kept and marked); each warp counts its kept
// indices, then reads them by rank in order (the kv loop's pattern, with each one's mark),
// skipping ahead by 3, and backwards (a restart), then one rank past the end.
__global__ void kKept(const int* keep, const int* ranges, int* out, int perWarp) {
  const int w = threadIdx.x / 32;
  const int lo = ranges[2 * w], hi = ranges[2 * w + 1];
  auto test = [&](int j, auto) -> unsigned {
    return (keep[j] != 0 ? 1u : 0u) | (keep[j] == 2 ? 2u : 0u);
  };
  int* o = out + w * perWarp;
  metaattn::dev::KeptWindow<1> first;
  const int n = metaattn::dev::warp::countKept<1, 2>(lo, hi, test, first);
  metaattn::dev::KeptCursor<1, 2> inOrder(lo, hi, first), skipping(lo, hi, first),
      backwards(lo, hi, first);
  int k = 1;
  for (int r = 0; r < n; ++r) {
    o[k++] = inOrder.at(r, test);
    o[k++] = inOrder.mark(0) ? 1 : 0;
  }
  for (int r = 0; r < n; r += 3)
    o[k++] = skipping.at(r, test);
  for (int r = n - 1; r >= 0; --r)
    o[k++] = backwards.at(r, test);
  o[k++] = inOrder.at(n, test); // past the end: hi
  o[k++] = inOrder.at(n + 1, test);
  if ((threadIdx.x & 31) == 0)
    o[0] = n;
}

void testKept() {
  const int warps = 6, len = 300, perWarp = 1 + 4 * len + 3;
  std::mt19937 rng(5);
  std::vector<int> keep(len);
  for (int j = 0; j < len; ++j)
    keep[j] = j < 64    ? (rng() % 5 == 0) * (1 + rng() % 2)
              : j < 128 ? 2
                        : (rng() % 3); // sparse, dense, mixed
  // Ranges: a long one, one shorter than a window, an empty one, one ending mid-window, one
  // starting mid-window, one of all-kept tiles.
  std::vector<int> ranges = {0, len, 5, 20, 40, 40, 0, 77, 33, 290, 64, 128};
  DevBuf<int> dKeep(keep), dRanges(ranges), dOut((size_t)warps * perWarp);
  kKept<<<1, 32 * warps>>>(dKeep.p, dRanges.p, dOut.p, perWarp);
  CUDA_CHECK(cudaDeviceSynchronize());
  auto out = dOut.down();
  int bad = 0;
  for (int w = 0; w < warps; ++w) {
    const int lo = ranges[2 * w], hi = ranges[2 * w + 1];
    std::vector<int> want;
    for (int j = lo; j < hi; ++j)
      if (keep[j])
        want.push_back(j);
    const int* o = out.data() + w * perWarp;
    const int n = (int)want.size();
    bad += o[0] != n;
    int k = 1;
    for (int r = 0; r < n; ++r) {
      bad += o[k++] != want[r];
      bad += o[k++] != (keep[want[r]] == 2 ? 1 : 0);
    }
    for (int r = 0; r < n; r += 3)
      bad += o[k++] != want[r];
    for (int r = n - 1; r >= 0; --r)
      bad += o[k++] != want[r];
    bad += o[k++] != hi;
    bad += o[k++] != hi;
  }
  report("warp::countKept and KeptCursor (in order with marks, skipping, backwards, past the "
         "end)",
         bad == 0, std::to_string(bad) + " wrong");
}

__global__ void kSpecials(float* y) {
  y[0] = metaattn::dev::exp(negInf());
  y[1] = exp2Approx(negInf());
  y[2] = metaattn::dev::log(0.f);
  y[3] = metaattn::dev::max(negInf(), negInf());
  y[4] = toFloat(fromFloat<bf16>(1.00390625f)); // tie: rounds to even (1.0)
  y[5] = toFloat(fromFloat<fp16>(0.1f));
  y[6] = toFloat(fromFloat<bf16>(3.0e38f));
  y[7] = metaattn::dev::expSub(negInf(), 0.f);
  y[8] = metaattn::dev::expSub(1.f, negInf());
  y[9] = metaattn::dev::sigmoid(posInf());
  y[10] = metaattn::dev::sigmoid(negInf());
  y[11] = metaattn::dev::exp2Poly(negInf());
  y[12] = metaattn::dev::exp2Poly(0.f);
}

void testSpecials() {
  DevBuf<float> d(13);
  kSpecials<<<1, 1>>>(d.p);
  CUDA_CHECK(cudaDeviceSynchronize());
  auto y = d.down();
  bool ok = y[0] == 0.f && y[1] == 0.f && std::isinf(y[2]) && y[2] < 0 && std::isinf(y[3]) &&
            y[3] < 0 && y[4] == 1.0f && y[5] == h2f(f2h(0.1f)) && y[6] == bf2f(f2bf(3.0e38f)) &&
            y[7] == 0.f && std::isinf(y[8]) && y[8] > 0 && y[9] == 1.f && y[10] == 0.f &&
            y[11] == 0.f && y[12] == 1.f;
  report("special values (exp(-inf)=0, log(0)=-inf, bf16/fp16 RNE conversions, "
         "expSub(-inf, 0)=0, expSub(1, -inf)=inf, sigmoid(+-inf)=1, 0, exp2Poly(-inf)=0, "
         "exp2Poly(0)=1)",
         ok);
}

//===----------------------------------------------------------------------===//
// 6. FlashAttention-2 forward
//===----------------------------------------------------------------------===//

struct AttnCase {
  int B, H, Sq, Skv, D;
  bool causal;
  bool bshd; // [B, S, H, D] memory layout seen through [B, H, S, D] strides
};

template <int D, bool Causal>
void launchFa2(const TensorRef<4>& q, const TensorRef<4>& k, const TensorRef<4>& v,
               const TensorRef<4>& o, const TensorRef<3>& lse, float scale, cudaStream_t st = 0) {
  constexpr int smem = fa2::smemBytes<D, D>();
  auto kern = fa2::forward<D, D, Causal>;
  CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  dim3 grid((unsigned)((q.sizes[2] + fa2::kBM - 1) / fa2::kBM), (unsigned)q.sizes[1],
            (unsigned)q.sizes[0]);
  kern<<<grid, fa2::kThreads, smem, st>>>(q, k, v, o, lse, scale);
  CUDA_CHECK(cudaGetLastError());
}

void launchFa2Any(int D, bool causal, const TensorRef<4>& q, const TensorRef<4>& k,
                  const TensorRef<4>& v, const TensorRef<4>& o, const TensorRef<3>& lse,
                  float scale) {
  if (D == 128)
    causal ? launchFa2<128, true>(q, k, v, o, lse, scale)
           : launchFa2<128, false>(q, k, v, o, lse, scale);
  else
    causal ? launchFa2<64, true>(q, k, v, o, lse, scale)
           : launchFa2<64, false>(q, k, v, o, lse, scale);
}

void testFa2(const AttnCase& c) {
  const int B = c.B, H = c.H, Sq = c.Sq, Skv = c.Skv, D = c.D;
  std::mt19937 rng(Sq * 31 + Skv * 7 + D + c.causal);
  std::normal_distribution<float> nd;
  auto fillBf = [&](size_t n) {
    std::vector<uint16_t> v(n);
    for (auto& x : v)
      x = f2bf(nd(rng));
    return v;
  };
  auto Q = fillBf((size_t)B * H * Sq * D), K = fillBf((size_t)B * H * Skv * D),
       V = fillBf((size_t)B * H * Skv * D);
  // Strides in elements of a logical [B, H, S, D] tensor.
  auto strides = [&](int S) -> std::array<long long, 4> {
    if (c.bshd)
      return {(long long)S * H * D, D, (long long)H * D, 1};
    return {(long long)H * S * D, (long long)S * D, D, 1};
  };
  auto at = [&](const std::vector<uint16_t>& t, int S, int b, int h, int s, int d) {
    auto st = strides(S);
    return bf2f(t[b * st[0] + h * st[1] + s * st[2] + d * st[3]]);
  };
  DevBuf<uint16_t> dQ(Q), dK(K), dV(V), dO((size_t)B * H * Sq * D);
  DevBuf<float> dL((size_t)B * H * Sq);
  CUDA_CHECK(cudaMemset(dO.p, 0x7f, dO.n * 2)); // garbage: every element must be written
  CUDA_CHECK(cudaMemset(dL.p, 0x7f, dL.n * 4));
  auto ref4 = [&](void* p, int S) {
    auto st = strides(S);
    return makeRef<4>(p, {B, H, S, D}, {st[0], st[1], st[2], st[3]});
  };
  const float scale = 1.0f / std::sqrt((float)D);
  launchFa2Any(D, c.causal, ref4(dQ.p, Sq), ref4(dK.p, Skv), ref4(dV.p, Skv), ref4(dO.p, Sq),
               makeRef<3>(dL.p, {B, H, Sq}, {(long long)H * Sq, Sq, 1}), scale);
  CUDA_CHECK(cudaDeviceSynchronize());
  auto O = dO.down();
  auto L = dL.down();

  const double atol = 5e-3, rtol = 1e-2, lseTol = 1e-3;
  double maxErr = 0, maxLseErr = 0;
  int bad = 0, badLse = 0, maskedRows = 0;
  std::vector<double> s(Skv), acc(D);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < Sq; ++i) {
        double mx = -INFINITY;
        for (int j = 0; j < Skv; ++j) {
          bool keep = !c.causal || (long long)j <= (long long)i + Skv - Sq;
          double dot = 0;
          if (keep)
            for (int d = 0; d < D; ++d)
              dot += (double)at(Q, Sq, b, h, i, d) * at(K, Skv, b, h, j, d);
          s[j] = keep ? dot * scale : -INFINITY;
          mx = std::max(mx, s[j]);
        }
        double l = 0;
        std::fill(acc.begin(), acc.end(), 0.0);
        if (mx != -INFINITY)
          for (int j = 0; j < Skv; ++j) {
            double p = std::exp(s[j] - mx);
            l += p;
            if (p != 0)
              for (int d = 0; d < D; ++d)
                acc[d] += p * at(V, Skv, b, h, j, d);
          }
        maskedRows += mx == -INFINITY;
        auto st = strides(Sq);
        for (int d = 0; d < D; ++d) {
          double want = l > 0 ? acc[d] / l : 0.0;
          double got = bf2f(O[b * st[0] + h * st[1] + i * st[2] + d]);
          double err = std::fabs(got - want);
          if (!(err <= atol + rtol * std::fabs(want)))
            ++bad;
          if (!(err <= maxErr))
            maxErr = std::isnan(err) ? INFINITY : std::max(maxErr, err);
        }
        double lw = l > 0 ? mx + std::log(l) : -INFINITY;
        double lg = L[(b * H + h) * Sq + i];
        if (std::isinf(lw)) {
          badLse += !(std::isinf(lg) && lg < 0);
        } else {
          double err = std::fabs(lg - lw);
          badLse += !(err <= lseTol);
          maxLseErr = std::isnan(err) ? INFINITY : std::max(maxLseErr, err);
        }
      }
  char name[200];
  std::snprintf(
      name, sizeof name, "fa2 forward D=%d %s B=%d H=%d Sq=%d Skv=%d%s (%d fully masked rows)", D,
      c.causal ? "causal" : "non-causal", B, H, Sq, Skv, c.bshd ? " BSHD-strided" : "", maskedRows);
  char detail[200];
  std::snprintf(
      detail, sizeof detail,
      "O max_err=%.3g (atol %.0e + rtol %.0e), bad=%d; lse max_err=%.3g (tol %.0e), bad=%d", maxErr,
      atol, rtol, bad, maxLseErr, lseTol, badLse);
  report(name, bad == 0 && badLse == 0, detail);
}

/// Not a pass/fail test: throughput of the D=128 kernel on a larger problem.
void benchFa2(bool causal) {
  const int B = 4, H = 16, S = 4096, D = 128;
  DevBuf<uint16_t> q((size_t)B * H * S * D), k(q.n), v(q.n), o(q.n);
  DevBuf<float> l((size_t)B * H * S);
  CUDA_CHECK(cudaMemset(q.p, 0x3c, q.n * 2));
  CUDA_CHECK(cudaMemset(k.p, 0x3c, k.n * 2));
  CUDA_CHECK(cudaMemset(v.p, 0x3c, v.n * 2));
  auto r = [&](void* p) {
    return makeRef<4>(p, {B, H, S, D}, {(long long)H * S * D, (long long)S * D, D, 1});
  };
  auto lr = makeRef<3>(l.p, {B, H, S}, {(long long)H * S, S, 1});
  for (int i = 0; i < 3; ++i)
    launchFa2Any(D, causal, r(q.p), r(k.p), r(v.p), r(o.p), lr, 0.088f);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  const int iters = 10;
  for (int i = 0; i < iters; ++i)
    launchFa2Any(D, causal, r(q.p), r(k.p), r(v.p), r(o.p), lr, 0.088f);
  cudaEventRecord(e1);
  CUDA_CHECK(cudaEventSynchronize(e1));
  float ms;
  cudaEventElapsedTime(&ms, e0, e1);
  ms /= iters;
  double flops = 4.0 * B * H * (double)S * S * D * (causal ? 0.5 : 1.0);
  std::printf(
      "INFO fa2 forward D=128 %s B=%d H=%d S=%d: %.3f ms, %.1f TFLOP/s (mma.sync, not tuned)\n",
      causal ? "causal" : "non-causal", B, H, S, ms, flops / ms / 1e9);
}

int main(int argc, char** argv) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("SKIP no CUDA device\n");
    return 2;
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);

  testLoads();

  testFragIndex<64, 64, 4>();
  testFragIndex<64, 40, 2>();
  testFragIndex<32, 8, 1>();
  using O3 = Origin<3>;
  testStoreFrag<bf16, 64, 64, 4>("bf16 clipped window (17x15 in bounds)", {3, 37, 45},
                                 {37 * 48, 48, 1}, O3{{2, 20, 30}}, 1, 2);
  testStoreFrag<bf16, 64, 64, 4>("bf16 odd column origin (unaligned pairs)", {3, 70, 75},
                                 {70 * 75, 75, 1}, O3{{1, 3, 31}}, 1, 2);
  testStoreFrag<bf16, 128, 64, 8>("bf16 aligned, rows in bounds (16-byte chunks)", {3, 256, 192},
                                  {256 * 192, 192, 1}, O3{{2, 128, 64}}, 1, 2);
  testStoreFrag<bf16, 64, 64, 4>("bf16 aligned, last rows and columns out", {2, 100, 120},
                                 {100 * 128, 128, 1}, O3{{1, 64, 64}}, 1, 2);
  testStoreFrag<fp16, 32, 24, 2>("fp16 transposed dst (colDim stride 40)", {2, 30, 40},
                                 {1200, 40, 1}, O3{{1, 5, 22}}, 2, 1);
  testStoreFrag<float, 64, 40, 4>("float negative origin", {2, 50, 50}, {2500, 50, 1},
                                  O3{{0, -9, -3}}, 1, 2);
  testScanRows<256, 64, 128>(); // GLA states kernel: two lanes per column
  testScanRows<128, 64, 128>(); // GLA output kernel: one lane, rows in batches
  testScanRows<256, 64, 24>();  // eight lanes, columns fewer than a round
  testScanRows<128, 16, 200>(); // more columns than threads, a partial last round
  testScanRows<256, 32, 8>();   // four lanes (each keeps 8 rows)
  testLoadFrag<bf16, 64, 64, 4>();
  testLoadFrag<bf16, 64, 40, 2>();
  testLoadFrag<fp16, 32, 24, 1>();
  testLoadFrag<bf16, 64, 64, 4, false>();
  testStoreFragShared<bf16, 64, 64, 4>();
  testStoreFragShared<fp16, 64, 128, 4>();
  testStoreFragShared<bf16, 128, 64, 8>();
  testFragHalves<bf16, 64, 64, 4, true>();
  testFragHalves<bf16, 64, 64, 4, false>();
  testFragHalves<fp16, 128, 40, 8, true>();

  testGemm<0, true, bf16, 64, 48, 48, 4>();
  testGemm<0, false, bf16, 64, 72, 64, 2>();
  testGemm<0, true, fp16, 32, 64, 32, 2>();
  testGemm<0, false, fp16, 64, 24, 32, 4>();
  testGemm<0, true, bf16, 64, 64, 128, 4>();
  testGemm<1, false, bf16, 64, 128, 64, 4>();
  testGemm<1, true, bf16, 64, 80, 32, 2>();
  testGemm<2, false, bf16, 64, 128, 64, 4>();
  testGemm<2, false, fp16, 32, 40, 48, 1>();
  // wgmma (sm_90a): Q*K^T and P*V shapes of the Hopper attention kernels.
  testGemm<3, true, bf16, 64, 128, 128, 4>();
  testGemm<3, true, bf16, 128, 64, 64, 8>();
  testGemm<3, true, fp16, 128, 128, 192, 8>();
  testGemm<3, false, fp16, 64, 128, 64, 4>();
  testGemm<4, false, bf16, 128, 128, 64, 8>();
  testGemm<4, false, bf16, 64, 256, 128, 4>();
  testGemm<4, false, fp16, 128, 192, 128, 8>();
  testGemm<4, true, fp16, 64, 64, 64, 4>();
  testGemm<6, true, bf16, 128, 128, 128, 8>();
  testGemm<6, true, bf16, 64, 80, 256, 4>();
  testGemm<6, false, fp16, 64, 128, 64, 4>();
  testGemm<7, false, bf16, 128, 128, 128, 8>();
  testGemm<7, true, fp16, 64, 64, 64, 4>();
  testGemm<5, false, bf16, 64, 64, 64, 4>();
  testGemm<5, false, bf16, 256, 32, 64, 4>();
  testGemm<5, false, fp16, 32, 48, 32, 2>();
  testGemm<5, true, bf16, 64, 32, 64, 4>();
  testGemm<5, false, bf16, 128, 64, 64, 8>();

  testReduce<64, 64, 4>();
  testReduce<64, 24, 2>();

  testMath();
  testExp2Poly();
  testSpecials();
  testKept();

  const AttnCase cases[] = {
      {2, 3, 200, 137, 128, false, false}, {2, 3, 200, 137, 128, true, false},
      {2, 3, 77, 300, 128, true, false},   {1, 2, 150, 150, 128, true, true},
      {2, 3, 77, 300, 64, false, false},   {2, 3, 200, 137, 64, true, false},
      {1, 2, 300, 100, 64, true, false},   {1, 3, 129, 65, 64, false, true},
  };
  for (const auto& c : cases)
    testFa2(c);

  if (argc > 1 && std::string(argv[1]) == "--bench") {
    benchFa2(false);
    benchFa2(true);
  }

  std::printf("%s: %d failure(s)\n", gFailures ? "FAILED" : "ALL PASSED", gFailures);
  return gFailures ? 1 : 0;
}
