//===- DiskCache.cpp - Reading and writing on-disk kernel cache entries --------------------===//

#include "DiskCache.h"

#include "metaattn/Runtime/Hash.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <initializer_list>
#include <sys/stat.h>
#include <unistd.h>

namespace metaattn::rt::detail {

namespace {

constexpr char kMagic[8] = {'m', 'a', 't', 't', 'n', 'K', 'C', '\n'};
constexpr size_t kHeaderSize = 56;

void putLittleEndian(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>(value >> (8 * i)));
}

uint64_t getLittleEndian(std::string_view in, size_t offset, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= uint64_t(static_cast<unsigned char>(in[offset + i])) << (8 * i);
  return value;
}

/// The payload's checksum: checksum64 of the sections' own checksums, so that a reader can
/// check sections it read into separate strings.
uint64_t payloadChecksum(std::initializer_list<std::string_view> sections) {
  std::string sums;
  for (std::string_view section : sections)
    putLittleEndian(sums, checksum64(section), 8);
  return checksum64(sums);
}

} // namespace

// The header first, then each section straight into its own string: one allocation and one
// copy per section (a whole-file buffer grown by appends, then cut into sections, cost
// several times as much: tools/scripts/cache_time.sh, benchmarks/RESULTS.md).
DiskReadResult readDiskEntry(const std::string &path, std::string_view key) {
  DiskReadResult result;
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    if (errno != ENOENT)
      result.problem = fmt::format("cannot open: {}", std::strerror(errno));
    return result;
  }
  struct Closer {
    std::FILE *file;
    ~Closer() { std::fclose(file); }
  } closer{file};
  auto reject = [&](std::string problem) {
    result.problem = std::move(problem);
    return result;
  };
  struct stat info;
  if (::fstat(::fileno(file), &info) != 0)
    return reject(fmt::format("cannot stat: {}", std::strerror(errno)));
  uint64_t fileSize = static_cast<uint64_t>(info.st_size);
  std::string header(kHeaderSize, '\0');
  if (fileSize < kHeaderSize || std::fread(header.data(), 1, kHeaderSize, file) != kHeaderSize)
    return reject(
        fmt::format("truncated: {} bytes, smaller than the {}-byte header", fileSize, kHeaderSize));
  if (std::memcmp(header.data(), kMagic, sizeof(kMagic)) != 0)
    return reject("bad magic: not a metaattn kernel cache entry");
  uint64_t version = getLittleEndian(header, 8, 4);
  if (version != kDiskFormatVersion)
    return reject(fmt::format("stale: format version {}, this runtime writes {}", version,
                              kDiskFormatVersion));
  uint64_t sizes[5] = {getLittleEndian(header, 12, 4), getLittleEndian(header, 16, 8),
                       getLittleEndian(header, 24, 8), getLittleEndian(header, 32, 8),
                       getLittleEndian(header, 40, 8)};
  uint64_t checksum = getLittleEndian(header, 48, 8);
  uint64_t expectedSize = kHeaderSize;
  for (uint64_t size : sizes) {
    if (size > fileSize)
      return reject(fmt::format("truncated or corrupt: a section of {} bytes in a {}-byte file",
                                size, fileSize));
    expectedSize += size;
  }
  if (expectedSize != fileSize)
    return reject(fmt::format("{}: the header describes {} bytes, the file has {}",
                              expectedSize > fileSize ? "truncated" : "corrupt", expectedSize,
                              fileSize));
  std::string sections[5];
  for (int i = 0; i < 5; ++i) {
    sections[i].resize(sizes[i]);
    if (sizes[i] && std::fread(sections[i].data(), 1, sizes[i], file) != sizes[i])
      return reject("read error or truncated while reading");
  }
  if (payloadChecksum({sections[0], sections[1], sections[2], sections[3], sections[4]}) !=
      checksum)
    return reject("corrupt: payload checksum mismatch");
  if (sections[0] != key)
    return reject(fmt::format("stale: holds key {}", sections[0]));
  CompiledKernel kernel;
  kernel.arch = std::move(sections[1]);
  kernel.cubin = std::move(sections[2]);
  kernel.ptx = std::move(sections[3]);
  kernel.log = std::move(sections[4]);
  kernel.key = std::string(key);
  result.kernel = std::move(kernel);
  return result;
}

Status writeDiskEntry(const std::string &path, std::string_view key, const CompiledKernel &kernel) {
  std::string data(kMagic, sizeof(kMagic));
  putLittleEndian(data, kDiskFormatVersion, 4);
  putLittleEndian(data, key.size(), 4);
  putLittleEndian(data, kernel.arch.size(), 8);
  putLittleEndian(data, kernel.cubin.size(), 8);
  putLittleEndian(data, kernel.ptx.size(), 8);
  putLittleEndian(data, kernel.log.size(), 8);
  putLittleEndian(data, payloadChecksum({key, kernel.arch, kernel.cubin, kernel.ptx, kernel.log}),
                  8);
  data.append(key).append(kernel.arch).append(kernel.cubin).append(kernel.ptx).append(kernel.log);

  static std::atomic<uint64_t> counter{0};
  std::string temporary = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::error("cannot create {}: {}", temporary, std::strerror(errno));
  size_t written = 0;
  while (written < data.size()) {
    ssize_t count = ::write(fd, data.data() + written, data.size() - written);
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0) {
      Status status = Status::error("cannot write {}: {}", temporary, std::strerror(errno));
      ::close(fd);
      ::unlink(temporary.c_str());
      return status;
    }
    written += static_cast<size_t>(count);
  }
  bool synced = ::fsync(fd) == 0;
  bool closed = ::close(fd) == 0;
  if (!synced || !closed) {
    Status status = Status::error("cannot flush {}: {}", temporary, std::strerror(errno));
    ::unlink(temporary.c_str());
    return status;
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    Status status =
        Status::error("cannot rename {} to {}: {}", temporary, path, std::strerror(errno));
    ::unlink(temporary.c_str());
    return status;
  }
  return Status::success();
}

} // namespace metaattn::rt::detail
