# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""lancedb_cpp.expr against lancedb.expr: the same SQL text for every builder, the same errors,
and expressions accepted by where, select, delete, update and merge conditions with the rows
the equivalent SQL strings give."""

from datetime import date, datetime
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
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_sql_text_equals_lancedb(case):
    assert CASES[case](ours).to_sql() == CASES[case](real).to_sql()
    assert repr(CASES[case](ours)) == repr(CASES[case](real))


@pytest.mark.parametrize(
    "bad",
    [lambda x: x.col(5), lambda x: x.lit([1]), lambda x: x.lit(None), lambda x: x.func("nosuch", 1)],
)
def test_errors_equal_lancedb(bad):
    with pytest.raises(Exception) as want:
        bad(real)
    with pytest.raises(want.type):
        bad(ours)


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
