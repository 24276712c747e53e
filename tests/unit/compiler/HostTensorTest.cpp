//===- HostTensorTest.cpp - Strided host tensors -----------------------------===//

#include "metaattn/Support/HostTensor.h"

#include <gtest/gtest.h>

using namespace metaattn;

namespace {

TEST(HostTensorTest, ContiguousAccessAndRounding) {
  HostTensor t = HostTensor::zeros({2, 3}, DType::bf16);
  EXPECT_TRUE(t.isContiguous());
  EXPECT_EQ(t.strides, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(t.storage.size(), 12u);
  t.set({1, 2}, 1.0 + 1.0 / 512); // rounds to 1.0 in bf16
  EXPECT_EQ(t.get({1, 2}), 1.0);
  t.set({0, 1}, 3.140625);
  EXPECT_EQ(t.getAt(1), 3.140625);
  HostTensor f = HostTensor::zeros({4}, DType::f16);
  f.set({3}, 65519.0);
  EXPECT_EQ(f.get({3}), 65504.0);
}

TEST(HostTensorTest, TransposedView) {
  // [B, H, S, D] storage viewed as [B, S, H, D].
  HostTensor bhsd = HostTensor::random({2, 3, 5, 4}, DType::bf16, 7);
  HostTensor bshd = bhsd.permuted({0, 2, 1, 3});
  EXPECT_EQ(bshd.sizes, (std::vector<int64_t>{2, 5, 3, 4}));
  EXPECT_FALSE(bshd.isContiguous());
  EXPECT_TRUE(bshd.isWellFormed());
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t s = 0; s < 5; ++s)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t d = 0; d < 4; ++d)
          ASSERT_EQ(bshd.get({b, s, h, d}), bhsd.get({b, h, s, d}));
  bshd.set({1, 4, 2, 3}, 0.5);
  EXPECT_EQ(bshd.getAt(1 * 60 + 2 * 20 + 4 * 4 + 3), 0.5);
  HostTensor dense = bshd.contiguous();
  EXPECT_TRUE(dense.isContiguous());
  EXPECT_EQ(dense.get({1, 4, 2, 3}), 0.5);
  EXPECT_EQ(dense.get({0, 1, 2, 3}), bhsd.get({0, 2, 1, 3}));
}

TEST(HostTensorTest, PaddedStrides) {
  // Rows padded to 8 elements: only 5 of each row are addressed.
  HostTensor t = HostTensor::zerosStrided({3, 5}, {8, 1}, DType::f32);
  EXPECT_EQ(t.storage.size(), (2 * 8 + 5) * 4u);
  t.set({2, 4}, 7.0);
  EXPECT_EQ(t.getAt(20), 7.0);
  EXPECT_TRUE(t.inBounds({2, 4}));
  EXPECT_FALSE(t.inBounds({3, 0}));
  EXPECT_FALSE(t.inBounds({0, -1}));
  t.strides = {9, 1};
  EXPECT_FALSE(t.isWellFormed());
}

TEST(HostTensorTest, RandomIsDeterministic) {
  HostTensor a = HostTensor::random({64}, DType::f16, 42, -2, 2);
  HostTensor b = HostTensor::random({64}, DType::f16, 42, -2, 2);
  HostTensor c = HostTensor::random({64}, DType::f16, 43, -2, 2);
  EXPECT_EQ(a.storage, b.storage);
  EXPECT_NE(a.storage, c.storage);
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_GE(a.getAt(i), -2.0);
    EXPECT_LE(a.getAt(i), 2.0);
    EXPECT_EQ(roundToF16(a.getAt(i)), a.getAt(i));
  }
}

} // namespace
