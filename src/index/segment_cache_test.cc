// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/segment_cache.h"

#include <gtest/gtest.h>

#include "common/test_util.h"

namespace lancedb::index {
namespace LANCEDB_TEST_FILE_NS {

TEST(SegmentCache, OpensOnceAndReleasesWhatATableNoLongerRegisters) {
  SegmentCache<int> cache;
  int opened = 0;
  auto open = [&](int value) {
    return [&opened, value]() -> Result<std::shared_ptr<const int>> {
      ++opened;
      return std::make_shared<const int>(value);
    };
  };
  ASSERT_OK_AND_ASSIGN(auto a, cache.GetOrOpen("/t1", "u1", open(1)));
  ASSERT_OK_AND_ASSIGN(auto again, cache.GetOrOpen("/t1", "u1", open(99)));
  EXPECT_EQ(a.get(), again.get());
  EXPECT_EQ(opened, 1);
  ASSERT_OK(cache.GetOrOpen("/t1", "u2", open(2)).status());
  ASSERT_OK(cache.GetOrOpen("/t10", "u1", open(3)).status());  // a path sharing the prefix
  EXPECT_EQ(cache.size(), 3u);
  cache.Retain("/t1", {"u2"});
  EXPECT_EQ(cache.size(), 2u);  // /t1#u1 released; /t10 untouched
  ASSERT_OK_AND_ASSIGN(auto reopened, cache.GetOrOpen("/t1", "u1", open(4)));
  EXPECT_EQ(*reopened, 4);
  EXPECT_EQ(*a, 1);  // a holder keeps its segment alive
  // A failed open is returned and not cached.
  auto failed = cache.GetOrOpen(
      "/t2", "x", []() -> Result<std::shared_ptr<const int>> { return Status::IOError("boom"); });
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(cache.size(), 3u);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::index
