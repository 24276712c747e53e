//===- Hash.cpp - 128-bit content hashes for cache keys ------------------------------------===//

#include "metaattn/Runtime/Hash.h"

#include <fmt/format.h>

namespace metaattn::rt {

namespace {

constexpr uint64_t kFnvPrime = 0x100000001b3ULL;
constexpr uint64_t kMixMultiplier = 0xff51afd7ed558ccdULL;

/// MurmurHash3's 64-bit finaliser: every input bit affects every output bit.
uint64_t avalanche(uint64_t value) {
  value ^= value >> 33;
  value *= 0xff51afd7ed558ccdULL;
  value ^= value >> 33;
  value *= 0xc4ceb9fe1a85ec53ULL;
  value ^= value >> 33;
  return value;
}

uint64_t rotateLeft(uint64_t value, int bits) { return (value << bits) | (value >> (64 - bits)); }

/// Eight bytes as a little-endian word, on any host.
uint64_t loadWord(const unsigned char *data) {
  uint64_t word = 0;
  for (int i = 0; i < 8; ++i)
    word |= uint64_t(data[i]) << (8 * i);
  return word;
}

} // namespace

std::string Hash128::hex() const { return fmt::format("{:016x}{:016x}", high, low); }

// Eight bytes per step, then the tail byte by byte: each chain's multiply is serial, so a
// byte-wise loop spent about four cycles per byte of a kernel's source (its cache key).
void Hasher::addBytes(const unsigned char *data, size_t size) {
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word = loadWord(data + i);
    fnvState = (fnvState ^ word) * kFnvPrime;
    mixState = rotateLeft((mixState + word) * kMixMultiplier, 31);
  }
  for (; i < size; ++i) {
    fnvState = (fnvState ^ data[i]) * kFnvPrime;
    mixState = rotateLeft((mixState + data[i]) * kMixMultiplier, 31);
  }
}

Hasher &Hasher::add(uint64_t value) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<unsigned char>(value >> (8 * i));
  addBytes(bytes, sizeof(bytes));
  return *this;
}

Hasher &Hasher::add(std::string_view bytes) {
  add(static_cast<uint64_t>(bytes.size()));
  addBytes(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size());
  return *this;
}

Hash128 Hasher::finish() const {
  Hash128 hash;
  hash.high = avalanche(fnvState);
  hash.low = avalanche(mixState);
  return hash;
}

// Four independent lanes of eight-byte words (their multiplies overlap), combined with the
// length and the tail bytes: about five times faster than the byte-wise FNV-1a it replaces
// (tools/scripts/cache_time.sh, benchmarks/RESULTS.md).
uint64_t checksum64(std::string_view bytes) {
  const auto *data = reinterpret_cast<const unsigned char *>(bytes.data());
  size_t size = bytes.size(), i = 0;
  uint64_t lanes[4] = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL, 0x9e3779b97f4a7c15ULL,
                       0xbf58476d1ce4e5b9ULL};
  for (; i + 32 <= size; i += 32)
    for (int lane = 0; lane < 4; ++lane)
      lanes[lane] = rotateLeft((lanes[lane] ^ loadWord(data + i + 8 * lane)) * kMixMultiplier, 29);
  uint64_t state = uint64_t(size) * kFnvPrime;
  for (uint64_t lane : lanes)
    state = (state ^ avalanche(lane)) * kFnvPrime;
  for (; i < size; ++i)
    state = (state ^ data[i]) * kFnvPrime;
  return avalanche(state);
}

} // namespace metaattn::rt
