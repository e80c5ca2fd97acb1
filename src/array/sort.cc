// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// SortIndices: a tree of comparators mirrors the key's type (a list comparator holds one for
// its items, a struct comparator one per member); each compares two rows of its array in
// output order (direction and null placement applied), so a parent only combines its
// children's answers. Rows tied on every key are ordered by position, which makes the order
// total: std::sort and std::partial_sort then give what a stable sort gives. The sort itself
// runs over entries holding a 64-bit image of the first key (see Entry), so that most
// comparisons need no comparator.

#include "array/sort.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>

#include "array/dictionary.h"
#include "array/layout.h"

namespace lancedb::array {
namespace {

/// Compares two rows (indices as ArrayData::IsNull takes them) of one array in output order:
/// negative when row i comes first.
class Comparator {
 public:
  Comparator(const ArrayData& array, bool ascending, bool nulls_first)
      : array_(array), ascending_(ascending), nulls_first_(nulls_first) {}
  virtual ~Comparator() = default;

  int Compare(int64_t i, int64_t j) const {
    if (array_.null_count != 0) {
      const bool ni = array_.IsNull(i);
      const bool nj = array_.IsNull(j);
      if (ni || nj) {
        if (ni && nj) return 0;
        return ni == nulls_first_ ? -1 : 1;
      }
    }
    return CompareValid(i, j);
  }

 protected:
  /// Rows i and j, both valid, in output order.
  virtual int CompareValid(int64_t i, int64_t j) const = 0;
  /// A comparison of values (negative: i smaller) turned into output order.
  int Directed(int natural) const { return ascending_ ? natural : -natural; }

  const ArrayData& array_;
  const bool ascending_;
  const bool nulls_first_;
};

template <typename T>
int Natural(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

/// Fixed-width values whose order is that of `Key(value)` (a transform into an unsigned or
/// signed integer, or the value itself).
template <typename T, typename KeyFn>
class FixedComparator : public Comparator {
 public:
  FixedComparator(const ArrayData& array, bool ascending, bool nulls_first, KeyFn key)
      : Comparator(array, ascending, nulls_first), values_(array.GetValues<T>(1)), key_(key) {}

 protected:
  int CompareValid(int64_t i, int64_t j) const override {
    return Directed(Natural(key_(values_[i]), key_(values_[j])));
  }

 private:
  const T* values_;
  KeyFn key_;
};

template <typename T>
std::unique_ptr<Comparator> MakeFixed(const ArrayData& a, bool asc, bool nulls_first) {
  auto identity = [](T v) { return v; };
  return std::make_unique<FixedComparator<T, decltype(identity)>>(a, asc, nulls_first, identity);
}

/// IEEE 754 total order of floats stored as their bit patterns `Bits`: the key flips every bit
/// of a negative value and sets the sign bit of a positive one.
template <typename Bits>
std::unique_ptr<Comparator> MakeFloat(const ArrayData& a, bool asc, bool nulls_first) {
  auto key = [](Bits bits) {
    constexpr Bits kSign = static_cast<Bits>(Bits{1} << (sizeof(Bits) * 8 - 1));
    return static_cast<Bits>((bits & kSign) != 0 ? ~bits : bits | kSign);
  };
  return std::make_unique<FixedComparator<Bits, decltype(key)>>(a, asc, nulls_first, key);
}

class BoolComparator : public Comparator {
 public:
  using Comparator::Comparator;

 protected:
  int CompareValid(int64_t i, int64_t j) const override {
    const uint8_t* bits = array_.buffers[1]->data();
    return Directed(Natural(bit_util::GetBit(bits, array_.offset + i),
                            bit_util::GetBit(bits, array_.offset + j)));
  }
};

/// Signed 128-bit little-endian values: the high word signed, then the low word unsigned.
class Decimal128Comparator : public Comparator {
 public:
  using Comparator::Comparator;

 protected:
  int CompareValid(int64_t i, int64_t j) const override {
    const uint8_t* data = array_.buffers[1]->data();
    const int c = Natural(High(data, i), High(data, j));
    return Directed(c != 0 ? c : Natural(Low(data, i), Low(data, j)));
  }

 private:
  int64_t High(const uint8_t* data, int64_t i) const {
    int64_t v;
    std::memcpy(&v, data + (array_.offset + i) * 16 + 8, sizeof(v));
    return v;
  }
  uint64_t Low(const uint8_t* data, int64_t i) const {
    uint64_t v;
    std::memcpy(&v, data + (array_.offset + i) * 16, sizeof(v));
    return v;
  }
};

class FixedSizeBinaryComparator : public Comparator {
 public:
  using Comparator::Comparator;

 protected:
  int CompareValid(int64_t i, int64_t j) const override {
    const auto width = static_cast<size_t>(array_.type->fixed_size());
    const uint8_t* data = array_.buffers[1]->data();
    if (width == 0) return 0;
    const int c = std::memcmp(data + (array_.offset + i) * static_cast<int64_t>(width),
                              data + (array_.offset + j) * static_cast<int64_t>(width), width);
    return Directed(Natural(c, 0));
  }
};

/// Strings and binaries: bytes compared as unsigned, a proper prefix first.
class BinaryComparator : public Comparator {
 public:
  using Comparator::Comparator;

 protected:
  int CompareValid(int64_t i, int64_t j) const override {
    return Directed(Natural(array_.GetView(i).compare(array_.GetView(j)), 0));
  }
};

Result<std::unique_ptr<Comparator>> MakeComparator(const ArrayData& a, bool asc, bool nulls_first);

/// Lists and fixed-size lists: item by item, then the shorter one first when ascending.
class ListComparator : public Comparator {
 public:
  ListComparator(const ArrayData& array, bool ascending, bool nulls_first,
                 std::unique_ptr<Comparator> items)
      : Comparator(array, ascending, nulls_first), items_(std::move(items)) {}

 protected:
  int CompareValid(int64_t i, int64_t j) const override {
    const auto [si, ei] = array_.GetListRange(i);
    const auto [sj, ej] = array_.GetListRange(j);
    const int64_t n = std::min(ei - si, ej - sj);
    for (int64_t k = 0; k < n; ++k) {
      const int c = items_->Compare(si + k, sj + k);
      if (c != 0) return c;
    }
    return Directed(Natural(ei - si, ej - sj));
  }

 private:
  std::unique_ptr<Comparator> items_;
};

/// Structs: member by member.
class StructComparator : public Comparator {
 public:
  StructComparator(const ArrayData& array, bool ascending, bool nulls_first,
                   std::vector<std::unique_ptr<Comparator>> members)
      : Comparator(array, ascending, nulls_first), members_(std::move(members)) {}

 protected:
  int CompareValid(int64_t i, int64_t j) const override {
    for (const auto& m : members_) {
      const int c = m->Compare(array_.offset + i, array_.offset + j);
      if (c != 0) return c;
    }
    return 0;
  }

 private:
  std::vector<std::unique_ptr<Comparator>> members_;
};

/// Every row of the null type is null: all rows tie.
class NullComparator : public Comparator {
 public:
  using Comparator::Comparator;

 protected:
  int CompareValid(int64_t, int64_t) const override { return 0; }
};

/// A dictionary column orders by the values its indices name: the comparator owns the decoded
/// values (same length and nulls as the indices) and compares those.
class DictionaryComparator : public Comparator {
 public:
  DictionaryComparator(const ArrayData& a, bool asc, bool nulls_first, ArrayPtr decoded,
                       std::unique_ptr<Comparator> values)
      : Comparator(a, asc, nulls_first), decoded_(std::move(decoded)), values_(std::move(values)) {}

 protected:
  // `values_` already applies the direction.
  int CompareValid(int64_t i, int64_t j) const override { return values_->Compare(i, j); }

 private:
  ArrayPtr decoded_;
  std::unique_ptr<Comparator> values_;
};

Result<std::unique_ptr<Comparator>> MakeComparator(const ArrayData& a, bool asc, bool nulls_first) {
  switch (a.type->id()) {
    case TypeId::kDictionary: {
      // Non-owning handle: `a` outlives the comparator.
      LANCEDB_ASSIGN_OR_RETURN(auto decoded, DictionaryDecode(ArrayPtr(ArrayPtr{}, &a)));
      LANCEDB_ASSIGN_OR_RETURN(auto values, MakeComparator(*decoded, asc, nulls_first));
      return std::unique_ptr<Comparator>(std::make_unique<DictionaryComparator>(
          a, asc, nulls_first, std::move(decoded), std::move(values)));
    }
    case TypeId::kNull:
      return std::unique_ptr<Comparator>(std::make_unique<NullComparator>(a, asc, nulls_first));
    case TypeId::kBool:
      return std::unique_ptr<Comparator>(std::make_unique<BoolComparator>(a, asc, nulls_first));
    case TypeId::kInt8:
      return MakeFixed<int8_t>(a, asc, nulls_first);
    case TypeId::kInt16:
      return MakeFixed<int16_t>(a, asc, nulls_first);
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      return MakeFixed<int32_t>(a, asc, nulls_first);
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTimestamp:
    case TypeId::kTime64:
    case TypeId::kDuration:
      return MakeFixed<int64_t>(a, asc, nulls_first);
    case TypeId::kUInt8:
      return MakeFixed<uint8_t>(a, asc, nulls_first);
    case TypeId::kUInt16:
      return MakeFixed<uint16_t>(a, asc, nulls_first);
    case TypeId::kUInt32:
      return MakeFixed<uint32_t>(a, asc, nulls_first);
    case TypeId::kUInt64:
      return MakeFixed<uint64_t>(a, asc, nulls_first);
    case TypeId::kFloat16:
      return MakeFloat<uint16_t>(a, asc, nulls_first);
    case TypeId::kFloat32:
      return MakeFloat<uint32_t>(a, asc, nulls_first);
    case TypeId::kFloat64:
      return MakeFloat<uint64_t>(a, asc, nulls_first);
    case TypeId::kDecimal128:
      return std::unique_ptr<Comparator>(
          std::make_unique<Decimal128Comparator>(a, asc, nulls_first));
    case TypeId::kFixedSizeBinary:
      return std::unique_ptr<Comparator>(
          std::make_unique<FixedSizeBinaryComparator>(a, asc, nulls_first));
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return std::unique_ptr<Comparator>(std::make_unique<BinaryComparator>(a, asc, nulls_first));
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList: {
      LANCEDB_ASSIGN_OR_RETURN(auto items, MakeComparator(*a.children[0], asc, nulls_first));
      return std::unique_ptr<Comparator>(
          std::make_unique<ListComparator>(a, asc, nulls_first, std::move(items)));
    }
    case TypeId::kStruct: {
      std::vector<std::unique_ptr<Comparator>> members;
      for (const auto& child : a.children) {
        LANCEDB_ASSIGN_OR_RETURN(auto m, MakeComparator(*child, asc, nulls_first));
        members.push_back(std::move(m));
      }
      return std::unique_ptr<Comparator>(
          std::make_unique<StructComparator>(a, asc, nulls_first, std::move(members)));
    }
  }
  return Status::NotSupported("Values of type " + a.type->ToString() + " cannot be ordered");
}

}  // namespace

Status CheckSortable(const DataTypePtr& type) {
  // The comparators' factory is the one list of orderable types: ask it about an empty array.
  auto empty = MakeNullArray(type, 0);
  return MakeComparator(*empty, true, false).status();
}

namespace {

/// A row of the first key reduced to what sorts fast: its null placement (`rank`) and a
/// 64-bit image of its value (`key`), compared as unsigned, that orders as the value does
/// (descending: reversed). When the image is `exact` (equal images: equal values) the first
/// key's comparator is not needed on ties; otherwise (a string's first 8 bytes, a decimal's
/// high word, a list or struct: no image) ties are settled by it.
struct Entry {
  uint64_t key;
  int64_t row;
  uint8_t rank;  // 0: null first, 1: value, 2: null last
};

template <typename T, typename Fn>
void FillFixed(const ArrayData& a, Fn image, std::vector<Entry>* entries) {
  const T* values = a.GetValues<T>(1);
  for (auto& e : *entries) e.key = image(values[e.row]);
}

template <typename T>
uint64_t SignedImage(T v) {
  return static_cast<uint64_t>(static_cast<int64_t>(v)) ^ (uint64_t{1} << 63);
}

template <typename Bits>
uint64_t FloatImage(Bits bits) {
  constexpr Bits kSign = static_cast<Bits>(Bits{1} << (sizeof(Bits) * 8 - 1));
  return static_cast<Bits>((bits & kSign) != 0 ? ~bits : bits | kSign);
}

/// Fill the images of `key`'s values into `entries`; returns whether they are exact.
bool FillImages(const ArrayData& a, std::vector<Entry>* entries) {
  switch (a.type->id()) {
    case TypeId::kBool: {
      const uint8_t* bits = a.buffers[1]->data();
      for (auto& e : *entries) e.key = bit_util::GetBit(bits, a.offset + e.row) ? 1 : 0;
      return true;
    }
    case TypeId::kInt8:
      FillFixed<int8_t>(a, SignedImage<int8_t>, entries);
      return true;
    case TypeId::kInt16:
      FillFixed<int16_t>(a, SignedImage<int16_t>, entries);
      return true;
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      FillFixed<int32_t>(a, SignedImage<int32_t>, entries);
      return true;
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTimestamp:
    case TypeId::kTime64:
    case TypeId::kDuration:
      FillFixed<int64_t>(a, SignedImage<int64_t>, entries);
      return true;
    case TypeId::kUInt8:
      FillFixed<uint8_t>(
          a, [](uint8_t v) { return uint64_t{v}; }, entries);
      return true;
    case TypeId::kUInt16:
      FillFixed<uint16_t>(
          a, [](uint16_t v) { return uint64_t{v}; }, entries);
      return true;
    case TypeId::kUInt32:
      FillFixed<uint32_t>(
          a, [](uint32_t v) { return uint64_t{v}; }, entries);
      return true;
    case TypeId::kUInt64:
      FillFixed<uint64_t>(
          a, [](uint64_t v) { return v; }, entries);
      return true;
    case TypeId::kFloat16:
      FillFixed<uint16_t>(a, FloatImage<uint16_t>, entries);
      return true;
    case TypeId::kFloat32:
      FillFixed<uint32_t>(a, FloatImage<uint32_t>, entries);
      return true;
    case TypeId::kFloat64:
      FillFixed<uint64_t>(a, FloatImage<uint64_t>, entries);
      return true;
    case TypeId::kDecimal128:
      for (auto& e : *entries) {
        int64_t high;
        std::memcpy(&high, a.buffers[1]->data() + (a.offset + e.row) * 16 + 8, sizeof(high));
        e.key = SignedImage<int64_t>(high);
      }
      return false;
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      for (auto& e : *entries) {
        const std::string_view v = a.GetView(e.row);
        uint64_t image = 0;
        for (size_t b = 0; b < 8; ++b) {
          image = (image << 8) | (b < v.size() ? static_cast<uint8_t>(v[b]) : 0);
        }
        e.key = image;
      }
      return false;
    default:
      for (auto& e : *entries) e.key = 0;
      return a.type->id() == TypeId::kNull;
  }
}

}  // namespace

Result<std::vector<int64_t>> SortIndices(const std::vector<SortKey>& keys, int64_t limit) {
  if (keys.empty()) return Status::InvalidArgument("SortIndices needs at least one key");
  const int64_t n = keys[0].values->length;
  std::vector<std::unique_ptr<Comparator>> comparators;
  for (const auto& key : keys) {
    if (key.values->length != n) {
      return Status::InvalidArgument("Sort keys have different lengths: " + std::to_string(n) +
                                     " and " + std::to_string(key.values->length));
    }
    LANCEDB_ASSIGN_OR_RETURN(auto c, MakeComparator(*key.values, key.ascending, key.nulls_first));
    comparators.push_back(std::move(c));
  }
  // The first key's images make most comparisons two integer compares on contiguous memory.
  const SortKey& first = keys[0];
  std::vector<Entry> entries(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) entries[static_cast<size_t>(i)].row = i;
  const bool exact = FillImages(*first.values, &entries);
  for (auto& e : entries) {
    if (first.values->IsNull(e.row)) {
      e.rank = first.nulls_first ? 0 : 2;
      e.key = 0;
    } else {
      e.rank = 1;
      if (!first.ascending) e.key = ~e.key;
    }
  }
  const size_t settled = exact ? 1 : 0;  // comparators the images settle
  auto before = [&comparators, settled](const Entry& a, const Entry& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.key != b.key) return a.key < b.key;
    for (size_t k = settled; k < comparators.size(); ++k) {
      const int r = comparators[k]->Compare(a.row, b.row);
      if (r != 0) return r < 0;
    }
    return a.row < b.row;
  };
  if (limit >= 0 && limit < n) {
    std::partial_sort(entries.begin(), entries.begin() + limit, entries.end(), before);
    entries.resize(static_cast<size_t>(limit));
  } else {
    std::sort(entries.begin(), entries.end(), before);
  }
  std::vector<int64_t> order;
  order.reserve(entries.size());
  for (const auto& e : entries) order.push_back(e.row);
  return order;
}

}  // namespace lancedb::array
