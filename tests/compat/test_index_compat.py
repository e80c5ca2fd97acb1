# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""pylance on tables carrying a vector index in lancedb-cpp's own layout (docs/format/vector-index.md).

The C++ side is index_test's VectorIndexDeterminism.WriteIndexedTableForOtherProcess, which
writes a 1000-row table `t` with a seeded index into LANCEDB_INDEX_OUT; it must run and pass
(see conftest.run_gtest). The binary comes from LANCEDB_BUILD_DIR.
"""

import pathlib
import warnings

import pyarrow as pa
import pytest

from conftest import built, run_gtest

import lance

TYPE_URL = "/lancedb_cpp.VectorIndexDetails"


def write_indexed_table(out: pathlib.Path, index_type: str = "IVF_PQ/own", seed: int = 42) -> pathlib.Path:
    """`index_type` as LanceDB names it; the suffix "/own" asks for lancedb-cpp's own layout
    (IVF_FLAT, IVF_PQ and IVF_SQ are otherwise written in the layout LanceDB builds)."""
    run_gtest(built("src/index/index_test"),
              ["VectorIndexDeterminism.WriteIndexedTableForOtherProcess"],
              LANCEDB_INDEX_OUT=out, LANCEDB_INDEX_TYPE=index_type, LANCEDB_INDEX_SEED=seed)
    return out / "t"


@pytest.mark.parametrize("index_type", ["IVF_PQ/own", "IVF_HNSW_SQ/own"])
def test_pylance_reads_filters_appends_table_with_our_index(tmp_path, index_type):
    uri = write_indexed_table(tmp_path, index_type)
    ds = lance.dataset(str(uri))
    assert ds.count_rows() == 1000
    assert ds.to_table(filter="id < 10").num_rows == 10
    # Our index is unknown to lance: it is hidden or listed harmlessly, never used.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        indices = ds.list_indices()
    for idx in indices:
        assert idx.get("type", "") != "IVF_PQ" or idx.get("name") != "vector_idx"
    # Vector search falls back to a scan and still answers.
    q = ds.to_table(columns=["vector"], limit=1)["vector"][0].as_py()
    res = ds.to_table(nearest={"column": "vector", "q": q, "k": 5})
    assert res.num_rows == 5
    assert res["_distance"][0].as_py() == pytest.approx(0.0, abs=1e-4)
    # Append with pylance; our IndexMetadata is carried forward.
    extra = ds.to_table(limit=10)
    ds2 = lance.write_dataset(extra, str(uri), mode="append")
    assert ds2.count_rows() == 1010
    assert ds2.to_table(filter="id < 10").num_rows == 20
    version = ds2.version
    idx_dir = pathlib.Path(uri) / "_indices"
    assert any(idx_dir.iterdir())
    # The newest manifest still carries our type URL (bytes of the protobuf Any).
    manifests = sorted((pathlib.Path(uri) / "_versions").glob("*.manifest"))
    newest = [m for m in manifests if m.stat().st_size > 0]
    assert any(TYPE_URL.encode() in m.read_bytes() for m in newest)
    assert lance.dataset(str(uri), version=version).count_rows() == 1010


def test_seeded_builds_in_two_processes_give_identical_bytes(tmp_path):
    a = write_indexed_table(tmp_path / "a", "IVF_PQ/own", 7)
    b = write_indexed_table(tmp_path / "b", "IVF_PQ/own", 7)
    dir_a = pathlib.Path((tmp_path / "a" / "index_dir.txt").read_text())
    dir_b = pathlib.Path((tmp_path / "b" / "index_dir.txt").read_text())
    for name in ["index.idx", "quantizer.idx", "auxiliary.idx"]:
        assert (dir_a / name).read_bytes() == (dir_b / name).read_bytes(), name
    # pylance reads our index files as plain Lance files.
    from lance.file import LanceFileReader
    centroids = LanceFileReader(str(dir_a / "index.idx")).read_all().to_table()
    assert centroids.num_rows == 4
    assert centroids.schema.field("centroid").type == pa.list_(pa.float32(), 16)
    assert a != b


def test_pylance_rebases_stale_append_over_our_create_index(tmp_path):
    uri = write_indexed_table(tmp_path)
    ds = lance.dataset(str(uri))
    assert ds.version == 2  # 1: data, 2: our CreateIndex
    frag = lance.fragment.LanceFragment.create(str(uri), ds.to_table(limit=5))
    ds3 = lance.LanceDataset.commit(str(uri), lance.LanceOperation.Append([frag]), read_version=1)
    assert ds3.version == 3
    assert ds3.count_rows() == 1005
    newest = max((pathlib.Path(uri) / "_versions").glob("*.manifest"), key=lambda p: p.stat().st_mtime)
    assert TYPE_URL.encode() in newest.read_bytes()
