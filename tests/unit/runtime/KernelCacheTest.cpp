//===- KernelCacheTest.cpp - KernelCache with an injected compile function -----------------===//
//
// These tests never call NVRTC: a fake compile function records its calls, so they run anywhere.
// NvrtcTest.cpp runs the cache with the real compiler.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Runtime/KernelCache.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <thread>

using namespace metaattn::rt;
using namespace metaattn::rt::test;

namespace {

/// A compile function that "compiles" by echoing its input, counting calls.
struct FakeCompiler {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  std::chrono::milliseconds delay{0};

  CompileFunction function() const {
    auto calls = this->calls;
    auto delay = this->delay;
    return [calls, delay](std::string_view source, std::string_view name,
                          const CompileOptions &options) -> StatusOr<CompiledKernel> {
      ++*calls;
      if (delay.count())
        std::this_thread::sleep_for(delay);
      if (source.find("syntax error") != std::string_view::npos)
        return Status::error("fake compile of '{}' failed", name);
      CompiledKernel kernel;
      kernel.arch = options.arch;
      kernel.ptx = fmt::format(".target {}\n// {}", options.arch, source);
      kernel.cubin = std::string("\x7f"
                                 "ELF\0\1\2",
                                 7) +
                     std::string(source);
      kernel.log = "fake log";
      return kernel;
    };
  }
};

KernelCacheConfig configFor(const FakeCompiler &compiler, std::string directory) {
  KernelCacheConfig config;
  config.directory = std::move(directory);
  config.compile = compiler.function();
  config.compilerVersion = "fake-1";
  return config;
}

const char *kSource = "extern \"C\" __global__ void k() {}";

TEST(KernelCacheTest, MemoryHit) {
  FakeCompiler compiler;
  KernelCache cache(configFor(compiler, ""));
  EXPECT_FALSE(cache.diskEnabled());
  auto first = cache.getOrCompile(kSource, "k.cu", {});
  ASSERT_TRUE(first.ok()) << first.message();
  auto second = cache.getOrCompile(kSource, "k.cu", {});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(first->get(), second->get());
  EXPECT_EQ(*compiler.calls, 1);
  KernelCache::Counters counters = cache.counters();
  EXPECT_EQ(counters.compiles, 1u);
  EXPECT_EQ(counters.memoryHits, 1u);
  EXPECT_EQ(counters.diskHits, 0u);
  EXPECT_EQ((*first)->key.size(), 32u);
}

TEST(KernelCacheTest, KeyDependsOnEverythingThatChangesTheResult) {
  FakeCompiler compiler;
  KernelCache cache(configFor(compiler, ""));
  CompileOptions options;
  std::string base = *cache.keyFor(kSource, "k.cu", options);
  EXPECT_EQ(base, *cache.keyFor(kSource, "k.cu", options));
  EXPECT_NE(base, *cache.keyFor("// other", "k.cu", options));
  EXPECT_NE(base, *cache.keyFor(kSource, "other.cu", options));
  CompileOptions changed = options;
  changed.arch = "sm_80";
  EXPECT_NE(base, *cache.keyFor(kSource, "k.cu", changed));
  changed = options;
  changed.extraFlags = {"-DFOO=1"};
  EXPECT_NE(base, *cache.keyFor(kSource, "k.cu", changed));
  changed = options;
  changed.wantCubin = false;
  EXPECT_NE(base, *cache.keyFor(kSource, "k.cu", changed));
  changed = options;
  changed.headers = {{"extra.cuh", "// x"}};
  EXPECT_NE(base, *cache.keyFor(kSource, "k.cu", changed));

  KernelCacheConfig otherCompiler = configFor(compiler, "");
  otherCompiler.compilerVersion = "fake-2";
  KernelCache other(std::move(otherCompiler));
  EXPECT_NE(base, *other.keyFor(kSource, "k.cu", options));

  changed = options;
  changed.arch = "bogus";
  EXPECT_EQ(cache.keyFor(kSource, "k.cu", changed).message(),
            "unrecognised GPU architecture 'bogus' (expected e.g. sm_90a or compute_90a)");
}

TEST(KernelCacheTest, DiskHitAfterClearingMemory) {
  TempDir dir;
  FakeCompiler compiler;
  KernelCache cache(configFor(compiler, dir.path()));
  ASSERT_TRUE(cache.diskEnabled());
  auto first = cache.getOrCompile(kSource, "k.cu", {});
  ASSERT_TRUE(first.ok()) << first.message();
  EXPECT_TRUE(std::filesystem::exists(cache.diskPath((*first)->key)));

  cache.clearMemory();
  auto second = cache.getOrCompile(kSource, "k.cu", {});
  ASSERT_TRUE(second.ok()) << second.message();
  EXPECT_EQ(*compiler.calls, 1);
  EXPECT_EQ(cache.counters().diskHits, 1u);
  EXPECT_EQ((*second)->cubin, (*first)->cubin);
  EXPECT_EQ((*second)->ptx, (*first)->ptx);
  EXPECT_EQ((*second)->log, (*first)->log);
  EXPECT_EQ((*second)->arch, (*first)->arch);
  EXPECT_EQ((*second)->key, (*first)->key);

  // A second cache (another process, in effect) finds the entry too.
  KernelCache fresh(configFor(compiler, dir.path()));
  ASSERT_TRUE(fresh.getOrCompile(kSource, "k.cu", {}).ok());
  EXPECT_EQ(fresh.counters().diskHits, 1u);
  EXPECT_EQ(*compiler.calls, 1);

  // No temporary files are left behind.
  int files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(entry.path().extension(), ".mkc") << entry.path();
  }
  EXPECT_EQ(files, 1);
}

/// Damages the disk entry with `damage`, then checks a new cache recompiles and repairs it.
void expectRecompiledAfter(const std::function<void(std::string &)> &damage, const char *what) {
  SCOPED_TRACE(what);
  TempDir dir;
  FakeCompiler compiler;
  std::string key, path, original;
  {
    KernelCache cache(configFor(compiler, dir.path()));
    auto kernel = cache.getOrCompile(kSource, "k.cu", {});
    ASSERT_TRUE(kernel.ok());
    key = (*kernel)->key;
    path = cache.diskPath(key);
    original = readFileBytes(path);
    ASSERT_FALSE(original.empty());
  }
  std::string damaged = original;
  damage(damaged);
  writeFileBytes(path, damaged);

  KernelCache cache(configFor(compiler, dir.path()));
  auto kernel = cache.getOrCompile(kSource, "k.cu", {});
  ASSERT_TRUE(kernel.ok()) << kernel.message();
  EXPECT_EQ(*compiler.calls, 2);
  EXPECT_EQ(cache.counters().diskRejects, 1u);
  EXPECT_EQ(cache.counters().diskHits, 0u);
  EXPECT_EQ(cache.counters().compiles, 1u);
  EXPECT_EQ((*kernel)->cubin, std::string("\x7f"
                                          "ELF\0\1\2",
                                          7) +
                                  kSource);
  // The entry was overwritten with a good one.
  EXPECT_EQ(readFileBytes(path), original);
}

TEST(KernelCacheTest, CorruptEntriesAreRecompiled) {
  expectRecompiledAfter([](std::string &bytes) { bytes[bytes.size() - 5] ^= 0x01; },
                        "payload byte flipped");
  expectRecompiledAfter([](std::string &bytes) { bytes[60] ^= 0xff; }, "key byte flipped");
  expectRecompiledAfter([](std::string &bytes) { bytes[0] = 'X'; }, "bad magic");
  expectRecompiledAfter([](std::string &bytes) { bytes[8] = 99; }, "other format version");
  expectRecompiledAfter([](std::string &bytes) { bytes[24] ^= 0x40; }, "cubin size changed");
  expectRecompiledAfter([](std::string &bytes) { bytes[30] = 0x7f; }, "huge cubin size");
  expectRecompiledAfter([](std::string &bytes) { bytes.resize(bytes.size() - 10); }, "truncated");
  expectRecompiledAfter([](std::string &bytes) { bytes.resize(20); }, "truncated header");
  expectRecompiledAfter([](std::string &bytes) { bytes.clear(); }, "empty file");
  expectRecompiledAfter([](std::string &bytes) { bytes += "trailing"; }, "trailing bytes");
}

TEST(KernelCacheTest, EntryForAnotherKeyIsStale) {
  TempDir dir;
  FakeCompiler compiler;
  KernelCache cache(configFor(compiler, dir.path()));
  auto a = cache.getOrCompile("// a", "k.cu", {});
  auto b = cache.getOrCompile("// b", "k.cu", {});
  ASSERT_TRUE(a.ok() && b.ok());
  // Put a's (valid) entry where b's belongs.
  writeFileBytes(cache.diskPath((*b)->key), readFileBytes(cache.diskPath((*a)->key)));
  cache.clearMemory();
  auto again = cache.getOrCompile("// b", "k.cu", {});
  ASSERT_TRUE(again.ok());
  EXPECT_NE((*again)->ptx.find("// b"), std::string::npos);
  EXPECT_EQ(cache.counters().diskRejects, 1u);
  EXPECT_EQ(*compiler.calls, 3);
}

TEST(KernelCacheTest, UnusableDirectoryMeansMemoryOnly) {
  TempDir dir;
  std::string file = dir.path() + "/not-a-directory";
  writeFileBytes(file, "x");
  FakeCompiler compiler;
  KernelCache cache(configFor(compiler, file + "/cache"));
  EXPECT_FALSE(cache.diskEnabled());
  EXPECT_EQ(cache.diskPath("0123"), "");
  auto kernel = cache.getOrCompile(kSource, "k.cu", {});
  ASSERT_TRUE(kernel.ok()) << kernel.message();
  ASSERT_TRUE(cache.getOrCompile(kSource, "k.cu", {}).ok());
  EXPECT_EQ(*compiler.calls, 1);
}

TEST(KernelCacheTest, DirectoryIsCreatedAndTakenFromTheEnvironment) {
  TempDir dir;
  std::string nested = dir.path() + "/a/b/metaattn";
  ::setenv("METAATTN_CACHE_DIR", nested.c_str(), 1);
  FakeCompiler compiler;
  KernelCacheConfig config;
  config.compile = compiler.function();
  KernelCache cache(std::move(config));
  ::unsetenv("METAATTN_CACHE_DIR");
  EXPECT_EQ(cache.directory(), nested);
  EXPECT_TRUE(std::filesystem::is_directory(nested));
}

TEST(KernelCacheTest, ErrorsAreReturnedAndNotRemembered) {
  FakeCompiler compiler;
  KernelCache cache(configFor(compiler, ""));
  auto first = cache.getOrCompile("syntax error", "bad.cu", {});
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.message(), "fake compile of 'bad.cu' failed");
  auto second = cache.getOrCompile("syntax error", "bad.cu", {});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(*compiler.calls, 2);
}

TEST(KernelCacheTest, ConcurrentRequestsForOneKeyCompileOnce) {
  TempDir dir;
  FakeCompiler compiler;
  compiler.delay = std::chrono::milliseconds(200);
  KernelCache cache(configFor(compiler, dir.path()));
  constexpr int kThreads = 8;
  std::vector<std::shared_ptr<const CompiledKernel>> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      auto kernel = cache.getOrCompile(kSource, "k.cu", {});
      if (kernel.ok())
        results[i] = *kernel;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(*compiler.calls, 1);
  EXPECT_EQ(cache.counters().compiles, 1u);
  EXPECT_EQ(cache.counters().memoryHits, uint64_t(kThreads - 1));
  for (int i = 0; i < kThreads; ++i) {
    ASSERT_NE(results[i], nullptr) << "thread " << i;
    EXPECT_EQ(results[i].get(), results[0].get());
  }
}

TEST(KernelCacheTest, DifferentKeysCompileConcurrently) {
  // Each compilation waits until both are running at once; a cache that serialised compiles
  // would time out here.
  std::mutex mutex;
  std::condition_variable changed;
  int running = 0;
  bool overlapped = false;
  KernelCacheConfig config;
  config.directory = "";
  config.compile = [&](std::string_view source, std::string_view,
                       const CompileOptions &) -> StatusOr<CompiledKernel> {
    std::unique_lock<std::mutex> lock(mutex);
    ++running;
    changed.notify_all();
    if (changed.wait_for(lock, std::chrono::seconds(10), [&] { return running >= 2; }))
      overlapped = true;
    CompiledKernel kernel;
    kernel.ptx = std::string(source);
    return kernel;
  };
  KernelCache cache(std::move(config));
  std::thread first([&] { ASSERT_TRUE(cache.getOrCompile("// one", "a.cu", {}).ok()); });
  std::thread second([&] { ASSERT_TRUE(cache.getOrCompile("// two", "b.cu", {}).ok()); });
  first.join();
  second.join();
  EXPECT_TRUE(overlapped);
  EXPECT_EQ(cache.counters().compiles, 2u);
}

TEST(KernelCacheTest, ConcurrentCachesShareTheDiskSafely) {
  // Several caches (as if several processes) compile the same key into one directory at once;
  // atomic renames mean every later reader sees one complete entry.
  TempDir dir;
  FakeCompiler compiler;
  compiler.delay = std::chrono::milliseconds(20);
  std::vector<std::unique_ptr<KernelCache>> caches;
  for (int i = 0; i < 4; ++i)
    caches.push_back(std::make_unique<KernelCache>(configFor(compiler, dir.path())));
  std::vector<std::thread> threads;
  for (auto &cache : caches)
    threads.emplace_back([&cache] { EXPECT_TRUE(cache->getOrCompile(kSource, "k.cu", {}).ok()); });
  for (std::thread &thread : threads)
    thread.join();
  KernelCache reader(configFor(compiler, dir.path()));
  ASSERT_TRUE(reader.getOrCompile(kSource, "k.cu", {}).ok());
  EXPECT_EQ(reader.counters().diskHits, 1u);
  EXPECT_EQ(reader.counters().diskRejects, 0u);
}

} // namespace

namespace {

TEST(KernelCacheTest, SaysWhereEachKernelCameFrom) {
  FakeCompiler compiler;
  TempDir dir;
  CacheSource from = CacheSource::memory;
  {
    KernelCache cache(configFor(compiler, dir.path()));
    ASSERT_TRUE(cache.getOrCompile(kSource, "k.cu", {}, &from).ok());
    EXPECT_EQ(from, CacheSource::compiler);
    ASSERT_TRUE(cache.getOrCompile(kSource, "k.cu", {}, &from).ok());
    EXPECT_EQ(from, CacheSource::memory);
  }
  KernelCache fresh(configFor(compiler, dir.path()));
  ASSERT_TRUE(fresh.getOrCompile(kSource, "k.cu", {}, &from).ok());
  EXPECT_EQ(from, CacheSource::disk);
  EXPECT_EQ(*compiler.calls, 1);
}

TEST(KernelCacheTest, CompilesAModulesKernelsConcurrently) {
  // Three kernels, 300 ms each, on two threads: about 600 ms, not 900; a duplicate is
  // compiled once; a failing one fails alone; the results keep the requests' order.
  FakeCompiler compiler;
  compiler.delay = std::chrono::milliseconds(300);
  KernelCache cache(configFor(compiler, ""));
  std::vector<KernelCache::Request> requests = {
      {"// a", "a.cu"}, {"// b", "b.cu"}, {"// syntax error", "bad.cu"}, {"// a", "a.cu"}};
  auto start = std::chrono::steady_clock::now();
  std::vector<KernelCache::Fetched> fetched = cache.getOrCompileAll(requests, {}, 2);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(fetched.size(), 4u);
  ASSERT_TRUE(fetched[0].kernel.ok());
  ASSERT_TRUE(fetched[1].kernel.ok());
  EXPECT_NE((*fetched[0].kernel)->cubin.find("// a"), std::string::npos);
  EXPECT_NE((*fetched[1].kernel)->cubin.find("// b"), std::string::npos);
  EXPECT_FALSE(fetched[2].kernel.ok());
  EXPECT_NE(fetched[2].kernel.message().find("bad.cu"), std::string::npos);
  ASSERT_TRUE(fetched[3].kernel.ok());
  EXPECT_EQ(fetched[3].kernel->get(), fetched[0].kernel->get());
  EXPECT_EQ(*compiler.calls, 3); // a, b and the failing one; the second a is shared
  EXPECT_LT(ms, 850.0);          // sequentially: 900 ms at least
  EXPECT_GE(fetched[1].ms, 250.0);
}

} // namespace
