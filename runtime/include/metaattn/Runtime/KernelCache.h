//===- KernelCache.h - Compile-once cache of NVRTC results ------*- C++ -*-===//
//
// A kernel is compiled once per key and kept in memory and on disk. The key is a 128-bit hash of
// the source, program name, NVRTC flags, architecture, compiler version and every header the
// compilation can see. Disk entries live under $METAATTN_CACHE_DIR (default ~/.cache/metaattn);
// each is checked (magic, format version, full key, sizes, checksum) before use, and a corrupt,
// truncated or stale entry is reported with METAATTN_DEBUG=1, recompiled and overwritten. When
// the directory cannot be created the cache silently works in memory only.
//
// Thread-safe: concurrent requests for one key compile once (the others wait for the result);
// requests for different keys compile concurrently.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_KERNELCACHE_H
#define METAATTN_RUNTIME_KERNELCACHE_H

#include "metaattn/Runtime/Compiler.h"
#include "metaattn/Runtime/Status.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace metaattn::rt {

/// The function a cache calls on a miss; `compileCuda` unless a test injects another.
using CompileFunction = std::function<StatusOr<CompiledKernel>(
    std::string_view source, std::string_view programName, const CompileOptions &options)>;

/// How a KernelCache is set up.
struct KernelCacheConfig {
  /// The disk cache directory. nullopt: $METAATTN_CACHE_DIR, else $HOME/.cache/metaattn.
  /// An empty string disables the disk cache.
  std::optional<std::string> directory;
  /// The compile function; empty means `compileCuda`.
  CompileFunction compile;
  /// Identifies the compiler in keys. Empty means NVRTC's version (`compile` empty) or
  /// "custom-compiler" (`compile` given).
  std::string compilerVersion;
};

/// Where KernelCache::getOrCompile found a kernel.
enum class CacheSource {
  memory,   ///< An earlier request in this process (or one compiling it at the same time).
  disk,     ///< A valid entry of the disk cache.
  compiler, ///< The compile function (NVRTC) ran.
};

/// Compiles kernels once and remembers them in memory and on disk.
class KernelCache {
public:
  /// Statistics, for tests and debugging.
  struct Counters {
    uint64_t memoryHits = 0;  ///< Served from memory (including waiting on another thread).
    uint64_t diskHits = 0;    ///< Loaded from a valid disk entry.
    uint64_t compiles = 0;    ///< Calls of the compile function.
    uint64_t diskRejects = 0; ///< Disk entries found corrupt, truncated or stale.
  };

  explicit KernelCache(KernelCacheConfig config = {});
  ~KernelCache();
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  /// The process-wide cache with the default configuration.
  static KernelCache &global();

  /// The compiled kernel for (source, programName, options): from memory, from disk, or by
  /// compiling it (errors are returned, not cached: a later call tries again). `from`, when
  /// given, says which (on success). Safe to call from several threads at once.
  StatusOr<std::shared_ptr<const CompiledKernel>> getOrCompile(std::string_view source,
                                                               std::string_view programName,
                                                               const CompileOptions &options,
                                                               CacheSource *from = nullptr);

  /// One kernel for getOrCompileAll.
  struct Request {
    std::string_view source;
    std::string programName;
  };
  /// What getOrCompileAll found for one request.
  struct Fetched {
    StatusOr<std::shared_ptr<const CompiledKernel>> kernel = Status::error("not fetched");
    CacheSource from = CacheSource::compiler;
    double ms = 0; ///< Wall time of this request's getOrCompile.
  };
  /// getOrCompile for every request, concurrently on up to `maxThreads` threads (0: one per
  /// hardware thread), the results in request order: the kernels of a module compile in
  /// about the time of the slowest instead of the sum.
  std::vector<Fetched> getOrCompileAll(const std::vector<Request> &requests,
                                       const CompileOptions &options, unsigned maxThreads = 0);

  /// The key (32 hex digits) `getOrCompile` uses; fails like `nvrtcFlags` on bad options.
  StatusOr<std::string> keyFor(std::string_view source, std::string_view programName,
                               const CompileOptions &options) const;

  /// True when entries are stored on disk.
  bool diskEnabled() const { return !cacheDirectory.empty(); }
  /// The disk cache directory; empty when memory-only.
  const std::string &directory() const { return cacheDirectory; }
  /// The file that holds the entry for `key`; empty when memory-only.
  std::string diskPath(std::string_view key) const;

  /// Forgets every in-memory entry (the disk cache is kept).
  void clearMemory();

  Counters counters() const;
  void resetCounters();

private:
  struct Entry;

  StatusOr<std::shared_ptr<const CompiledKernel>>
  loadOrCompile(const std::string &key, std::string_view source, std::string_view programName,
                const CompileOptions &options, CacheSource &from);

  CompileFunction compile;
  std::string compilerVersion;
  std::string cacheDirectory;

  mutable std::mutex mapMutex;
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries;

  std::atomic<uint64_t> memoryHits{0}, diskHits{0}, compiles{0}, diskRejects{0};
};

} // namespace metaattn::rt

#endif // METAATTN_RUNTIME_KERNELCACHE_H
