//===- Float16.cpp - bit-exact bf16 and f16 conversions ----------------------===//
//
// Round-to-nearest-even conversions between float and the two 16-bit float formats, and
// single-rounding conversions from double (round to odd through float, then to 16 bits).
//
//===----------------------------------------------------------------------===//

#include "metaattn/Support/HostTensor.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace metaattn;

static uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

static float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

uint16_t metaattn::floatToBF16(float value) {
  uint32_t bits = bitsOf(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep sign and payload top, force quiet.
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb; // carries into the exponent (and to inf) as rounding requires
  return static_cast<uint16_t>(bits >> 16);
}

float metaattn::bf16ToFloat(uint16_t bits) { return floatOf(static_cast<uint32_t>(bits) << 16); }

uint16_t metaattn::floatToF16(float value) {
  uint32_t x = bitsOf(value);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x > 0x7f800000u) // NaN: quiet, keep the top payload bits
    return sign | 0x7e00u | static_cast<uint16_t>((x >> 13) & 0x3ffu);
  if (x >= 0x477ff000u) // >= 65520 (including inf) rounds to inf
    return sign | 0x7c00u;
  if (x >= 0x38800000u) { // a normal f16 (>= 2^-14): rebias the exponent by 127 - 15
    uint32_t m = x - 0x38000000u;
    m += 0x0fffu + ((m >> 13) & 1u);
    return sign | static_cast<uint16_t>(m >> 13);
  }
  // Subnormal f16 or zero: value = mant * 2^(e - 150); the f16 unit is 2^-24.
  uint32_t e = x >> 23;
  if (e < 102) // below 2^-25: rounds to zero
    return sign;
  uint32_t mant = (x & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - e; // 14..24
  uint32_t result = mant >> shift;
  uint32_t rem = mant & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (result & 1u)))
    ++result; // may become 0x400, the smallest normal: the right encoding
  return sign | static_cast<uint16_t>(result);
}

float metaattn::f16ToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  if (exp == 0x1f) // inf or NaN
    return floatOf(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) { // zero or subnormal: mant * 2^-24, exact in float
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return floatOf(sign | ((exp + 112) << 23) | (mant << 13));
}

/// Rounds a double to float with round-to-odd: the result is inexact only in its last bit,
/// which is then set. A later round to nearest even at 16 bits is then a single rounding.
static float roundToOddFloat(double value) {
  float f = static_cast<float>(value);
  if (std::isnan(value) || std::isinf(f) || static_cast<double>(f) == value)
    return f;
  uint32_t bits = bitsOf(f);
  if (bits & 1u)
    return f;
  // f is even and inexact: step one ulp towards value, which makes the last bit odd.
  return std::nextafter(f, value > static_cast<double>(f)
                               ? std::numeric_limits<float>::infinity()
                               : -std::numeric_limits<float>::infinity());
}

double metaattn::roundToBF16(double value) {
  return bf16ToFloat(floatToBF16(roundToOddFloat(value)));
}

double metaattn::roundToF16(double value) { return f16ToFloat(floatToF16(roundToOddFloat(value))); }

double metaattn::roundToDType(double value, DType dtype) {
  switch (dtype) {
  case DType::f32:
    return static_cast<float>(value);
  case DType::bf16:
    return roundToBF16(value);
  case DType::f16:
    return roundToF16(value);
  case DType::i32: {
    if (std::isnan(value))
      return 0;
    double t = std::trunc(value);
    if (t >= 9.2e18 || t <= -9.2e18)
      return 0;
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<int64_t>(t)));
  }
  }
  return value;
}
