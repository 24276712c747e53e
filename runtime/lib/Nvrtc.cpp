//===- Nvrtc.cpp - Loading NVRTC with dlopen -----------------------------------------------===//

#include "metaattn/Runtime/Nvrtc.h"

#include "Debug.h"
#include "DynamicLibrary.h"

#include <cstdlib>
#include <sys/stat.h>

#ifndef METAATTN_CUDA_ROOT_DEFAULT
#define METAATTN_CUDA_ROOT_DEFAULT "/usr/local/cuda"
#endif

namespace metaattn::rt {

namespace {

bool isDirectory(const std::string &path) {
  struct stat info;
  return !path.empty() && ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

/// The candidate roots in order of preference, existing or not, without duplicates.
std::vector<std::string> cudaRootCandidates() {
  std::vector<std::string> roots;
  auto add = [&](const char *root) {
    if (!root || !*root)
      return;
    for (const std::string &existing : roots)
      if (existing == root)
        return;
    roots.emplace_back(root);
  };
  add(std::getenv("CUDA_HOME"));
  add(std::getenv("CUDA_PATH"));
  add(METAATTN_CUDA_ROOT_DEFAULT);
  add("/usr/local/cuda");
  return roots;
}

StatusOr<const Nvrtc *> loadNvrtc() {
  StatusOr<detail::DynamicLibrary> library =
      detail::DynamicLibrary::open(nvrtcCandidates(), "NVRTC (libnvrtc)");
  if (!library.ok())
    return library.status();

  auto *nvrtc = new Nvrtc(); // Leaked on purpose: lives as long as the process.
  nvrtc->libraryPath = library->path();
  std::string missing;
#define METAATTN_RESOLVE_MEMBER(member)                                                            \
  if (!detail::resolveSymbol(*library, &nvrtc->member, {#member}))                                 \
    missing += " " #member;
  METAATTN_NVRTC_FUNCTIONS(METAATTN_RESOLVE_MEMBER)
#undef METAATTN_RESOLVE_MEMBER
  if (!missing.empty()) {
    std::string path = nvrtc->libraryPath;
    delete nvrtc;
    return Status::error("NVRTC at {} does not export{}", path, missing);
  }
  nvrtc->nvrtcVersion(&nvrtc->major, &nvrtc->minor);
  int count = 0;
  if (nvrtc->nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
    nvrtc->supportedArchs.resize(count);
    if (nvrtc->nvrtcGetSupportedArchs(nvrtc->supportedArchs.data()) != NVRTC_SUCCESS)
      nvrtc->supportedArchs.clear();
  }
  detail::debugLog("NVRTC {}.{} from {}", nvrtc->major, nvrtc->minor, nvrtc->libraryPath);
  return static_cast<const Nvrtc *>(nvrtc);
}

} // namespace

std::optional<std::string> findCudaRoot() {
  for (const std::string &root : cudaRootCandidates())
    if (isDirectory(root))
      return root;
  return std::nullopt;
}

std::vector<std::string> nvrtcCandidates() {
  std::vector<std::string> candidates = {"libnvrtc.so.13", "libnvrtc.so"};
  for (const std::string &root : cudaRootCandidates()) {
    candidates.push_back(root + "/lib64/libnvrtc.so.13");
    candidates.push_back(root + "/lib64/libnvrtc.so");
  }
  return candidates;
}

StatusOr<const Nvrtc *> Nvrtc::get() {
  static const StatusOr<const Nvrtc *> instance = loadNvrtc();
  return instance;
}

std::string Nvrtc::versionString() const { return fmt::format("nvrtc-{}.{}", major, minor); }

Status Nvrtc::check(nvrtcResult result, std::string_view what) const {
  if (result == NVRTC_SUCCESS)
    return Status::success();
  const char *text = nvrtcGetErrorString ? nvrtcGetErrorString(result) : nullptr;
  return Status::error("{}: {}", what, text ? text : fmt::format("nvrtcResult {}", int(result)));
}

} // namespace metaattn::rt
