// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Node layouts: docs/format/fst.md. Every read is checked against the node region
// [kHeaderSize, nodes_end) before it happens, and every transition must point strictly below the
// lowest byte of its node, so walks terminate on any input.

#include "index/fts/fst_map.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>

namespace lancedb::index::fts {
namespace {

constexpr uint64_t kMaxVersion = 3;
constexpr uint64_t kMapType = 0;
constexpr size_t kHeaderSize = 16;  // u64 version, u64 type
constexpr uint64_t kEmptyFinalAddress = 0;
/// Nodes with more transitions than this carry a 256-byte input → transition index (version 2+).
constexpr size_t kTransIndexThreshold = 32;
constexpr size_t kTransIndexSize = 256;

/// The bytes of the 6-bit input codes 1..63 of one-transition nodes (code 0: the input byte is
/// stored). These are the 63 most frequent bytes of the fst crate's fixed frequency ranking
/// (src/raw/common_inputs.rs in BurntSushi/fst); only these entries can appear in a file.
constexpr std::string_view kCommonInputs =
    "te/oasripcnw.hlm-du012g=:bf3y5&_4v9678k%?xCDASFIBEjPTzRNM+LOqHG";
static_assert(kCommonInputs.size() == 63);

constexpr std::array<uint32_t, 256> MakeCrc32cTable() {
  constexpr uint32_t kReflectedPolynomial = 0x82F63B78;  // Castagnoli
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) ? kReflectedPolynomial : 0);
    table[i] = crc;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrc32cTable = MakeCrc32cTable();

/// Read the `num_bytes` (0..8) little-endian bytes at `p` as an unsigned integer.
uint64_t ReadUintLe(const uint8_t* p, size_t num_bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < num_bytes; ++i) value |= static_cast<uint64_t>(p[i]) << (8 * i);
  return value;
}

Status NodeCorruption(uint64_t addr, std::string_view what) {
  return Status::Corruption("fst node at address " + std::to_string(addr) + ": " +
                            std::string(what));
}

/// What the footer and header say.
struct Layout {
  uint64_t version = 0;
  size_t nodes_end = 0;  // one past the last node byte
  uint64_t num_keys = 0;
  uint64_t root_addr = 0;
};

Result<Layout> ReadLayout(std::span<const uint8_t> bytes) {
  constexpr size_t kFooterSize = 16;  // u64 number of keys, u64 root address
  if (bytes.size() < kHeaderSize + kFooterSize) {
    return Status::Corruption("fst of " + std::to_string(bytes.size()) +
                              " bytes is truncated: the header and footer alone take 32");
  }
  Layout layout;
  layout.version = ReadUintLe(bytes.data(), 8);
  if (layout.version == 0 || layout.version > kMaxVersion) {
    return Status::Corruption("fst version " + std::to_string(layout.version) +
                              " is not supported; expected 1 to 3");
  }
  const uint64_t type = ReadUintLe(bytes.data() + 8, 8);
  if (type != kMapType) {
    return Status::Corruption("fst type " + std::to_string(type) + " is not a map (type 0)");
  }
  size_t end = bytes.size();
  if (layout.version >= 3) {
    if (end < kHeaderSize + kFooterSize + 4) {
      return Status::Corruption("fst of " + std::to_string(end) +
                                " bytes is truncated: version 3 header and footer take 36");
    }
    end -= 4;
    const uint32_t stored = static_cast<uint32_t>(ReadUintLe(bytes.data() + end, 4));
    const uint32_t computed = FstChecksum(bytes.first(end));
    if (stored != computed) {
      return Status::Corruption("fst checksum mismatch: stored " + std::to_string(stored) +
                                ", computed " + std::to_string(computed));
    }
  }
  layout.root_addr = ReadUintLe(bytes.data() + end - 8, 8);
  layout.num_keys = ReadUintLe(bytes.data() + end - 16, 8);
  layout.nodes_end = end - kFooterSize;
  // A token dictionary shares prefixes and suffixes but not unboundedly: far more keys than
  // bytes means a crafted file whose walk would blow up time and memory.
  if (layout.num_keys > 64 * static_cast<uint64_t>(bytes.size()) + 1024) {
    return Status::Corruption("fst footer claims " + std::to_string(layout.num_keys) + " keys in " +
                              std::to_string(bytes.size()) + " bytes");
  }
  // The root is the last node written, or the empty final state when no node was written.
  const bool root_ok =
      layout.root_addr == kEmptyFinalAddress
          ? layout.nodes_end == kHeaderSize
          : layout.nodes_end > kHeaderSize && layout.root_addr == layout.nodes_end - 1;
  if (!root_ok) {
    return Status::Corruption("fst root address " + std::to_string(layout.root_addr) +
                              " is not the last node byte (nodes end at " +
                              std::to_string(layout.nodes_end) + ")");
  }
  return layout;
}

enum class NodeKind : uint8_t { kEmptyFinal, kOneTransNext, kOneTrans, kAnyTrans };

/// A node whose bytes were bounds-checked; transitions are decoded on demand.
struct Node {
  NodeKind kind = NodeKind::kEmptyFinal;
  uint64_t addr = 0;  // the state byte
  size_t end = 0;     // the lowest byte
  bool is_final = false;
  uint64_t final_output = 0;
  size_t num_trans = 0;
  // One-transition nodes.
  uint8_t input = 0;
  uint64_t output = 0;
  uint64_t target = 0;
  // Any-transitions nodes: transition i has its input at inputs_top - i, its address delta at
  // deltas_top - (i + 1) * trans_size and its output at outputs_top - (i + 1) * output_size.
  size_t inputs_top = 0;
  size_t deltas_top = 0;
  size_t outputs_top = 0;
  size_t trans_size = 0;
  size_t output_size = 0;
};

struct Transition {
  uint8_t input = 0;
  uint64_t output = 0;
  uint64_t target = 0;
};

/// Decoder of the nodes of one fst. Immutable; views `bytes`.
class NodeReader {
 public:
  NodeReader(std::span<const uint8_t> bytes, const Layout& layout)
      : bytes_(bytes), layout_(layout) {}

  Result<Node> Read(uint64_t addr) const {
    Node node;
    node.addr = addr;
    if (addr == kEmptyFinalAddress) {
      node.is_final = true;
      return node;
    }
    if (addr < kHeaderSize || addr >= layout_.nodes_end) {
      return NodeCorruption(
          addr, "outside the node region [16, " + std::to_string(layout_.nodes_end) + ")");
    }
    const uint8_t state = bytes_[addr];
    switch (state >> 6) {
      case 0b11:
        return ReadOneTransNext(node, state);
      case 0b10:
        return ReadOneTrans(node, state);
      default:
        return ReadAnyTrans(node, state);
    }
  }

  /// REQUIRES: i < node.num_trans.
  Result<Transition> ReadTransition(const Node& node, size_t i) const {
    if (node.kind != NodeKind::kAnyTrans) return Transition{node.input, node.output, node.target};
    Transition t;
    t.input = bytes_[node.inputs_top - i];
    t.output = ReadUintLe(&bytes_[node.outputs_top - (i + 1) * node.output_size], node.output_size);
    const uint64_t delta =
        ReadUintLe(&bytes_[node.deltas_top - (i + 1) * node.trans_size], node.trans_size);
    LANCEDB_ASSIGN_OR_RETURN(t.target, Target(node, delta));
    return t;
  }

 private:
  /// The bytes of the node at `addr` below its state byte.
  size_t Available(uint64_t addr) const { return static_cast<size_t>(addr) - kHeaderSize; }

  /// Resolve an address delta (0: the empty final state) relative to the node's lowest byte.
  Result<uint64_t> Target(const Node& node, uint64_t delta) const {
    if (delta == 0) return kEmptyFinalAddress;
    if (delta > node.end - kHeaderSize) {
      return NodeCorruption(
          node.addr, "transition delta " + std::to_string(delta) + " points below the node region");
    }
    return node.end - delta;
  }

  /// Decode the input of a one-transition node: a common-input code, or the byte below `addr`.
  Result<size_t> ReadInput(Node& node, uint8_t state) const {
    const uint8_t code = state & 0x3F;
    if (code != 0) {
      node.input = static_cast<uint8_t>(kCommonInputs[code - 1]);
      return size_t{0};
    }
    if (Available(node.addr) < 1) return NodeCorruption(node.addr, "truncated input byte");
    node.input = bytes_[node.addr - 1];
    return size_t{1};
  }

  // Layout (low to high): [input byte if not common] state.
  Result<Node> ReadOneTransNext(Node node, uint8_t state) const {
    node.kind = NodeKind::kOneTransNext;
    node.num_trans = 1;
    LANCEDB_ASSIGN_OR_RETURN(const size_t input_size, ReadInput(node, state));
    node.end = node.addr - input_size;
    // The target is the node compiled just before, ending right below this one.
    if (node.end <= kHeaderSize) return NodeCorruption(node.addr, "no node below to point to");
    node.target = node.end - 1;
    return node;
  }

  // Layout: [output] [address delta] pack sizes [input byte if not common] state.
  Result<Node> ReadOneTrans(Node node, uint8_t state) const {
    node.kind = NodeKind::kOneTrans;
    node.num_trans = 1;
    LANCEDB_ASSIGN_OR_RETURN(const size_t input_size, ReadInput(node, state));
    if (Available(node.addr) < input_size + 1) {
      return NodeCorruption(node.addr, "truncated pack sizes");
    }
    LANCEDB_RETURN_NOT_OK(ReadPackSizes(node, bytes_[node.addr - input_size - 1]));
    const size_t below_state = input_size + 1 + node.trans_size + node.output_size;
    if (Available(node.addr) < below_state) return NodeCorruption(node.addr, "truncated");
    node.end = node.addr - below_state;
    node.output = ReadUintLe(&bytes_[node.end], node.output_size);
    const uint64_t delta = ReadUintLe(&bytes_[node.end + node.output_size], node.trans_size);
    LANCEDB_ASSIGN_OR_RETURN(node.target, Target(node, delta));
    return node;
  }

  // Layout: [final output if final] outputs[n] deltas[n] inputs[n] [index, 256 bytes]
  //         pack sizes [count if not in the state byte] state; arrays hold transition 0 highest.
  Result<Node> ReadAnyTrans(Node node, uint8_t state) const {
    node.kind = NodeKind::kAnyTrans;
    node.is_final = (state & 0x40) != 0;
    node.num_trans = state & 0x3F;
    const size_t count_size = node.num_trans == 0 ? 1 : 0;
    if (Available(node.addr) < count_size + 1) {
      return NodeCorruption(node.addr, "truncated transition count or pack sizes");
    }
    if (count_size == 1) {
      const uint8_t count = bytes_[node.addr - 1];
      node.num_trans = count == 1 ? 256 : count;  // 1 is in the state byte, so 1 here means 256
    }
    LANCEDB_RETURN_NOT_OK(ReadPackSizes(node, bytes_[node.addr - count_size - 1]));
    const size_t n = node.num_trans;
    const size_t index_size =
        layout_.version >= 2 && n > kTransIndexThreshold ? kTransIndexSize : 0;
    const size_t final_size = node.is_final ? node.output_size : 0;
    const size_t below_state =
        count_size + 1 + index_size + n * (1 + node.trans_size + node.output_size) + final_size;
    if (Available(node.addr) < below_state) {
      return NodeCorruption(node.addr, "truncated: " + std::to_string(n) + " transitions need " +
                                           std::to_string(below_state + 1) + " bytes");
    }
    node.end = node.addr - below_state;
    node.inputs_top = node.addr - count_size - 1 - index_size - 1;
    node.deltas_top = node.inputs_top + 1 - n;
    node.outputs_top = node.deltas_top - n * node.trans_size;
    node.final_output = ReadUintLe(&bytes_[node.end], final_size);
    for (size_t i = 1; i < n; ++i) {
      if (bytes_[node.inputs_top - i] <= bytes_[node.inputs_top - i + 1]) {
        return NodeCorruption(node.addr, "transition inputs are not ascending");
      }
    }
    return node;
  }

  /// Split a pack-sizes byte: high 4 bits the address delta size, low 4 the output size.
  static Status ReadPackSizes(Node& node, uint8_t sizes) {
    node.trans_size = sizes >> 4;
    node.output_size = sizes & 0x0F;
    if (node.trans_size > 8 || node.output_size > 8) {
      return NodeCorruption(node.addr, "pack sizes " + std::to_string(sizes) + " exceed 8 bytes");
    }
    return Status::OK();
  }

  std::span<const uint8_t> bytes_;
  Layout layout_;
};

Status AddOutput(uint64_t& sum, uint64_t output) {
  if (__builtin_add_overflow(sum, output, &sum)) {
    return Status::Corruption("fst outputs along a key overflow 64 bits");
  }
  return Status::OK();
}

/// A node on the path of the key being enumerated.
struct Frame {
  Node node;
  size_t next_trans = 0;
  uint64_t output = 0;  // the sum of the outputs of the transitions leading here
};

}  // namespace

uint32_t FstChecksum(std::span<const uint8_t> data) noexcept {
  uint32_t crc = 0xFFFFFFFF;
  for (uint8_t byte : data) crc = kCrc32cTable[(crc ^ byte) & 0xFF] ^ (crc >> 8);
  crc = ~crc;
  return ((crc >> 15) | (crc << 17)) + 0xA282EAD8;
}

Result<std::vector<std::pair<std::string, uint64_t>>> DecodeFstMap(std::span<const uint8_t> bytes) {
  LANCEDB_ASSIGN_OR_RETURN(const Layout layout, ReadLayout(bytes));
  const NodeReader reader(bytes, layout);
  std::vector<std::pair<std::string, uint64_t>> entries;
  entries.reserve(std::min<uint64_t>(layout.num_keys, bytes.size()));
  const auto too_many = [&] {
    return Status::Corruption("fst holds more keys than the " + std::to_string(layout.num_keys) +
                              " its footer counts");
  };
  // Depth-first in transition order, which is ascending input order: keys come out sorted. Each
  // node below the root is final or has a transition, and transitions point strictly down, so
  // every node visited adds a key below it: the walk is bounded by the keys the footer allows.
  std::string key;
  std::vector<Frame> path;
  LANCEDB_ASSIGN_OR_RETURN(Node root, reader.Read(layout.root_addr));
  path.push_back(Frame{root, 0, 0});
  if (root.is_final) {
    if (layout.num_keys == 0) return too_many();
    entries.emplace_back(key, root.final_output);
  }
  while (!path.empty()) {
    Frame& frame = path.back();
    if (frame.next_trans == frame.node.num_trans) {
      path.pop_back();
      if (!key.empty()) key.pop_back();
      continue;
    }
    LANCEDB_ASSIGN_OR_RETURN(const Transition t,
                             reader.ReadTransition(frame.node, frame.next_trans++));
    Frame child{Node{}, 0, frame.output};
    LANCEDB_RETURN_NOT_OK(AddOutput(child.output, t.output));
    LANCEDB_ASSIGN_OR_RETURN(child.node, reader.Read(t.target));
    if (!child.node.is_final && child.node.num_trans == 0) {
      return NodeCorruption(t.target, "neither final nor with transitions");
    }
    key.push_back(static_cast<char>(t.input));
    if (child.node.is_final) {
      if (entries.size() == layout.num_keys) return too_many();
      uint64_t value = child.output;
      LANCEDB_RETURN_NOT_OK(AddOutput(value, child.node.final_output));
      entries.emplace_back(key, value);
    }
    path.push_back(std::move(child));
  }
  if (entries.size() != layout.num_keys) {
    return Status::Corruption("fst footer counts " + std::to_string(layout.num_keys) +
                              " keys but the nodes hold " + std::to_string(entries.size()));
  }
  return entries;
}

Result<std::optional<uint64_t>> FstMapGet(std::span<const uint8_t> bytes, std::string_view key) {
  LANCEDB_ASSIGN_OR_RETURN(const Layout layout, ReadLayout(bytes));
  const NodeReader reader(bytes, layout);
  LANCEDB_ASSIGN_OR_RETURN(Node node, reader.Read(layout.root_addr));
  uint64_t output = 0;
  for (const char c : key) {
    const auto byte = static_cast<uint8_t>(c);
    std::optional<Transition> found;
    for (size_t i = 0; i < node.num_trans && !found; ++i) {
      LANCEDB_ASSIGN_OR_RETURN(const Transition t, reader.ReadTransition(node, i));
      if (t.input == byte) found = t;
      if (t.input >= byte) break;
    }
    if (!found) return std::optional<uint64_t>();
    LANCEDB_RETURN_NOT_OK(AddOutput(output, found->output));
    LANCEDB_ASSIGN_OR_RETURN(node, reader.Read(found->target));
  }
  if (!node.is_final) return std::optional<uint64_t>();
  LANCEDB_RETURN_NOT_OK(AddOutput(output, node.final_output));
  return std::optional<uint64_t>(output);
}

}  // namespace lancedb::index::fts
