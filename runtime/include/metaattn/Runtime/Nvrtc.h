//===- Nvrtc.h - NVRTC, loaded with dlopen ----------------------*- C++ -*-===//
//
// NVRTC is opened on first use: "libnvrtc.so.13", "libnvrtc.so", then the same names under
// $CUDA_HOME/lib64, the configured CUDA root and /usr/local/cuda/lib64. The runtime never links
// it, so it loads (and reports a clear error) on a machine without the toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_NVRTC_H
#define METAATTN_RUNTIME_NVRTC_H

#include "metaattn/Runtime/Status.h"

#include <nvrtc.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace metaattn::rt {

/// X(member): each NVRTC entry point the runtime calls.
#define METAATTN_NVRTC_FUNCTIONS(X)                                                                \
  X(nvrtcGetErrorString)                                                                           \
  X(nvrtcVersion)                                                                                  \
  X(nvrtcGetNumSupportedArchs)                                                                     \
  X(nvrtcGetSupportedArchs)                                                                        \
  X(nvrtcCreateProgram)                                                                            \
  X(nvrtcDestroyProgram)                                                                           \
  X(nvrtcCompileProgram)                                                                           \
  X(nvrtcGetPTXSize)                                                                               \
  X(nvrtcGetPTX)                                                                                   \
  X(nvrtcGetCUBINSize)                                                                             \
  X(nvrtcGetCUBIN)                                                                                 \
  X(nvrtcGetProgramLogSize)                                                                        \
  X(nvrtcGetProgramLog)

/// The resolved NVRTC entry points. Obtain the process-wide instance with `Nvrtc::get()`.
struct Nvrtc {
#define METAATTN_DECLARE_MEMBER(member) decltype(&::member) member = nullptr;
  METAATTN_NVRTC_FUNCTIONS(METAATTN_DECLARE_MEMBER)
#undef METAATTN_DECLARE_MEMBER

  /// The path libnvrtc was loaded from.
  std::string libraryPath;
  /// nvrtcVersion().
  int major = 0, minor = 0;
  /// The real architectures this NVRTC can compile for, e.g. {75, 80, ..., 90, 100, 120}.
  std::vector<int> supportedArchs;

  /// Loads NVRTC and resolves its entry points, once per process. Later calls return the same
  /// instance or the same error.
  static StatusOr<const Nvrtc *> get();

  /// "nvrtc-<major>.<minor>", part of every kernel cache key.
  std::string versionString() const;

  /// Success for NVRTC_SUCCESS; otherwise "<what>: NVRTC_ERROR_X".
  Status check(nvrtcResult result, std::string_view what) const;
};

/// The CUDA toolkit root: $CUDA_HOME, $CUDA_PATH, the build's METAATTN_CUDA_ROOT, or
/// /usr/local/cuda, whichever first names an existing directory; nullopt when none does.
std::optional<std::string> findCudaRoot();

/// The library names and paths `Nvrtc::get()` tries, in order.
std::vector<std::string> nvrtcCandidates();

} // namespace metaattn::rt

#endif // METAATTN_RUNTIME_NVRTC_H
