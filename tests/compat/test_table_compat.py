# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""pylance must open a table lancedb-cpp writes, read identical data and keep writing to it.

Runs the table layer's test binary (TableCompat.WriteTableForPylance) to write a table with
three versions (create, append, delete), reads it with ``lance.dataset``, then appends,
deletes and compacts with pylance and has lancedb-cpp read the result back
(TableCompat.ReadTableFromPylance). Each C++ test must run and pass (see conftest.run_gtest);
the binary comes from LANCEDB_BUILD_DIR.
"""

import pyarrow as pa
import pytest

from conftest import built, fixtures_dir, fixtures_root, run_gtest

import lance


def _run(test, **env):
    run_gtest(built("src/table/table_test"), [f"TableCompat.{test}"], **env)


def _run_on_fixtures(test, **env):
    fixtures_dir()
    _run(test, LANCEDB_FIXTURES_DIR=fixtures_root(), **env)


def _expected_rows(ids):
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "x": pa.array([i * 0.5 for i in ids], pa.float64()),
        "s": pa.array([None if i % 7 == 0 else f"row-{i}" for i in ids], pa.string()),
    })


@pytest.fixture(scope="module")
def table_path(tmp_path_factory):
    out = tmp_path_factory.mktemp("table_compat")
    _run("WriteTableForPylance", LANCEDB_TABLE_OUT=out)
    return out / "ours.lance"


def test_pylance_reads_our_table(table_path):
    ds = lance.dataset(str(table_path))
    assert ds.version == 3
    assert [v["version"] for v in ds.versions()] == [1, 2, 3]
    assert ds.count_rows() == 1400
    assert len(ds.get_fragments()) == 4
    actual = ds.to_table().sort_by("id")
    ids = [i for i in range(1500) if not (i < 1000 and i % 10 == 3)]
    assert actual.equals(_expected_rows(ids)), actual.slice(0, 5)
    # Older versions read too.
    assert lance.dataset(str(table_path), version=1).count_rows() == 1000
    assert lance.dataset(str(table_path), version=2).count_rows() == 1500


def test_pylance_writes_then_we_read(table_path, tmp_path):
    import shutil

    path = tmp_path / "shared.lance"
    shutil.copytree(table_path, path)
    extra = _expected_rows(list(range(2000, 2100)))
    lance.write_dataset(extra, str(path), mode="append")
    ds = lance.dataset(str(path))
    ds.delete("id < 10")
    ds = lance.dataset(str(path))
    ds.optimize.compact_files()
    ds = lance.dataset(str(path))
    ids = [i for i in range(1500) if not (i < 1000 and i % 10 == 3) and i >= 10]
    ids += list(range(2000, 2100))
    assert ds.count_rows() == len(ids)
    assert ds.to_table().sort_by("id").equals(_expected_rows(ids))
    _run("ReadTableFromPylance", LANCEDB_TABLE_IN=path, LANCEDB_EXPECT_ROWS=len(ids),
         LANCEDB_EXPECT_ID_SUM=sum(ids))


def test_pylance_reads_our_append_to_a_stable_row_id_table(tmp_path):
    _run_on_fixtures("AppendToStableRowIdTableForPylance", LANCEDB_TABLE_OUT=tmp_path)
    ds = lance.dataset(str(tmp_path / "stable.lance"))
    assert ds.version == 6
    assert ds.count_rows() == 1492
    new = ds.to_table(columns=["id"], with_row_id=True, filter="id >= 5000")
    assert new.column("id").to_pylist() == [5000, 5001, 5002]
    assert new.column("_rowid").to_pylist() == [1500, 1501, 1502]
    # pylance keeps writing: its next row ids continue after ours.
    ds.delete("id = 5001")
    lance.write_dataset(pa.table({"id": pa.array([6000], pa.int64())}), str(tmp_path / "stable.lance"),
                        mode="append")
    ds = lance.dataset(str(tmp_path / "stable.lance"))
    last = ds.to_table(columns=["id"], with_row_id=True, filter="id = 6000")
    assert last.column("_rowid").to_pylist() == [1503]


def test_pylance_reads_our_append_to_an_indexed_table(tmp_path):
    _run_on_fixtures("AppendToIndexedTableForPylance", LANCEDB_TABLE_OUT=tmp_path)
    path = str(tmp_path / "ops.lance")
    ds = lance.dataset(path)
    assert ds.version == 12
    assert ds.count_rows() == 6438
    assert len(ds.describe_indices()) == len(lance.dataset(path, version=11).describe_indices())
    # The BTree on id answers for indexed fragments; the new fragment is scanned.
    assert ds.to_table(columns=["id"], filter="id >= 100000").column("id").to_pylist() == [
        100000, 100001, 100002]
    assert ds.count_rows("id = 1") == 1
    ds.delete("id = 100001")
    assert lance.dataset(path).count_rows() == 6437
