//===- CudaDriver.cpp - Loading libcuda with dlopen ----------------------------------------===//

#include "metaattn/Runtime/CudaDriver.h"

#include "Debug.h"
#include "DynamicLibrary.h"

namespace metaattn::rt {

namespace {

StatusOr<const CudaDriver *> loadDriver() {
  StatusOr<detail::DynamicLibrary> library =
      detail::DynamicLibrary::open({"libcuda.so.1", "libcuda.so"}, "the CUDA driver (libcuda)");
  if (!library.ok())
    return library.status();

  // Leaked on purpose: the driver table lives as long as the process.
  auto *driver = new CudaDriver();
  driver->libraryPath = library->path();
  std::string missing;
#define METAATTN_RESOLVE_MEMBER(member, symbol, fallback)                                          \
  if (!detail::resolveSymbol(*library, &driver->member, {symbol, fallback}))                       \
    missing += fmt::format(" {}", symbol);
  METAATTN_CUDA_DRIVER_FUNCTIONS(METAATTN_RESOLVE_MEMBER)
#undef METAATTN_RESOLVE_MEMBER
  if (!missing.empty()) {
    std::string path = driver->libraryPath;
    delete driver;
    return Status::error("the CUDA driver at {} is too old: it does not export{}", path, missing);
  }

  CUresult result = driver->cuInit(0);
  if (result != CUDA_SUCCESS) {
    Status status = driver->check(result, "cuInit");
    delete driver;
    return status.withContext("the CUDA driver is installed but cannot be initialised");
  }
  driver->cuDriverGetVersion(&driver->driverVersion);
  detail::debugLog("CUDA driver version {}", driver->driverVersion);
  return static_cast<const CudaDriver *>(driver);
}

} // namespace

StatusOr<const CudaDriver *> CudaDriver::get() {
  static const StatusOr<const CudaDriver *> instance = loadDriver();
  return instance;
}

std::string CudaDriver::describe(CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (!cuGetErrorName || cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (!cuGetErrorString || cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  return fmt::format("{} ({})", name ? name : fmt::format("CUresult {}", int(result)),
                     text ? text : "no description");
}

Status CudaDriver::check(CUresult result, std::string_view what) const {
  if (result == CUDA_SUCCESS)
    return Status::success();
  return Status::error("{}: {}", what, describe(result));
}

} // namespace metaattn::rt
