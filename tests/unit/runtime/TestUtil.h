//===- TestUtil.h - Helpers shared by the runtime unit tests ----*- C++ -*-===//

#ifndef METAATTN_TESTS_UNIT_RUNTIME_TESTUTIL_H
#define METAATTN_TESTS_UNIT_RUNTIME_TESTUTIL_H

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

namespace metaattn::rt::test {

constexpr DLDataType kFloat32 = {kDLFloat, 32, 1};
constexpr DLDataType kBFloat16 = {kDLBfloat, 16, 1};
constexpr DLDataType kInt32 = {kDLInt, 32, 1};

/// A DLTensor with its own shape, strides and (8-byte aligned, host) storage.
struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::vector<double> storage;
  DLTensor tensor{};

  HostTensor(std::vector<int64_t> shape, DLDataType dtype, DLDeviceType deviceType = kDLCPU,
             std::vector<int64_t> strides = {});
  HostTensor(const HostTensor &) = delete;
  HostTensor &operator=(const HostTensor &) = delete;

  const DLTensor *get() const { return &tensor; }
};

/// A fresh empty directory under $TMPDIR (or /tmp), removed by the destructor.
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::string &path() const { return dir; }

private:
  std::string dir;
};

/// The whole file; empty when missing.
std::string readFileBytes(const std::string &path);
/// Replaces the file's contents.
void writeFileBytes(const std::string &path, const std::string &bytes);

} // namespace metaattn::rt::test

#endif // METAATTN_TESTS_UNIT_RUNTIME_TESTUTIL_H
