# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""lancedb_cpp.expr against lancedb.expr: the same SQL text for every builder, the same errors,
and expressions accepted by where, select, delete, update and merge conditions with the rows
the equivalent SQL strings give."""

from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import lancedb.expr as real
import pyarrow as pa
import pytest

import lancedb_cpp as lancedb
import lancedb_cpp.expr as ours  # noqa: E402

CASES = [
    lambda x: ((x.col("a") > 5) & (x.col("b") == "x")) | ~(x.col("c") <= 2),
    lambda x: x.col("a") + 1,
    lambda x: 1 + x.col("a"),
    lambda x: x.col("a") / x.col("b") * 2 - 1,
    lambda x: 3 - x.col("a"),
    lambda x: x.lit("it's"),
    lambda x: x.lit(3.5),
    lambda x: x.lit(1e20),
    lambda x: x.lit(1e-7),
    lambda x: x.lit(True),
    lambda x: x.lit(b"ab"),
    lambda x: x.lit(date(2020, 1, 2)),
    lambda x: x.lit(datetime(2020, 1, 2, 3, 4, 5)),
    lambda x: x.lit(datetime(2020, 1, 2, 3, 4, 5, 123456)),
    lambda x: x.lit(Decimal("1.5")),
    lambda x: x.lit(Decimal("-12.345")),
    lambda x: x.lit(-3),
    lambda x: x.col("s").lower(),
    lambda x: x.col("s").upper(),
    lambda x: x.col("s").contains("ab"),
    lambda x: x.col("a").isin([1, 2, 3]),
    lambda x: x.col("a").cast("int32"),
    lambda x: x.col("a").cast(pa.float64()),
    lambda x: x.col("a").cast("string"),
    lambda x: x.col("x.y"),
    lambda x: x.col("my col"),
    lambda x: x.col("select"),
    lambda x: x.col("A"),
    lambda x: x.col("_rowid"),
    lambda x: x.col("a") != 3,
    lambda x: x.col("a") & True,
    lambda x: x.func("concat", x.col("a"), "b"),
    lambda x: x.func("btrim", x.col("s")),
    lambda x: x.col("a").eq(1).and_(x.col("b").ne(2)).or_(x.col("c").gte(3)),
    lambda x: x.col("a").lt(1).or_(x.col("a").lte(0)).and_(x.col("a").gt(-5)),
    # Rendering details of LanceDB 0.39's printer (DataFusion's unparser).
    lambda x: x.col("id").isin([]),
    lambda x: ~x.col("id").isin([]),
    lambda x: ~x.col("id").isin([1, 2]),
    lambda x: ~~x.col("id").isin([1]),
    lambda x: ~x.col("id").isin([1]) & x.col("b"),
    lambda x: ~~x.col("a"),
    lambda x: x.col("status").isin(["a", "b"]),
    lambda x: x.col("data") == b"\xca\xfe",
    lambda x: x.lit(b""),
    lambda x: x.col("data").contains(b"\xff"),
    lambda x: ~(x.col("data") == b"\xab\xcd"),
    lambda x: x.lit(float("nan")),
    lambda x: x.lit(float("inf")),
    lambda x: x.lit(float("-inf")),
    lambda x: x.lit(-0.0),
    lambda x: x.lit(1e300),
    lambda x: x.lit(5e-324),
    lambda x: x.lit(0.1),
    lambda x: x.lit(2**63),
    lambda x: x.lit(-(2**63)),
    lambda x: x.lit(-(2**63) - 1),
    lambda x: x.lit(10**30),
    lambda x: x.lit(datetime(2024, 1, 1, 12, 30, 1, 500000)),
    lambda x: x.lit(datetime(2024, 1, 1, 0, 0, 0, 1000)),
    lambda x: x.lit(datetime(1969, 12, 31, 23, 59, 59, 999999)),
    lambda x: x.lit(datetime(9999, 12, 31, 23, 59, 59, 999999)),
    lambda x: x.lit(datetime(1, 1, 1)),
    lambda x: x.lit(datetime(2024, 1, 1, 3, tzinfo=timezone(timedelta(hours=2)))),
    lambda x: x.lit(date(1, 1, 1)),
    lambda x: x.lit(Decimal("1.234567890123456790")),
    lambda x: x.lit(Decimal("0.001")),
    lambda x: x.lit(Decimal("-0.5")),
    lambda x: x.lit(Decimal("-0")),
    lambda x: x.lit(Decimal("1.10")),
    lambda x: x.lit(Decimal("+1.5")),
    lambda x: x.lit(Decimal("1" * 39)),
    lambda x: x.col("a") - (-1),
    lambda x: x.col(""),
    lambda x: x.col("é") == 1,
    lambda x: x.col("a`b") == 1,
    lambda x: (x.col("a") > 1).cast("bool"),
    lambda x: x.col("a").cast("int32").cast("str"),
    lambda x: x.col("a").cast("date"),
    lambda x: x.func("contains", x.col("a")),
    lambda x: x.func("concat"),
    lambda x: x.func("octet_length", x.col("a")),
]

TYPES = [
    pa.int8(), pa.uint64(), pa.float16(), pa.float32(), pa.float64(), pa.string(),
    pa.large_string(), pa.string_view(), pa.binary(), pa.large_binary(), pa.binary_view(),
    pa.binary(16), pa.date32(), pa.date64(), pa.time32("s"), pa.time32("ms"), pa.time64("us"),
    pa.time64("ns"), pa.timestamp("s"), pa.timestamp("ns"), pa.timestamp("us", "America/New_York"),
    pa.timestamp("us", 'a"b'), pa.duration("us"), pa.month_day_nano_interval(),
    pa.decimal128(38, 10), pa.decimal256(50, 3), pa.decimal128(5, -2), pa.list_(pa.string()),
    pa.large_list(pa.int8()), pa.list_(pa.float32(), 4), pa.list_(pa.field("x", pa.int32())),
    pa.list_(pa.field("item", pa.int32(), nullable=False)),
    pa.list_(pa.field("x", pa.int32(), nullable=False), 3),
    pa.list_(pa.field("item", pa.int32(), metadata={"k": "v"})),
    pa.struct([("a", pa.int32()), ("b", pa.string())]),
    pa.struct([pa.field('a"b', pa.int32(), nullable=False), pa.field("it's\n", pa.int8())]),
    pa.struct([]), pa.dictionary(pa.int32(), pa.string()), pa.map_(pa.string(), pa.int32()),
    pa.map_(pa.string(), pa.int32(), keys_sorted=True), pa.null(), pa.bool_(),
    pa.list_(pa.list_(pa.int32())), pa.run_end_encoded(pa.int32(), pa.string()),
    pa.dense_union([pa.field("a", pa.int32())]),
    pa.sparse_union([pa.field("a", pa.int32()), pa.field("b", pa.string())]),
]  # fmt: skip


@pytest.mark.parametrize("index", range(len(TYPES)))
def test_cast_type_names_equal_lancedb(index):
    """cast() prints arrow_cast with the Arrow type name arrow-rs prints, as LanceDB does."""
    t = TYPES[index]
    assert ours.col("x").cast(t).to_sql() == real.col("x").cast(t).to_sql()


@pytest.mark.parametrize("case", range(len(CASES)))
def test_sql_text_equals_lancedb(case):
    assert CASES[case](ours).to_sql() == CASES[case](real).to_sql()
    assert repr(CASES[case](ours)) == repr(CASES[case](real))


@pytest.mark.parametrize(
    "bad",
    [lambda x: x.col(5), lambda x: x.lit([1]), lambda x: x.lit(None), lambda x: x.func("nosuch", 1),
     lambda x: x.func(5), lambda x: x.func("lower", None), lambda x: x.lit(10**400),
     lambda x: x.lit(Decimal("1E+3")), lambda x: x.lit(Decimal("NaN")),
     lambda x: x.lit(Decimal("-" + "9" * 39)), lambda x: x.lit(Decimal("12345678901234567890123456789012345678901")),
     lambda x: x.lit(bytearray(b"a")), lambda x: x.col("a").cast("nope"),
     lambda x: x.col("a").cast(5), lambda x: x.col("a").isin(5), lambda x: x.col("a") + None],
)  # fmt: skip
def test_errors_equal_lancedb(bad):
    with pytest.raises(Exception) as want:
        bad(real)
    with pytest.raises(want.type) as got:
        bad(ours)
    assert str(got.value) == str(want.value)


def test_expressions_are_unhashable_and_truthy_as_in_lancedb():
    for m in (ours, real):
        with pytest.raises(TypeError):
            hash(m.col("a"))
        assert bool(m.col("a") == 1)
    assert ours.col("a")._column_name() == real.col("a")._column_name() == "a"
    assert ours.col("a").lower()._column_name() is real.col("a").lower()._column_name() is None


def _binary_tables(tmp_path):
    data = pa.table(
        {
            "id": [1, 2, 3, 4],
            "payload": pa.array([b"\x01\x02", b"\xca\xfe", b"\xff\x00", None], pa.binary()),
        }
    )
    import lancedb as real_lancedb

    return (
        lancedb.connect(str(tmp_path / "ours")).create_table("t", data),
        real_lancedb.connect(str(tmp_path / "real")).create_table("t", data),
    )


BINARY_FILTERS = [
    lambda x: x.col("payload") == b"\xca\xfe",
    lambda x: x.col("payload") != b"\x01\x02",
    lambda x: (x.col("payload") == b"\x01\x02") & (x.col("id") > 0),
    lambda x: ~(x.col("payload") == b"\xff\x00"),
    lambda x: x.col("payload").isin([b"\x01\x02", b"\xff\x00"]),
    lambda x: ~x.col("payload").isin([b"\x01\x02"]),
    lambda x: x.col("payload") == b"",
]


def test_bytes_filters_select_the_rows_lancedb_selects(tmp_path):
    mine, theirs = _binary_tables(tmp_path)
    for build in BINARY_FILTERS:
        got = mine.search().where(build(ours)).to_arrow().column("id").to_pylist()
        want = theirs.search().where(build(real)).to_arrow().column("id").to_pylist()
        assert sorted(got) == sorted(want), build(ours).to_sql()
        # The same filter as SQL text (what to_sql prints) selects the same rows.
        got_sql = mine.search().where(build(real).to_sql()).to_arrow().column("id").to_pylist()
        assert sorted(got_sql) == sorted(want)


def test_binary_literals_in_update_and_delete_as_lancedb(tmp_path):
    mine, theirs = _binary_tables(tmp_path)
    for t in (mine, theirs):
        t.update(where="payload = X'CAFE'", values_sql={"payload": "X'646566'"})
        t.delete("payload = x'ff00'")
    assert mine.to_arrow().sort_by("id") == theirs.to_arrow().sort_by("id")
    with pytest.raises(ValueError, match="invalid binary literal X'ABC'"):
        mine.update(where="payload = X'ABC'", values={"id": 0})
    assert mine.to_arrow().sort_by("id") == theirs.to_arrow().sort_by("id")


def test_casts_and_typed_literals_filter_as_lancedb(tmp_path):
    data = pa.table(
        {
            "id": [1, 2, 3],
            "score": [1.5, 2.0, 7.25],
            "day": pa.array([date(2024, 1, 1), date(2024, 1, 2), None], pa.date32()),
            "ts": pa.array([datetime(2024, 1, 1, 12), datetime(2024, 1, 2), None], pa.timestamp("us")),
        }
    )
    import lancedb as real_lancedb

    mine = lancedb.connect(str(tmp_path / "ours")).create_table("t", data)
    theirs = real_lancedb.connect(str(tmp_path / "real")).create_table("t", data)
    filters = [
        lambda x: x.col("score").cast("int32") == 2,
        lambda x: x.col("id").cast(pa.string()) == "3",
        lambda x: x.col("id").cast(pa.float64()) > 1.5,
        lambda x: x.col("day") == date(2024, 1, 2),
        lambda x: x.col("ts") >= datetime(2024, 1, 1, 12),
        lambda x: x.col("ts") < datetime(2024, 1, 1, 13, tzinfo=timezone(timedelta(hours=1))),
        lambda x: x.col("score") < Decimal("2.5"),
        lambda x: x.col("id").isin([]),
        lambda x: ~x.col("id").isin([]),
    ]
    for build in filters:
        got = mine.search().where(build(ours)).to_arrow().column("id").to_pylist()
        want = theirs.search().where(build(real)).to_arrow().column("id").to_pylist()
        assert sorted(got) == sorted(want), build(ours).to_sql()


def test_expressions_work_wherever_sql_does(tmp_path):
    data = pa.table({"id": list(range(20)), "s": [f"Name{i}" for i in range(20)]})
    t = lancedb.connect(str(tmp_path)).create_table("t", data)
    e = ours
    where = (e.col("id") > 5) & (e.col("s").lower().contains("name1"))
    assert t.search().where(where).to_arrow() == t.search().where(where.to_sql()).to_arrow()
    got = t.search().where(e.col("id") < 3).select({"twice": e.col("id") * 2}).to_arrow()
    assert got.column("twice").to_pylist() == [0, 2, 4]
    t.delete(e.col("id") >= 15)
    assert t.count_rows() == 15
    t.update(where=(e.col("id") == 1).to_sql(), values={"s": "one"})
    assert t.search().where(e.col("s") == "one").to_arrow().column("id").to_pylist() == [1]


def _dictionary_sample():
    """Every reserved word we know plus a deterministic sample of other names."""
    from lancedb_cpp._sql_keywords import SQL_KEYWORDS

    others = ["x", "id", "vector", "price", "a_b", "_x", "x1", "item", "embedding", "score",
              "label", "title", "body", "category", "Upper", "camelCase", "with space", "a.b",
              "uint8", "regr_avgx", "nvarchar2", "my_date", "dates", "names", "values_"]  # fmt: skip
    return sorted(SQL_KEYWORDS) + others


def test_identifier_quoting_equals_lancedb():
    """Column names LanceDB's printer reserves are quoted exactly as LanceDB quotes them, alone,
    in comparisons and as function arguments."""
    diffs = []
    for name in _dictionary_sample():
        for build in (lambda m: m.col(name), lambda m: m.col(name) == 1,
                      lambda m: m.func("lower", m.col(name))):  # fmt: skip
            if repr(build(ours)) != repr(build(real)):
                diffs.append((name, repr(build(ours)), repr(build(real))))
    assert diffs == []
