//===- Compiler.h - Compiling CUDA C++ with NVRTC ---------------*- C++ -*-===//
//
// `compileCuda` turns the source printed by the CUDA emitter into PTX and/or a cubin with NVRTC.
// The device library headers (runtime/device/metaattn/*.cuh) are embedded in the runtime at
// build time and handed to NVRTC as in-memory headers named "metaattn/<file>.cuh", so generated
// kernels compile without any include path on the machine that runs them.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_COMPILER_H
#define METAATTN_RUNTIME_COMPILER_H

#include "metaattn/Runtime/Status.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace metaattn::rt {

class Device;

/// How to compile one program.
struct CompileOptions {
  /// The target: a real architecture ("sm_90a", produces a cubin and PTX) or a virtual one
  /// ("compute_90a", PTX only). When only PTX is wanted a real architecture is compiled as its
  /// virtual counterpart ("sm_90a" -> "compute_90a"), which skips ptxas.
  std::string arch = "sm_90a";
  bool wantPtx = true;
  bool wantCubin = true;
  /// Pass -lineinfo (source lines in the PTX/cubin, for profilers and compute-sanitizer).
  bool lineInfo = true;
  /// Pass --use_fast_math (off by default: it changes exp/div accuracy).
  bool fastMath = false;
  /// Pass -ftz=true: f32 denormals flush to zero, so the device library's exp2f and
  /// __log2f are the single ex2/lg2.approx.ftz instructions (metaattn/math.cuh).
  bool flushDenormals = true;
  /// Directories passed as -I<dir>, before the CUDA toolkit's include directory.
  std::vector<std::string> includeDirs;
  /// In-memory headers (include name, contents) in addition to the embedded device library; an
  /// entry here hides an embedded header of the same name.
  std::vector<std::pair<std::string, std::string>> headers;
  /// Flags appended verbatim after all others.
  std::vector<std::string> extraFlags;
};

/// The result of a compilation.
struct CompiledKernel {
  /// PTX text (empty unless requested).
  std::string ptx;
  /// The cubin, binary (empty unless requested).
  std::string cubin;
  /// NVRTC's program log (warnings); empty when clean.
  std::string log;
  /// The architecture compiled for, as in CompileOptions::arch.
  std::string arch;
  /// The kernel cache key (hex) when it came through a KernelCache; empty otherwise.
  std::string key;
};

/// The NVRTC flags `compileCuda` uses for `options`, in order (also part of cache keys).
/// Fails on an unrecognised architecture or when neither PTX nor a cubin is wanted.
StatusOr<std::vector<std::string>> nvrtcFlags(const CompileOptions &options);

/// Compiles `source` as the program `programName` (used in diagnostics, e.g. "attn_fwd.cu").
/// On a compile error the Status holds NVRTC's complete program log; when NVRTC cannot be loaded
/// it says where it looked.
StatusOr<CompiledKernel> compileCuda(std::string_view source, std::string_view programName,
                                     const CompileOptions &options);

/// The device library headers embedded at build time, as (include name, contents), e.g.
/// ("metaattn/softmax.cuh", "..."), sorted by name. Empty when the library had none.
const std::vector<std::pair<std::string, std::string>> &embeddedDeviceHeaders();

/// The architecture to compile for on a device of compute capability major.minor:
/// "sm_<major><minor>", with the "a" suffix (arch-specific features: wgmma, setmaxnreg) for 9.0.
std::string detectArch(int major, int minor);

/// `detectArch` for `device`'s compute capability (defined with Device).
std::string detectArch(const Device &device);

} // namespace metaattn::rt

#endif // METAATTN_RUNTIME_COMPILER_H
