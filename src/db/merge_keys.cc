// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "db/merge_keys.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string_view>

#include "array/dictionary.h"
#include "common/bit_util.h"

namespace lancedb::db {
namespace {

/// A 64-bit finalizer (the splitmix64 one): spreads every input bit over the output.
inline uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline uint64_t HashBytes(const uint8_t* p, size_t n) {
  if (n <= 8) {
    uint64_t v = 0;
    if (n > 0) std::memcpy(&v, p, n);  // p may be null for an empty value
    return Mix(v ^ (static_cast<uint64_t>(n) << 56));
  }
  return Mix(std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(p), n)));
}

inline uint64_t Combine(uint64_t seed, uint64_t h) {
  return Mix(seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

/// The hash of an 8-byte value as the only part of a key (what Hash computes for it, starting
/// from a zero seed).
inline uint64_t HashInt64Key(uint64_t v) { return Combine(0, Mix(v ^ (uint64_t{8} << 56))); }

bool IsSignedInt64(array::TypeId id) {
  using array::TypeId;
  return id == TypeId::kInt64 || id == TypeId::kTimestamp || id == TypeId::kDate64 ||
         id == TypeId::kTime64 || id == TypeId::kDuration;
}

}  // namespace

KeyColumns::KeyColumns(std::vector<array::ArrayPtr> columns, int64_t num_rows)
    : num_rows_(num_rows) {
  columns_.reserve(columns.size());
  for (auto& a : columns) {
    Column c;
    if (a->type->is_dictionary()) {
      // Keys compare by the values the indices point at (validated arrays decode).
      auto values = array::DictionaryDecode(a);
      if (values.ok()) a = values.MoveValueUnsafe();
    }
    const auto& type = *a->type;
    if (type.id() == array::TypeId::kBool) {
      c.kind = Kind::kBool;
    } else if (type.is_binary_like()) {
      c.kind = Kind::kBinary;
    } else if (!type.is_nested() && type.byte_width() > 0 && a->buffers.size() > 1 &&
               a->buffers[1] != nullptr) {
      c.kind = Kind::kFixed;
      c.width = type.byte_width();
      c.values = a->buffers[1]->data() + a->offset * c.width;
    } else {
      c.kind = Kind::kRendered;
      c.rendered.reserve(static_cast<size_t>(num_rows));
      for (int64_t i = 0; i < num_rows; ++i) {
        c.rendered.push_back(a->IsNull(i) ? std::string()
                                          : array::ArrayToString(*array::Slice(a, i, 1), 1 << 20));
      }
    }
    c.array = std::move(a);
    columns_.push_back(std::move(c));
  }
}

uint64_t KeyColumns::HashAt(const Column& c, int64_t i) {
  switch (c.kind) {
    case Kind::kFixed:
      return HashBytes(c.values + i * c.width, static_cast<size_t>(c.width));
    case Kind::kBool:
      return Mix(bit_util::GetBit(c.array->buffers[1]->data(), c.array->offset + i) ? 1 : 2);
    case Kind::kBinary: {
      const std::string_view v = c.array->GetView(i);
      return HashBytes(reinterpret_cast<const uint8_t*>(v.data()), v.size());
    }
    case Kind::kRendered:
      return std::hash<std::string>{}(c.rendered[static_cast<size_t>(i)]);
  }
  return 0;
}

bool KeyColumns::EqualAt(const Column& a, int64_t i, const Column& b, int64_t j) {
  switch (a.kind) {
    case Kind::kFixed:
      return std::memcmp(a.values + i * a.width, b.values + j * b.width,
                         static_cast<size_t>(a.width)) == 0;
    case Kind::kBool:
      return bit_util::GetBit(a.array->buffers[1]->data(), a.array->offset + i) ==
             bit_util::GetBit(b.array->buffers[1]->data(), b.array->offset + j);
    case Kind::kBinary:
      return a.array->GetView(i) == b.array->GetView(j);
    case Kind::kRendered:
      return a.rendered[static_cast<size_t>(i)] == b.rendered[static_cast<size_t>(j)];
  }
  return false;
}

void KeyColumns::Hash(std::vector<uint64_t>* hashes, std::vector<uint8_t>* valid) const {
  const auto n = static_cast<size_t>(num_rows_);
  hashes->assign(n, 0);
  valid->assign(n, 1);
  uint64_t* h = hashes->data();
  for (const auto& c : columns_) {
    const auto& a = *c.array;
    if (a.type->id() == array::TypeId::kNull) {
      valid->assign(n, 0);
      continue;
    }
    if (c.kind == Kind::kFixed && c.width == 8) {
      // The common case (int64 ids, timestamps): one load per row.
      for (size_t i = 0; i < n; ++i) {
        uint64_t v;
        std::memcpy(&v, c.values + i * 8, 8);
        h[i] = Combine(h[i], Mix(v ^ (uint64_t{8} << 56)));
      }
    } else {
      for (size_t i = 0; i < n; ++i) h[i] = Combine(h[i], HashAt(c, static_cast<int64_t>(i)));
    }
    if (!a.buffers.empty() && a.buffers[0] != nullptr && a.null_count != 0) {
      for (size_t i = 0; i < n; ++i) {
        if (a.IsNull(static_cast<int64_t>(i))) (*valid)[i] = 0;
      }
    }
  }
}

bool KeyColumns::Equal(int64_t row, const KeyColumns& other, int64_t other_row) const {
  for (size_t k = 0; k < columns_.size(); ++k) {
    if (!EqualAt(columns_[k], row, other.columns_[k], other_row)) return false;
  }
  return true;
}

const array::ArrayData* KeyColumns::single_int64() const {
  if (columns_.size() != 1 || columns_[0].kind != Kind::kFixed) return nullptr;
  return IsSignedInt64(columns_[0].array->type->id()) ? columns_[0].array.get() : nullptr;
}

KeyIndex::KeyIndex(KeyColumns keys, std::vector<int64_t>* unkeyed, int64_t* duplicate)
    : keys_(std::move(keys)) {
  *duplicate = -1;
  size_t capacity = 16;
  while (capacity < static_cast<size_t>(keys_.num_rows()) * 2) capacity *= 2;
  mask_ = capacity - 1;
  rows_.assign(capacity, -1);
  hashes_.assign(capacity, 0);
  std::vector<uint64_t> hashes;
  std::vector<uint8_t> valid;
  keys_.Hash(&hashes, &valid);
  for (int64_t r = 0; r < keys_.num_rows(); ++r) {
    const auto i = static_cast<size_t>(r);
    if (!valid[i]) {
      unkeyed->push_back(r);
      continue;
    }
    if (Find(keys_, r, hashes[i]) >= 0) {
      *duplicate = r;
      return;
    }
    size_t slot = hashes[i] & mask_;
    while (rows_[slot] >= 0) slot = (slot + 1) & mask_;
    rows_[slot] = r;
    hashes_[slot] = hashes[i];
  }
  if (const array::ArrayData* ints = keys_.single_int64()) {
    int_range_ = true;
    const int64_t* v = ints->GetValues<int64_t>(1);
    bool seen = false;
    for (int64_t r = 0; r < keys_.num_rows(); ++r) {
      if (!valid[static_cast<size_t>(r)]) continue;
      min_ = seen ? std::min(min_, v[r]) : v[r];
      max_ = seen ? std::max(max_, v[r]) : v[r];
      seen = true;
    }
  }
}

void KeyIndex::Probe(const KeyColumns& probe, std::vector<int64_t>* matches) const {
  const auto n = static_cast<size_t>(probe.num_rows());
  matches->assign(n, -1);
  const array::ArrayData* ints = int_range_ ? probe.single_int64() : nullptr;
  if (ints != nullptr) {
    // Most table rows of a narrow upsert fall outside the input's key range.
    const int64_t* v = ints->GetValues<int64_t>(1);
    const bool nulls = !ints->buffers.empty() && ints->buffers[0] != nullptr;
    for (size_t i = 0; i < n; ++i) {
      if (v[i] < min_ || v[i] > max_) continue;
      if (nulls && ints->IsNull(static_cast<int64_t>(i))) continue;
      (*matches)[i] =
          Find(probe, static_cast<int64_t>(i), HashInt64Key(static_cast<uint64_t>(v[i])));
    }
    return;
  }
  std::vector<uint64_t> hashes;
  std::vector<uint8_t> valid;
  probe.Hash(&hashes, &valid);
  for (size_t i = 0; i < n; ++i) {
    if (valid[i]) (*matches)[i] = Find(probe, static_cast<int64_t>(i), hashes[i]);
  }
}

}  // namespace lancedb::db
