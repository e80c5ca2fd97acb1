// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "query/index_filter.h"

#include <algorithm>
#include <unordered_map>

#include "expr/function.h"
#include "table/deletion.h"
#include "table/manifest.h"
#include "table/row_ids.h"
#include "table/stable_row_ids.h"

namespace lancedb::query {

namespace {

namespace scalar = index::scalar;
using expr::BoundExpr;
using expr::BoundOp;
using Kind = scalar::ScalarQuery::Kind;

const BoundExpr* AsColumn(const BoundExpr& e) {
  return e.op == BoundOp::kColumn && !e.path.empty() ? &e : nullptr;
}

/// The column a lookup is on: the name, or the dotted path of a struct member ("s.a").
std::string ColumnName(const BoundExpr& column) {
  std::string out;
  for (const auto& part : column.path) out += (out.empty() ? "" : ".") + part;
  return out;
}

/// The literal `e` as a key of `kind`; nullopt for NULL, a non-literal, or a negative value
/// compared with a uint64 column.
std::optional<scalar::Key> AsKey(const BoundExpr& e, expr::ValueKind kind, bool unsigned_column) {
  if (e.op != BoundOp::kLiteral || e.literal.kind == expr::LiteralKind::kNull) return std::nullopt;
  if (e.kind != kind) return std::nullopt;
  scalar::Key key = scalar::Key::FromLiteral(e.literal, kind);
  if (unsigned_column && !key.is_unsigned && key.i < 0) return std::nullopt;
  return key;
}

bool IsUnsigned(const BoundExpr& column) {
  return column.type && column.type->id() == array::TypeId::kUInt64;
}

/// The name of a function call node ("" when not a call).
std::string_view FunctionName(const BoundExpr& e) {
  return e.op == BoundOp::kFunction && e.function != nullptr ? e.function->names[0] : "";
}

/// The AND chain of `e`, left to right (`e` itself when it is not an AND).
void FlattenAnd(const BoundExpr& e, std::vector<const BoundExpr*>* out) {
  if (e.op == BoundOp::kAnd) {
    FlattenAnd(*e.args[0], out);
    FlattenAnd(*e.args[1], out);
  } else {
    out->push_back(&e);
  }
}

class Planner {
 public:
  explicit Planner(const std::vector<index::ScalarSegment>& segments) : segments_(segments) {}

  /// The lookup tree of `e`; `complete` tells whether it is equivalent to `e`.
  std::optional<IndexLookup> Plan(const BoundExpr& e, bool* complete) {
    switch (e.op) {
      case BoundOp::kAnd: {
        bool ca = false, cb = false;
        auto a = Plan(*e.args[0], &ca);
        auto b = Plan(*e.args[1], &cb);
        *complete = a && b && ca && cb;
        if (a && b) return And(std::move(*a), std::move(*b));
        return a ? std::move(a) : std::move(b);
      }
      case BoundOp::kOr: {
        bool ca = false, cb = false;
        auto a = Plan(*e.args[0], &ca);
        auto b = Plan(*e.args[1], &cb);
        if (!a || !b || !ca || !cb) return std::nullopt;
        *complete = true;
        return Combine(IndexLookup::Op::kOr, std::move(*a), std::move(*b));
      }
      case BoundOp::kNot: {
        bool c = false;
        auto a = Plan(*e.args[0], &c);
        if (!a || !c) return std::nullopt;
        *complete = true;
        return Negate(std::move(*a));
      }
      default: {
        auto leaf = Leaf(e);
        *complete = leaf.has_value();
        return leaf;
      }
    }
  }

  /// `a AND b`; two ranges on the same index become one range ("[i > 5 && i <= 10]"), as
  /// Lance plans them: one lookup instead of two and an intersection.
  static IndexLookup And(IndexLookup a, IndexLookup b) {
    using Kind = scalar::ScalarQuery::Kind;
    if (a.op == IndexLookup::Op::kLookup && b.op == IndexLookup::Op::kLookup &&
        a.index_name == b.index_name && a.query.kind == Kind::kRange &&
        b.query.kind == Kind::kRange && a.never_null == b.never_null) {
      auto& q = a.query;
      const auto& r = b.query;
      if (r.lower) {
        const int c = q.lower ? scalar::CompareKeys(*r.lower, *q.lower) : 1;
        if (c > 0) {
          q.lower = r.lower;
          q.lower_inclusive = r.lower_inclusive;
        } else if (c == 0) {
          q.lower_inclusive = q.lower_inclusive && r.lower_inclusive;
        }
      }
      if (r.upper) {
        const int c = q.upper ? scalar::CompareKeys(*r.upper, *q.upper) : -1;
        if (c < 0) {
          q.upper = r.upper;
          q.upper_inclusive = r.upper_inclusive;
        } else if (c == 0) {
          q.upper_inclusive = q.upper_inclusive && r.upper_inclusive;
        }
      }
      return a;
    }
    return Combine(IndexLookup::Op::kAnd, std::move(a), std::move(b));
  }

  static IndexLookup Combine(IndexLookup::Op op, IndexLookup a, IndexLookup b) {
    IndexLookup n;
    n.op = op;
    n.children.push_back(std::move(a));
    n.children.push_back(std::move(b));
    return n;
  }

 private:
  static IndexLookup Negate(IndexLookup a) {
    IndexLookup n;
    n.op = IndexLookup::Op::kNot;
    n.children.push_back(std::move(a));
    return n;
  }

  /// A lookup of `query` on `column` through the best index answering it (BTREE first, as
  /// LanceDB), or nullopt.
  std::optional<IndexLookup> Lookup(const std::string& column, scalar::ScalarQuery query) {
    const std::string* chosen = nullptr;
    scalar::ScalarIndexType type{};
    for (const auto& s : segments_) {
      if (s.column != column || !s.index->Supports(query.kind) || s.fragments.empty()) continue;
      if (chosen == nullptr ||
          (s.type == scalar::ScalarIndexType::kBTree && type != scalar::ScalarIndexType::kBTree)) {
        chosen = &s.name;
        type = s.type;
      }
    }
    if (chosen == nullptr) return std::nullopt;
    IndexLookup n;
    n.index_name = *chosen;
    n.column = column;
    n.type = type;
    n.query = std::move(query);
    for (const auto& s : segments_) {
      if (s.name == *chosen) n.segments.push_back(&s);
    }
    // The keys must be of the index's kind.
    const expr::ValueKind key_kind = n.segments[0]->index->key_kind();
    auto wrong = [&](const scalar::Key& k) { return k.kind != key_kind; };
    if (std::any_of(n.query.values.begin(), n.query.values.end(), wrong) ||
        (n.query.lower && wrong(*n.query.lower)) || (n.query.upper && wrong(*n.query.upper))) {
      return std::nullopt;
    }
    return n;
  }

  std::optional<IndexLookup> Leaf(const BoundExpr& e) {
    switch (e.op) {
      case BoundOp::kCompare:
        return CompareLeaf(e);
      case BoundOp::kIn: {
        const BoundExpr* col = AsColumn(*e.args[0]);
        if (col == nullptr || e.args.size() < 2) return std::nullopt;
        scalar::ScalarQuery q;
        q.kind = e.args.size() == 2 ? Kind::kEquals : Kind::kIn;
        for (size_t i = 1; i < e.args.size(); ++i) {
          auto key = AsKey(*e.args[i], col->kind, IsUnsigned(*col));
          if (!key) return std::nullopt;
          q.values.push_back(std::move(*key));
        }
        auto n = Lookup(ColumnName(*col), std::move(q));
        if (n && e.negated) return Negate(std::move(*n));
        return n;
      }
      case BoundOp::kIs: {
        const BoundExpr* col = AsColumn(*e.args[0]);
        if (col == nullptr) return std::nullopt;
        scalar::ScalarQuery q;
        if (e.is_what == expr::IsWhat::kNull) {
          q.kind = Kind::kIsNull;
        } else {
          if (col->kind != expr::ValueKind::kBool) return std::nullopt;
          q.values = {BoolKey(e.is_what == expr::IsWhat::kTrue)};
        }
        auto n = Lookup(ColumnName(*col), std::move(q));
        if (!n) return std::nullopt;
        n->never_null = true;
        if (e.negated) return Negate(std::move(*n));
        return n;
      }
      case BoundOp::kColumn: {
        if (AsColumn(e) == nullptr || e.kind != expr::ValueKind::kBool) return std::nullopt;
        scalar::ScalarQuery q;
        q.values = {BoolKey(true)};
        return Lookup(ColumnName(e), std::move(q));
      }
      case BoundOp::kFunction:
        return ArrayLeaf(e);
      case BoundOp::kLike:
        return LikeLeaf(e);
      default:
        return std::nullopt;
    }
  }

  static scalar::Key BoolKey(bool value) {
    scalar::Key k;
    k.kind = expr::ValueKind::kBool;
    k.i = value ? 1 : 0;
    return k;
  }

  std::optional<IndexLookup> CompareLeaf(const BoundExpr& e) {
    const BoundExpr* col = AsColumn(*e.args[0]);
    const BoundExpr* lit = e.args[1].get();
    expr::BinaryOp op = e.bop;
    if (col == nullptr) {
      col = AsColumn(*e.args[1]);
      lit = e.args[0].get();
      // Swap the sides: 5 < x is x > 5.
      switch (op) {
        case expr::BinaryOp::kLt:
          op = expr::BinaryOp::kGt;
          break;
        case expr::BinaryOp::kLe:
          op = expr::BinaryOp::kGe;
          break;
        case expr::BinaryOp::kGt:
          op = expr::BinaryOp::kLt;
          break;
        case expr::BinaryOp::kGe:
          op = expr::BinaryOp::kLe;
          break;
        default:
          break;
      }
    }
    if (col == nullptr) return std::nullopt;
    auto key = AsKey(*lit, col->kind, IsUnsigned(*col));
    if (!key) return std::nullopt;
    scalar::ScalarQuery q;
    switch (op) {
      case expr::BinaryOp::kEq:
      case expr::BinaryOp::kNe:
        q.values = {std::move(*key)};
        break;
      case expr::BinaryOp::kLt:
      case expr::BinaryOp::kLe:
        q.kind = Kind::kRange;
        q.upper = std::move(*key);
        q.upper_inclusive = op == expr::BinaryOp::kLe;
        break;
      case expr::BinaryOp::kGt:
      case expr::BinaryOp::kGe:
        q.kind = Kind::kRange;
        q.lower = std::move(*key);
        q.lower_inclusive = op == expr::BinaryOp::kGe;
        break;
      default:
        return std::nullopt;
    }
    auto n = Lookup(ColumnName(*col), std::move(q));
    if (n && op == expr::BinaryOp::kNe) return Negate(std::move(*n));
    return n;
  }

  /// `s [NOT] LIKE 'prefix%'` (case-sensitive, no other wildcard or escape): the range
  /// [prefix, the next string without that prefix), as Lance answers it with a BTREE.
  std::optional<IndexLookup> LikeLeaf(const BoundExpr& e) {
    if (e.case_insensitive || e.args.size() != 2) return std::nullopt;
    const BoundExpr* col = AsColumn(*e.args[0]);
    const BoundExpr& pattern = *e.args[1];
    if (col == nullptr || col->kind != expr::ValueKind::kString ||
        pattern.op != BoundOp::kLiteral || pattern.literal.kind != expr::LiteralKind::kString) {
      return std::nullopt;
    }
    const std::string& p = pattern.literal.string_value;
    if (p.empty() || p.back() != '%') return std::nullopt;
    std::string prefix = p.substr(0, p.size() - 1);
    if (prefix.find_first_of("%_\\") != std::string::npos) return std::nullopt;
    scalar::ScalarQuery q;
    q.kind = Kind::kRange;
    scalar::Key lower;
    lower.kind = expr::ValueKind::kString;
    lower.s = prefix;
    q.lower = lower;
    q.lower_inclusive = true;
    // The smallest string above every string starting with `prefix`: drop trailing 0xFF bytes
    // and increment the last byte left (none left: no upper bound).
    std::string upper = prefix;
    while (!upper.empty() && static_cast<unsigned char>(upper.back()) == 0xFF) upper.pop_back();
    if (!upper.empty()) {
      upper.back() = static_cast<char>(static_cast<unsigned char>(upper.back()) + 1);
      scalar::Key key;
      key.kind = expr::ValueKind::kString;
      key.s = std::move(upper);
      q.upper = std::move(key);
      q.upper_inclusive = false;
    }
    auto n = Lookup(ColumnName(*col), std::move(q));
    if (n && e.negated) return Negate(std::move(*n));
    return n;
  }

  std::optional<IndexLookup> ArrayLeaf(const BoundExpr& e) {
    const std::string_view name = FunctionName(e);
    const bool has = name == "array_has";
    const bool any = name == "array_has_any";
    const bool all = name == "array_has_all";
    if ((!has && !any && !all) || e.args.size() != 2) return std::nullopt;
    const BoundExpr* col = AsColumn(*e.args[0]);
    if (col == nullptr || col->kind != expr::ValueKind::kList || !col->type ||
        !col->type->is_list_like()) {
      return std::nullopt;
    }
    auto item_kind = expr::KindOf(*col->type->value_type());
    if (!item_kind.ok()) return std::nullopt;
    const bool unsigned_items = col->type->value_type()->id() == array::TypeId::kUInt64;
    scalar::ScalarQuery q;
    q.kind = all ? Kind::kHasAll : Kind::kHasAny;
    if (has) {
      auto key = AsKey(*e.args[1], *item_kind, unsigned_items);
      if (!key) return std::nullopt;
      q.values.push_back(std::move(*key));
    } else {
      const BoundExpr& list = *e.args[1];
      if (list.op != BoundOp::kArray || list.args.empty()) return std::nullopt;
      for (const auto& item : list.args) {
        auto key = AsKey(*item, *item_kind, unsigned_items);
        if (!key) return std::nullopt;
        q.values.push_back(std::move(*key));
      }
    }
    return Lookup(ColumnName(*col), std::move(q));
  }

  const std::vector<index::ScalarSegment>& segments_;
};

/// The fragments the lookups of `n` answer for: those every index it uses covers.
std::optional<std::set<uint64_t>> Coverage(const IndexLookup& n) {
  if (n.op == IndexLookup::Op::kLookup) {
    std::set<uint64_t> out;
    for (const auto* s : n.segments) out.insert(s->fragments.begin(), s->fragments.end());
    return out;
  }
  std::optional<std::set<uint64_t>> out;
  for (const auto& c : n.children) {
    auto sub = Coverage(c);
    if (!out) {
      out = std::move(sub);
      continue;
    }
    std::set<uint64_t> both;
    std::set_intersection(out->begin(), out->end(), sub->begin(), sub->end(),
                          std::inserter(both, both.end()));
    out = std::move(both);
  }
  return out;
}

void CollectNames(const IndexLookup& n, std::set<std::string>* names) {
  if (n.op == IndexLookup::Op::kLookup) names->insert(n.index_name);
  for (const auto& c : n.children) CollectNames(c, names);
}

/// Evaluation of a lookup tree in row-address space over the covered fragments.
class Evaluator {
 public:
  Evaluator(const table::Dataset& dataset, const std::set<uint64_t>& fragments)
      : dataset_(dataset), fragments_(fragments) {}

  Result<scalar::SearchResult> Eval(const IndexLookup& n) {
    switch (n.op) {
      case IndexLookup::Op::kLookup:
        return Leaf(n);
      case IndexLookup::Op::kAnd: {
        LANCEDB_ASSIGN_OR_RETURN(auto a, Eval(n.children[0]));
        LANCEDB_ASSIGN_OR_RETURN(auto b, Eval(n.children[1]));
        // NULL AND TRUE / NULL AND NULL are NULL; FALSE AND anything is FALSE.
        scalar::RowAddrSet t = a.true_rows;
        t.IntersectWith(b.true_rows);
        scalar::RowAddrSet a_tn = a.true_rows, b_tn = b.true_rows;
        a_tn.UnionWith(a.null_rows);
        b_tn.UnionWith(b.null_rows);
        scalar::RowAddrSet nulls = a.null_rows;
        nulls.IntersectWith(b_tn);
        scalar::RowAddrSet nb = b.null_rows;
        nb.IntersectWith(a_tn);
        nulls.UnionWith(nb);
        return scalar::SearchResult{std::move(t), std::move(nulls)};
      }
      case IndexLookup::Op::kOr: {
        LANCEDB_ASSIGN_OR_RETURN(auto a, Eval(n.children[0]));
        LANCEDB_ASSIGN_OR_RETURN(auto b, Eval(n.children[1]));
        scalar::RowAddrSet t = a.true_rows;
        t.UnionWith(b.true_rows);
        scalar::RowAddrSet nulls = a.null_rows;
        nulls.UnionWith(b.null_rows);
        nulls.Subtract(t);
        return scalar::SearchResult{std::move(t), std::move(nulls)};
      }
      case IndexLookup::Op::kNot: {
        LANCEDB_ASSIGN_OR_RETURN(auto a, Eval(n.children[0]));
        scalar::RowAddrSet t = AllRows();
        t.Subtract(a.true_rows);
        t.Subtract(a.null_rows);
        return scalar::SearchResult{std::move(t), std::move(a.null_rows)};
      }
    }
    return Status::Internal("unknown lookup node");
  }

 private:
  Result<scalar::SearchResult> Leaf(const IndexLookup& n) {
    scalar::SearchResult out;
    for (const auto* s : n.segments) {
      LANCEDB_ASSIGN_OR_RETURN(auto r, s->index->Search(n.query));
      out.true_rows.UnionWith(r.true_rows);
      if (!n.never_null) out.null_rows.UnionWith(r.null_rows);
    }
    LANCEDB_RETURN_NOT_OK(ToAddresses(&out.true_rows));
    LANCEDB_RETURN_NOT_OK(ToAddresses(&out.null_rows));
    return out;
  }

  /// Keep the rows of covered fragments, as row addresses.
  Status ToAddresses(scalar::RowAddrSet* rows) {
    if (!table::UsesStableRowIds(dataset_)) {
      rows->FilterHigh([&](uint32_t f) { return fragments_.count(f) > 0; });
      return Status::OK();
    }
    if (!stable_map_) {
      stable_map_.emplace();
      const auto& manifest = dataset_.manifest().proto();
      for (const auto& frag : manifest.fragments()) {
        if (!fragments_.count(frag.id())) continue;
        LANCEDB_ASSIGN_OR_RETURN(auto ids,
                                 table::FragmentRowIds(*dataset_.fs(), dataset_.path(), frag));
        // An updated row keeps its id: only its live copy counts.
        std::vector<uint32_t> deleted;
        if (frag.has_deletion_file()) {
          LANCEDB_ASSIGN_OR_RETURN(
              deleted, table::ReadDeletions(*dataset_.fs(), dataset_.path(), manifest, frag));
        }
        size_t d = 0;
        for (size_t off = 0; off < ids.size(); ++off) {
          while (d < deleted.size() && deleted[d] < off) ++d;
          if (d < deleted.size() && deleted[d] == off) continue;
          stable_map_->emplace(ids[off], (frag.id() << 32) | off);
        }
      }
    }
    scalar::RowAddrSet out;
    for (uint64_t id : rows->ToVector()) {
      auto it = stable_map_->find(id);
      if (it != stable_map_->end()) out.Add(it->second);
    }
    *rows = std::move(out);
    return Status::OK();
  }

  scalar::RowAddrSet AllRows() const {
    scalar::RowAddrSet all;
    for (const auto& frag : dataset_.manifest().proto().fragments()) {
      if (fragments_.count(frag.id())) {
        all.AddRange(static_cast<uint32_t>(frag.id()), 0, frag.physical_rows());
      }
    }
    return all;
  }

  const table::Dataset& dataset_;
  const std::set<uint64_t>& fragments_;
  std::optional<std::unordered_map<uint64_t, uint64_t>> stable_map_;
};

}  // namespace

std::string IndexLookup::ToString() const {
  switch (op) {
    case Op::kLookup:
      return "[" + query.ToString(column) + "]@" + index_name + "(" +
             std::string(scalar::ScalarIndexPlanName(type)) + ")";
    case Op::kAnd:
      return "AND(" + children[0].ToString() + "," + children[1].ToString() + ")";
    case Op::kOr:
      return "OR(" + children[0].ToString() + "," + children[1].ToString() + ")";
    case Op::kNot:
      return "NOT(" + children[0].ToString() + ")";
  }
  return "?";
}

std::optional<IndexFilter> PlanIndexFilter(const expr::BoundExpr& filter,
                                           const std::vector<index::ScalarSegment>& segments) {
  if (segments.empty()) return std::nullopt;
  Planner planner(segments);
  std::vector<const expr::BoundExpr*> conjuncts;
  FlattenAnd(filter, &conjuncts);
  std::optional<IndexLookup> root;
  IndexFilter out;
  for (size_t i = 0; i < conjuncts.size(); ++i) {
    bool complete = false;
    auto part = planner.Plan(*conjuncts[i], &complete);
    if (!part || !complete) out.residual.push_back(i);
    if (!part) continue;
    root = root ? Planner::And(std::move(*root), std::move(*part)) : std::move(part);
  }
  if (!root) return std::nullopt;
  out.fragments = *Coverage(*root);
  if (out.fragments.empty()) return std::nullopt;
  out.root = std::move(*root);
  out.exact = out.residual.empty();
  CollectNames(out.root, &out.indices);
  return out;
}

namespace {

/// The live rows where the tree is TRUE, as a set.
Result<scalar::RowAddrSet> EvaluateToSet(const IndexFilter& filter, const table::Dataset& dataset) {
  Evaluator evaluator(dataset, filter.fragments);
  LANCEDB_ASSIGN_OR_RETURN(auto result, evaluator.Eval(filter.root));
  scalar::RowAddrSet rows = std::move(result.true_rows);
  // Drop deleted rows: indices keep entries for rows deleted since they were built.
  const auto& manifest = dataset.manifest().proto();
  for (const auto& frag : manifest.fragments()) {
    if (!frag.has_deletion_file() || !rows.by_high().count(static_cast<uint32_t>(frag.id()))) {
      continue;
    }
    LANCEDB_ASSIGN_OR_RETURN(auto deleted,
                             table::ReadDeletions(*dataset.fs(), dataset.path(), manifest, frag));
    scalar::RowAddrSet gone;
    for (uint32_t off : deleted) gone.Add((frag.id() << 32) | off);
    rows.Subtract(gone);
  }
  return rows;
}

}  // namespace

Result<std::vector<uint64_t>> EvaluateIndexFilter(const IndexFilter& filter,
                                                  const table::Dataset& dataset) {
  LANCEDB_ASSIGN_OR_RETURN(auto rows, EvaluateToSet(filter, dataset));
  return rows.ToVector();
}

Result<int64_t> CountIndexFilter(const IndexFilter& filter, const table::Dataset& dataset) {
  LANCEDB_ASSIGN_OR_RETURN(auto rows, EvaluateToSet(filter, dataset));
  return static_cast<int64_t>(rows.Cardinality());
}

}  // namespace lancedb::query
