//===- Device.cpp - CUDA devices, memory, streams, events and modules ----------------------===//

#include "metaattn/Runtime/Device.h"
#include "metaattn/Runtime/Hash.h"

#include "Debug.h"

#include <map>

namespace metaattn::rt {

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

StatusOr<int> Device::count() {
  METAATTN_ASSIGN_OR_RETURN(const CudaDriver *cuda, CudaDriver::get());
  int devices = 0;
  METAATTN_RETURN_IF_ERROR(cuda->check(cuda->cuDeviceGetCount(&devices), "cuDeviceGetCount"));
  return devices;
}

StatusOr<Device *> Device::get(int ordinal) {
  static std::mutex mutex;
  static std::map<int, Device *> devices; // Never destroyed: contexts live with the process.
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = devices.find(ordinal); it != devices.end())
    return it->second;

  METAATTN_ASSIGN_OR_RETURN(const CudaDriver *cuda, CudaDriver::get());
  METAATTN_ASSIGN_OR_RETURN(int available, count());
  if (ordinal < 0 || ordinal >= available)
    return Status::error("CUDA device {} does not exist ({} device(s) visible)", ordinal,
                         available);

  std::unique_ptr<Device> created(new Device());
  Device &dev = *created;
  dev.cuda = cuda;
  dev.deviceOrdinal = ordinal;
  METAATTN_RETURN_IF_ERROR(cuda->check(cuda->cuDeviceGet(&dev.device, ordinal), "cuDeviceGet"));
  METAATTN_RETURN_IF_ERROR(cuda->check(
      cuda->cuDevicePrimaryCtxRetain(&dev.primaryContext, dev.device), "cuDevicePrimaryCtxRetain"));

  char name[256] = {0};
  if (cuda->cuDeviceGetName(name, sizeof(name) - 1, dev.device) == CUDA_SUCCESS)
    dev.props.name = name;
  struct {
    CUdevice_attribute attribute;
    int *slot;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &dev.props.computeMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &dev.props.computeMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &dev.props.smCount},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, &dev.props.warpSize},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &dev.props.maxThreadsPerBlock},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &dev.props.maxSharedPerBlock},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &dev.props.maxSharedPerBlockOptin},
  };
  for (const auto &entry : attributes)
    METAATTN_RETURN_IF_ERROR(
        cuda->check(cuda->cuDeviceGetAttribute(entry.slot, entry.attribute, dev.device),
                    "cuDeviceGetAttribute"));
  (void)cuda->cuDeviceTotalMem_v2(&dev.props.totalMemory, dev.device);

  detail::debugLog("device {}: {} (sm_{}{}, {} SMs, {} bytes opt-in shared memory per block)",
                   ordinal, dev.props.name, dev.props.computeMajor, dev.props.computeMinor,
                   dev.props.smCount, dev.props.maxSharedPerBlockOptin);
  Device *result = created.release();
  devices[ordinal] = result;
  return result;
}

Status Device::makeCurrent() const {
  CUcontext current = nullptr;
  METAATTN_RETURN_IF_ERROR(cuda->check(cuda->cuCtxGetCurrent(&current), "cuCtxGetCurrent"));
  if (current == primaryContext)
    return Status::success();
  return cuda->check(cuda->cuCtxSetCurrent(primaryContext), "cuCtxSetCurrent");
}

Status Device::synchronize() const {
  METAATTN_RETURN_IF_ERROR(makeCurrent());
  return cuda->check(cuda->cuCtxSynchronize(), "cuCtxSynchronize");
}

StatusOr<CUdeviceptr> Device::alloc(size_t bytes) {
  METAATTN_RETURN_IF_ERROR(makeCurrent());
  CUdeviceptr pointer = 0;
  METAATTN_RETURN_IF_ERROR(cuda->check(cuda->cuMemAlloc_v2(&pointer, bytes ? bytes : 1),
                                       fmt::format("cuMemAlloc of {} bytes", bytes)));
  return pointer;
}

Status Device::free(CUdeviceptr pointer) {
  if (!pointer)
    return Status::success();
  METAATTN_RETURN_IF_ERROR(makeCurrent());
  return cuda->check(cuda->cuMemFree_v2(pointer), "cuMemFree");
}

StatusOr<DeviceBuffer> Device::allocate(size_t bytes) {
  METAATTN_ASSIGN_OR_RETURN(CUdeviceptr pointer, alloc(bytes));
  return DeviceBuffer(this, pointer, bytes);
}

Status Device::copyToDevice(CUdeviceptr destination, const void *source, size_t bytes,
                            CUstream stream) {
  METAATTN_RETURN_IF_ERROR(makeCurrent());
  if (stream)
    return cuda->check(cuda->cuMemcpyHtoDAsync_v2(destination, source, bytes, stream),
                       "cuMemcpyHtoDAsync");
  return cuda->check(cuda->cuMemcpyHtoD_v2(destination, source, bytes), "cuMemcpyHtoD");
}

Status Device::copyToHost(void *destination, CUdeviceptr source, size_t bytes, CUstream stream) {
  METAATTN_RETURN_IF_ERROR(makeCurrent());
  if (stream)
    return cuda->check(cuda->cuMemcpyDtoHAsync_v2(destination, source, bytes, stream),
                       "cuMemcpyDtoHAsync");
  return cuda->check(cuda->cuMemcpyDtoH_v2(destination, source, bytes), "cuMemcpyDtoH");
}

Status Device::memset(CUdeviceptr destination, unsigned char value, size_t bytes, CUstream stream) {
  METAATTN_RETURN_IF_ERROR(makeCurrent());
  if (stream)
    return cuda->check(cuda->cuMemsetD8Async(destination, value, bytes, stream), "cuMemsetD8Async");
  return cuda->check(cuda->cuMemsetD8_v2(destination, value, bytes), "cuMemsetD8");
}

StatusOr<Stream> Device::createStream() {
  METAATTN_RETURN_IF_ERROR(makeCurrent());
  CUstream stream = nullptr;
  METAATTN_RETURN_IF_ERROR(
      cuda->check(cuda->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  return Stream(this, stream);
}

StatusOr<Event> Device::createEvent() {
  METAATTN_RETURN_IF_ERROR(makeCurrent());
  CUevent event = nullptr;
  METAATTN_RETURN_IF_ERROR(
      cuda->check(cuda->cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate"));
  return Event(this, event);
}

StatusOr<LoadedKernel> Device::load(const CompiledKernel &kernel, std::string entryName) {
  if (kernel.cubin.empty() && kernel.ptx.empty())
    return Status::error("cannot load '{}': the compiled kernel has neither a cubin nor PTX",
                         entryName);
  std::string key = kernel.key;
  if (key.empty())
    key = Hasher().add(kernel.cubin).add(kernel.ptx).finish().hex();

  METAATTN_RETURN_IF_ERROR(makeCurrent());
  CUmodule module = nullptr;
  {
    std::lock_guard<std::mutex> lock(moduleMutex);
    auto it = modules.find(key);
    if (it != modules.end()) {
      module = it->second;
    } else {
      // cuModuleLoadData takes a cubin, or NUL-terminated PTX (c_str()) that the driver JITs.
      const void *image = kernel.cubin.empty() ? static_cast<const void *>(kernel.ptx.c_str())
                                               : static_cast<const void *>(kernel.cubin.data());
      METAATTN_RETURN_IF_ERROR(
          cuda->check(cuda->cuModuleLoadData(&module, image),
                      fmt::format("cuModuleLoadData ({} for {} on {}, sm_{}{})",
                                  kernel.cubin.empty() ? "PTX" : "cubin", kernel.arch, props.name,
                                  props.computeMajor, props.computeMinor)));
      modules.emplace(key, module);
    }
  }

  LoadedKernel loaded;
  loaded.device = this;
  loaded.module = module;
  loaded.entry = std::move(entryName);
  loaded.moduleKey = std::move(key);
  METAATTN_RETURN_IF_ERROR(
      cuda->check(cuda->cuModuleGetFunction(&loaded.function, module, loaded.entry.c_str()),
                  fmt::format("cuModuleGetFunction('{}')", loaded.entry)));
  return loaded;
}

std::string detectArch(const Device &device) {
  return detectArch(device.properties().computeMajor, device.properties().computeMinor);
}

//===----------------------------------------------------------------------===//
// DeviceBuffer, Stream, Event
//===----------------------------------------------------------------------===//

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    reset();
    device = other.device;
    pointer = other.pointer;
    bytes = other.bytes;
    other.device = nullptr;
    other.pointer = 0;
    other.bytes = 0;
  }
  return *this;
}

void DeviceBuffer::reset() {
  if (device && pointer)
    (void)device->free(pointer);
  device = nullptr;
  pointer = 0;
  bytes = 0;
}

Stream &Stream::operator=(Stream &&other) noexcept {
  if (this != &other) {
    std::swap(device, other.device);
    std::swap(stream, other.stream);
  }
  return *this;
}

Stream::~Stream() {
  if (device && stream && device->makeCurrent().ok())
    (void)device->driver().cuStreamDestroy_v2(stream);
}

Status Stream::synchronize() const {
  if (!device)
    return Status::error("synchronize on an empty Stream");
  METAATTN_RETURN_IF_ERROR(device->makeCurrent());
  return device->driver().check(device->driver().cuStreamSynchronize(stream),
                                "cuStreamSynchronize");
}

Event &Event::operator=(Event &&other) noexcept {
  if (this != &other) {
    std::swap(device, other.device);
    std::swap(event, other.event);
  }
  return *this;
}

Event::~Event() {
  if (device && event && device->makeCurrent().ok())
    (void)device->driver().cuEventDestroy_v2(event);
}

Status Event::record(CUstream stream) const {
  if (!device)
    return Status::error("record on an empty Event");
  METAATTN_RETURN_IF_ERROR(device->makeCurrent());
  return device->driver().check(device->driver().cuEventRecord(event, stream), "cuEventRecord");
}

Status Event::synchronize() const {
  if (!device)
    return Status::error("synchronize on an empty Event");
  return device->driver().check(device->driver().cuEventSynchronize(event), "cuEventSynchronize");
}

StatusOr<float> Event::elapsedMs(const Event &start, const Event &end) {
  if (!start.device || !end.device)
    return Status::error("elapsedMs on an empty Event");
  METAATTN_RETURN_IF_ERROR(end.synchronize());
  float milliseconds = 0;
  METAATTN_RETURN_IF_ERROR(start.device->driver().check(
      start.device->driver().cuEventElapsedTime_v2(&milliseconds, start.event, end.event),
      "cuEventElapsedTime"));
  return milliseconds;
}

} // namespace metaattn::rt
