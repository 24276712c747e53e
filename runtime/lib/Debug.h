//===- Debug.h - METAATTN_DEBUG logging for the runtime ---------*- C++ -*-===//
//
// Private to the runtime library. `debugLog(...)` prints one line to stderr when the environment
// variable METAATTN_DEBUG is set to a non-empty value other than "0".
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_LIB_DEBUG_H
#define METAATTN_RUNTIME_LIB_DEBUG_H

#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace metaattn::rt::detail {

/// True when METAATTN_DEBUG is set (read once per process).
bool debugEnabled();

/// Writes "[metaattn] <message>\n" to stderr in one call (lines from threads do not interleave).
void debugWrite(std::string_view message);

/// Formats and writes a debug line when debugging is enabled; formats nothing otherwise.
template <typename... Args> void debugLog(fmt::format_string<Args...> format, Args &&...args) {
  if (debugEnabled())
    debugWrite(fmt::format(format, std::forward<Args>(args)...));
}

} // namespace metaattn::rt::detail

#endif // METAATTN_RUNTIME_LIB_DEBUG_H
