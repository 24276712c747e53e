//===- DynamicLibrary.h - dlopen with a list of candidates ------*- C++ -*-===//
//
// Private to the runtime library. Opens the first loadable shared library from a list of
// candidate names or paths; the handle is never closed (driver libraries live as long as the
// process).
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_LIB_DYNAMICLIBRARY_H
#define METAATTN_RUNTIME_LIB_DYNAMICLIBRARY_H

#include "metaattn/Runtime/Status.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace metaattn::rt::detail {

/// A shared library opened with dlopen.
class DynamicLibrary {
public:
  /// Opens the first of `candidates` that dlopen accepts. On failure the error names `what`
  /// (e.g. "the CUDA driver") and lists every candidate with dlerror()'s reason.
  static StatusOr<DynamicLibrary> open(const std::vector<std::string> &candidates,
                                       std::string_view what);

  /// The address of `name`, or nullptr when the library does not export it.
  void *symbol(const char *name) const;

  /// The candidate that was opened.
  const std::string &path() const { return openedPath; }

private:
  void *handle = nullptr;
  std::string openedPath;
};

/// Resolves `names` in order (nullptr entries are skipped) and stores the first found into `*slot`
/// (a function pointer). Returns false when none is exported.
template <typename Fn>
bool resolveSymbol(const DynamicLibrary &library, Fn *slot,
                   std::initializer_list<const char *> names) {
  for (const char *name : names) {
    if (!name)
      continue;
    if (void *address = library.symbol(name)) {
      *slot = reinterpret_cast<Fn>(address);
      return true;
    }
  }
  return false;
}

} // namespace metaattn::rt::detail

#endif // METAATTN_RUNTIME_LIB_DYNAMICLIBRARY_H
