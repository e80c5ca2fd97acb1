// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Names, keys and queries of the scalar indices; dispatch of build and open to the BTREE
// (btree_index.cc) and BITMAP / LABEL_LIST (bitmap_index.cc) implementations.

#include "index/scalar/scalar_index.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "expr/civil_time.h"
#include "index/scalar/scalar_index_internal.h"

namespace lancedb::index::scalar {

std::string_view ScalarIndexPlanName(ScalarIndexType type) {
  switch (type) {
    case ScalarIndexType::kBTree:
      return "BTree";
    case ScalarIndexType::kBitmap:
      return "Bitmap";
    case ScalarIndexType::kLabelList:
      return "LabelList";
  }
  return "?";
}

std::string_view ScalarIndexTypeUrl(ScalarIndexType type) {
  switch (type) {
    case ScalarIndexType::kBTree:
      return "/lance.table.BTreeIndexDetails";
    case ScalarIndexType::kBitmap:
      return "/lance.table.BitmapIndexDetails";
    case ScalarIndexType::kLabelList:
      return "/lance.table.LabelListIndexDetails";
  }
  return "";
}

int32_t ScalarIndexVersion(ScalarIndexType type) {
  return type == ScalarIndexType::kLabelList ? 1 : 0;
}

std::optional<ScalarIndexType> ScalarIndexTypeFromUrl(std::string_view type_url) {
  for (auto t : {ScalarIndexType::kBTree, ScalarIndexType::kBitmap, ScalarIndexType::kLabelList}) {
    if (type_url == ScalarIndexTypeUrl(t)) return t;
  }
  return std::nullopt;
}

Key Key::FromLiteral(const expr::Literal& literal, expr::ValueKind kind) {
  Key k;
  k.kind = kind;
  switch (kind) {
    case expr::ValueKind::kFloat:
      k.f = literal.kind == expr::LiteralKind::kFloat ? literal.float_value
                                                      : static_cast<double>(literal.int_value);
      break;
    case expr::ValueKind::kString:
      k.s = literal.string_value;
      break;
    case expr::ValueKind::kBool:
      k.i = literal.bool_value ? 1 : 0;
      break;
    default:
      k.i = literal.int_value;
      k.is_unsigned = literal.is_unsigned;
      break;
  }
  return k;
}

namespace {

/// Floats in total order: -inf < ... < -0 = +0 < ... < +inf < NaN.

std::string DateString(int64_t days) {
  const expr::CivilDate date = expr::CivilFromDays(days);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04lld-%02d-%02d", static_cast<long long>(date.year), date.month,
                date.day);
  return buf;
}

}  // namespace

int CompareKeys(const Key& a, const Key& b) {
  switch (a.kind) {
    case expr::ValueKind::kFloat:
      return CompareDoubles(a.f, b.f);
    case expr::ValueKind::kString: {
      const int c = a.s.compare(b.s);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default:
      if (a.is_unsigned || b.is_unsigned) {
        // A uint64 column: both sides hold uint64 bits (a negative literal never reaches here).
        const auto x = static_cast<uint64_t>(a.i), y = static_cast<uint64_t>(b.i);
        return x < y ? -1 : (x > y ? 1 : 0);
      }
      return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
  }
}

std::string Key::ToString() const {
  char buf[64];
  switch (kind) {
    case expr::ValueKind::kFloat: {
      auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), f);  // shortest round trip
      return std::string(buf, ec == std::errc() ? end : buf);
    }
    case expr::ValueKind::kString:
      return s;
    case expr::ValueKind::kBool:
      return i ? "true" : "false";
    case expr::ValueKind::kDate:
      return DateString(i);
    default:
      return is_unsigned ? std::to_string(static_cast<uint64_t>(i)) : std::to_string(i);
  }
}

std::string ScalarQuery::ToString(std::string_view column) const {
  const std::string c(column);
  auto list = [&](const char* sep) {
    std::string out;
    for (size_t k = 0; k < values.size(); ++k) out += (k ? sep : "") + values[k].ToString();
    return out;
  };
  switch (kind) {
    case Kind::kEquals:
      return c + " = " + values[0].ToString();
    case Kind::kRange: {
      std::string out;
      if (lower) out = c + (lower_inclusive ? " >= " : " > ") + lower->ToString();
      if (upper) {
        out += (lower ? " && " : "") + c + (upper_inclusive ? " <= " : " < ") + upper->ToString();
      }
      return out;
    }
    case Kind::kIn:
      return c + " IN [" + list(",") + "]";
    case Kind::kIsNull:
      return c + " IS NULL";
    case Kind::kHasAny:
      return "array_has_any(" + c + ", List([" + list(", ") + "]))";
    case Kind::kHasAll:
      return "array_has_all(" + c + ", List([" + list(", ") + "]))";
  }
  return "?";
}

Status CheckIndexableType(ScalarIndexType index_type, const std::string& column,
                          const array::DataType& type) {
  auto reject = [&](const std::string& why) {
    return Status::InvalidArgument(
        "Cannot create a " + std::string(ScalarIndexTypeName(index_type)) + " index on column '" +
        column + "' of type " + type.ToString() + ": " + why);
  };
  if (index_type == ScalarIndexType::kLabelList) {
    // Lance's words: "A LabelList index cannot be created on the field `c` which has data
    // type ...", then why.
    auto refuse = [&](const std::string& why) {
      return Status::InvalidArgument("A LabelList index cannot be created on the field `" + column +
                                     "` which has data type " + type.ToString() + " (" + why + ")");
    };
    if (!type.is_list_like() || type.id() == array::TypeId::kFixedSizeList) {
      return refuse("a LABEL_LIST index needs a list column");
    }
    const auto& item = *type.value_type();
    if (item.is_nested()) return refuse("the list items must not be nested");
    if (item.is_dictionary()) return refuse("Lance cannot index dictionary-encoded values");
    // As Lance: labels are integers, booleans, strings or binary values (not floats or
    // temporal values).
    const auto id = item.id();
    const bool label = id == array::TypeId::kBool ||
                       (id >= array::TypeId::kInt8 && id <= array::TypeId::kUInt64) ||
                       id == array::TypeId::kString || id == array::TypeId::kLargeString ||
                       id == array::TypeId::kBinary || id == array::TypeId::kLargeBinary;
    if (!label) return refuse("labels must be integers, booleans, strings or binary values");
    return Status::OK();
  }
  if (type.is_nested()) return reject("the column must not be nested (list, struct)");
  // As Lance: "A BTree index cannot be created on the field `c` which has data type
  // Dictionary(Int32, Utf8)".
  if (type.is_dictionary()) return reject("Lance cannot index dictionary-encoded columns");
  if (type.id() == array::TypeId::kFloat16 || type.id() == array::TypeId::kDecimal128 ||
      type.id() == array::TypeId::kNull) {
    return reject("that type is not supported");
  }
  // As Lance: a BTREE takes fixed_size_binary (UUIDs), a BITMAP does not.
  if (type.id() == array::TypeId::kFixedSizeBinary && index_type != ScalarIndexType::kBTree) {
    return reject("a BITMAP index does not take fixed_size_binary columns (a BTREE does)");
  }
  auto kind = expr::KindOf(type);
  if (!kind.ok()) return reject("that type is not supported");
  return Status::OK();
}

Result<std::vector<WrittenFile>> BuildScalarIndex(const io::FileSystemPtr& fs,
                                                  const std::string& dir, ScalarIndexType type,
                                                  const array::DataTypePtr& column_type,
                                                  const std::vector<BuildInput>& inputs) {
  if (type == ScalarIndexType::kBTree) return BuildBTree(fs, dir, column_type, inputs);
  return BuildBitmap(fs, dir, type == ScalarIndexType::kLabelList, column_type, inputs);
}

Result<std::vector<WrittenFile>> BuildScalarIndexFromEntries(const io::FileSystemPtr& fs,
                                                             const std::string& dir,
                                                             ScalarIndexType type,
                                                             const array::DataTypePtr& column_type,
                                                             const IndexEntries& entries) {
  if (type == ScalarIndexType::kBTree) {
    return BuildBTree(fs, dir, column_type, {BuildInput{entries.keys, entries.row_ids}});
  }
  const bool label_list = type == ScalarIndexType::kLabelList;
  return BuildBitmapEntries(fs, dir, label_list,
                            label_list ? column_type->value_type() : column_type, entries);
}

Result<std::shared_ptr<const ScalarIndex>> OpenScalarIndex(const io::FileSystemPtr& fs,
                                                           const std::string& dir,
                                                           ScalarIndexType type,
                                                           const array::DataTypePtr& column_type) {
  if (type == ScalarIndexType::kBTree) return OpenBTree(fs, dir, column_type);
  return OpenBitmap(fs, dir, type == ScalarIndexType::kLabelList, column_type);
}

}  // namespace lancedb::index::scalar
