# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""list_indices() and tokenize() against the real LanceDB on the same table directory: every
IndexConfig field and its repr, on indices lancedb_cpp built (which LanceDB reads) and on
indices LanceDB built (which lancedb_cpp reads), through deletes, appends and optimize; the
tokens of each FTS index's stored options and LanceDB's error messages, sync and async."""

import asyncio
import datetime
import warnings

import lancedb as real_lancedb
import numpy as np
import pyarrow as pa
import pytest
from lancedb import index as real_index

import lancedb_cpp
from lancedb_cpp import index as cpp_index

FIELDS = (
    "name", "index_type", "columns", "index_uuid", "type_url", "created_at", "num_indexed_rows",
    "num_unindexed_rows", "size_bytes", "num_segments", "index_version", "index_details",
)  # fmt: skip

WORDS = "the quick brown fox jumps over a lazy dog running houses café Ünïcode".split()


def rows(start, n, dim=8):
    rng = np.random.default_rng(start)
    ids = np.arange(start, start + n)
    return pa.table({
        "id": ids,
        "text": [" ".join(WORDS[(i * k) % len(WORDS)] for k in (1, 3, 7)) for i in ids],
        "title": [WORDS[i % len(WORDS)].upper() + " Title" for i in ids],
        "category": [f"c{i % 5}" for i in ids],
        "tags": [[f"t{i % 3}", f"u{i % 4}"] for i in ids],
        "vector": pa.FixedSizeListArray.from_arrays(
            pa.array(rng.random(n * dim, dtype=np.float32)), dim),
    })  # fmt: skip


def build_indices(module, table):
    """Scalar and FTS indices, built through `module`'s index configs."""
    table.create_index("id", config=module.BTree())
    table.create_index("category", config=module.Bitmap())
    table.create_index("tags", config=module.LabelList())
    table.create_index("text", config=module.FTS())
    table.create_index("title", config=module.FTS(
        base_tokenizer="whitespace", with_position=True, stem=False, lower_case=False,
        custom_stop_words=["Title", "THE"], ascii_folding=False))  # fmt: skip


def build_vector_indices(module, table):
    table.create_index("vector", config=module.IvfFlat(num_partitions=2), name="ivf_flat")
    table.create_index(
        "vector", config=module.IvfPq(num_partitions=2, num_sub_vectors=2), name="ivf_pq"
    )
    table.create_index(
        "vector", config=module.IvfSq(num_partitions=2, distance_type="cosine"), name="ivf_sq"
    )
    table.create_index(
        "vector", config=module.HnswSq(num_partitions=2, m=8, ef_construction=40), name="hnsw_sq"
    )
    table.create_index(
        "vector", config=module.HnswPq(num_partitions=2, num_sub_vectors=2), name="hnsw_pq"
    )
    table.create_index(
        "vector", config=module.HnswFlat(num_partitions=2, distance_type="dot"), name="hnsw_flat"
    )


def listed(module, path):
    """{name: IndexConfig} of a fresh connection (no cached state of the writer)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {i.name: i for i in module.connect(path).open_table("t").list_indices()}


def assert_same(ours, theirs):
    for field in FIELDS:
        assert getattr(ours, field) == getattr(theirs, field), (ours.name, field)
    # LanceDB's runtime hints come from a hash map in no fixed order: repr equal but for them.
    details = theirs.index_details or {}
    if "runtime_hints" in details:
        head = repr(theirs).split(", index_details=")[0]
        assert repr(ours).split(", index_details=")[0] == head
    else:
        assert repr(ours) == repr(theirs)


def test_lancedb_reads_our_indices_as_we_list_them(tmp_path):
    path = tmp_path / "db"
    table = lancedb_cpp.connect(path).create_table("t", rows(0, 400))
    table.add(rows(400, 200))
    build_indices(cpp_index, table)
    build_vector_indices(cpp_index, table)
    for step in ("built", "deleted", "appended", "optimized"):
        if step == "deleted":
            table.delete("id < 30 OR id = 450")
        elif step == "appended":
            table.add(rows(600, 50))
        elif step == "optimized":
            table.optimize_indices()
        ours, theirs = listed(lancedb_cpp, path), listed(real_lancedb, path)
        # LanceDB skips the vector indices lancedb_cpp writes in its own format (their type
        # URL is unknown to it) and scans instead: it cannot list them. IVF_FLAT, IVF_PQ,
        # IVF_SQ and IVF_HNSW_* are written in LanceDB's layout, which it lists.
        vector = {n for n, i in ours.items() if i.type_url == "/lancedb_cpp.VectorIndexDetails"}
        assert vector == set()
        lance = {n for n, i in ours.items() if i.type_url == "/lance.index.pb.VectorIndexDetails"}
        assert lance == {"ivf_flat", "ivf_pq", "ivf_sq", "hnsw_sq", "hnsw_pq", "hnsw_flat"}
        assert set(theirs) == set(ours) - vector
        for name in theirs:
            assert_same(ours[name], theirs[name])
        indexed = {"built": 600, "deleted": 569, "appended": 569, "optimized": 619}[step]
        unindexed = 50 if step == "appended" else 0
        assert {i.num_indexed_rows for i in ours.values()} == {indexed}, step
        assert {i.num_unindexed_rows for i in ours.values()} == {unindexed}, step


def test_our_vector_index_details_have_lances_layout(tmp_path):
    table = lancedb_cpp.connect(tmp_path / "db").create_table("t", rows(0, 300))
    build_vector_indices(cpp_index, table)
    details = {i.name: (i.index_type, i.index_details) for i in table.list_indices()}
    assert details == {
        "ivf_flat": ("IvfFlat", {"metric_type": "L2"}),
        "ivf_pq": (
            "IvfPq",
            {
                "metric_type": "L2",
                "compression": {"type": "pq", "num_bits": 8, "num_sub_vectors": 2},
            },
        ),
        "ivf_sq": (
            "IvfSq",
            {"metric_type": "COSINE", "compression": {"type": "sq", "num_bits": 8}},
        ),
        "hnsw_sq": (
            "IvfHnswSq",
            {
                "metric_type": "L2",
                "hnsw": {"max_connections": 8, "construction_ef": 40, "max_level": 7},
                "compression": {"type": "sq", "num_bits": 8},
            },
        ),
        "hnsw_pq": (
            "IvfHnswPq",
            {
                "metric_type": "L2",
                "hnsw": {"max_connections": 20, "construction_ef": 300, "max_level": 7},
                "compression": {"type": "pq", "num_bits": 8, "num_sub_vectors": 2},
            },
        ),
        "hnsw_flat": (
            "IvfHnswFlat",
            {
                "metric_type": "DOT",
                "hnsw": {"max_connections": 20, "construction_ef": 300, "max_level": 7},
            },
        ),
    }


def test_we_read_lancedbs_indices_as_it_lists_them(tmp_path):
    path = tmp_path / "db"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = real_lancedb.connect(path).create_table("t", rows(0, 600))
        build_indices(real_index, table)
        build_vector_indices(real_index, table)
        table.create_index("vector", config=real_index.IvfRq(num_partitions=2), name="ivf_rq")
    ours, theirs = listed(lancedb_cpp, path), listed(real_lancedb, path)
    assert set(ours) == set(theirs)
    for name in theirs:
        assert_same(ours[name], theirs[name])
    # Appended rows are unindexed; LanceDB's optimize indexes them in a delta segment of each
    # vector index.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table.add(rows(600, 100))
        ours, theirs = listed(lancedb_cpp, path), listed(real_lancedb, path)
        for name in theirs:
            assert_same(ours[name], theirs[name])
        table.optimize()  # compacts the two fragments, then indexes the remaining ones
        table.add(rows(700, 100))
        table.optimize()
    ours, theirs = listed(lancedb_cpp, path), listed(real_lancedb, path)
    assert ours["ivf_pq"].num_segments == 2
    for name in theirs:
        assert_same(ours[name], theirs[name])
    ours_table = lancedb_cpp.connect(path).open_table("t")
    real_table = real_lancedb.connect(path).open_table("t")
    for name in theirs:
        a, b = ours_table.index_stats(name), real_table.index_stats(name)
        assert (a.index_type, a.distance_type, a.num_indices, a.num_indexed_rows) == (
            b.index_type, b.distance_type, b.num_indices, b.num_indexed_rows,
        )  # fmt: skip


def test_index_config_values_and_item_access(tmp_path):
    table = lancedb_cpp.connect(tmp_path / "db").create_table("t", rows(0, 10))
    before = datetime.datetime.now(datetime.timezone.utc)
    table.create_index("id", config=cpp_index.BTree())
    (config,) = table.list_indices()
    assert config.created_at.tzinfo == datetime.timezone.utc
    assert before - datetime.timedelta(seconds=1) <= config.created_at
    assert config.created_at <= datetime.datetime.now(datetime.timezone.utc)
    assert config.created_at.microsecond % 1000 == 0  # stored in milliseconds
    assert config["index_name"] == config["name"] == "id_idx"
    assert config["num_indexed_rows"] == 10
    with pytest.raises(KeyError, match="Invalid key: nope"):
        config["nope"]
    real = real_lancedb.connect(tmp_path / "db").open_table("t").list_indices()[0]
    with pytest.raises(KeyError, match="Invalid key: nope"):
        real["nope"]
    assert real["index_name"] == "id_idx"


QUERIES = [
    "The quick brown foxes, running!", "", "   ", "Title THE title Über naïve café",
    "don't stop-words it's", "x" * 45 + " short", "北京 hello 123 4.5",
]  # fmt: skip


@pytest.mark.parametrize("builder", ["lancedb_cpp", "lancedb"])
def test_tokenize_equals_lancedb(tmp_path, builder):
    path = tmp_path / "db"
    module, configs = (
        (lancedb_cpp, cpp_index) if builder == "lancedb_cpp" else (real_lancedb, real_index)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = module.connect(path).create_table("t", rows(0, 20))
        build_indices(configs, table)
        table.create_index("category", config=configs.FTS(
            base_tokenizer="ngram", ngram_min_length=2, ngram_max_length=4, prefix_only=True),
            name="ngrams")  # fmt: skip
    ours = lancedb_cpp.connect(path).open_table("t")
    theirs = real_lancedb.connect(path).open_table("t")
    targets = [{"column": "text"}, {"column": "title"}, {"index_name": "text_idx"},
               {"index_name": "title_idx"}, {"index_name": "ngrams"}]  # fmt: skip
    for query in QUERIES:
        for target in targets:
            got = [(t.text, t.position) for t in ours.tokenize(query, **target)]
            want = [(t.text, t.position) for t in theirs.tokenize(query, **target)]
            assert got == want, (query, target)
    reprs = [[repr(t) for t in table.tokenize("The Running", column="text")]
             for table in (ours, theirs)]  # fmt: skip
    assert reprs[0] == reprs[1]

    async def both_async():
        aours = await lancedb_cpp.connect_async(path)
        atheirs = await real_lancedb.connect_async(path)
        a = await (await aours.open_table("t")).tokenize("Running foxes", index_name="ngrams")
        b = await (await atheirs.open_table("t")).tokenize("Running foxes", index_name="ngrams")
        return [(t.text, t.position) for t in a], [(t.text, t.position) for t in b]

    got, want = asyncio.run(both_async())
    assert got == want and got


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e), str(e)
    return None


def test_tokenize_errors_equal_lancedbs(tmp_path):
    path = tmp_path / "db"
    table = lancedb_cpp.connect(path).create_table("t", rows(0, 20))
    build_indices(cpp_index, table)
    table.create_index("text", config=cpp_index.FTS(stem=False), name="text_again")
    ours = lancedb_cpp.connect(path).open_table("t")
    theirs = real_lancedb.connect(path).open_table("t")
    cases = [
        ("x", {}),
        ("x", {"column": "text", "index_name": "text_idx"}),
        ("x", {"column": None, "index_name": None}),
        ("x", {"column": "id"}),
        ("x", {"column": "vector"}),
        ("x", {"column": "nope"}),
        ("x", {"column": "tags.item"}),
        ("x", {"index_name": "nope"}),
        ("x", {"index_name": "id_idx"}),
        ("x", {"column": "text"}),  # two FTS indices: ambiguous
        (123, {"column": "title"}),
    ]
    for query, kwargs in cases:
        want = error_of(lambda: theirs.tokenize(query, **kwargs))
        assert want is not None, kwargs
        assert error_of(lambda: ours.tokenize(query, **kwargs)) == want, kwargs
    assert error_of(lambda: ours.tokenize("x", column="id")) == (
        ValueError, "Invalid input, Column 'id' does not have a full text search index",
    )  # fmt: skip

    async def async_error():
        atable = await (await lancedb_cpp.connect_async(path)).open_table("t")
        with pytest.raises(ValueError, match="^Invalid input, No index named 'nope'$"):
            await atable.tokenize("x", index_name="nope")

    asyncio.run(async_error())


def test_prewarm_index_loads_each_index_and_fails_as_lancedb(tmp_path):
    path = tmp_path / "db"
    table = lancedb_cpp.connect(path).create_table("t", rows(0, 300))
    build_indices(cpp_index, table)
    build_vector_indices(cpp_index, table)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = real_lancedb.connect(tmp_path / "real").create_table("t", rows(0, 300))
        build_indices(real_index, theirs)
        theirs.create_index("vector", config=real_index.IvfPq(num_partitions=2, num_sub_vectors=2))
    before = table.search(np.full(8, 0.5, dtype=np.float32)).limit(5).to_arrow()
    for name in listed(lancedb_cpp, path):
        assert table.prewarm_index(name) is None
    # LanceDB's own indices (vector ones lancedb_cpp does not search with too) prewarm alike.
    ours_on_theirs = lancedb_cpp.connect(tmp_path / "real").open_table("t")
    for name in listed(real_lancedb, tmp_path / "real"):
        assert ours_on_theirs.prewarm_index(name) is None
    assert table.search(np.full(8, 0.5, dtype=np.float32)).limit(5).to_arrow() == before

    # An unknown name: LanceDB's RuntimeError and message (without its source location).
    for t in (table, theirs):
        with pytest.raises(RuntimeError, match="^lance error: Lance index not found: name=nope"):
            t.prewarm_index("nope")

    async def unknown_async():
        at = await (await lancedb_cpp.connect_async(path)).open_table("t")
        assert await at.prewarm_index("id_idx") is None
        with pytest.raises(RuntimeError, match="Lance index not found: name=nope"):
            await at.prewarm_index("nope")

    asyncio.run(unknown_async())

    # Prewarming reads the files: a truncated index file is reported, not skipped (an index
    # no query has opened yet, as loaded ones stay cached).
    other = lancedb_cpp.connect(path).create_table("u", rows(0, 300))
    other.create_index("vector", config=cpp_index.IvfFlat(num_partitions=2), name="fresh")
    uuid = other.list_indices()[0].index_uuid
    for f in (path / "u.lance" / "_indices" / uuid).iterdir():
        f.write_bytes(f.read_bytes()[:10])
    with pytest.raises(Exception, match="(?i)corrupt|truncat|invalid|too small|short"):
        other.prewarm_index("fresh")
