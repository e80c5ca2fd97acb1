// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "lancedb/status.h"

#include <gtest/gtest.h>

#include "common/bit_util.h"
#include "common/buffer.h"

namespace lancedb {
namespace LANCEDB_TEST_FILE_NS {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  LANCEDB_ASSIGN_OR_RETURN(int h, Half(x));
  LANCEDB_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(Status, RetryableCommitConflictKeepsItsFlagThroughContext) {
  Status st = Status::RetryableCommitConflict("preempted by version 7");
  EXPECT_TRUE(st.IsCommitConflict());
  EXPECT_TRUE(st.IsRetryable());
  EXPECT_TRUE(st.WithContext("delete").IsRetryable());
  EXPECT_EQ(st.WithContext("delete").message(), "delete: preempted by version 7");
  EXPECT_FALSE(Status::CommitConflict("incompatible").IsRetryable());
  EXPECT_FALSE(Status::IOError("disk").IsRetryable());
}

TEST(Status, CarriesCodeAndMessage) {
  Status st = Status::NotFound("Table 'x' was not found");
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(st.IsNotFound());
  EXPECT_EQ(st.ToString(), "NotFound: Table 'x' was not found");
  EXPECT_EQ(st.WithContext("open").message(), "open: Table 'x' was not found");
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_EQ(Status::OK().ToString(), "OK");
}

TEST(Result, PropagatesErrorsThroughMacros) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "odd: 3");
  EXPECT_EQ(Quarter(5).ValueOr(-1), -1);
}

TEST(Result, OkStatusWithoutValueBecomesInternalError) {
  Result<int> r{Status::OK()};
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

TEST(BufferBuilder, AppendsPadsAndFinishes) {
  BufferBuilder b;
  b.AppendValue<uint32_t>(7);
  b.Append(std::string_view("ab"));
  b.PadTo(8, 0xFE);
  EXPECT_EQ(b.size(), 8);
  auto buf = b.Finish();
  EXPECT_EQ(buf->size(), 8);
  EXPECT_EQ(buf->data_as<uint32_t>()[0], 7u);
  EXPECT_EQ(buf->data()[7], 0xFE);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buf->data()) % kBufferAlignment, 0u);
  EXPECT_EQ(b.size(), 0);
}

TEST(Buffer, SliceKeepsParentAlive) {
  std::shared_ptr<Buffer> slice;
  {
    auto parent = Buffer::Copy(std::string_view("0123456789"));
    slice = Buffer::Slice(parent, 3, 4);
  }
  EXPECT_EQ(slice->view(), "3456");
}

TEST(BitUtil, CountsAndCopiesBitsAtAnyOffset) {
  uint8_t bits[16] = {};
  for (int i = 0; i < 128; i += 3) bit_util::SetBit(bits, i);
  EXPECT_EQ(bit_util::CountSetBits(bits, 0, 128), 43);
  EXPECT_EQ(bit_util::CountSetBits(bits, 1, 6), 2);  // bits 3 and 6 of [1, 7)
  uint8_t out[16] = {};
  bit_util::CopyBits(bits, 3, 100, out, 5);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(bit_util::GetBit(out, 5 + i), bit_util::GetBit(bits, 3 + i)) << i;
  }
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb
