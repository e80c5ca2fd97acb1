// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors
//
// lancedb_tool: a small command-line front end to the C++ API, exchanging data as Arrow IPC
// stream files. Used by the compatibility tests (pytest drives it and checks the tables with
// pylance) and handy for poking at a database by hand.
//
//   lancedb_tool create <db> <table> <in.arrows> [create|overwrite|exist_ok]
//   lancedb_tool add <db> <table> <in.arrows> [append|overwrite]
//   lancedb_tool scan <db> <table> <out.arrows> [--version N] [--columns a,b] [--with-row-id]
//                [--where "<sql>"] [--limit N] [--offset N]
//   lancedb_tool count <db> <table> [--version N] [--where "<sql>"]
//   lancedb_tool delete <db> <table> "<sql>"          prints "<num_deleted_rows> <version>"
//   lancedb_tool update <db> <table> "<where>" col=expr ...   prints "<rows_updated> <version>"
//   lancedb_tool versions <db> <table>
//   lancedb_tool tables <db>
//   lancedb_tool drop <db> <table>
//
// Exit code 0 on success; on failure prints "error: <Code>: <message>" and exits 1.

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "array/c_bridge.h"
#include "array/ipc.h"
#include "lancedb/lancedb.h"

namespace {

using lancedb::Result;
using lancedb::Status;
namespace la = lancedb::array;

int Fail(const Status& st) {
  std::fprintf(stderr, "error: %s\n", st.ToString().c_str());
  return 1;
}

Result<lancedb::BufferPtr> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("Cannot open '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return lancedb::Buffer::Copy(ss.str());
}

Status ToStream(const std::string& ipc_path, ArrowArrayStream* out) {
  LANCEDB_ASSIGN_OR_RETURN(auto bytes, ReadWholeFile(ipc_path));
  LANCEDB_ASSIGN_OR_RETURN(auto data, la::ipc::ReadStream(bytes));
  return la::ExportRecordBatchReader(la::MakeVectorReader(data.schema, data.batches), out);
}

struct Flags {
  std::optional<uint64_t> version;
  std::vector<std::string> columns;
  bool with_row_id = false;
  std::optional<std::string> where;
  std::optional<int64_t> limit;
  int64_t offset = 0;
  std::vector<std::string> positional;
};

Flags ParseFlags(int argc, char** argv, int first) {
  Flags f;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--version" && i + 1 < argc) {
      f.version = std::stoull(argv[++i]);
    } else if (a == "--columns" && i + 1 < argc) {
      std::stringstream ss(argv[++i]);
      std::string c;
      while (std::getline(ss, c, ',')) f.columns.push_back(c);
    } else if (a == "--where" && i + 1 < argc) {
      f.where = argv[++i];
    } else if (a == "--limit" && i + 1 < argc) {
      f.limit = std::stoll(argv[++i]);
    } else if (a == "--offset" && i + 1 < argc) {
      f.offset = std::stoll(argv[++i]);
    } else if (a == "--with-row-id") {
      f.with_row_id = true;
    } else {
      f.positional.push_back(a);
    }
  }
  return f;
}

Status Run(int argc, char** argv) {
  if (argc < 3) return Status::InvalidArgument("usage: lancedb_tool <command> <db> [args...]");
  std::string cmd = argv[1];
  LANCEDB_ASSIGN_OR_RETURN(auto db, lancedb::Connect(argv[2]));
  Flags flags = ParseFlags(argc, argv, 3);
  auto& pos = flags.positional;
  auto need = [&](size_t n) -> Status {
    if (pos.size() < n) return Status::InvalidArgument("'" + cmd + "' needs more arguments");
    return Status::OK();
  };
  if (cmd == "tables") {
    LANCEDB_ASSIGN_OR_RETURN(auto names, db->TableNames());
    for (const auto& n : names) std::printf("%s\n", n.c_str());
    return Status::OK();
  }
  LANCEDB_RETURN_NOT_OK(need(1));
  const std::string& table_name = pos[0];
  if (cmd == "create") {
    LANCEDB_RETURN_NOT_OK(need(2));
    auto mode = lancedb::CreateTableMode::kCreate;
    if (pos.size() > 2 && pos[2] == "overwrite") mode = lancedb::CreateTableMode::kOverwrite;
    if (pos.size() > 2 && pos[2] == "exist_ok") mode = lancedb::CreateTableMode::kExistOk;
    ArrowArrayStream stream;
    LANCEDB_RETURN_NOT_OK(ToStream(pos[1], &stream));
    LANCEDB_ASSIGN_OR_RETURN(auto table, db->CreateTable(table_name, &stream, mode));
    LANCEDB_ASSIGN_OR_RETURN(uint64_t version, table->version());
    std::printf("%llu\n", static_cast<unsigned long long>(version));
    return Status::OK();
  }
  if (cmd == "drop") return db->DropTable(table_name);
  LANCEDB_ASSIGN_OR_RETURN(auto table, db->OpenTable(table_name, flags.version));
  if (cmd == "add") {
    LANCEDB_RETURN_NOT_OK(need(2));
    auto mode = (pos.size() > 2 && pos[2] == "overwrite") ? lancedb::AddMode::kOverwrite
                                                          : lancedb::AddMode::kAppend;
    ArrowArrayStream stream;
    LANCEDB_RETURN_NOT_OK(ToStream(pos[1], &stream));
    LANCEDB_ASSIGN_OR_RETURN(auto result, table->Add(&stream, mode));
    std::printf("%llu\n", static_cast<unsigned long long>(result.version));
    return Status::OK();
  }
  if (cmd == "scan") {
    LANCEDB_RETURN_NOT_OK(need(2));
    lancedb::Query query = table->Query();
    if (!flags.columns.empty()) query.Select(flags.columns);
    if (flags.where) query.Where(*flags.where);
    if (flags.limit) query.Limit(*flags.limit);
    query.Offset(flags.offset).WithRowId(flags.with_row_id);
    ArrowArrayStream stream;
    LANCEDB_RETURN_NOT_OK(query.Execute(&stream));
    LANCEDB_ASSIGN_OR_RETURN(auto reader, la::ImportArrayStream(&stream));
    LANCEDB_ASSIGN_OR_RETURN(auto batches, reader->ReadAll());
    LANCEDB_ASSIGN_OR_RETURN(auto bytes, la::ipc::WriteStream(reader->schema(), batches));
    std::ofstream out(pos[1], std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    if (!out) return Status::IOError("Cannot write '" + pos[1] + "'");
    return Status::OK();
  }
  if (cmd == "count") {
    LANCEDB_ASSIGN_OR_RETURN(int64_t rows, table->CountRows(flags.where.value_or("")));
    std::printf("%lld\n", static_cast<long long>(rows));
    return Status::OK();
  }
  if (cmd == "delete") {
    LANCEDB_RETURN_NOT_OK(need(2));
    LANCEDB_ASSIGN_OR_RETURN(auto result, table->Delete(pos[1]));
    std::printf("%llu %llu\n", static_cast<unsigned long long>(result.num_deleted_rows),
                static_cast<unsigned long long>(result.version));
    return Status::OK();
  }
  if (cmd == "update") {
    LANCEDB_RETURN_NOT_OK(need(3));
    std::vector<std::pair<std::string, std::string>> updates;
    for (size_t i = 2; i < pos.size(); ++i) {
      size_t eq = pos[i].find('=');
      if (eq == std::string::npos)
        return Status::InvalidArgument("expected col=expr, got '" + pos[i] + "'");
      updates.emplace_back(pos[i].substr(0, eq), pos[i].substr(eq + 1));
    }
    LANCEDB_ASSIGN_OR_RETURN(auto result, table->Update(pos[1], updates));
    std::printf("%llu %llu\n", static_cast<unsigned long long>(result.rows_updated),
                static_cast<unsigned long long>(result.version));
    return Status::OK();
  }
  if (cmd == "versions") {
    LANCEDB_ASSIGN_OR_RETURN(auto versions, table->ListVersions());
    for (const auto& v : versions)
      std::printf("%llu\n", static_cast<unsigned long long>(v.version));
    return Status::OK();
  }
  return Status::InvalidArgument("unknown command '" + cmd + "'");
}

}  // namespace

int main(int argc, char** argv) {
  Status st = Run(argc, argv);
  return st.ok() ? 0 : Fail(st);
}
