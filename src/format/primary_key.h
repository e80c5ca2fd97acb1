// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
#pragma once

namespace lancedb::format {

/// Field metadata keys of Lance's unenforced primary key: the field's 1-based position in the
/// key, and the flag older Lance versions wrote ("true"). The manifest's Field message holds
/// the same facts (unenforced_primary_key, unenforced_primary_key_position).
inline constexpr char kUnenforcedPrimaryKeyPositionKey[] =
    "lance-schema:unenforced-primary-key:position";
inline constexpr char kUnenforcedPrimaryKeyKey[] = "lance-schema:unenforced-primary-key";

}  // namespace lancedb::format
