//===- CudaDriver.h - The CUDA driver API, loaded with dlopen ---*- C++ -*-===//
//
// The runtime never links libcuda: it opens "libcuda.so.1" on first use and resolves the entry
// points it needs by their versioned names (the `_v2` symbols that cuda.h maps the plain names
// to). On a machine without a driver every call returns an error Status instead of failing to
// load. Only cuda.h's types are used, so the toolkit headers are needed at build time.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_CUDADRIVER_H
#define METAATTN_RUNTIME_CUDADRIVER_H

#include "metaattn/Runtime/Status.h"

#include <cuda.h>

#include <string>
#include <string_view>

namespace metaattn::rt {

/// X(member, "exported symbol", "fallback symbol"): each driver entry point the runtime calls.
/// The member is named after the symbol that cuda.h's macros select, so `driver.cuMemAlloc_v2`
/// reads exactly like the function it calls.
#define METAATTN_CUDA_DRIVER_FUNCTIONS(X)                                                          \
  X(cuInit, "cuInit", nullptr)                                                                     \
  X(cuDriverGetVersion, "cuDriverGetVersion", nullptr)                                             \
  X(cuGetErrorName, "cuGetErrorName", nullptr)                                                     \
  X(cuGetErrorString, "cuGetErrorString", nullptr)                                                 \
  X(cuDeviceGetCount, "cuDeviceGetCount", nullptr)                                                 \
  X(cuDeviceGet, "cuDeviceGet", nullptr)                                                           \
  X(cuDeviceGetName, "cuDeviceGetName", nullptr)                                                   \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", nullptr)                                         \
  X(cuDeviceTotalMem_v2, "cuDeviceTotalMem_v2", nullptr)                                           \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", nullptr)                                 \
  X(cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease_v2", nullptr)                         \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", nullptr)                                                   \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", nullptr)                                                   \
  X(cuCtxSynchronize, "cuCtxSynchronize", nullptr)                                                 \
  X(cuMemAlloc_v2, "cuMemAlloc_v2", nullptr)                                                       \
  X(cuMemFree_v2, "cuMemFree_v2", nullptr)                                                         \
  X(cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2", nullptr)                                                   \
  X(cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2", nullptr)                                                   \
  X(cuMemcpyDtoD_v2, "cuMemcpyDtoD_v2", nullptr)                                                   \
  X(cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync_v2", nullptr)                                         \
  X(cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync_v2", nullptr)                                         \
  X(cuMemsetD8_v2, "cuMemsetD8_v2", nullptr)                                                       \
  X(cuMemsetD8Async, "cuMemsetD8Async", nullptr)                                                   \
  X(cuStreamCreate, "cuStreamCreate", nullptr)                                                     \
  X(cuStreamDestroy_v2, "cuStreamDestroy_v2", nullptr)                                             \
  X(cuStreamSynchronize, "cuStreamSynchronize", nullptr)                                           \
  X(cuEventCreate, "cuEventCreate", nullptr)                                                       \
  X(cuEventDestroy_v2, "cuEventDestroy_v2", nullptr)                                               \
  X(cuEventRecord, "cuEventRecord", nullptr)                                                       \
  X(cuEventSynchronize, "cuEventSynchronize", nullptr)                                             \
  X(cuEventElapsedTime_v2, "cuEventElapsedTime_v2", "cuEventElapsedTime")                          \
  X(cuModuleLoadData, "cuModuleLoadData", nullptr)                                                 \
  X(cuModuleUnload, "cuModuleUnload", nullptr)                                                     \
  X(cuModuleGetFunction, "cuModuleGetFunction", nullptr)                                           \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", nullptr)                                             \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", nullptr)                                             \
  X(cuLaunchKernel, "cuLaunchKernel", nullptr)                                                     \
  X(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", nullptr)

/// The resolved driver entry points. Obtain the process-wide instance with `CudaDriver::get()`.
struct CudaDriver {
#define METAATTN_DECLARE_MEMBER(member, symbol, fallback) decltype(&::member) member = nullptr;
  METAATTN_CUDA_DRIVER_FUNCTIONS(METAATTN_DECLARE_MEMBER)
#undef METAATTN_DECLARE_MEMBER

  /// The path libcuda was loaded from.
  std::string libraryPath;
  /// cuDriverGetVersion(), e.g. 13000.
  int driverVersion = 0;

  /// Loads libcuda.so.1, resolves every entry point and calls cuInit(0), once per process.
  /// Later calls return the same instance or the same error (e.g. "cannot load the CUDA driver
  /// ... libcuda.so.1: cannot open shared object file").
  static StatusOr<const CudaDriver *> get();

  /// Success for CUDA_SUCCESS; otherwise an error "<what>: CUDA_ERROR_X (<driver's text>)".
  Status check(CUresult result, std::string_view what) const;

  /// "CUDA_ERROR_X (<driver's description>)" for `result`.
  std::string describe(CUresult result) const;
};

} // namespace metaattn::rt

#endif // METAATTN_RUNTIME_CUDADRIVER_H
