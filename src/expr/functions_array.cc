// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// Array (list) functions: array_has, array_has_any, array_has_all, array_length.

#include "expr/binder_internal.h"
#include "expr/function.h"

namespace lancedb::expr {

namespace {

Result<ValueKind> ItemKind(FunctionBinding& call, size_t i) {
  const auto& a = call.args[i];
  if (a->kind != ValueKind::kList) {
    return TypeError(a->position, call.name + " needs a list, got " + Describe(*a));
  }
  return KindOf(*a->type->value_type());
}

Status BindArrayLength(FunctionBinding& call) {
  LANCEDB_RETURN_NOT_OK(ItemKind(call, 0).status());
  call.Set(ValueKind::kInt, array::uint64());
  return Status::OK();
}

/// array_has(list, value): the value is coerced to the item kind.
Status BindArrayHas(FunctionBinding& call) {
  LANCEDB_ASSIGN_OR_RETURN(auto item, ItemKind(call, 0));
  auto& list = call.args[0];
  auto& needle = call.args[1];
  BoundExpr probe;
  probe.kind = item;
  probe.type = list->type->value_type();
  probe.op = BoundOp::kColumn;
  LANCEDB_ASSIGN_OR_RETURN(auto kind, CommonKind(probe, *needle, call.position, "compare"));
  if (kind != item) {
    return TypeError(needle->position,
                     "cannot look for " + Describe(*needle) + " in " + Describe(*list));
  }
  LANCEDB_ASSIGN_OR_RETURN(needle, Coerce(needle, item));
  call.Set(ValueKind::kBool, array::boolean());
  return Status::OK();
}

/// array_has_any/all(list, list): the items must be of the same kind; an array literal's
/// items are coerced to the first list's item kind.
Status BindArrayHasSet(FunctionBinding& call) {
  LANCEDB_ASSIGN_OR_RETURN(auto item, ItemKind(call, 0));
  LANCEDB_ASSIGN_OR_RETURN(auto other, ItemKind(call, 1));
  const auto& list = call.args[0];
  auto& wanted = call.args[1];
  if (wanted->op == BoundOp::kArray && other != item) {
    auto arr = std::make_shared<BoundExpr>(*wanted);
    for (auto& it : arr->args) {
      LANCEDB_ASSIGN_OR_RETURN(it, Coerce(it, item));
    }
    arr->type = array::list(list->type->value_type());
    wanted = arr;
  } else if (other != item) {
    return call.Error("cannot compare items of " + Describe(*list) + " and " + Describe(*wanted));
  }
  call.Set(ValueKind::kBool, array::boolean());
  return Status::OK();
}

/// Element values of a list Vec at `row`, as [begin, end) in `items` (a Vec of the items).
struct ListView {
  Vec items;  // the flattened items (list column) or unused (array literal)
  const Vec* literal = nullptr;
  std::vector<std::pair<int64_t, int64_t>> ranges;
};

Result<ListView> MakeListView(const Vec& v, ValueKind item_kind) {
  ListView out;
  if (!v.items.empty() || !v.array) {
    out.literal = &v;
    return out;
  }
  const auto& arr = *v.array;
  LANCEDB_ASSIGN_OR_RETURN(out.items, FromArray(arr.children[0], item_kind));
  out.ranges.resize(static_cast<size_t>(arr.length));
  for (int64_t i = 0; i < arr.length; ++i) out.ranges[static_cast<size_t>(i)] = arr.GetListRange(i);
  return out;
}

/// Whether item j of `items` equals `needle` row i (same kind, both valid).
bool ItemEquals(const Vec& items, int64_t j, const Vec& needle, int64_t i) {
  if (!items.IsValid(j) || !needle.IsValid(i)) return false;
  const size_t a = static_cast<size_t>(j), b = static_cast<size_t>(i);
  switch (items.kind) {
    case ValueKind::kBool:
      return items.bools[a] == needle.bools[b];
    case ValueKind::kInt:
      // A uint64 above INT64_MAX never equals a negative int64.
      if (items.is_unsigned != needle.is_unsigned && (items.ints[a] < 0 || needle.ints[b] < 0)) {
        return false;
      }
      return items.ints[a] == needle.ints[b];
    case ValueKind::kDate:
    case ValueKind::kTimestamp:
    case ValueKind::kTime:
    case ValueKind::kDuration:
      return items.ints[a] == needle.ints[b];
    case ValueKind::kFloat:
      return items.floats[a] == needle.floats[b];
    case ValueKind::kString:
      return items.strings[a] == needle.strings[b];
    default:
      return false;
  }
}

/// Calls f(items, index) for each element of row i of list view `lv`.
template <typename F>
void ForEachItem(const ListView& lv, int64_t i, F f) {
  if (lv.literal) {
    for (const auto& item : lv.literal->items) f(item, i);
  } else {
    auto [b, e] = lv.ranges[static_cast<size_t>(i)];
    for (int64_t j = b; j < e; ++j) f(lv.items, j);
  }
}

bool ListValid(const Vec& v, int64_t i) { return v.array ? v.array->IsValid(i) : v.IsValid(i); }

Status EvalArrayLength(FunctionCall& call, Vec* out) {
  LANCEDB_ASSIGN_OR_RETURN(auto item_kind, KindOf(*call.expr.args[0]->type->value_type()));
  LANCEDB_ASSIGN_OR_RETURN(auto list, MakeListView(call.args[0], item_kind));
  out->valid.assign(call.length, 1);
  for (size_t i = 0; i < call.length; ++i) {
    int64_t count = 0;
    ForEachItem(list, static_cast<int64_t>(i), [&](const Vec&, int64_t) { ++count; });
    out->ints[i] = count;
    out->valid[i] = ListValid(call.args[0], static_cast<int64_t>(i));
  }
  return Status::OK();
}

Status EvalArrayHas(FunctionCall& call, Vec* out) {
  LANCEDB_ASSIGN_OR_RETURN(auto item_kind, KindOf(*call.expr.args[0]->type->value_type()));
  LANCEDB_ASSIGN_OR_RETURN(auto list, MakeListView(call.args[0], item_kind));
  const Vec& needle = call.args[1];
  out->valid.assign(call.length, 1);
  for (int64_t i = 0; i < static_cast<int64_t>(call.length); ++i) {
    bool found = false;
    ForEachItem(list, i,
                [&](const Vec& items, int64_t j) { found |= ItemEquals(items, j, needle, i); });
    out->bools[static_cast<size_t>(i)] = found;
    out->valid[static_cast<size_t>(i)] = ListValid(call.args[0], i) && needle.IsValid(i);
  }
  return Status::OK();
}

/// array_has_any (kAny) or array_has_all (!kAny).
template <bool kAny>
Status EvalArrayHasSet(FunctionCall& call, Vec* out) {
  LANCEDB_ASSIGN_OR_RETURN(auto item_kind, KindOf(*call.expr.args[0]->type->value_type()));
  LANCEDB_ASSIGN_OR_RETURN(auto list, MakeListView(call.args[0], item_kind));
  LANCEDB_ASSIGN_OR_RETURN(auto other, MakeListView(call.args[1], item_kind));
  out->valid.assign(call.length, 1);
  for (int64_t i = 0; i < static_cast<int64_t>(call.length); ++i) {
    bool result = !kAny;
    ForEachItem(other, i, [&](const Vec& wanted, int64_t w) {
      bool found = false;
      ForEachItem(list, i,
                  [&](const Vec& items, int64_t j) { found |= ItemEquals(items, j, wanted, w); });
      if (kAny) {
        result |= found;
      } else {
        result &= found;
      }
    });
    out->bools[static_cast<size_t>(i)] = result;
    out->valid[static_cast<size_t>(i)] = ListValid(call.args[0], i) && ListValid(call.args[1], i);
  }
  return Status::OK();
}

constexpr FunctionDef kArrayFunctions[] = {
    {{"array_has", "array_contains", "list_has"}, 2, 2, kCustom, BindArrayHas, EvalArrayHas},
    {{"array_has_any"}, 2, 2, kCustom, BindArrayHasSet, EvalArrayHasSet<true>},
    {{"array_has_all"}, 2, 2, kCustom, BindArrayHasSet, EvalArrayHasSet<false>},
    {{"array_length", "list_length"}, 1, 1, kCustom, BindArrayLength, EvalArrayLength},
};

}  // namespace

std::span<const FunctionDef> ArrayFunctions() { return kArrayFunctions; }

}  // namespace lancedb::expr
