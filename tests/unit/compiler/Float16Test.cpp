//===- Float16Test.cpp - bf16 and f16 conversions ----------------------------===//

#include "metaattn/Support/HostTensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace metaattn;

namespace {

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST(Float16Test, BF16KnownPatterns) {
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBF16(-2.0f), 0xC000);
  EXPECT_EQ(floatToBF16(-0.0f), 0x8000);
  EXPECT_EQ(floatToBF16(fromBits(0x3F808000)), 0x3F80); // tie, even stays
  EXPECT_EQ(floatToBF16(fromBits(0x3F818000)), 0x3F82); // tie, odd rounds up
  EXPECT_EQ(floatToBF16(fromBits(0x3F808001)), 0x3F81); // above the tie
  EXPECT_EQ(floatToBF16(fromBits(0x3F807FFF)), 0x3F80); // below the tie
  EXPECT_EQ(floatToBF16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(floatToBF16(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_EQ(floatToBF16(fromBits(0x7F7FFFFF)), 0x7F80); // FLT_MAX rounds to inf
  EXPECT_EQ(floatToBF16(fromBits(0x7FC00000)), 0x7FC0); // quiet NaN
  EXPECT_EQ(floatToBF16(fromBits(0x7F800001)), 0x7FC0); // signalling NaN stays NaN, quiet
  EXPECT_EQ(floatToBF16(fromBits(0xFFC00000)), 0xFFC0); // negative NaN
  EXPECT_EQ(floatToBF16(fromBits(0x00010000)), 0x0001); // subnormal
  EXPECT_EQ(floatToBF16(fromBits(0x00018000)), 0x0002); // subnormal tie to even
  EXPECT_EQ(floatToBF16(fromBits(0x00008000)), 0x0000); // smallest tie to zero
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bf16ToFloat(0x4049), 3.140625f);
  EXPECT_TRUE(std::isnan(bf16ToFloat(0x7FC1)));
}

TEST(Float16Test, F16KnownPatterns) {
  EXPECT_EQ(floatToF16(1.0f), 0x3C00);
  EXPECT_EQ(floatToF16(-2.0f), 0xC000);
  EXPECT_EQ(floatToF16(0.1f), 0x2E66);
  EXPECT_EQ(floatToF16(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(floatToF16(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(65519.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(65520.0f), 0x7C00); // tie at the top rounds to inf
  EXPECT_EQ(floatToF16(1e10f), 0x7C00);
  EXPECT_EQ(floatToF16(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -14)), 0x0400); // smallest normal
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -25)), 0x0000); // tie to even: zero
  EXPECT_EQ(floatToF16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(floatToF16(std::ldexp(3.0f, -25)), 0x0002);            // 1.5 units: tie to even 2
  EXPECT_EQ(floatToF16(std::ldexp(1023.5f, -24)), 0x0400);         // rounds up into the normals
  EXPECT_EQ(floatToF16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);     // tie, even
  EXPECT_EQ(floatToF16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02); // tie, odd up
  EXPECT_EQ(floatToF16(-0.0f), 0x8000);
  EXPECT_EQ(floatToF16(fromBits(0x7FC00000)), 0x7E00);
  EXPECT_EQ(floatToF16(fromBits(0x7F800001)) & 0x7E00, 0x7E00); // sNaN -> quiet NaN
  EXPECT_EQ(f16ToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16ToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(f16ToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(f16ToFloat(0x7E00)));
}

TEST(Float16Test, AllPatternsRoundTrip) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t b = static_cast<uint16_t>(bits);
    float f16 = f16ToFloat(b), bf16 = bf16ToFloat(b);
    if (!std::isnan(f16))
      ASSERT_EQ(floatToF16(f16), b) << std::hex << bits;
    if (!std::isnan(bf16))
      ASSERT_EQ(floatToBF16(bf16), b) << std::hex << bits;
  }
}

TEST(Float16Test, DoubleRoundsOnce) {
  // Just above the bf16 tie between 1 and 1 + 2^-7: rounding through float would land on
  // the tie and go to even (1.0); a single rounding goes up.
  double d = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(roundToBF16(d), 1.0 + std::ldexp(1.0, -7));
  EXPECT_EQ(static_cast<double>(bf16ToFloat(floatToBF16(static_cast<float>(d)))), 1.0);
  double e = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(roundToF16(e), 1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(roundToDType(1.0 + std::ldexp(1.0, -30), DType::f32), 1.0);
  EXPECT_EQ(roundToDType(-3.7, DType::i32), -3.0);
}

} // namespace
