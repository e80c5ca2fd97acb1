# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Dictionary-encoded columns (pa.DictionaryArray, pandas Categorical, pydantic str Enums):
stored, read, filtered and rewritten as LanceDB does, and exchanged with LanceDB both ways."""

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import lancedb_cpp

import lance
import lancedb

warnings.filterwarnings("ignore", category=DeprecationWarning)

WORDS = ["red", "green", "", "blue", "日本", None]


def _dict(values, index=pa.int32(), value_type=pa.utf8(), dictionary=None, ordered=False):
    """A DictionaryArray of `values` (None = null) over `dictionary` (default: first appearance)."""
    plain = pa.array(values, type=value_type)
    if dictionary is None:
        encoded = plain.dictionary_encode()
        return pa.DictionaryArray.from_arrays(
            encoded.indices.cast(index), encoded.dictionary, ordered=ordered
        )
    dictionary = pa.array(dictionary, type=value_type)
    lookup = {v: i for i, v in enumerate(dictionary.to_pylist())}
    indices = pa.array([None if v is None else lookup[v] for v in values], type=index)
    return pa.DictionaryArray.from_arrays(indices, dictionary, ordered=ordered)


def _sample(n=60):
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "c": _dict([WORDS[i % 6] for i in range(n)], dictionary=["red", "unused", "green", "",
                                                                  "blue", "日本"]),
    })


def _plain(table):
    """The table with every dictionary column decoded, sorted by id (logical comparison)."""
    columns = []
    for column in table.columns:
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        columns.append(column)
    plain = pa.table(columns, names=table.column_names)
    return plain.sort_by("id") if "id" in plain.column_names else plain


def _both(tmp_path):
    return lancedb_cpp.connect(tmp_path / "ours"), lancedb.connect(tmp_path / "theirs")


# ---------------------------------------------------------------------------------------------
# Storing and reading, against LanceDB


VALUE_INDEX_TYPES = [
    (pa.utf8(), pa.int32()),
    (pa.large_utf8(), pa.int8()),
    (pa.binary(), pa.uint16()),
    (pa.large_binary(), pa.int64()),
    (pa.int64(), pa.uint8()),
    (pa.float64(), pa.int16()),
    (pa.int32(), pa.uint32()),
]


def _values_of(value_type):
    if pa.types.is_integer(value_type):
        return [7, -3, None, 7, 1 << 20, 0] if pa.types.is_signed_integer(value_type) and \
            value_type.bit_width == 64 else [7, -3, None, 7, 100000, 0]
    if pa.types.is_floating(value_type):
        return [0.5, -2.25, None, 0.5, 1e300, 0.0]
    if pa.types.is_binary(value_type) or pa.types.is_large_binary(value_type):
        return [b"\x00\x01", b"b", None, b"\x00\x01", b"", b"zz"]
    return ["x", "yy", None, "x", "", "zzz"]


@pytest.mark.parametrize("value_type,index_type", VALUE_INDEX_TYPES, ids=str)
def test_tables_equal_lancedb_and_cross_read(tmp_path, value_type, index_type):
    values = _values_of(value_type) * 20
    data = pa.table({"id": pa.array(range(len(values)), pa.int64()),
                     "c": _dict(values, index=index_type, value_type=value_type)})
    db, oracle = _both(tmp_path)
    ours = db.create_table("t", data)
    theirs = oracle.create_table("t", data)
    assert ours.schema == theirs.schema
    assert ours.schema.field("c").type == pa.dictionary(index_type, value_type)
    # One page: the same dictionary, the same indices.
    assert ours.to_arrow() == theirs.to_arrow()
    # LanceDB and pylance read our table as they read theirs; we read theirs.
    assert lancedb.connect(tmp_path / "ours").open_table("t").to_arrow() == theirs.to_arrow()
    assert lance.dataset(str(tmp_path / "ours" / "t.lance")).to_table() == theirs.to_arrow()
    assert lancedb_cpp.connect(tmp_path / "theirs").open_table("t").to_arrow() == ours.to_arrow()


def test_unused_dictionary_values_and_order_are_kept(tmp_path):
    db, oracle = _both(tmp_path)
    data = _sample()
    ours = db.create_table("t", data).to_arrow()
    theirs = oracle.create_table("t", data).to_arrow()
    assert ours == theirs
    assert ours["c"].chunk(0).dictionary.to_pylist() == ["red", "unused", "green", "", "blue",
                                                          "日本"]


def test_nulls_only_and_empty_tables(tmp_path):
    db, oracle = _both(tmp_path)
    t = pa.dictionary(pa.int32(), pa.utf8())
    for name, data in [
        ("nulls", pa.table({"c": pa.array([None, None, None], type=t)})),
        ("empty", pa.table({"c": pa.array([], type=t)})),
    ]:
        ours = db.create_table(name, data)
        theirs = oracle.create_table(name, data)
        assert ours.schema == theirs.schema
        assert ours.to_arrow()["c"].to_pylist() == theirs.to_arrow()["c"].to_pylist()
        reread = lancedb.connect(tmp_path / "ours").open_table(name).to_arrow()
        assert reread.schema == theirs.schema
        assert reread["c"].to_pylist() == data["c"].to_pylist()


def test_create_from_schema_then_add(tmp_path):
    schema = pa.schema([pa.field("id", pa.int64()),
                        pa.field("c", pa.dictionary(pa.int16(), pa.utf8()))])
    rows = [{"id": 1, "c": "x"}, {"id": 2, "c": None}, {"id": 3, "c": "y"}]
    results = []
    for conn in _both(tmp_path):
        t = conn.create_table("t", schema=schema)
        t.add(rows)
        t.add(pa.table({"id": [4], "c": pa.array(["z"])}))  # plain strings are cast
        t.add(pa.table({"id": [5], "c": _dict(["q"], index=pa.int8())}))  # other index type
        results.append(t)
    ours, theirs = results
    assert ours.schema == theirs.schema
    assert _plain(ours.to_arrow()) == _plain(theirs.to_arrow())
    assert ours.to_arrow()["c"].type == pa.dictionary(pa.int16(), pa.utf8())


def test_ordered_dictionaries_are_stored_unordered(tmp_path):
    data = pa.table({"c": _dict(["b", "a", "b"], dictionary=["a", "b"], ordered=True)})
    db, oracle = _both(tmp_path)
    ours = db.create_table("t", data)
    theirs = oracle.create_table("t", data)
    assert ours.schema == theirs.schema
    assert ours.schema.field("c").type == pa.dictionary(pa.int32(), pa.utf8(), ordered=False)
    assert ours.to_arrow() == theirs.to_arrow()


def test_many_rows_and_pages_both_ways(tmp_path):
    """Values long enough for several pages of our writer, many fragments, nulls."""
    rng = np.random.default_rng(7)
    categories = [f"{i:03d}-" + "x" * 300 for i in range(40)]
    n = 40000
    idx = rng.integers(0, 40, n).astype(np.int32)
    mask = rng.random(n) < 0.1
    data = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "c": pa.DictionaryArray.from_arrays(pa.array(idx, mask=mask), pa.array(categories)),
    })
    db, oracle = _both(tmp_path)
    ours = db.create_table("t", data)
    ours.add(data.slice(0, 1000))
    theirs = oracle.create_table("t", data)
    theirs.add(data.slice(0, 1000))
    from lance.file import LanceFileReader

    files = sorted((tmp_path / "ours" / "t.lance" / "data").glob("*.lance"),
                   key=lambda p: p.stat().st_size)
    pages = LanceFileReader(str(files[-1])).metadata().columns[1].pages
    assert len(pages) > 1
    expected = _plain(theirs.to_arrow())
    assert _plain(ours.to_arrow()) == expected
    assert _plain(lancedb.connect(tmp_path / "ours").open_table("t").to_arrow()) == expected
    assert _plain(lancedb_cpp.connect(tmp_path / "theirs").open_table("t").to_arrow()) == expected
    assert ours.count_rows("c IS NULL") == theirs.count_rows("c IS NULL") == int(mask.sum()) + int(
        mask[:1000].sum())
    # Takes by row id decode the right rows of the right pages.
    picked = ours.search().where("id IN (1500, 17000, 39999)").select(["id", "c"]).to_arrow()
    assert _plain(picked)["c"].to_pylist() == [categories[idx[i]] if not mask[i] else None
                                               for i in (1500, 17000, 39999)]


@pytest.mark.parametrize("version", ["2.0", "2.1", "2.2"])
def test_we_read_lancedb_tables_of_every_file_version(tmp_path, version):
    theirs = lancedb.connect(
        tmp_path, storage_options={"new_table_data_storage_version": version}
    ).create_table("t", _sample(300))
    ours = lancedb_cpp.connect(tmp_path).open_table("t")
    assert ours.schema == theirs.schema
    assert _plain(ours.to_arrow()) == _plain(theirs.to_arrow())
    if version != "2.0":  # 2.0 keeps a null entry in the dictionary; we drop it
        assert ours.to_arrow() == theirs.to_arrow()
    assert ours.count_rows("c = 'green'") == theirs.count_rows("c = 'green'") == 50


# ---------------------------------------------------------------------------------------------
# Queries and writes


FILTERS = [
    "c = 'red'",
    "c != 'red'",
    "c IN ('green', 'blue')",
    "c NOT IN ('green')",
    "c LIKE 'b%'",
    "c ILIKE 'R%'",
    "c IS NULL",
    "c IS NOT NULL",
    "c > 'blue'",
    "c = ''",
    "upper(c) = 'RED'",
    "c = 'red' OR id < 3",
    "length(c) > 3",
]


@pytest.mark.parametrize("where", FILTERS)
def test_filters_match_lancedb(tmp_path, where):
    db, oracle = _both(tmp_path)
    data = _sample()
    ours = db.create_table("t", data).search().where(where).limit(100).to_arrow()
    theirs = oracle.create_table("t", data).search().where(where).limit(100).to_arrow()
    assert ours.schema == theirs.schema
    assert ours == theirs


def test_projections_keep_the_dictionary_type(tmp_path):
    db, oracle = _both(tmp_path)
    data = _sample()
    ours = db.create_table("t", data)
    theirs = oracle.create_table("t", data)
    got = ours.search().select(["c"]).where("id < 10").to_arrow()
    assert got == theirs.search().select(["c"]).where("id < 10").to_arrow()
    got = ours.search().select({"c2": "c", "u": "upper(c)"}).limit(6).to_arrow()
    want = theirs.search().select({"c2": "c", "u": "upper(c)"}).limit(6).to_arrow()
    assert got["c2"] == want["c2"]
    assert got["u"].to_pylist() == want["u"].to_pylist()
    assert ours.count_rows("c = 'green'") == theirs.count_rows("c = 'green'")


def test_update_delete_merge_insert_and_compaction_keep_the_type(tmp_path):
    tables = []
    for conn in _both(tmp_path):
        t = conn.create_table("t", _sample(30))
        t.update(where="id = 1", values={"c": "brand new"})
        t.update(where="id = 2", values_sql={"c": "concat(c, '!')"})
        t.update(where="id = 3", values={"c": None})
        t.delete("id >= 25")
        src = pa.table({"id": pa.array([0, 100], pa.int64()), "c": _dict(["merged", "inserted"])})
        t.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(src)
        t.add(pa.table({"id": pa.array([200], pa.int64()), "c": _dict(["added"])}))
        t.optimize()
        tables.append(t)
    ours, theirs = tables
    assert ours.schema == theirs.schema
    assert ours.schema.field("c").type == pa.dictionary(pa.int32(), pa.utf8())
    assert _plain(ours.to_arrow()) == _plain(theirs.to_arrow())
    # LanceDB reads our compacted table, we read theirs.
    assert len(lance.dataset(str(tmp_path / "ours" / "t.lance")).get_fragments()) == 1
    assert _plain(lancedb.connect(tmp_path / "ours").open_table("t").to_arrow()) == _plain(
        theirs.to_arrow())
    assert _plain(lancedb_cpp.connect(tmp_path / "theirs").open_table("t").to_arrow()) == _plain(
        ours.to_arrow())


def test_merge_insert_on_a_dictionary_key(tmp_path):
    tables = []
    for conn in _both(tmp_path):
        t = conn.create_table("t", pa.table({"k": _dict(["a", "b", "c"]), "v": [1, 2, 3]}))
        src = pa.table({"k": _dict(["b", "z"]), "v": [20, 26]})
        t.merge_insert("k").when_matched_update_all().when_not_matched_insert_all().execute(src)
        tables.append(t)
    ours, theirs = tables
    key = lambda t: sorted(zip(*[c.to_pylist() for c in _plain(t.to_arrow()).columns]))  # noqa
    assert key(ours) == key(theirs) == [("a", 1), ("b", 20), ("c", 3), ("z", 26)]


def test_lancedb_appends_to_our_table_and_we_follow(tmp_path):
    db = lancedb_cpp.connect(tmp_path)
    ours = db.create_table("t", _sample(10))
    lancedb.connect(tmp_path).open_table("t").add(
        pa.table({"id": pa.array([50], pa.int64()), "c": _dict(["theirs"])}))
    ours.checkout_latest()
    ours.add(pa.table({"id": pa.array([51], pa.int64()), "c": _dict(["ours"])}))
    rows = _plain(lancedb.connect(tmp_path).open_table("t").to_arrow())
    assert rows["c"].to_pylist()[-2:] == ["theirs", "ours"]
    assert _plain(ours.to_arrow()) == rows


@pytest.mark.parametrize("index_type", ["BTREE", "BITMAP"])
def test_scalar_index_is_refused_like_lancedb(tmp_path, index_type):
    db, oracle = _both(tmp_path)
    ours = db.create_table("t", _sample())
    theirs = oracle.create_table("t", _sample())
    with pytest.raises(ValueError, match="Dictionary|dictionary"):
        theirs.create_scalar_index("c", index_type=index_type)
    with pytest.raises(ValueError, match="dictionary"):
        ours.create_scalar_index("c", index_type=index_type)
    assert ours.list_indices() == []


# ---------------------------------------------------------------------------------------------
# pandas Categorical


def test_pandas_categorical_becomes_a_dictionary_column(tmp_path):
    df = pd.DataFrame({
        "id": [1, 2, 3, 4],
        "c": pd.Categorical(["x", "y", None, "x"], categories=["z", "y", "x"]),
        "n": pd.Categorical([1, 2, 1, 2]),
    })
    db, oracle = _both(tmp_path)
    ours = db.create_table("t", df)
    theirs = oracle.create_table("t", df)
    assert ours.schema == theirs.schema
    assert pa.types.is_dictionary(ours.schema.field("c").type)
    assert ours.to_arrow() == theirs.to_arrow()
    got = ours.to_pandas()
    want = theirs.to_pandas()
    pd.testing.assert_frame_equal(got, want)
    assert list(got["c"].cat.categories) == ["z", "y", "x"]
    ours.add(pd.DataFrame({"id": [5], "c": pd.Categorical(["y"]), "n": pd.Categorical([2])}))
    theirs.add(pd.DataFrame({"id": [5], "c": pd.Categorical(["y"]), "n": pd.Categorical([2])}))
    assert _plain(ours.to_arrow()) == _plain(theirs.to_arrow())


# ---------------------------------------------------------------------------------------------
# Schema evolution


def test_schema_evolution_matches_lancedb(tmp_path):
    results = []
    for conn in _both(tmp_path):
        t = conn.create_table("t", pa.table({
            "id": pa.array([1, 2, 3], pa.int64()),
            "s": ["a", "b", None],
            "c": _dict(["a", "b", None]),
            "n": _dict([1, 2, 1], value_type=pa.int64()),
        }))
        t.add_columns({"c2": "c", "u": "upper(c)"})
        t.alter_columns({"path": "s", "data_type": pa.dictionary(pa.int32(), pa.utf8())},
                        {"path": "c", "data_type": pa.dictionary(pa.int8(), pa.utf8())},
                        {"path": "c2", "data_type": pa.large_utf8(), "rename": "c3"},
                        {"path": "n", "data_type": pa.int32()})
        with pytest.raises(ValueError, match="cast"):
            t.alter_columns({"path": "c3", "data_type": pa.int32()})
        t.drop_columns(["u"])
        results.append(t)
    ours, theirs = results
    assert ours.schema == theirs.schema
    assert ours.to_arrow() == theirs.to_arrow()


# ---------------------------------------------------------------------------------------------
# Nested dictionaries and search results


def test_nested_dictionaries_match_lancedb(tmp_path):
    d = _dict(["x", "y", None, "x"])
    data = pa.table({
        "id": pa.array([0, 1, 2, 3], pa.int64()),
        "s": pa.StructArray.from_arrays([d, pa.array([1, 2, 3, 4])], names=["d", "n"]),
        "l": pa.ListArray.from_arrays(pa.array([0, 2, 2, 3, 4]), _dict(["p", "q", "p", None])),
    })
    db, oracle = _both(tmp_path)
    ours = db.create_table("t", data)
    theirs = oracle.create_table("t", data)
    assert ours.schema == theirs.schema
    assert ours.to_arrow().to_pydict() == theirs.to_arrow().to_pydict()
    for where in ["s.d = 'x'", "s.d IS NULL", "array_has(l, 'p')"]:
        assert ours.search().where(where).to_arrow() == theirs.search().where(where).to_arrow()
    reread = lancedb.connect(tmp_path / "ours").open_table("t").to_arrow()
    assert reread.to_pydict() == data.to_pydict()


def test_vector_search_returns_dictionary_columns(tmp_path):
    data = pa.table({
        "id": pa.array(range(20), pa.int64()),
        "vector": pa.array([[float(i), 1.0] for i in range(20)], pa.list_(pa.float32(), 2)),
        "c": _dict([WORDS[i % 6] for i in range(20)]),
    })
    db, oracle = _both(tmp_path)
    ours = db.create_table("t", data).search([3.0, 1.0]).where("c != 'red'").limit(4).to_arrow()
    theirs = oracle.create_table("t", data).search([3.0, 1.0]).where("c != 'red'").limit(
        4).to_arrow()
    assert ours.schema == theirs.schema
    assert _plain(ours) == _plain(theirs)


def test_order_by_a_dictionary_column_orders_by_its_values(tmp_path):
    import lancedb_cpp
    from lancedb_cpp.query import ColumnOrdering

    d = pa.array(["b", "a", None, "c", "a"]).dictionary_encode()
    t = lancedb_cpp.connect(str(tmp_path)).create_table(
        "t", pa.table({"d": d, "i": [1, 2, 3, 4, 5]})
    )
    asc = t.search().order_by([ColumnOrdering(column_name="d")]).to_arrow()
    assert asc["i"].to_pylist() == [2, 5, 1, 4, 3]
    desc = t.search().order_by(
        [ColumnOrdering(column_name="d", ascending=False, nulls_first=True)]
    ).to_arrow()
    assert desc["i"].to_pylist() == [3, 4, 1, 2, 5]
