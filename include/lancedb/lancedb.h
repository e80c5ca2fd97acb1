// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// The lancedb-cpp C++ API: include this one header.

#pragma once

#include "lancedb/arrow_c.h"
#include "lancedb/connection.h"
#include "lancedb/status.h"
#include "lancedb/table.h"

namespace lancedb {

/// The library version, "major.minor.patch".
const char* Version();

}  // namespace lancedb
