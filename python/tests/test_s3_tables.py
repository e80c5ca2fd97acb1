# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Tables on s3:// URIs (issue 28): every table operation against a real S3-compatible server
(moto's, started by s3_server.py), with the results compared to the same operations on a
local directory."""

from datetime import timedelta

import numpy as np
import pyarrow as pa
import pytest

import lancedb_cpp
from s3_server import s3, s3_server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.filterwarnings("ignore:table_names:DeprecationWarning")

DIM = 8


def rows(start, n, seed=0):
    rng = np.random.default_rng(seed + start)
    words = ["apple", "banana", "cherry", "delta", "echo", "foxtrot"]
    return pa.table(
        {
            "id": pa.array(range(start, start + n), pa.int64()),
            "text": [f"{words[i % 6]} {words[(i * 7) % 6]} item{i}" for i in range(start, start + n)],
            "vector": pa.FixedSizeListArray.from_arrays(
                pa.array(rng.random(n * DIM, dtype=np.float32)), DIM
            ),
        }
    )


def ids(table, where=None):
    q = table.search()
    if where:
        q = q.where(where)
    return sorted(q.limit(None).to_arrow()["id"].to_pylist())


def test_create_open_list_drop(s3):
    db = lancedb_cpp.connect(s3.uri(), storage_options=s3.options)
    assert db.table_names() == []
    t = db.create_table("t", rows(0, 100))
    assert t.count_rows() == 100
    assert t.uri == s3.uri() + "/t.lance"
    db.create_table("u", rows(0, 3))
    assert db.table_names() == ["t", "u"]
    again = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).open_table("t")
    assert again.to_arrow().sort_by("id") == rows(0, 100)
    with pytest.raises(ValueError, match="already exists"):
        db.create_table("t", rows(0, 1))
    with pytest.raises(ValueError, match="was not found"):
        db.open_table("nope")
    db.drop_table("u")
    assert db.table_names() == ["t"]
    assert not [k for k in s3.keys("db/u.lance/")]
    # Manifests, data and transactions are where Lance puts them.
    keys = s3.keys("db/t.lance/")
    assert any(k.startswith("db/t.lance/_versions/") for k in keys)
    assert any(k.startswith("db/t.lance/data/") and k.endswith(".lance") for k in keys)


def test_bucket_root_as_database(s3):
    db = lancedb_cpp.connect(s3.uri(""), storage_options=s3.options)
    db.create_table("t", rows(0, 5))
    assert db.table_names() == ["t"]
    assert lancedb_cpp.connect(f"s3://{s3.name}/", storage_options=s3.options).open_table(
        "t"
    ).count_rows() == 5


def test_append_delete_update_merge_insert(s3, tmp_path):
    results = []
    for uri, options in [(s3.uri(), s3.options), (str(tmp_path / "local"), None)]:
        db = lancedb_cpp.connect(uri, storage_options=options)
        t = db.create_table("t", rows(0, 50))
        t.add(rows(50, 50))
        t.delete("id % 10 = 3")
        t.update(where="id < 5", values={"text": "updated"})
        (
            t.merge_insert("id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(rows(90, 20, seed=7))
        )
        results.append(
            (t.version, t.count_rows(), ids(t), t.search().where("text = 'updated'").to_arrow().num_rows)
        )
    assert results[0] == results[1]
    assert results[0][1] == 100 - 10 + 11  # ids 90..109 merged: 93 and 100..109 are new


def test_vector_index_and_search(s3, tmp_path):
    data = rows(0, 600)
    query = np.random.default_rng(5).random(DIM, dtype=np.float32)
    found = []
    for uri, options in [(s3.uri(), s3.options), (str(tmp_path / "local"), None)]:
        t = lancedb_cpp.connect(uri, storage_options=options).create_table("t", data)
        t.create_index(
            "vector", config=lancedb_cpp.index.IvfPq(num_partitions=4, num_sub_vectors=2, seed=1)
        )
        assert [i.index_type for i in t.list_indices()] == ["IvfPq"]
        found.append(t.search(query).limit(10).nprobes(4).to_arrow()["id"].to_pylist())
    assert found[0] == found[1]
    # Brute force agrees on most of the top 10.
    brute = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).open_table("t")
    exact = brute.search(query).limit(10).bypass_vector_index().to_arrow()["id"].to_pylist()
    assert len(set(exact) & set(found[0])) >= 5


def test_scalar_and_full_text_index(s3):
    t = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).create_table("t", rows(0, 200))
    t.create_scalar_index("id")
    t.create_fts_index("text")
    hits = t.search("cherry", query_type="fts").limit(500).to_arrow()
    assert hits.num_rows > 0
    assert all("cherry" in x for x in hits["text"].to_pylist())
    assert ids(t, "id >= 190") == list(range(190, 200))
    reopened = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).open_table("t")
    assert reopened.search("cherry", query_type="fts").limit(500).to_arrow().num_rows == hits.num_rows


def test_compact_cleanup_checkout_tags(s3):
    t = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).create_table("t", rows(0, 10))
    for i in range(1, 5):
        t.add(rows(10 * i, 10))
    assert t.version == 5
    t.tags.create("five", 5)
    assert t.tags.list()["five"]["version"] == 5
    t.compact_files()
    assert t.count_rows() == 50
    assert len(t.to_lance().get_fragments()) == 1
    t.checkout(2)
    assert t.count_rows() == 20
    t.checkout("five")
    assert t.count_rows() == 50
    t.checkout_latest()
    t.tags.delete("five")
    before = len(s3.keys("db/t.lance/_versions/"))
    stats = t.cleanup_old_versions(older_than=timedelta(0), delete_unverified=True)
    assert stats.old_versions_removed >= 5
    assert len(s3.keys("db/t.lance/_versions/")) < before
    assert [v["version"] for v in t.list_versions()] == [t.version]
    assert ids(t) == list(range(50))
    t.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
    assert t.count_rows() == 50


def test_restore_and_versions(s3):
    t = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).create_table("t", rows(0, 10))
    t.add(rows(10, 10))
    t.delete("id < 5")
    assert [v["version"] for v in t.list_versions()] == [1, 2, 3]
    t.restore(2)
    assert t.count_rows() == 20
    assert t.version == 4


def test_large_data_file_goes_up_in_parts(s3):
    # 5 MiB parts: a 16 MiB column goes up as a multipart upload, and no upload is left open.
    options = dict(s3.options, multipart_part_size=str(5 << 20))
    n = 2 << 20
    data = pa.table({"x": pa.array(np.arange(n, dtype=np.int64))})
    t = lancedb_cpp.connect(s3.uri(), storage_options=options).create_table("t", data)
    assert t.count_rows() == n
    assert t.search().where("x = 1234567").to_arrow()["x"].to_pylist() == [1234567]
    client = s3.server.client()
    sizes = [o["Size"] for o in client.list_objects_v2(Bucket=s3.name, Prefix="db/t.lance/data/")[
        "Contents"]]
    assert max(sizes) > (5 << 20)
    assert not client.list_multipart_uploads(Bucket=s3.name).get("Uploads")


def test_table_names_page_through_long_listings(s3):
    # More entries than one ListObjectsV2 page (1000) holds.
    client = s3.server.client()
    for i in range(1005):
        client.put_object(Bucket=s3.name, Key=f"db/t{i:04d}.lance/x", Body=b"")
    names = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).table_names(limit=2000)
    assert len(names) == 1005
    assert names[0] == "t0000" and names[-1] == "t1004"


def test_async_connection(s3):
    import asyncio

    async def run():
        db = await lancedb_cpp.connect_async(s3.uri(), storage_options=s3.options)
        t = await db.create_table("t", rows(0, 7))
        await t.add(rows(7, 3))
        return await t.count_rows(), await db.table_names()

    assert asyncio.run(run()) == (10, ["t"])


def test_branches_and_deep_clone(s3):
    db = lancedb_cpp.connect(s3.uri(), storage_options=s3.options)
    t = db.create_table("t", rows(0, 10))
    exp = t.branches.create("exp")
    exp.add(rows(10, 5))
    exp.delete("id = 0")
    assert ids(db.open_table("t", branch="exp")) == list(range(1, 15))
    assert ids(db.open_table("t")) == list(range(10))
    assert sorted(db.open_table("t").branches.list()) == ["exp"]
    assert any(k.startswith("db/t.lance/tree/exp/_versions/") for k in s3.keys("db/t.lance/"))
    with pytest.raises(NotImplementedError, match="deep clone"):  # not on s3:// yet
        db.clone_table("shallow", s3.uri() + "/t.lance")
    clone = db.clone_table("c", s3.uri() + "/t.lance", is_shallow=False)
    assert ids(clone) == list(range(10))
    clone.add(rows(20, 2))
    assert ids(db.open_table("t")) == list(range(10))
    assert clone.count_rows() == 12
