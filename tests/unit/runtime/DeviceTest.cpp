//===- DeviceTest.cpp - Device memory, loading and launch (needs a GPU) --------------------===//
//
// Every test here skips with "no CUDA device: <reason>" when Device::get() fails, e.g. on a
// machine without libcuda.so.1; they run on the GPU machine.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Runtime/Device.h"
#include "metaattn/Runtime/KernelCache.h"
#include "metaattn/Runtime/Launch.h"
#include "metaattn/Runtime/Nvrtc.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace metaattn::rt;
using namespace metaattn::rt::test;

namespace {

#define GET_DEVICE_OR_SKIP(var)                                                                    \
  StatusOr<Device *> var##OrError = Device::get();                                                 \
  if (!var##OrError.ok())                                                                          \
    GTEST_SKIP() << "no CUDA device: " << var##OrError.message();                                  \
  Device &var = **var##OrError

#define SKIP_WITHOUT_NVRTC()                                                                       \
  do {                                                                                             \
    StatusOr<const Nvrtc *> nvrtc = Nvrtc::get();                                                  \
    if (!nvrtc.ok())                                                                               \
      GTEST_SKIP() << "NVRTC not available: " << nvrtc.message();                                  \
  } while (false)

/// y[i] = 2 * x[i] + 1 through the TensorRef ABI, with shared memory of any size.
const char *kAffineKernel = R"cuda(
template <int R> struct TensorRef { void *data; long long sizes[R]; long long strides[R]; };
extern "C" __global__ void affine(TensorRef<1> x, TensorRef<1> y) {
  extern __shared__ float scratch[];
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  scratch[threadIdx.x] = i < x.sizes[0] ? ((const float *)x.data)[i * x.strides[0]] : 0.f;
  __syncthreads();
  if (i < y.sizes[0])
    ((float *)y.data)[i * y.strides[0]] = 2.f * scratch[threadIdx.x] + 1.f;
}
)cuda";

KernelSignature affineSignature(int dynamicSharedBytes = 128 * sizeof(float)) {
  KernelSignature signature;
  signature.entry = "affine";
  TensorParam x, y;
  x.name = "x";
  x.rank = 1;
  x.symbols = {"N"};
  x.lastDimContiguous = false;
  y.name = "y";
  y.rank = 1;
  y.symbols = {"N"};
  y.isOutput = true;
  signature.params = {x, y};
  signature.grid[0] = GridDim{/*tensor=*/1, /*dim=*/0, /*divisor=*/128};
  signature.threads = 128;
  signature.dynamicSharedBytes = dynamicSharedBytes;
  return signature;
}

/// A 1-D CUDA DLTensor over `buffer`.
struct DeviceTensor {
  int64_t shape[1];
  int64_t strides[1];
  DLTensor tensor{};
  DeviceTensor(const DeviceBuffer &buffer, int64_t size, int64_t stride,
               DLDataType dtype = kFloat32) {
    shape[0] = size;
    strides[0] = stride;
    tensor.data = buffer.data();
    tensor.device = {kDLCUDA, 0};
    tensor.ndim = 1;
    tensor.dtype = dtype;
    tensor.shape = shape;
    tensor.strides = strides;
  }
};

StatusOr<LoadedKernel> loadAffine(Device &device) {
  CompileOptions options;
  options.arch = detectArch(device);
  METAATTN_ASSIGN_OR_RETURN(
      auto compiled, KernelCache::global().getOrCompile(kAffineKernel, "affine.cu", options));
  return device.load(*compiled, "affine");
}

TEST(DeviceTest, WithoutADriverTheErrorSaysWhy) {
  StatusOr<Device *> device = Device::get();
  if (device.ok())
    GTEST_SKIP() << "a CUDA device is present";
  StatusOr<const CudaDriver *> driver = CudaDriver::get();
  if (!driver.ok()) {
    EXPECT_NE(driver.message().find("libcuda.so.1"), std::string::npos) << driver.message();
    EXPECT_NE(device.message().find("CUDA driver"), std::string::npos) << device.message();
  }
}

TEST(DeviceTest, Properties) {
  GET_DEVICE_OR_SKIP(device);
  const DeviceProperties &props = device.properties();
  EXPECT_FALSE(props.name.empty());
  EXPECT_GE(props.computeMajor, 7);
  EXPECT_GT(props.smCount, 0);
  EXPECT_GE(props.maxSharedPerBlockOptin, props.maxSharedPerBlock);
  EXPECT_EQ(Device::get().value(), &device);
  EXPECT_FALSE(Device::get(1000).ok());
}

TEST(DeviceTest, MemoryRoundTrip) {
  GET_DEVICE_OR_SKIP(device);
  std::vector<int> host(1000), back(1000, -1);
  for (int i = 0; i < 1000; ++i)
    host[i] = i * 7;
  StatusOr<DeviceBuffer> buffer = device.allocate(host.size() * sizeof(int));
  ASSERT_TRUE(buffer.ok()) << buffer.message();
  ASSERT_TRUE(device.copyToDevice(buffer->get(), host.data(), host.size() * sizeof(int)).ok());
  ASSERT_TRUE(device.copyToHost(back.data(), buffer->get(), back.size() * sizeof(int)).ok());
  EXPECT_EQ(back, host);
  ASSERT_TRUE(device.memset(buffer->get(), 0, back.size() * sizeof(int)).ok());
  ASSERT_TRUE(device.copyToHost(back.data(), buffer->get(), back.size() * sizeof(int)).ok());
  EXPECT_EQ(back, std::vector<int>(1000, 0));
}

TEST(DeviceTest, LaunchThroughTensorRefs) {
  GET_DEVICE_OR_SKIP(device);
  SKIP_WITHOUT_NVRTC();
  StatusOr<LoadedKernel> kernel = loadAffine(device);
  ASSERT_TRUE(kernel.ok()) << kernel.message();

  constexpr int64_t n = 1000, stride = 3; // x is strided, n not a multiple of the block
  std::vector<float> hostX(n * stride), hostY(n, -1.f);
  for (int64_t i = 0; i < n * stride; ++i)
    hostX[i] = float(i % 97) - 13.f;
  auto x = device.allocate(hostX.size() * sizeof(float));
  auto y = device.allocate(hostY.size() * sizeof(float));
  ASSERT_TRUE(x.ok() && y.ok());
  ASSERT_TRUE(device.copyToDevice(x->get(), hostX.data(), hostX.size() * sizeof(float)).ok());
  ASSERT_TRUE(device.memset(y->get(), 0, hostY.size() * sizeof(float)).ok());

  StatusOr<Stream> stream = device.createStream();
  StatusOr<Event> start = device.createEvent(), stop = device.createEvent();
  ASSERT_TRUE(stream.ok() && start.ok() && stop.ok());
  DeviceTensor xTensor(*x, n, stride), yTensor(*y, n, 1);
  ASSERT_TRUE(start->record(stream->get()).ok());
  Status launched =
      launch(*kernel, affineSignature(), {&xTensor.tensor, &yTensor.tensor}, stream->get());
  ASSERT_TRUE(launched.ok()) << launched.message();
  ASSERT_TRUE(stop->record(stream->get()).ok());
  ASSERT_TRUE(stream->synchronize().ok());
  StatusOr<float> ms = Event::elapsedMs(*start, *stop);
  ASSERT_TRUE(ms.ok()) << ms.message();
  EXPECT_GE(*ms, 0.f);

  ASSERT_TRUE(device.copyToHost(hostY.data(), y->get(), hostY.size() * sizeof(float)).ok());
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(hostY[i], 2.f * hostX[i * stride] + 1.f) << "i = " << i;
}

TEST(DeviceTest, WrongDtypeIsRejectedBeforeLaunch) {
  GET_DEVICE_OR_SKIP(device);
  SKIP_WITHOUT_NVRTC();
  StatusOr<LoadedKernel> kernel = loadAffine(device);
  ASSERT_TRUE(kernel.ok()) << kernel.message();
  constexpr int64_t n = 256;
  auto x = device.allocate(n * sizeof(float));
  auto y = device.allocate(n * sizeof(float));
  ASSERT_TRUE(x.ok() && y.ok());
  ASSERT_TRUE(device.memset(x->get(), 0x3f, n * sizeof(float)).ok());
  ASSERT_TRUE(device.memset(y->get(), 0, n * sizeof(float)).ok());
  DeviceTensor xTensor(*x, n, 1), yTensor(*y, n, 1, kInt32);
  Status status = launch(*kernel, affineSignature(), {&xTensor.tensor, &yTensor.tensor});
  EXPECT_EQ(status.message(), "launch of 'affine': tensor 'y': dtype is int32, expected float32");
  ASSERT_TRUE(device.synchronize().ok());
  std::vector<float> hostY(n, -1.f);
  ASSERT_TRUE(device.copyToHost(hostY.data(), y->get(), n * sizeof(float)).ok());
  EXPECT_EQ(hostY, std::vector<float>(n, 0.f)) << "the kernel ran although validation failed";
}

TEST(DeviceTest, EmptyGridLaunchesNothing) {
  GET_DEVICE_OR_SKIP(device);
  SKIP_WITHOUT_NVRTC();
  StatusOr<LoadedKernel> kernel = loadAffine(device);
  ASSERT_TRUE(kernel.ok()) << kernel.message();
  DeviceBuffer none;
  DeviceTensor xTensor(none, 0, 1), yTensor(none, 0, 1);
  Status status = launch(*kernel, affineSignature(), {&xTensor.tensor, &yTensor.tensor});
  EXPECT_TRUE(status.ok()) << status.message();
}

TEST(DeviceTest, LargeDynamicSharedMemory) {
  GET_DEVICE_OR_SKIP(device);
  SKIP_WITHOUT_NVRTC();
  int optin = device.properties().maxSharedPerBlockOptin;
  if (optin <= 48 * 1024)
    GTEST_SKIP() << "device allows only " << optin << " bytes of shared memory per block";
  StatusOr<LoadedKernel> kernel = loadAffine(device);
  ASSERT_TRUE(kernel.ok()) << kernel.message();
  constexpr int64_t n = 300;
  auto x = device.allocate(n * sizeof(float));
  auto y = device.allocate(n * sizeof(float));
  ASSERT_TRUE(x.ok() && y.ok());
  ASSERT_TRUE(device.memset(x->get(), 0, n * sizeof(float)).ok());
  DeviceTensor xTensor(*x, n, 1), yTensor(*y, n, 1);
  Status status = launch(*kernel, affineSignature(100 * 1024), {&xTensor.tensor, &yTensor.tensor});
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(device.synchronize().ok());
  Status tooMuch =
      launch(*kernel, affineSignature(optin + 1024), {&xTensor.tensor, &yTensor.tensor});
  EXPECT_NE(tooMuch.message().find("bytes of dynamic shared memory"), std::string::npos)
      << tooMuch.message();
}

TEST(DeviceTest, ModulesAreCachedPerKey) {
  GET_DEVICE_OR_SKIP(device);
  SKIP_WITHOUT_NVRTC();
  StatusOr<LoadedKernel> first = loadAffine(device);
  StatusOr<LoadedKernel> second = loadAffine(device);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->module, second->module);
  EXPECT_EQ(first->function, second->function);
  CompiledKernel empty;
  EXPECT_FALSE(device.load(empty, "affine").ok());
}

} // namespace
