// How fast the multiprocessors can pull data out of L2 (and, for a footprint larger than L2,
// out of memory): the question behind the bias matrix's 0.64x (benchmarks/RESULTS.md, forty-
// seventh session), whose blocks copy 64 KB of f32 bias per kv tile beside the 64 KB of K and V
// that softmax alone already moves at about 4.2 TB/s. Every block of a full grid copies 64 KB
// windows of a buffer into shared memory the way the kernels do, with 16-byte cp.async.cg (the
// bias window's copy) or with bulk copies completing on an mbarrier (TMA's engine, the K and V
// tiles' path), two windows in flight, and the windows of consecutive blocks sharing the same
// data in groups of `share` (the batch entries that read one bias window). Prints TB/s for
// footprints inside L2 (8 and 32 MB) and past it (1 GB), for share 1 and 4. A development aid;
// CI does not build it.
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a tools/scripts/l2_rate.cu -o l2_rate && ./l2_rate
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kWindow = 64 * 1024;    // bytes per window
constexpr int kChunks = kWindow / 16; // 16-byte chunks per window
constexpr int kWindows = 64;          // windows each block copies

__device__ uint32_t smemAddr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// The window block b copies at step i: groups of `share` consecutive blocks read the same one.
__device__ size_t windowOf(int i, int share, size_t windows) {
  size_t group = blockIdx.x / share, groups = (gridDim.x + share - 1) / share;
  return (group + (size_t)i * groups) % windows;
}

__global__ void copyAsync(const char *src, size_t windows, int share, int *sink) {
  extern __shared__ __align__(128) char smem[];
  for (int i = 0; i < kWindows; ++i) {
    const char *from = src + windowOf(i, share, windows) * kWindow;
    char *to = smem + (i & 1) * kWindow;
    for (int c = threadIdx.x; c < kChunks; c += kThreads)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smemAddr(to + c * 16)),
                   "l"(from + c * 16));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 1;");
    __syncthreads();
  }
  asm volatile("cp.async.wait_group 0;");
  __syncthreads();
  if (smem[threadIdx.x] == 123 && smem[kWindow + threadIdx.x] == 45)
    sink[blockIdx.x] = 1;
}

__global__ void copyBulk(const char *src, size_t windows, int share, int *sink) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) uint64_t bar[2];
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s)
      asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(smemAddr(&bar[s])));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  constexpr int kPiece = 16 * 1024; // bytes per bulk copy (4 per window)
  for (int i = 0; i < kWindows + 1; ++i) {
    if (i < kWindows && threadIdx.x == 0) {
      const char *from = src + windowOf(i, share, windows) * kWindow;
      char *to = smem + (i & 1) * kWindow;
      uint32_t b = smemAddr(&bar[i & 1]);
      asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(b), "r"(kWindow));
      for (int p = 0; p < kWindow / kPiece; ++p)
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
            "%2, [%3];" ::"r"(smemAddr(to + p * kPiece)),
            "l"(from + p * kPiece), "r"(kPiece), "r"(b)
            : "memory");
    }
    if (i > 0) { // wait for the previous window (two in flight)
      int j = i - 1;
      uint32_t b = smemAddr(&bar[j & 1]), parity = (j >> 1) & 1, done = 0;
      while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], %2; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(b), "r"(parity));
    }
    __syncthreads();
  }
  if (smem[threadIdx.x] == 123 && smem[kWindow + threadIdx.x] == 45)
    sink[blockIdx.x] = 1;
}

int main() {
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  const size_t big = size_t(1) << 30;
  char *src;
  int *sink;
  cudaMalloc(&src, big);
  cudaMemset(src, 1, big);
  cudaMalloc(&sink, 1 << 20);
  const int smem = 2 * kWindow;
  cudaFuncSetAttribute(copyAsync, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(copyBulk, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  const int blocks = prop.multiProcessorCount; // one block per multiprocessor, as the kernels
  std::printf("%s: %d multiprocessors, L2 %d MB; %d blocks of %d threads, each copying %d "
              "windows of %d KB\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, blocks, kThreads,
              kWindows, kWindow / 1024);
  std::printf("%-8s %-10s %-6s %10s\n", "copy", "footprint", "share", "TB/s");
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int bulk = 0; bulk < 2; ++bulk)
    for (size_t footprint : {size_t(8) << 20, size_t(32) << 20, big})
      for (int share : {1, 4}) {
        size_t windows = footprint / kWindow;
        auto launch = [&] {
          if (bulk)
            copyBulk<<<blocks, kThreads, smem>>>(src, windows, share, sink);
          else
            copyAsync<<<blocks, kThreads, smem>>>(src, windows, share, sink);
        };
        launch(); // warm-up (and the footprint into L2)
        cudaEventRecord(start);
        constexpr int kReps = 20;
        for (int r = 0; r < kReps; ++r)
          launch();
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        double bytes = double(kReps) * blocks * kWindows * kWindow;
        cudaError_t err = cudaGetLastError();
        char size[32];
        std::snprintf(size, sizeof size, "%zu MB", footprint >> 20);
        std::printf("%-8s %-10s %-6d %10.2f%s%s\n", bulk ? "bulk" : "cp.async", size, share,
                    bytes / (ms * 1e-3) / 1e12, err ? "  error: " : "",
                    err ? cudaGetErrorString(err) : "");
      }
  return 0;
}
