//===- DynamicLibrary.cpp - dlopen with a list of candidates -------------------------------===//

#include "DynamicLibrary.h"
#include "Debug.h"

#include <dlfcn.h>

namespace metaattn::rt::detail {

StatusOr<DynamicLibrary> DynamicLibrary::open(const std::vector<std::string> &candidates,
                                              std::string_view what) {
  std::string reasons;
  for (const std::string &candidate : candidates) {
    void *handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      debugLog("loaded {} from {}", what, candidate);
      DynamicLibrary library;
      library.handle = handle;
      library.openedPath = candidate;
      return library;
    }
    const char *reason = ::dlerror();
    reasons += fmt::format("\n  {}: {}", candidate, reason ? reason : "unknown dlopen error");
  }
  return Status::error("cannot load {}; tried:{}", what, reasons);
}

void *DynamicLibrary::symbol(const char *name) const {
  return handle ? ::dlsym(handle, name) : nullptr;
}

} // namespace metaattn::rt::detail
