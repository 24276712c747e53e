// Throughput of special-function (MUFU) and conversion instructions on the GPU: every thread of
// a full grid runs 8 independent dependency chains of one instruction, so the issue rate, not
// the latency, sets the time. Prints results per clock and multiprocessor (the kernel's time by
// events, at the device's maximum clock) for each instruction, then the largest absolute error of
// tanh.approx in f32 and in f16 (converted from and back to f32) against the host's double tanh
// over [-8, 8]. A development aid for the question of which per-element ops of an attention kernel
// share the special-function unit with ex2, and at what rate; CI does not build it.
//   nvcc -O3 -arch=sm_90a tools/scripts/mufu_rate.cu -o mufu_rate && ./mufu_rate
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

constexpr int kChains = 8, kIters = 4096, kThreads = 512;

#define OP_KERNEL(NAME, TYPE, CONSTRAINT, ASM, INIT, PER_INST)                                     \
  __global__ void NAME(TYPE *out, long long *cycles) {                                             \
    TYPE v[kChains];                                                                               \
    for (int c = 0; c < kChains; ++c)                                                              \
      v[c] = INIT(threadIdx.x + c);                                                                \
    __syncthreads();                                                                               \
    long long start = clock64();                                                                   \
    for (int i = 0; i < kIters; ++i)                                                               \
      _Pragma("unroll") for (int c = 0; c < kChains;                                               \
                             ++c) asm volatile(ASM : "+" CONSTRAINT(v[c]));                        \
    __syncthreads();                                                                               \
    if (threadIdx.x == 0)                                                                          \
      cycles[blockIdx.x] = clock64() - start;                                                      \
    TYPE s = v[0];                                                                                 \
    for (int c = 1; c < kChains; ++c)                                                              \
      s ^= v[c];                                                                                   \
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;                                                \
  }                                                                                                \
  constexpr int NAME##_per_inst = PER_INST;

__device__ unsigned f32init(unsigned i) { return __float_as_uint(0.001f * (float)(i % 97)); }
__device__ unsigned short h16init(unsigned i) { return (unsigned short)(0x2000 + i % 97); }
__device__ unsigned h2init(unsigned i) { return 0x20002000u + i % 97; }
__device__ unsigned i32init(unsigned i) { return i; }

OP_KERNEL(tanh_f32, unsigned, "r", "tanh.approx.f32 %0, %0;", f32init, 1)
OP_KERNEL(ex2_f32, unsigned, "r", "ex2.approx.ftz.f32 %0, %0;", f32init, 1)
OP_KERNEL(tanh_f16, unsigned short, "h", "tanh.approx.f16 %0, %0;", h16init, 1)
OP_KERNEL(ex2_f16, unsigned short, "h", "ex2.approx.f16 %0, %0;", h16init, 1)
OP_KERNEL(tanh_f16x2, unsigned, "r", "tanh.approx.f16x2 %0, %0;", h2init, 2)
OP_KERNEL(tanh_bf16x2, unsigned, "r", "tanh.approx.bf16x2 %0, %0;", h2init, 2)
OP_KERNEL(ex2_bf16x2, unsigned, "r", "ex2.approx.ftz.bf16x2 %0, %0;", h2init, 2)
OP_KERNEL(i2f_s32, unsigned, "r", "cvt.rn.f32.s32 %0, %0;", i32init, 1)
OP_KERNEL(ffma_f32, unsigned, "r", "fma.rn.f32 %0, %0, %0, %0;", f32init, 1)

template <typename T>
static void run(const char *name, void (*kernel)(T *, long long *), int perInst) {
  int sms = 0, perSm = 0, clockKhz = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, 0);
  // Ten waves of resident blocks, timed with events: results per second over the maximum clock
  // and the multiprocessors (a lower bound on the rate per clock if the clock runs below it).
  int blocks = 10 * sms * perSm;
  T *out;
  long long *cycles;
  cudaMalloc(&out, sizeof(T) * blocks * kThreads);
  cudaMalloc(&cycles, sizeof(long long) * blocks);
  cudaEvent_t begin, end;
  cudaEventCreate(&begin);
  cudaEventCreate(&end);
  kernel<<<blocks, kThreads>>>(out, cycles); // warm-up
  cudaEventRecord(begin);
  kernel<<<blocks, kThreads>>>(out, cycles);
  cudaEventRecord(end);
  cudaEventSynchronize(end);
  float ms = 0;
  cudaEventElapsedTime(&ms, begin, end);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::printf("%-12s error: %s\n", name, cudaGetErrorString(err));
    return;
  }
  double results = (double)blocks * kThreads * kChains * kIters * perInst;
  double perClock = results / (ms * 1e-3) / (clockKhz * 1e3) / sms;
  std::printf(
      "%-12s %6.1f results/clock/SM  (%5.1f instructions/clock/SM; %.3f ms at up to %d MHz)\n",
      name, perClock, perClock / perInst, ms, clockKhz / 1000);
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  cudaFree(out);
  cudaFree(cycles);
}

__global__ void tanhBoth(const float *x, float *f32, float *f16, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float a, b;
  asm("tanh.approx.f32 %0, %1;" : "=f"(a) : "f"(x[i]));
  asm("{ .reg .f16 t; cvt.rn.f16.f32 t, %1; tanh.approx.f16 t, t; cvt.f32.f16 %0, t; }"
      : "=f"(b)
      : "f"(x[i]));
  f32[i] = a;
  f16[i] = b;
}

static void tanhErrors() {
  const int n = 1 << 20;
  std::vector<float> x(n), a(n), b(n);
  for (int i = 0; i < n; ++i)
    x[i] = -8.0f + 16.0f * (float)i / (float)(n - 1);
  float *dx, *da, *db;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  tanhBoth<<<n / 256, 256>>>(dx, da, db, n);
  cudaMemcpy(a.data(), da, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), db, n * sizeof(float), cudaMemcpyDeviceToHost);
  double ea = 0, eb = 0, ra = 0, rb = 0;
  for (int i = 0; i < n; ++i) {
    double t = std::tanh((double)x[i]);
    ea = std::fmax(ea, std::fabs(a[i] - t));
    eb = std::fmax(eb, std::fabs(b[i] - t));
    if (std::fabs(t) > 1e-3) {
      ra = std::fmax(ra, std::fabs(a[i] - t) / std::fabs(t));
      rb = std::fmax(rb, std::fabs(b[i] - t) / std::fabs(t));
    }
  }
  std::printf(
      "tanh.approx over [-8, 8]: f32 abs %.3g (2^%.1f) rel %.3g; f16 abs %.3g (2^%.1f) rel %.3g\n",
      ea, std::log2(ea), ra, eb, std::log2(eb), rb);
  cudaFree(dx);
  cudaFree(da);
  cudaFree(db);
}

int main() {
  tanhErrors();
  run("tanh f32", tanh_f32, tanh_f32_per_inst);
  run("ex2 f32", ex2_f32, ex2_f32_per_inst);
  run("tanh f16", tanh_f16, tanh_f16_per_inst);
  run("ex2 f16", ex2_f16, ex2_f16_per_inst);
  run("tanh f16x2", tanh_f16x2, tanh_f16x2_per_inst);
  run("tanh bf16x2", tanh_bf16x2, tanh_bf16x2_per_inst);
  run("ex2 bf16x2", ex2_bf16x2, ex2_bf16x2_per_inst);
  run("i2f s32", i2f_s32, i2f_s32_per_inst);
  run("ffma f32", ffma_f32, ffma_f32_per_inst);
  return 0;
}
