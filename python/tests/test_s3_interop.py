# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""One bucket, three engines (issue 28): pylance and LanceDB 0.39, given the same endpoint and
credentials, read the tables lancedb-cpp writes to S3 and append to them; lancedb-cpp reads
and appends to theirs. Two writers of each engine in their own processes append to one table
at once and every acknowledged append is there."""

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pyarrow as pa
import pytest

import lancedb_cpp
from s3_server import s3, s3_server  # noqa: F401 (fixtures)

import lance  # noqa: E402
import lancedb  # noqa: E402


def rows(start, n):
    return pa.table(
        {
            "id": pa.array(range(start, start + n), pa.int64()),
            "vector": pa.FixedSizeListArray.from_arrays(
                pa.array(np.arange(start * 4, (start + n) * 4, dtype=np.float32)), 4
            ),
        }
    )


def all_ids(table):
    return sorted(table.to_arrow()["id"].to_pylist())


@pytest.fixture(autouse=True)
def _quiet():
    warnings.filterwarnings("ignore", category=DeprecationWarning)


def test_pylance_and_lancedb_read_and_append_to_ours(s3):
    ours = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).create_table("t", rows(0, 10))
    ours.delete("id = 0")
    uri = s3.uri() + "/t.lance"
    ds = lance.dataset(uri, storage_options=s3.options)
    assert ds.version == 2
    assert sorted(ds.to_table()["id"].to_pylist()) == list(range(1, 10))
    lance.write_dataset(rows(10, 5), uri, mode="append", storage_options=s3.options)
    real = lancedb.connect(s3.uri(), storage_options=s3.options)
    assert real.table_names() == ["t"]
    theirs = real.open_table("t")
    assert theirs.count_rows() == 14
    theirs.add(rows(15, 5))
    ours.checkout_latest()
    assert ours.version == 4
    assert all_ids(ours) == list(range(1, 20))
    # Our to_lance() carries the connection's endpoint and credentials.
    assert ours.to_lance().count_rows() == 19


def test_we_read_and_append_to_theirs(s3):
    real = lancedb.connect(s3.uri(), storage_options=s3.options)
    theirs = real.create_table("theirs", rows(0, 300))
    theirs.create_index(metric="l2", num_partitions=2, num_sub_vectors=2)
    theirs.delete("id < 3")
    db = lancedb_cpp.connect(s3.uri(), storage_options=s3.options)
    assert db.table_names() == ["theirs"]
    ours = db.open_table("theirs")
    assert ours.count_rows() == 297
    assert ours.search([4.0, 5.0, 6.0, 7.0]).limit(1).to_arrow()["id"].to_pylist() == [3]
    ours.add(rows(300, 10))
    theirs.checkout_latest()
    assert theirs.count_rows() == 307
    assert lance.dataset(s3.uri() + "/theirs.lance", storage_options=s3.options).count_rows() == 307


WRITER = textwrap.dedent(
    """
    import json, sys, warnings
    import pyarrow as pa
    warnings.filterwarnings("ignore")
    engine, uri, options, start, count = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), \\
        int(sys.argv[4]), int(sys.argv[5])
    if engine == "ours":
        import lancedb_cpp as module
    else:
        import lancedb as module
    table = module.connect(uri, storage_options=options).open_table("t")
    done = []
    for i in range(start, start + count):
        table.add(pa.table({"id": pa.array([i], pa.int64()),
                            "vector": pa.FixedSizeListArray.from_arrays(
                                pa.array([float(i)] * 4, pa.float32()), 4)}))
        done.append(i)
    print(json.dumps(done))
    """
)


def test_two_of_ours_and_two_lancedb_append_at_once(s3, tmp_path):
    lancedb_cpp.connect(s3.uri(), storage_options=s3.options).create_table("t", rows(0, 1))
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    per_writer = 6
    writers = [("ours", 1000), ("ours", 2000), ("lancedb", 3000), ("lancedb", 4000)]
    env_path = ":".join(p for p in sys.path if p)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), engine, s3.uri(), json.dumps(s3.options), str(start),
             str(per_writer)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ, PYTHONPATH=env_path, PYTHONDONTWRITEBYTECODE="1"),
            text=True,
        )
        for engine, start in writers
    ]
    acknowledged = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-3000:]
        acknowledged += json.loads(out.strip().splitlines()[-1])
    assert len(acknowledged) == 4 * per_writer
    table = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).open_table("t")
    assert all_ids(table) == sorted([0] + acknowledged)
    assert [v["version"] for v in table.list_versions()] == list(range(1, 4 * per_writer + 2))
    ds = lance.dataset(s3.uri() + "/t.lance", storage_options=s3.options)
    assert ds.count_rows() == 4 * per_writer + 1
