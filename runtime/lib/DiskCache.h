//===- DiskCache.h - The on-disk kernel cache entry format ------*- C++ -*-===//
//
// Private to the runtime library. One file per key, "<dir>/<key>.mkc":
//
//   offset  size  field
//   0       8     magic "mattnKC\n"
//   8       4     format version (kDiskFormatVersion), little-endian
//   12      4     key size
//   16      8     arch size
//   24      8     cubin size
//   32      8     ptx size
//   40      8     log size
//   48      8     checksum64 of the five sections' checksum64 values (8 bytes each, little-
//                 endian, in the order key, arch, cubin, ptx, log)
//   56      ...   key, arch, cubin, ptx, log
//
// The file size must match the sizes exactly. Files are written to a temporary name in the same
// directory and renamed, so a reader sees a complete entry or none.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_LIB_DISKCACHE_H
#define METAATTN_RUNTIME_LIB_DISKCACHE_H

#include "metaattn/Runtime/Compiler.h"
#include "metaattn/Runtime/Status.h"

#include <optional>
#include <string>
#include <string_view>

namespace metaattn::rt::detail {

/// 2: checksum64 reads eight-byte words, and the payload's checksum combines the sections'.
constexpr uint32_t kDiskFormatVersion = 2;

/// The outcome of reading an entry.
struct DiskReadResult {
  /// The entry, when present and valid.
  std::optional<CompiledKernel> kernel;
  /// Why an existing file was rejected (corrupt, truncated, stale); empty when the file is
  /// missing or valid.
  std::string problem;
};

/// Reads and checks the entry at `path`, which must hold `key`.
DiskReadResult readDiskEntry(const std::string &path, std::string_view key);

/// Writes the entry for `key` to `path` atomically (temporary file + rename).
Status writeDiskEntry(const std::string &path, std::string_view key, const CompiledKernel &kernel);

} // namespace metaattn::rt::detail

#endif // METAATTN_RUNTIME_LIB_DISKCACHE_H
