//===- DiskCache.cpp - Reading and writing on-disk kernel cache entries --------------------===//

#include "DiskCache.h"

#include "metaattn/Runtime/Hash.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
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

std::string payloadChecksumInput(std::string_view key, const CompiledKernel &kernel) {
  std::string all;
  all.reserve(key.size() + kernel.arch.size() + kernel.cubin.size() + kernel.ptx.size() +
              kernel.log.size());
  all.append(key).append(kernel.arch).append(kernel.cubin).append(kernel.ptx).append(kernel.log);
  return all;
}

/// Reads the whole file; false when it cannot be opened (missing), with `error` set otherwise.
bool readFile(const std::string &path, std::string &contents, std::string &error) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    if (errno != ENOENT)
      error = fmt::format("cannot open: {}", std::strerror(errno));
    return false;
  }
  char buffer[1 << 16];
  size_t count;
  while ((count = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    contents.append(buffer, count);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed) {
    error = "read error";
    return false;
  }
  return true;
}

} // namespace

DiskReadResult readDiskEntry(const std::string &path, std::string_view key) {
  DiskReadResult result;
  std::string data;
  if (!readFile(path, data, result.problem))
    return result;

  auto reject = [&](std::string problem) {
    result.problem = std::move(problem);
    return result;
  };
  if (data.size() < kHeaderSize)
    return reject(fmt::format("truncated: {} bytes, smaller than the {}-byte header", data.size(),
                              kHeaderSize));
  if (std::memcmp(data.data(), kMagic, sizeof(kMagic)) != 0)
    return reject("bad magic: not a metaattn kernel cache entry");
  uint64_t version = getLittleEndian(data, 8, 4);
  if (version != kDiskFormatVersion)
    return reject(fmt::format("stale: format version {}, this runtime writes {}", version,
                              kDiskFormatVersion));
  uint64_t sizes[5] = {getLittleEndian(data, 12, 4), getLittleEndian(data, 16, 8),
                       getLittleEndian(data, 24, 8), getLittleEndian(data, 32, 8),
                       getLittleEndian(data, 40, 8)};
  uint64_t checksum = getLittleEndian(data, 48, 8);
  uint64_t expectedSize = kHeaderSize;
  for (uint64_t size : sizes) {
    if (size > data.size())
      return reject(fmt::format("truncated or corrupt: a section of {} bytes in a {}-byte file",
                                size, data.size()));
    expectedSize += size;
  }
  if (expectedSize != data.size())
    return reject(fmt::format("{}: the header describes {} bytes, the file has {}",
                              expectedSize > data.size() ? "truncated" : "corrupt", expectedSize,
                              data.size()));

  std::string_view view(data);
  size_t offset = kHeaderSize;
  auto take = [&](uint64_t size) {
    std::string_view part = view.substr(offset, size);
    offset += size;
    return part;
  };
  std::string_view storedKey = take(sizes[0]);
  CompiledKernel kernel;
  kernel.arch = std::string(take(sizes[1]));
  kernel.cubin = std::string(take(sizes[2]));
  kernel.ptx = std::string(take(sizes[3]));
  kernel.log = std::string(take(sizes[4]));
  if (checksum64(view.substr(kHeaderSize)) != checksum)
    return reject("corrupt: payload checksum mismatch");
  if (storedKey != key)
    return reject(fmt::format("stale: holds key {}", storedKey));
  kernel.key = std::string(key);
  result.kernel = std::move(kernel);
  return result;
}

Status writeDiskEntry(const std::string &path, std::string_view key, const CompiledKernel &kernel) {
  std::string payload = payloadChecksumInput(key, kernel);
  std::string data(kMagic, sizeof(kMagic));
  putLittleEndian(data, kDiskFormatVersion, 4);
  putLittleEndian(data, key.size(), 4);
  putLittleEndian(data, kernel.arch.size(), 8);
  putLittleEndian(data, kernel.cubin.size(), 8);
  putLittleEndian(data, kernel.ptx.size(), 8);
  putLittleEndian(data, kernel.log.size(), 8);
  putLittleEndian(data, checksum64(payload), 8);
  data += payload;

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
