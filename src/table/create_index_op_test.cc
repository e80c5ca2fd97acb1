// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "table/create_index_op.h"

#include <gtest/gtest.h>

namespace lancedb::table {
namespace LANCEDB_TEST_FILE_NS {

pb::IndexMetadata Index(const std::string& name, char uuid_byte, int32_t field = 1) {
  pb::IndexMetadata m;
  m.set_name(name);
  m.mutable_uuid()->set_uuid(std::string(16, uuid_byte));
  m.add_fields(field);
  return m;
}

CommitAttempt Attempt(std::vector<pb::IndexMetadata> existing) {
  CommitAttempt a;
  a.manifest.add_fields()->set_id(1);
  for (auto& m : existing) *a.indices.add_indices() = m;
  return a;
}

TEST(CreateIndexOperation, ReplaceRemovesSameNameAndRecordsIt) {
  CommitAttempt a = Attempt({Index("vector_idx", 1), Index("other", 2)});
  CreateIndexOperation op({Index("vector_idx", 3)}, {}, true);
  ASSERT_TRUE(op.Build(&a).ok());
  ASSERT_EQ(a.indices.indices_size(), 2);
  EXPECT_EQ(a.indices.indices(1).uuid().uuid(), std::string(16, 3));
  ASSERT_TRUE(a.transaction.has_create_index());
  EXPECT_EQ(a.transaction.create_index().new_indices_size(), 1);
  ASSERT_EQ(a.transaction.create_index().removed_indices_size(), 1);
  EXPECT_EQ(a.transaction.create_index().removed_indices(0).uuid().uuid(), std::string(16, 1));
}

TEST(CreateIndexOperation, ExistingNameWithoutReplaceIsAlreadyExists) {
  CommitAttempt a = Attempt({Index("vector_idx", 1)});
  CreateIndexOperation op({Index("vector_idx", 3)}, {}, false);
  EXPECT_EQ(op.Build(&a).code(), StatusCode::kAlreadyExists);
}

TEST(CreateIndexOperation, DropOfVanishedSegmentConflicts) {
  CommitAttempt a = Attempt({Index("vector_idx", 1)});
  CreateIndexOperation drop({}, {Index("vector_idx", 9)}, false);
  Status st = drop.Build(&a);
  EXPECT_EQ(st.code(), StatusCode::kCommitConflict);
  EXPECT_TRUE(st.IsRetryable()) << st.ToString();
  CommitAttempt b = Attempt({Index("vector_idx", 1)});
  CreateIndexOperation ok({}, {Index("vector_idx", 1)}, false);
  ASSERT_TRUE(ok.Build(&b).ok());
  EXPECT_EQ(b.indices.indices_size(), 0);
}

TEST(CreateIndexOperation, UnknownFieldConflicts) {
  CommitAttempt a = Attempt({});
  CreateIndexOperation op({Index("x_idx", 1, 7)}, {}, true);
  Status st = op.Build(&a);
  EXPECT_EQ(st.code(), StatusCode::kCommitConflict);
  EXPECT_FALSE(st.IsRetryable()) << st.ToString();  // the indexed column is gone
}

TEST(CreateIndexOperation, UuidText) {
  pb::IndexMetadata m;
  m.mutable_uuid()->set_uuid(
      std::string("\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67\x89\xab\xcd\xef", 16));
  EXPECT_EQ(IndexUuidString(m), "01234567-89ab-cdef-0123-456789abcdef");
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::table
