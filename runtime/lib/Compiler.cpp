//===- Compiler.cpp - Compiling CUDA C++ with NVRTC ----------------------------------------===//

#include "metaattn/Runtime/Compiler.h"
#include "metaattn/Runtime/Nvrtc.h"

#include "Debug.h"

#include <cctype>

namespace metaattn::rt {

namespace {

/// Splits "sm_90a" / "compute_90a" into ("sm" | "compute", "90a"); false when malformed.
bool parseArch(std::string_view arch, std::string_view &kind, std::string_view &number) {
  size_t underscore = arch.find('_');
  if (underscore == std::string_view::npos)
    return false;
  kind = arch.substr(0, underscore);
  number = arch.substr(underscore + 1);
  if (kind != "sm" && kind != "compute")
    return false;
  size_t digits = 0;
  while (digits < number.size() && std::isdigit(static_cast<unsigned char>(number[digits])))
    ++digits;
  if (digits < 2)
    return false;
  std::string_view suffix = number.substr(digits);
  return suffix.empty() || suffix == "a" || suffix == "f";
}

/// Owns an nvrtcProgram for the duration of one compilation.
class ProgramGuard {
public:
  ProgramGuard(const Nvrtc &nvrtc, nvrtcProgram program) : nvrtc(nvrtc), program(program) {}
  ~ProgramGuard() { (void)nvrtc.nvrtcDestroyProgram(&program); }
  ProgramGuard(const ProgramGuard &) = delete;
  ProgramGuard &operator=(const ProgramGuard &) = delete;

private:
  const Nvrtc &nvrtc;
  nvrtcProgram program;
};

std::string programLog(const Nvrtc &nvrtc, nvrtcProgram program) {
  size_t size = 0;
  if (nvrtc.nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1)
    return std::string();
  std::string log(size, '\0');
  if (nvrtc.nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS)
    return std::string();
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

} // namespace

std::string detectArch(int major, int minor) {
  std::string arch = fmt::format("sm_{}{}", major, minor);
  if (major == 9 && minor == 0)
    arch += 'a';
  return arch;
}

StatusOr<std::vector<std::string>> nvrtcFlags(const CompileOptions &options) {
  std::string_view kind, number;
  if (!parseArch(options.arch, kind, number))
    return Status::error("unrecognised GPU architecture '{}' (expected e.g. sm_90a or "
                         "compute_90a)",
                         options.arch);
  if (!options.wantPtx && !options.wantCubin)
    return Status::error("nothing to compile: neither PTX nor a cubin is wanted");
  if (options.wantCubin && kind == "compute")
    return Status::error("a cubin needs a real architecture (sm_{}), not '{}'", number,
                         options.arch);

  // Only PTX: compile for the virtual architecture (NVRTC then skips ptxas).
  std::string target =
      options.wantCubin ? fmt::format("sm_{}", number) : fmt::format("compute_{}", number);
  std::vector<std::string> flags = {"--gpu-architecture=" + target, "-std=c++17",
                                    "-default-device"};
  if (options.lineInfo)
    flags.push_back("-lineinfo");
  if (options.fastMath)
    flags.push_back("--use_fast_math");
  if (options.flushDenormals)
    flags.push_back("-ftz=true");
  for (const std::string &dir : options.includeDirs)
    flags.push_back("-I" + dir);
  if (std::optional<std::string> root = findCudaRoot())
    flags.push_back("-I" + *root + "/include");
  for (const std::string &flag : options.extraFlags)
    flags.push_back(flag);
  return flags;
}

StatusOr<CompiledKernel> compileCuda(std::string_view source, std::string_view programName,
                                     const CompileOptions &options) {
  METAATTN_ASSIGN_OR_RETURN(std::vector<std::string> flags, nvrtcFlags(options));
  StatusOr<const Nvrtc *> loaded = Nvrtc::get();
  if (!loaded.ok())
    return loaded.status().withContext(fmt::format("cannot compile '{}'", programName));
  const Nvrtc &nvrtc = **loaded;

  // Headers: the caller's first, then the embedded device library minus names already given.
  std::vector<const char *> headerSources, headerNames;
  for (const auto &[name, contents] : options.headers) {
    headerNames.push_back(name.c_str());
    headerSources.push_back(contents.c_str());
  }
  for (const auto &[name, contents] : embeddedDeviceHeaders()) {
    bool hidden = false;
    for (const auto &given : options.headers)
      hidden |= given.first == name;
    if (hidden)
      continue;
    headerNames.push_back(name.c_str());
    headerSources.push_back(contents.c_str());
  }

  std::string sourceText(source), name(programName);
  nvrtcProgram program = nullptr;
  METAATTN_RETURN_IF_ERROR(
      nvrtc.check(nvrtc.nvrtcCreateProgram(&program, sourceText.c_str(), name.c_str(),
                                           static_cast<int>(headerNames.size()),
                                           headerSources.data(), headerNames.data()),
                  "nvrtcCreateProgram"));
  ProgramGuard guard(nvrtc, program);

  std::vector<const char *> flagPointers;
  for (const std::string &flag : flags)
    flagPointers.push_back(flag.c_str());
  detail::debugLog("NVRTC compiling '{}' with {} header(s): {}", name, headerNames.size(),
                   fmt::join(flags, " "));
  nvrtcResult result = nvrtc.nvrtcCompileProgram(program, static_cast<int>(flagPointers.size()),
                                                 flagPointers.data());
  CompiledKernel kernel;
  kernel.arch = options.arch;
  kernel.log = programLog(nvrtc, program);
  if (result != NVRTC_SUCCESS) {
    const char *text = nvrtc.nvrtcGetErrorString(result);
    return Status::error("NVRTC failed to compile '{}' for {} ({}):\n{}", name, options.arch,
                         text ? text : "unknown NVRTC error",
                         kernel.log.empty() ? std::string("(empty log)") : kernel.log);
  }

  if (options.wantPtx) {
    size_t size = 0;
    METAATTN_RETURN_IF_ERROR(nvrtc.check(nvrtc.nvrtcGetPTXSize(program, &size), "nvrtcGetPTXSize"));
    kernel.ptx.assign(size, '\0');
    METAATTN_RETURN_IF_ERROR(
        nvrtc.check(nvrtc.nvrtcGetPTX(program, kernel.ptx.data()), "nvrtcGetPTX"));
    while (!kernel.ptx.empty() && kernel.ptx.back() == '\0')
      kernel.ptx.pop_back();
  }
  if (options.wantCubin) {
    size_t size = 0;
    METAATTN_RETURN_IF_ERROR(
        nvrtc.check(nvrtc.nvrtcGetCUBINSize(program, &size), "nvrtcGetCUBINSize"));
    if (size == 0)
      return Status::error("NVRTC produced no cubin for '{}' ({})", name, options.arch);
    kernel.cubin.assign(size, '\0');
    METAATTN_RETURN_IF_ERROR(
        nvrtc.check(nvrtc.nvrtcGetCUBIN(program, kernel.cubin.data()), "nvrtcGetCUBIN"));
  }
  return kernel;
}

} // namespace metaattn::rt
