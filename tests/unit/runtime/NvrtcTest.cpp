//===- NvrtcTest.cpp - compileCuda with the real NVRTC (no GPU needed) ---------------------===//
//
// Skipped, with the reason, when libnvrtc cannot be loaded.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Runtime/Nvrtc.h"
#include "metaattn/Runtime/Compiler.h"
#include "metaattn/Runtime/KernelCache.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace metaattn::rt;
using namespace metaattn::rt::test;

namespace {

#define SKIP_WITHOUT_NVRTC()                                                                       \
  do {                                                                                             \
    StatusOr<const Nvrtc *> nvrtc = Nvrtc::get();                                                  \
    if (!nvrtc.ok())                                                                               \
      GTEST_SKIP() << "NVRTC not available: " << nvrtc.message();                                  \
  } while (false)

const char *kTinyKernel = R"cuda(
extern "C" __global__ void scale(float *x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= factor;
}
)cuda";

bool contains(const std::string &haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(CompilerTest, DetectArch) {
  EXPECT_EQ(detectArch(9, 0), "sm_90a");
  EXPECT_EQ(detectArch(8, 0), "sm_80");
  EXPECT_EQ(detectArch(8, 9), "sm_89");
  EXPECT_EQ(detectArch(10, 0), "sm_100");
}

TEST(CompilerTest, Flags) {
  CompileOptions options;
  options.includeDirs = {"/opt/include"};
  options.extraFlags = {"-DTILE=64"};
  StatusOr<std::vector<std::string>> flags = nvrtcFlags(options);
  ASSERT_TRUE(flags.ok()) << flags.message();
  auto has = [&](const std::string &flag) {
    return std::find(flags->begin(), flags->end(), flag) != flags->end();
  };
  EXPECT_EQ(flags->front(), "--gpu-architecture=sm_90a");
  EXPECT_TRUE(has("-std=c++17"));
  EXPECT_TRUE(has("-default-device"));
  EXPECT_TRUE(has("-lineinfo"));
  EXPECT_FALSE(has("--use_fast_math"));
  EXPECT_TRUE(has("-ftz=true"));
  EXPECT_TRUE(has("-I/opt/include"));
  EXPECT_EQ(flags->back(), "-DTILE=64");
  if (std::optional<std::string> root = findCudaRoot()) {
    EXPECT_TRUE(has("-I" + *root + "/include"));
  }

  options.fastMath = true;
  options.wantCubin = false;
  flags = nvrtcFlags(options);
  ASSERT_TRUE(flags.ok());
  EXPECT_EQ(flags->front(), "--gpu-architecture=compute_90a");
  EXPECT_TRUE(has("--use_fast_math"));
}

TEST(CompilerTest, BadOptions) {
  CompileOptions options;
  options.arch = "compute_90a";
  EXPECT_EQ(nvrtcFlags(options).message(),
            "a cubin needs a real architecture (sm_90a), not 'compute_90a'");
  options.wantCubin = false;
  EXPECT_TRUE(nvrtcFlags(options).ok());
  options.wantPtx = false;
  EXPECT_EQ(nvrtcFlags(options).message(), "nothing to compile: neither PTX nor a cubin is wanted");
  options = CompileOptions();
  options.arch = "sm9";
  EXPECT_FALSE(nvrtcFlags(options).ok());
}

TEST(NvrtcTest, CompilesForSm90a) {
  SKIP_WITHOUT_NVRTC();
  StatusOr<CompiledKernel> kernel = compileCuda(kTinyKernel, "tiny.cu", CompileOptions());
  ASSERT_TRUE(kernel.ok()) << kernel.message();
  EXPECT_TRUE(contains(kernel->ptx, ".target sm_90a")) << kernel->ptx;
  EXPECT_TRUE(contains(kernel->ptx, ".entry scale")) << kernel->ptx;
  ASSERT_GE(kernel->cubin.size(), 4u);
  EXPECT_EQ(kernel->cubin.substr(0, 4), "\x7f"
                                        "ELF");
  EXPECT_EQ(kernel->arch, "sm_90a");
}

TEST(NvrtcTest, PtxOnlyUsesTheVirtualArchitecture) {
  SKIP_WITHOUT_NVRTC();
  CompileOptions options;
  options.wantCubin = false;
  StatusOr<CompiledKernel> kernel = compileCuda(kTinyKernel, "tiny.cu", options);
  ASSERT_TRUE(kernel.ok()) << kernel.message();
  EXPECT_TRUE(contains(kernel->ptx, ".target sm_90a"));
  EXPECT_TRUE(kernel->cubin.empty());
}

TEST(NvrtcTest, ArchSpecificInstructionsCompile) {
  SKIP_WITHOUT_NVRTC();
  const char *source = R"cuda(
extern "C" __global__ void fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n");
}
)cuda";
  StatusOr<CompiledKernel> kernel = compileCuda(source, "wgmma.cu", CompileOptions());
  ASSERT_TRUE(kernel.ok()) << kernel.message();
  EXPECT_TRUE(contains(kernel->ptx, "wgmma.fence.sync.aligned"));
  EXPECT_TRUE(contains(kernel->ptx, "setmaxnreg.inc.sync.aligned.u32"));
}

TEST(NvrtcTest, SyntaxErrorReturnsTheLog) {
  SKIP_WITHOUT_NVRTC();
  const char *source = "extern \"C\" __global__ void broken() { int x = undefined_name; }";
  StatusOr<CompiledKernel> kernel = compileCuda(source, "broken.cu", CompileOptions());
  ASSERT_FALSE(kernel.ok());
  const std::string &message = kernel.message();
  EXPECT_TRUE(contains(message, "NVRTC failed to compile 'broken.cu' for sm_90a")) << message;
  EXPECT_TRUE(contains(message, "NVRTC_ERROR_COMPILATION")) << message;
  // NVRTC's log: file name, the error and the offending identifier.
  EXPECT_TRUE(contains(message, "broken.cu(1)")) << message;
  EXPECT_TRUE(contains(message, "undefined_name")) << message;
}

TEST(NvrtcTest, InMemoryHeadersIncludingEachOther) {
  SKIP_WITHOUT_NVRTC();
  CompileOptions options;
  options.headers = {{"test/outer.cuh", "#pragma once\n#include \"test/inner.cuh\"\n"
                                        "__device__ int outer() { return inner() + 1; }\n"},
                     {"test/inner.cuh", "#pragma once\n__device__ int inner() { return 41; }\n"}};
  const char *source = R"cuda(
#include "test/outer.cuh"
extern "C" __global__ void answer(int *out) { *out = outer(); }
)cuda";
  StatusOr<CompiledKernel> kernel = compileCuda(source, "headers.cu", options);
  ASSERT_TRUE(kernel.ok()) << kernel.message();
  EXPECT_TRUE(contains(kernel->ptx, ".entry answer"));
}

TEST(NvrtcTest, CudaToolkitHeadersAreFound) {
  SKIP_WITHOUT_NVRTC();
  if (!findCudaRoot())
    GTEST_SKIP() << "no CUDA toolkit root ($CUDA_HOME or /usr/local/cuda)";
  const char *source = R"cuda(
#include <cuda_bf16.h>
extern "C" __global__ void widen(const __nv_bfloat16 *x, float *y) {
  y[threadIdx.x] = __bfloat162float(x[threadIdx.x]);
}
)cuda";
  StatusOr<CompiledKernel> kernel = compileCuda(source, "bf16.cu", CompileOptions());
  ASSERT_TRUE(kernel.ok()) << kernel.message();
}

TEST(NvrtcTest, EmbeddedDeviceHeadersCompile) {
  SKIP_WITHOUT_NVRTC();
  const auto &headers = embeddedDeviceHeaders();
  if (headers.empty())
    GTEST_SKIP() << "runtime/device/metaattn has no .cuh headers yet";
  for (const auto &[name, contents] : headers) {
    EXPECT_EQ(name.rfind("metaattn/", 0), 0u) << name;
    EXPECT_FALSE(contents.empty()) << name;
    std::string source = fmt::format("#include \"{}\"\n"
                                     "extern \"C\" __global__ void probe() {{}}\n",
                                     name);
    StatusOr<CompiledKernel> kernel = compileCuda(source, "probe.cu", CompileOptions());
    EXPECT_TRUE(kernel.ok()) << name << ": " << kernel.message();
  }
}

// SmemTile's column-block layout is the 128-byte swizzle that wgmma and TMA read (a
// compile-time check kept out of the header, where every kernel's compile paid for it).
TEST(NvrtcTest, SmemTileLayoutIsTheWgmmaSwizzle) {
  SKIP_WITHOUT_NVRTC();
  const char *source = R"cuda(
#include "metaattn/warpgroup.cuh"
using namespace metaattn::dev;
static_assert(wg_detail::matchesSwizzle128<SmemTile<bf16, 64, 128>>() &&
                  wg_detail::matchesSwizzle128<SmemTile<fp16, 16, 64>>() &&
                  wg_detail::matchesSwizzle128<SmemTile<bf16, 32, 256>>() &&
                  wg_detail::matchesSwizzle128<SmemTile<bf16, 128, 64>>(),
              "SmemTile's column-block layout is not the 128-byte swizzle wgmma reads");
// A tile stored row-major is not: the check can fail.
struct RowMajor {
  using Elem = bf16;
  static constexpr int kRows = 8, kCols = 64;
  static constexpr int offset(int r, int c) { return r * 64 + c; }
};
static_assert(!wg_detail::matchesSwizzle128<RowMajor>(), "the swizzle check accepts anything");
extern "C" __global__ void probe() {}
)cuda";
  StatusOr<CompiledKernel> kernel = compileCuda(source, "swizzle.cu", CompileOptions());
  ASSERT_TRUE(kernel.ok()) << kernel.message();
}

// SmemTile::fragAt's address (fragOffset) is offset(row, col) of the fragment element for
// every warp, lane and element of wgmma accumulator layouts over f32 and 16-bit tiles (a
// compile-time check); a formula that drops the swizzle fails it.
TEST(NvrtcTest, FragmentReadsOfASharedTileAddressTheirElements) {
  SKIP_WITHOUT_NVRTC();
  const char *source = R"cuda(
#include "metaattn/frag.cuh"
#include "metaattn/smem.cuh"
using namespace metaattn::dev;
template <class Tile, class P, bool Swizzled = true>
constexpr bool fragOffsetsMatch() {
  for (int warp = 0; warp < P::kWarps; ++warp)
    for (int lane = 0; lane < 32; ++lane) {
      const int rt = warp * P::kRowsPerWarp + (lane >> 2), ct = (lane & 3) << 1;
      for (int e = 0; e < P::kElems; ++e) {
        const int rc = P::rowConst(e), cc = P::colConst(e);
        const int want = Tile::offset(rt + rc, ct + cc);
        const int got = Swizzled ? Tile::fragOffset(rt, ct, rc, cc)
                                 : (rt + rc) * Tile::kCols + ct + cc;
        if (want != got)
          return false;
      }
    }
  return true;
}
static_assert(fragOffsetsMatch<SmemTile<float, 128, 128>, Frag<float, 128, 128, 8>>() &&
                  fragOffsetsMatch<SmemTile<float, 64, 64>, Frag<float, 64, 64, 4>>() &&
                  fragOffsetsMatch<SmemTile<float, 192, 96>, Frag<float, 192, 96, 12>>() &&
                  fragOffsetsMatch<SmemTile<float, 128, 32>, Frag<float, 128, 32, 8>>() &&
                  fragOffsetsMatch<SmemTile<bf16, 128, 128>, Frag<float, 128, 128, 8>>() &&
                  fragOffsetsMatch<SmemTile<fp16, 64, 192>, Frag<float, 64, 192, 4>>(),
              "fragOffset is not the tile offset of the fragment's element");
static_assert(!fragOffsetsMatch<SmemTile<float, 128, 128>, Frag<float, 128, 128, 8>, false>(),
              "the check accepts an unswizzled address");
extern "C" __global__ void probe() {}
)cuda";
  StatusOr<CompiledKernel> kernel = compileCuda(source, "fragat.cu", CompileOptions());
  ASSERT_TRUE(kernel.ok()) << kernel.message();
}

// The device library's exp is ex2.approx.ftz as kernels are compiled, and repeated
// evaluations of one value merge: a factor per row computed once for the row's elements.
TEST(NvrtcTest, ExpIsOneFlushingEx2PerDistinctValue) {
  SKIP_WITHOUT_NVRTC();
  const char *source = R"cuda(
#include "metaattn/math.cuh"
extern "C" __global__ void decay(float *x, const float *g) {
  const float last = g[63], row = g[threadIdx.x];
#pragma unroll
  for (int e = 0; e < 8; ++e)
    x[threadIdx.x * 8 + e] *= metaattn::dev::exp(last - row);
}
)cuda";
  StatusOr<CompiledKernel> kernel = compileCuda(source, "decay.cu", CompileOptions());
  ASSERT_TRUE(kernel.ok()) << kernel.message();
  size_t count = 0;
  for (size_t at = kernel->ptx.find("ex2.approx"); at != std::string::npos;
       at = kernel->ptx.find("ex2.approx", at + 1))
    ++count;
  EXPECT_EQ(count, 1u) << kernel->ptx;
  EXPECT_TRUE(contains(kernel->ptx, "ex2.approx.ftz.f32")) << kernel->ptx;
}

TEST(NvrtcTest, KernelCacheWithRealCompiler) {
  SKIP_WITHOUT_NVRTC();
  TempDir dir;
  KernelCacheConfig config;
  config.directory = dir.path();
  KernelCache cache(config);
  auto first = cache.getOrCompile(kTinyKernel, "tiny.cu", CompileOptions());
  ASSERT_TRUE(first.ok()) << first.message();
  EXPECT_EQ(cache.counters().compiles, 1u);

  KernelCache fresh(config);
  auto second = fresh.getOrCompile(kTinyKernel, "tiny.cu", CompileOptions());
  ASSERT_TRUE(second.ok()) << second.message();
  EXPECT_EQ(fresh.counters().diskHits, 1u);
  EXPECT_EQ(fresh.counters().compiles, 0u);
  EXPECT_EQ((*second)->cubin, (*first)->cubin);
  EXPECT_EQ((*second)->ptx, (*first)->ptx);

  auto error = fresh.getOrCompile("this is not C++", "junk.cu", CompileOptions());
  ASSERT_FALSE(error.ok());
  EXPECT_TRUE(contains(error.message(), "NVRTC failed to compile 'junk.cu'"));
}

} // namespace
