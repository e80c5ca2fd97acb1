// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "common/int_util.h"

#include <gtest/gtest.h>

namespace lancedb::int_util {
namespace LANCEDB_TEST_FILE_NS {

TEST(IntUtil, FloorDivRoundsTowardNegativeInfinity) {
  EXPECT_EQ(FloorDiv(7, 2), 3);
  EXPECT_EQ(FloorDiv(-7, 2), -4);
  EXPECT_EQ(FloorDiv(7, -2), -4);
  EXPECT_EQ(FloorDiv(-7, -2), 3);
  EXPECT_EQ(FloorDiv(-8, 2), -4);
  EXPECT_EQ(FloorDiv(-1, 86400000000LL), -1);
  EXPECT_EQ(FloorDiv(0, 3), 0);
}

TEST(IntUtil, LoadsAreLittleEndianAtAnyAlignment) {
  const uint8_t bytes[] = {0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  EXPECT_EQ(LoadU32(bytes + 1), 0x04030201u);
  EXPECT_EQ(LoadU64(bytes + 1), 0x0807060504030201ull);
}

}  // namespace LANCEDB_TEST_FILE_NS
}  // namespace lancedb::int_util
