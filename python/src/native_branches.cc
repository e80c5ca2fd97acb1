// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "native_branches.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "lancedb/lancedb.h"
#include "native_evolution.h"

namespace nb = nanobind;

namespace lancedb::python {
namespace {

using BranchTuple = std::tuple<std::optional<std::string>, uint64_t, uint64_t, uint64_t>;

std::map<std::string, BranchTuple> ListBranchesPy(const Table& table) {
  auto branches = CallWithoutGil([&] { return table.ListBranches(); });
  std::map<std::string, BranchTuple> out;
  for (const auto& [name, b] : branches) {
    out[name] = {b.parent_branch, b.parent_version, b.create_at, b.manifest_size};
  }
  return out;
}

using TagTuple = std::tuple<std::optional<std::string>, uint64_t, uint64_t>;

std::map<std::string, TagTuple> ListTagsWithBranchPy(const Table& table) {
  auto tags = CallWithoutGil([&] { return table.ListTags(); });
  std::map<std::string, TagTuple> out;
  for (const auto& [name, tag] : tags) out[name] = {tag.branch, tag.version, tag.manifest_size};
  return out;
}

std::shared_ptr<Table> CloneTablePy(Connection& conn, const std::string& target,
                                    const std::string& source_uri,
                                    std::optional<uint64_t> source_version,
                                    std::optional<std::string> source_tag, bool is_shallow) {
  CloneTableOptions options;
  options.source_version = source_version;
  options.source_tag = std::move(source_tag);
  options.is_shallow = is_shallow;
  return CallWithoutGil([&] { return conn.CloneTable(target, source_uri, options); });
}

}  // namespace

void RegisterBranches(nb::module_& m) {
  m.def(
      "current_branch", [](const Table& t) { return t.current_branch(); }, nb::arg("table"),
      "The branch the handle is on (None: main).");
  m.def("list_branches", &ListBranchesPy, nb::arg("table"),
        "Every branch as name -> (parent_branch, parent_version, create_at, manifest_size).");
  m.def("list_tags_with_branch", &ListTagsWithBranchPy, nb::arg("table"),
        "Every tag as name -> (branch, version, manifest_size).");
  m.def(
      "create_branch",
      [](Table& t, const std::string& name, std::optional<std::string> from_ref,
         std::optional<uint64_t> from_version) {
        return CallWithoutGil([&] { return t.CreateBranch(name, from_ref, from_version); });
      },
      nb::arg("table"), nb::arg("name"), nb::arg("from_ref") = nb::none(),
      nb::arg("from_version") = nb::none());
  m.def(
      "checkout_branch",
      [](const Table& t, const std::string& name, std::optional<uint64_t> version) {
        return CallWithoutGil([&] { return t.CheckoutBranch(name, version); });
      },
      nb::arg("table"), nb::arg("name"), nb::arg("version") = nb::none());
  m.def(
      "delete_branch",
      [](Table& t, const std::string& name) {
        CallWithoutGil([&] { return t.DeleteBranch(name); });
      },
      nb::arg("table"), nb::arg("name"));
  m.def(
      "diff_branch",
      [](const Table& t, const std::string& from_branch) {
        return BranchDiffToJson(CallWithoutGil([&] { return t.DiffBranch(from_branch); }));
      },
      nb::arg("table"), nb::arg("from_branch"), "The BranchDiff as LanceDB's JSON.");
  m.def(
      "cherry_pick",
      [](Table& t, const std::string& from_branch, bool dry_run) {
        return CherryPickResultToJson(
            CallWithoutGil([&] { return t.CherryPick(from_branch, dry_run); }));
      },
      nb::arg("table"), nb::arg("from_branch"), nb::arg("dry_run") = false,
      "The CherryPickResult as LanceDB's JSON.");
  m.def(
      "checkout_tag",
      [](Table& t, const std::string& tag) { CallWithoutGil([&] { return t.CheckoutTag(tag); }); },
      nb::arg("table"), nb::arg("tag"));
  m.def(
      "open_branch",
      [](Connection& c, const std::string& name, const std::string& branch,
         std::optional<uint64_t> version) {
        return CallWithoutGil([&] { return c.OpenBranch(name, branch, version); });
      },
      nb::arg("conn"), nb::arg("name"), nb::arg("branch"), nb::arg("version") = nb::none());
  m.def("clone_table", &CloneTablePy, nb::arg("conn"), nb::arg("target"), nb::arg("source_uri"),
        nb::arg("source_version") = nb::none(), nb::arg("source_tag") = nb::none(),
        nb::arg("is_shallow") = true);
}

}  // namespace lancedb::python
