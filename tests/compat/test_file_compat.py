# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""pylance must read the Lance 2.2 and 2.1 data files lancedb-cpp writes.

Runs the format layer's test binary to write one file per type in each version (plus the
expected data as Arrow IPC), then reads each with ``lance.file.LanceFileReader`` and compares with pyarrow; and to
decode every column of the data files LanceDB wrote (the fixtures), which must equal what
pylance reads. Each C++ test must run and pass (see conftest.run_gtest); the binary comes from
LANCEDB_BUILD_DIR.
"""

import pyarrow as pa
import pyarrow.ipc
import pytest

from conftest import built, fixtures_dir, fixtures_root, run_gtest

import lance.file as lance_file

FIXTURE_TABLES = ["types_20", "types_21", "types_22"]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("lance_files")
    run_gtest(built("src/format/format_test"), ["FileCompat.*"], LANCEDB_FORMAT_OUT=out)
    return out


@pytest.fixture(scope="module")
def decoded_fixtures(tmp_path_factory):
    """(fixtures directory, output directory of the columns lancedb-cpp decoded from them)."""
    fixtures = fixtures_dir()
    out = tmp_path_factory.mktemp("fixture_columns")
    run_gtest(built("src/format/format_test"), ["FixtureSmoke.*"], LANCEDB_FORMAT_OUT=out,
              LANCEDB_FIXTURES_DIR=fixtures_root())
    return fixtures, out


def _cases():
    names = [
        "null", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "string", "large_string", "binary", "large_binary",
        "long_string", "fixed_size_binary", "date32", "date64", "timestamp_us",
        "timestamp_ns_utc", "time32_ms", "time64_ns", "duration_us", "decimal128", "list_int32",
        "large_list_string", "fsl_float_4", "fsl_float_128", "fsl_float_128_nulls",
        "fsl_float_8_item_nulls", "struct", "list_struct_list", "all_null_int64", "list_struct_list_no_struct_nulls",
        "list_struct_list_no_nulls", "list_struct_int", "list_list_string",
        "list_without_values", "struct_of_nulls", "all_null_fsl", "all_null_string",
        "one_mb_string", "mostly_empty_lists", "all_types", "all_types_paged",
    ]
    return names


def _expected(path):
    with pa.ipc.open_file(str(path)) as f:
        return f.read_all()


VERSIONS = {"2.2": "", "2.1": "v21"}  # file version -> subdirectory of the written files


@pytest.mark.parametrize("version", sorted(VERSIONS))
@pytest.mark.parametrize("name", _cases())
def test_pylance_reads_file(written, name, version):
    where = written / VERSIONS[version]
    expected = _expected(where / f"{name}.arrow")
    reader = lance_file.LanceFileReader(str(where / f"{name}.lance"))
    assert (reader.metadata().major_version, reader.metadata().minor_version) == \
        tuple(int(x) for x in version.split("."))
    actual = reader.read_all().to_table()
    assert actual.num_rows == expected.num_rows
    assert actual.schema.names == expected.schema.names
    for col in expected.schema.names:
        a = actual.column(col).combine_chunks()
        e = expected.column(col).combine_chunks()
        assert a.type == e.type, f"{col}: {a.type} != {e.type}"
        assert a.equals(e), f"{col}: values differ\nactual={a.slice(0, 12)}\nexpected={e.slice(0, 12)}"
        _assert_members_of_null_structs_are_null(col, a)


def _assert_members_of_null_structs_are_null(name, array):
    """As Lance writes them: where a struct is NULL its members read NULL too (DataFusion's
    get_field, and so LanceDB's `s.a IS NULL`, reads a member without its parent's validity)."""
    if not pa.types.is_struct(array.type) or array.null_count == 0:
        return
    parent_null = array.is_null().to_pylist()
    for i in range(array.type.num_fields):
        member = array.field(i)
        if pa.types.is_null(member.type):
            continue
        valid = member.is_valid().to_pylist()
        bad = [k for k, p in enumerate(parent_null) if p and valid[k]]
        assert not bad, f"{name}.{array.type.field(i).name}: valid under a NULL struct at rows {bad[:5]}"
        _assert_members_of_null_structs_are_null(f"{name}.{array.type.field(i).name}", member)


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_pylance_reads_row_ranges(written, version):
    where = written / VERSIONS[version]
    expected = _expected(where / "all_types_paged.arrow")
    reader = lance_file.LanceFileReader(str(where / "all_types_paged.lance"))
    for start, stop in [(0, 1), (5, 333), (500, 1000), (999, 1000)]:
        actual = reader.read_range(start, stop - start).to_table()
        for col in ["int32", "string", "list_int32", "fsl_float_128", "struct", "list_struct_list"]:
            a = actual.column(col).combine_chunks()
            e = expected.column(col).slice(start, stop - start).combine_chunks()
            assert a.equals(e), f"{col} rows {start}..{stop}"


@pytest.mark.parametrize("table", FIXTURE_TABLES)
def test_reader_matches_pylance_on_lancedb_fixtures(decoded_fixtures, table):
    """Every column lancedb-cpp decodes from a file LanceDB wrote equals what pylance reads."""
    import lance
    fixtures, out = decoded_fixtures
    expected = lance.dataset(str(fixtures / f"{table}.lance")).to_table()
    decoded = {path.stem.split("__", 1)[1]: path
               for path in out.glob(f"fixture_{table}.lance__*.arrow")}
    assert sorted(decoded) == sorted(expected.column_names)
    for col, path in decoded.items():
        actual = _expected(path).column(0)
        assert actual.combine_chunks().equals(expected.column(col).combine_chunks()), \
            f"{table}.{col}"


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_paged_file_has_many_pages_per_column(written, version):
    meta = lance_file.LanceFileReader(
        str(written / VERSIONS[version] / "all_types_paged.lance")).metadata()
    assert f"{meta.major_version}.{meta.minor_version}" == version
    assert all(len(c.pages) > 1 for c in meta.columns)
