//===- TestUtil.cpp - Helpers shared by the runtime unit tests -----------------------------===//

#include "TestUtil.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace metaattn::rt::test {

HostTensor::HostTensor(std::vector<int64_t> shapeIn, DLDataType dtype, DLDeviceType deviceType,
                       std::vector<int64_t> stridesIn)
    : shape(std::move(shapeIn)), strides(std::move(stridesIn)) {
  int64_t elements = 1;
  for (int64_t size : shape)
    elements *= size > 0 ? size : 1;
  if (!strides.empty()) {
    int64_t span = 1;
    for (size_t i = 0; i < shape.size(); ++i)
      span += (shape[i] > 0 ? shape[i] - 1 : 0) * strides[i];
    elements = span;
  }
  int64_t bytes = elements * ((dtype.bits * dtype.lanes + 7) / 8);
  storage.assign(bytes / 8 + 2, 0.0);
  tensor.data = storage.data();
  tensor.device = {deviceType, 0};
  tensor.ndim = static_cast<int>(shape.size());
  tensor.dtype = dtype;
  tensor.shape = shape.data();
  tensor.strides = strides.empty() ? nullptr : strides.data();
  tensor.byte_offset = 0;
}

TempDir::TempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/metaattn-rt-test-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()))
    dir = buffer.data();
}

TempDir::~TempDir() {
  std::error_code ignored;
  if (!dir.empty())
    std::filesystem::remove_all(dir, ignored);
}

std::string readFileBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeFileBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

} // namespace metaattn::rt::test
