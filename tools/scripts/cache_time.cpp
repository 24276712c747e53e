//===- cache_time.cpp - what a cached kernel fetch costs, without a GPU ---------------------===//
//
// Built by tools/scripts/cache_time.sh against a MetaAttnRuntime library. Modes:
//   cache_time fetch FILE.cu DIR     one KernelCache::getOrCompile of FILE.cu with the disk
//                                    cache in DIR (NVRTC on a miss): prints where it came from,
//                                    its wall time, and the cache's construction time
//   cache_time hash FILE             best of 20: checksum64 of FILE's bytes, a Hasher over them,
//                                    and readDiskEntry of FILE (a .mkc entry) with its first call
//
//===----------------------------------------------------------------------===//

#include "DiskCache.h"
#include "metaattn/Runtime/Hash.h"
#include "metaattn/Runtime/KernelCache.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace metaattn::rt;
using Clock = std::chrono::steady_clock;

static double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

static std::string readAll(const char *path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "fetch" && argc == 4) {
    std::string source = readAll(argv[2]);
    KernelCacheConfig config;
    config.directory = argv[3];
    Clock::time_point start = Clock::now();
    KernelCache cache(config);
    double construct = msSince(start);
    CompileOptions options;
    options.arch = "sm_90a";
    CacheSource from = CacheSource::compiler;
    start = Clock::now();
    auto kernel = cache.getOrCompile(source, "kernel.cu", options, &from);
    double fetch = msSince(start);
    if (!kernel.ok()) {
      std::fprintf(stderr, "cache_time: %s\n", kernel.status().message().c_str());
      return 1;
    }
    std::printf("getOrCompile %8.3f ms (%s); KernelCache construction %.2f ms\n", fetch,
                from == CacheSource::disk       ? "disk"
                : from == CacheSource::compiler ? "nvrtc"
                                                : "memory",
                construct);
    return 0;
  }
  if (mode == "hash" && argc == 3) {
    std::string bytes = readAll(argv[2]);
    // The key stored in the entry, for readDiskEntry (a wrong key names the stored one).
    detail::DiskReadResult probe = detail::readDiskEntry(argv[2], "?");
    std::string key;
    if (size_t at = probe.problem.find("holds key "); at != std::string::npos)
      key = probe.problem.substr(at + 10);
    double checksum = 1e30, hasher = 1e30, read = 1e30, first = 0;
    volatile uint64_t sink = 0;
    for (int i = 0; i < 20; ++i) {
      Clock::time_point start = Clock::now();
      sink = sink + checksum64(bytes);
      checksum = std::min(checksum, msSince(start));
      start = Clock::now();
      sink = sink + Hasher().add(bytes).finish().low;
      hasher = std::min(hasher, msSince(start));
      start = Clock::now();
      detail::DiskReadResult entry = detail::readDiskEntry(argv[2], key);
      double ms = msSince(start);
      if (!entry.kernel) {
        std::fprintf(stderr, "cache_time: %s rejected: %s\n", argv[2], entry.problem.c_str());
        return 1;
      }
      if (i == 0)
        first = ms;
      read = std::min(read, ms);
    }
    std::printf("%zu bytes: checksum64 %.3f ms, Hasher %.3f ms, readDiskEntry %.3f ms (its "
                "first call in this process %.3f ms; best of 20)\n",
                bytes.size(), checksum, hasher, read, first);
    return 0;
  }
  std::fprintf(stderr, "usage: cache_time fetch FILE.cu DIR | cache_time hash FILE.mkc\n");
  return 2;
}
