// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Reader of the token dictionary of an inverted (FTS) index: the `_token_fst_bytes` of
// part_<p>_tokens.lance, a map from token bytes to a u64 token id serialized by the Rust `fst`
// crate 0.4 (docs/format/fst.md). Layout, all integers little-endian:
//
//   u64 version (3; 1 and 2 are read too) | u64 type (0) | nodes, compiled bottom-up |
//   u64 number of keys | u64 root address | u32 masked CRC-32C of all preceding bytes (version 3)
//
// An address is the offset of a node's state byte, its highest byte; every transition points
// below its node, which is what bounds every walk here. The functions only read `bytes` and are
// safe to call concurrently.

#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lancedb/status.h"

namespace lancedb::index::fts {

/// Decode every (key, value) of a serialized fst 0.4 Map, keys in ascending byte order.
/// Returns Corruption, with a message naming what is wrong, for a bad version or type, a checksum
/// mismatch, truncated bytes, out-of-range addresses or a key count other than the footer's.
/// Never reads outside `bytes`, and the work is bounded by the footer's key count times the size
/// of `bytes` whatever the content.
Result<std::vector<std::pair<std::string, uint64_t>>> DecodeFstMap(std::span<const uint8_t> bytes);

/// Look up `key` in a serialized fst 0.4 Map: its value, or nullopt when absent. Verifies the
/// footer and checksum on every call (linear in the size of `bytes`); decode the map once with
/// DecodeFstMap for many lookups. Errors as DecodeFstMap's, for the nodes on the key's path.
Result<std::optional<uint64_t>> FstMapGet(std::span<const uint8_t> bytes, std::string_view key);

/// Return the checksum a version 3 fst stores after `data` (all bytes before the checksum):
/// CRC-32C (Castagnoli), masked as Snappy frames do (rotate right by 15, add 0xA282EAD8).
uint32_t FstChecksum(std::span<const uint8_t> data) noexcept;

}  // namespace lancedb::index::fts
