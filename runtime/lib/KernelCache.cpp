//===- KernelCache.cpp - Compile-once cache of NVRTC results -------------------------------===//

#include "metaattn/Runtime/KernelCache.h"
#include "metaattn/Runtime/Hash.h"
#include "metaattn/Runtime/Nvrtc.h"

#include "Debug.h"
#include "DiskCache.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <unistd.h>

namespace metaattn::rt {

/// One key's slot: filled once by the thread that compiles it, waited on by the others.
struct KernelCache::Entry {
  std::mutex mutex;
  std::condition_variable filled;
  bool ready = false;
  Status error;
  std::shared_ptr<const CompiledKernel> kernel;
};

namespace {

/// The directory from the configuration or the environment; empty when there is none.
std::string chooseDirectory(const std::optional<std::string> &configured) {
  if (configured)
    return *configured;
  if (const char *fromEnv = std::getenv("METAATTN_CACHE_DIR"); fromEnv && *fromEnv)
    return fromEnv;
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/metaattn";
  return std::string();
}

/// Creates `directory` if needed; returns it, or "" (memory-only) when it is not usable.
std::string prepareDirectory(const std::string &directory) {
  if (directory.empty())
    return directory;
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error || ::access(directory.c_str(), W_OK | X_OK) != 0) {
    detail::debugLog("kernel cache: cannot use directory '{}' ({}); caching in memory only",
                     directory, error ? error.message() : std::string("not writable"));
    return std::string();
  }
  return directory;
}

/// The hash of every embedded device header, computed once.
const Hash128 &embeddedHeadersDigest() {
  static const Hash128 digest = [] {
    Hasher hasher;
    for (const auto &[name, contents] : embeddedDeviceHeaders())
      hasher.add(name).add(contents);
    return hasher.finish();
  }();
  return digest;
}

} // namespace

KernelCache::KernelCache(KernelCacheConfig config) : compile(std::move(config.compile)) {
  compilerVersion = std::move(config.compilerVersion);
  if (compilerVersion.empty()) {
    if (compile) {
      compilerVersion = "custom-compiler";
    } else {
      StatusOr<const Nvrtc *> nvrtc = Nvrtc::get();
      compilerVersion = nvrtc.ok() ? (*nvrtc)->versionString() : "nvrtc-unavailable";
    }
  }
  if (!compile)
    compile = compileCuda;
  cacheDirectory = prepareDirectory(chooseDirectory(config.directory));
  detail::debugLog("kernel cache: {} ({})",
                   diskEnabled() ? "on disk at " + cacheDirectory : "memory only", compilerVersion);
}

KernelCache::~KernelCache() = default;

KernelCache &KernelCache::global() {
  static KernelCache *cache = new KernelCache(); // Never destroyed: usable during exit.
  return *cache;
}

StatusOr<std::string> KernelCache::keyFor(std::string_view source, std::string_view programName,
                                          const CompileOptions &options) const {
  METAATTN_ASSIGN_OR_RETURN(std::vector<std::string> flags, nvrtcFlags(options));
  Hasher hasher;
  hasher.add("metaattn-kernel-cache").add(uint64_t(detail::kDiskFormatVersion));
  hasher.add(source).add(programName).add(options.arch).add(compilerVersion);
  hasher.add(uint64_t(options.wantPtx)).add(uint64_t(options.wantCubin));
  hasher.add(uint64_t(flags.size()));
  for (const std::string &flag : flags)
    hasher.add(flag);
  hasher.add(uint64_t(options.headers.size()));
  for (const auto &[name, contents] : options.headers)
    hasher.add(name).add(contents);
  const Hash128 &digest = embeddedHeadersDigest();
  hasher.add(digest.high).add(digest.low);
  return hasher.finish().hex();
}

std::string KernelCache::diskPath(std::string_view key) const {
  if (!diskEnabled())
    return std::string();
  return fmt::format("{}/{}.mkc", cacheDirectory, key);
}

StatusOr<std::shared_ptr<const CompiledKernel>>
KernelCache::getOrCompile(std::string_view source, std::string_view programName,
                          const CompileOptions &options, CacheSource *from) {
  METAATTN_ASSIGN_OR_RETURN(std::string key, keyFor(source, programName, options));

  std::shared_ptr<Entry> entry;
  bool owner = false;
  {
    std::lock_guard<std::mutex> lock(mapMutex);
    std::shared_ptr<Entry> &slot = entries[key];
    if (!slot) {
      slot = std::make_shared<Entry>();
      owner = true;
    }
    entry = slot;
  }

  if (!owner) {
    std::unique_lock<std::mutex> lock(entry->mutex);
    entry->filled.wait(lock, [&] { return entry->ready; });
    if (!entry->kernel)
      return entry->error;
    ++memoryHits;
    if (from)
      *from = CacheSource::memory;
    return entry->kernel;
  }

  CacheSource found = CacheSource::compiler;
  StatusOr<std::shared_ptr<const CompiledKernel>> result =
      loadOrCompile(key, source, programName, options, found);
  if (from && result.ok())
    *from = found;
  {
    std::lock_guard<std::mutex> lock(entry->mutex);
    entry->ready = true;
    if (result.ok())
      entry->kernel = *result;
    else
      entry->error = result.status();
  }
  entry->filled.notify_all();
  if (!result.ok()) {
    // Errors are not remembered: drop the slot so that the next request tries again.
    std::lock_guard<std::mutex> lock(mapMutex);
    auto it = entries.find(key);
    if (it != entries.end() && it->second == entry)
      entries.erase(it);
  }
  return result;
}

std::vector<KernelCache::Fetched> KernelCache::getOrCompileAll(const std::vector<Request> &requests,
                                                               const CompileOptions &options,
                                                               unsigned maxThreads) {
  std::vector<Fetched> out(requests.size());
  unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  size_t workers = std::min<size_t>(requests.size(), maxThreads ? maxThreads : hardware);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < requests.size(); i = next++) {
      auto start = std::chrono::steady_clock::now();
      out[i].kernel =
          getOrCompile(requests[i].source, requests[i].programName, options, &out[i].from);
      out[i].ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
    }
  };
  std::vector<std::thread> threads;
  for (size_t w = 1; w < workers; ++w)
    threads.emplace_back(work);
  work(); // the calling thread takes requests too
  for (std::thread &t : threads)
    t.join();
  return out;
}

StatusOr<std::shared_ptr<const CompiledKernel>>
KernelCache::loadOrCompile(const std::string &key, std::string_view source,
                           std::string_view programName, const CompileOptions &options,
                           CacheSource &from) {
  std::string path = diskPath(key);
  if (!path.empty()) {
    detail::DiskReadResult read = detail::readDiskEntry(path, key);
    if (read.kernel) {
      ++diskHits;
      from = CacheSource::disk;
      detail::debugLog("kernel cache: '{}' loaded from {}", programName, path);
      return std::make_shared<const CompiledKernel>(std::move(*read.kernel));
    }
    if (!read.problem.empty()) {
      ++diskRejects;
      detail::debugLog("kernel cache: rejected {}: {}; recompiling", path, read.problem);
    }
  }

  ++compiles;
  from = CacheSource::compiler;
  detail::debugLog("kernel cache: compiling '{}' (key {})", programName, key);
  StatusOr<CompiledKernel> compiled = compile(source, programName, options);
  if (!compiled.ok())
    return compiled.status();
  compiled->key = key;
  if (!path.empty()) {
    Status written = detail::writeDiskEntry(path, key, *compiled);
    if (!written.ok())
      detail::debugLog("kernel cache: not stored on disk: {}", written.message());
  }
  return std::make_shared<const CompiledKernel>(std::move(*compiled));
}

void KernelCache::clearMemory() {
  std::lock_guard<std::mutex> lock(mapMutex);
  entries.clear();
}

KernelCache::Counters KernelCache::counters() const {
  Counters result;
  result.memoryHits = memoryHits.load();
  result.diskHits = diskHits.load();
  result.compiles = compiles.load();
  result.diskRejects = diskRejects.load();
  return result;
}

void KernelCache::resetCounters() {
  memoryHits = 0;
  diskHits = 0;
  compiles = 0;
  diskRejects = 0;
}

} // namespace metaattn::rt
