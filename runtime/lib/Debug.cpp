//===- Debug.cpp - METAATTN_DEBUG logging for the runtime ----------------------------------===//

#include "Debug.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace metaattn::rt::detail {

bool debugEnabled() {
  static const bool enabled = [] {
    const char *value = std::getenv("METAATTN_DEBUG");
    return value && *value && std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

void debugWrite(std::string_view message) {
  std::string line = fmt::format("[metaattn] {}\n", message);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

} // namespace metaattn::rt::detail
