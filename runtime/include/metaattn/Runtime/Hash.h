//===- Hash.h - 128-bit content hashes for cache keys -----------*- C++ -*-===//
//
// Kernel cache keys are 128-bit hashes made of two independent 64-bit hashes (FNV-style and
// multiply-rotate chains over eight-byte words, then the tail bytes, each finished with a
// 64-bit avalanche), printed as 32 hex digits. Not
// cryptographic: they name cache entries, which are also checked against the full stored key.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_RUNTIME_HASH_H
#define METAATTN_RUNTIME_HASH_H

#include <cstdint>
#include <string>
#include <string_view>

namespace metaattn::rt {

/// A 128-bit hash value.
struct Hash128 {
  uint64_t high = 0;
  uint64_t low = 0;

  /// 32 lowercase hex digits, `high` first.
  std::string hex() const;

  bool operator==(const Hash128 &other) const { return high == other.high && low == other.low; }
  bool operator!=(const Hash128 &other) const { return !(*this == other); }
};

/// Builds a Hash128 incrementally. Each `add` also hashes the length of what it adds, so
/// ("ab", "c") and ("a", "bc") hash differently.
class Hasher {
public:
  /// Adds a byte string (its length first).
  Hasher &add(std::string_view bytes);
  /// Adds an integer as 8 little-endian bytes.
  Hasher &add(uint64_t value);

  /// The hash of everything added so far (the hasher can keep going).
  Hash128 finish() const;

private:
  void addBytes(const unsigned char *data, size_t size);

  uint64_t fnvState = 0xcbf29ce484222325ULL;
  uint64_t mixState = 0x9e3779b97f4a7c15ULL;
};

/// FNV-1a-64 of `bytes` followed by an avalanche: the checksum of disk cache payloads.
uint64_t checksum64(std::string_view bytes);

} // namespace metaattn::rt

#endif // METAATTN_RUNTIME_HASH_H
