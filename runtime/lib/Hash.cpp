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

} // namespace

std::string Hash128::hex() const { return fmt::format("{:016x}{:016x}", high, low); }

void Hasher::addBytes(const unsigned char *data, size_t size) {
  for (size_t i = 0; i < size; ++i) {
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

uint64_t checksum64(std::string_view bytes) {
  uint64_t state = 0xcbf29ce484222325ULL;
  for (unsigned char byte : bytes)
    state = (state ^ byte) * kFnvPrime;
  return avalanche(state);
}

} // namespace metaattn::rt
