//===- StatusTest.cpp - Status, StatusOr and Hash128 ---------------------------------------===//

#include "metaattn/Runtime/Status.h"
#include "metaattn/Runtime/Hash.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>

using namespace metaattn::rt;

namespace {

TEST(StatusTest, DefaultIsSuccess) {
  Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_TRUE(status.message().empty());
  EXPECT_TRUE(Status::success().ok());
}

TEST(StatusTest, ErrorFormatsItsMessage) {
  Status status = Status::error("tensor '{}': rank is {}, expected {}", "q", 3, 4);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "tensor 'q': rank is 3, expected 4");
}

TEST(StatusTest, EmptyMessageIsStillAnError) {
  Status status = Status::fromMessage("");
  EXPECT_FALSE(status.ok());
  EXPECT_FALSE(status.message().empty());
}

TEST(StatusTest, WithContextPrefixesErrorsOnly) {
  EXPECT_EQ(Status::error("boom").withContext("launch").message(), "launch: boom");
  EXPECT_TRUE(Status::success().withContext("launch").ok());
}

TEST(StatusTest, StatusOrHoldsValueOrError) {
  StatusOr<int> value = 42;
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 42);
  EXPECT_TRUE(value.status().ok());

  StatusOr<int> error = Status::error("no {}", "value");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.message(), "no value");
}

TEST(StatusTest, StatusOrHoldsMoveOnlyValues) {
  StatusOr<std::unique_ptr<int>> value = std::make_unique<int>(7);
  ASSERT_TRUE(value.ok());
  std::unique_ptr<int> taken = std::move(value).value();
  EXPECT_EQ(*taken, 7);
}

StatusOr<int> half(int x) {
  if (x % 2)
    return Status::error("{} is odd", x);
  return x / 2;
}

StatusOr<int> quarter(int x) {
  METAATTN_ASSIGN_OR_RETURN(int h, half(x));
  METAATTN_ASSIGN_OR_RETURN(int q, half(h));
  return q;
}

Status checkEven(int x) {
  METAATTN_RETURN_IF_ERROR(half(x).status());
  return Status::success();
}

TEST(StatusTest, Macros) {
  EXPECT_EQ(*quarter(8), 2);
  EXPECT_EQ(quarter(6).message(), "3 is odd");
  EXPECT_TRUE(checkEven(4).ok());
  EXPECT_EQ(checkEven(5).message(), "5 is odd");
}

TEST(HashTest, HexIsStableAnd32Digits) {
  Hash128 a = Hasher().add("hello").finish();
  Hash128 b = Hasher().add("hello").finish();
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hex().size(), 32u);
  EXPECT_NE(a, Hasher().add("hellp").finish());
}

TEST(HashTest, BoundariesMatter) {
  EXPECT_NE(Hasher().add("ab").add("c").finish(), Hasher().add("a").add("bc").finish());
  EXPECT_NE(Hasher().add("").finish(), Hasher().finish());
}

TEST(HashTest, WordsAndTailsBothCount) {
  // Every prefix of a 70-byte string (whole words, whole 32-byte blocks and tails of each
  // length) hashes and checksums differently, and the same bytes the same.
  std::string text;
  for (int i = 0; i < 70; ++i)
    text.push_back(static_cast<char>('a' + i % 26));
  std::set<std::string> keys;
  std::set<uint64_t> sums;
  for (size_t n = 0; n <= text.size(); ++n) {
    std::string_view prefix = std::string_view(text).substr(0, n);
    keys.insert(Hasher().add(prefix).finish().hex());
    sums.insert(checksum64(prefix));
    EXPECT_EQ(checksum64(prefix), checksum64(std::string(prefix)));
  }
  EXPECT_EQ(keys.size(), text.size() + 1);
  EXPECT_EQ(sums.size(), text.size() + 1);
  // A change in the last, tail byte and one in the first word both show.
  std::string tail = text, head = text;
  tail.back() ^= 1;
  head.front() ^= 1;
  EXPECT_NE(checksum64(tail), checksum64(text));
  EXPECT_NE(checksum64(head), checksum64(text));
  EXPECT_NE(Hasher().add(tail).finish(), Hasher().add(text).finish());
  EXPECT_NE(Hasher().add(head).finish(), Hasher().add(text).finish());
}

TEST(HashTest, ChecksumDetectsOneBitFlips) {
  std::string data(1000, 'x');
  uint64_t original = checksum64(data);
  for (size_t i = 0; i < data.size(); i += 97) {
    std::string flipped = data;
    flipped[i] ^= 0x10;
    EXPECT_NE(checksum64(flipped), original) << "byte " << i;
  }
}

} // namespace
