//===- Device.h - A CUDA device: memory, streams, events, modules -*- C++ -*-===//
//
// `Device::get(ordinal)` retains the device's primary context (once per process) and makes it
// current on the calling thread whenever a Device method needs it, so any thread may use a
// Device. Memory, streams and events come as move-only RAII wrappers; every failure is a Status
// carrying the driver's message. On a machine without libcuda, `Device::get` returns an error.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_DEVICE_H
#define METAATTN_RUNTIME_DEVICE_H

#include "metaattn/Runtime/Compiler.h"
#include "metaattn/Runtime/CudaDriver.h"
#include "metaattn/Runtime/Status.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace metaattn::rt {

class Device;

/// What the runtime needs to know about a device.
struct DeviceProperties {
  std::string name;
  int computeMajor = 0;
  int computeMinor = 0;
  int smCount = 0;
  int warpSize = 32;
  int maxThreadsPerBlock = 0;
  /// Shared memory per block without opting in (usually 48 KB).
  int maxSharedPerBlock = 0;
  /// Shared memory per block with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (227 KB on H100).
  int maxSharedPerBlockOptin = 0;
  size_t totalMemory = 0;
};

/// Owns device memory; freed on destruction.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(Device *device, CUdeviceptr pointer, size_t bytes)
      : device(device), pointer(pointer), bytes(bytes) {}
  DeviceBuffer(DeviceBuffer &&other) noexcept { *this = std::move(other); }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { reset(); }

  CUdeviceptr get() const { return pointer; }
  void *data() const { return reinterpret_cast<void *>(pointer); }
  size_t size() const { return bytes; }
  /// Frees the memory now (errors are ignored: the memory is gone either way).
  void reset();

private:
  Device *device = nullptr;
  CUdeviceptr pointer = 0;
  size_t bytes = 0;
};

/// Owns a CUstream; destroyed on destruction.
class Stream {
public:
  Stream() = default;
  Stream(Device *device, CUstream stream) : device(device), stream(stream) {}
  Stream(Stream &&other) noexcept { *this = std::move(other); }
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream();

  CUstream get() const { return stream; }
  /// Waits for all work queued on the stream.
  Status synchronize() const;

private:
  Device *device = nullptr;
  CUstream stream = nullptr;
};

/// Owns a CUevent (with timing); destroyed on destruction.
class Event {
public:
  Event() = default;
  Event(Device *device, CUevent event) : device(device), event(event) {}
  Event(Event &&other) noexcept { *this = std::move(other); }
  Event &operator=(Event &&other) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();

  CUevent get() const { return event; }
  Status record(CUstream stream = nullptr) const;
  Status synchronize() const;
  /// Milliseconds between two recorded events (waits for `end`).
  static StatusOr<float> elapsedMs(const Event &start, const Event &end);

private:
  Device *device = nullptr;
  CUevent event = nullptr;
};

/// A kernel entry point in a module loaded on a device.
struct LoadedKernel {
  Device *device = nullptr;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  std::string entry;
  /// The module's cache key (the CompiledKernel's key, or a hash of its binary).
  std::string moduleKey;
};

/// A CUDA device and its primary context. Instances live for the whole process.
class Device {
public:
  /// The device `ordinal`, initialising the driver and retaining its primary context on first
  /// use. Fails with the driver's message (or "cannot load the CUDA driver ...").
  static StatusOr<Device *> get(int ordinal = 0);
  /// How many CUDA devices there are; an error when the driver cannot be loaded.
  static StatusOr<int> count();

  int ordinal() const { return deviceOrdinal; }
  CUdevice handle() const { return device; }
  CUcontext context() const { return primaryContext; }
  const DeviceProperties &properties() const { return props; }
  const CudaDriver &driver() const { return *cuda; }

  /// Makes the primary context current on the calling thread (if it is not already).
  Status makeCurrent() const;
  /// Waits for all work on the device.
  Status synchronize() const;

  StatusOr<CUdeviceptr> alloc(size_t bytes);
  Status free(CUdeviceptr pointer);
  /// `alloc` with ownership.
  StatusOr<DeviceBuffer> allocate(size_t bytes);

  /// Copies; asynchronous on `stream` when it is not null, synchronous otherwise.
  Status copyToDevice(CUdeviceptr destination, const void *source, size_t bytes,
                      CUstream stream = nullptr);
  Status copyToHost(void *destination, CUdeviceptr source, size_t bytes, CUstream stream = nullptr);
  Status memset(CUdeviceptr destination, unsigned char value, size_t bytes,
                CUstream stream = nullptr);

  StatusOr<Stream> createStream();
  StatusOr<Event> createEvent();

  /// Loads `kernel` (its cubin, else its PTX through the driver's JIT) and finds `entryName`.
  /// Modules are cached per key on this device, so loading the same kernel again is cheap.
  StatusOr<LoadedKernel> load(const CompiledKernel &kernel, std::string entryName);

private:
  Device() = default;

  const CudaDriver *cuda = nullptr;
  int deviceOrdinal = 0;
  CUdevice device = 0;
  CUcontext primaryContext = nullptr;
  DeviceProperties props;

  std::mutex moduleMutex;
  std::unordered_map<std::string, CUmodule> modules;
};

} // namespace metaattn::rt

#endif // METAATTN_RUNTIME_DEVICE_H
