# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""pylance reads a table whose files keep lancedb-cpp's zone statistics exactly as any other.

Runs the table layer's test binary (StatsCompat.WriteTableForPylance) to write a table whose
data files carry the statistics global buffer (docs/format/statistics.md), then reads it with
``lance.dataset``: same rows, no extra schema metadata, filters give the rows Python computes.
The C++ test must run and pass (see conftest.run_gtest); the binary comes from
LANCEDB_BUILD_DIR.
"""

import math

import pyarrow as pa
import pytest

from conftest import built, run_gtest

import lance
from lance.file import LanceFileReader  # noqa: E402

ROWS = 30000


def _price(i):
    if i % 97 == 0:
        return None
    return math.nan if i % 89 == 0 else (i % 1000) * 0.25


def _category(i):
    if i % 11 == 0:
        return None
    return "x" * 100 if i % 500 == 0 else f"c{i // 3000}"


@pytest.fixture(scope="module")
def table_path(tmp_path_factory):
    out = tmp_path_factory.mktemp("stats_compat")
    run_gtest(built("src/table/table_test"), ["StatsCompat.WriteTableForPylance"],
              LANCEDB_STATS_OUT=out)
    return out / "stats.lance"


def test_files_carry_the_statistics_buffer(table_path):
    files = sorted((table_path / "data").glob("*.lance"))
    assert len(files) == 3
    for f in files:
        meta = LanceFileReader(str(f)).metadata()
        assert len(meta.global_buffers) == 2


def test_pylance_reads_identical_rows(table_path):
    ds = lance.dataset(str(table_path))
    assert ds.count_rows() == ROWS
    assert not any(b"lancedb" in k or b"stat" in k for k in (ds.schema.metadata or {}))
    t = ds.to_table().sort_by("id")
    assert t.column("id").to_pylist() == list(range(ROWS))
    prices = t.column("price").to_pylist()
    for i, p in enumerate(prices):
        expected = _price(i)
        if expected is None or not math.isnan(expected):
            assert p == expected, i
        else:
            assert math.isnan(p), i
    assert t.column("category").to_pylist() == [_category(i) for i in range(ROWS)]
    assert t.column("flag").to_pylist() == [i >= 15000 for i in range(ROWS)]
    days = t.column("day").cast(pa.int32()).to_pylist()
    assert days == [18000 + i // 100 for i in range(ROWS)]


@pytest.mark.parametrize("flt, predicate", [
    ("id = 12345", lambda i: i == 12345),
    ("category = 'c3'", lambda i: _category(i) == "c3"),
    ("price < 10", lambda i: _price(i) is not None and _price(i) < 10),
    ("flag AND id < 15010", lambda i: 15000 <= i < 15010),
])
def test_pylance_filters(table_path, flt, predicate):
    ds = lance.dataset(str(table_path))
    ids = sorted(ds.to_table(filter=flt, columns=["id"]).column("id").to_pylist())
    assert ids == [i for i in range(ROWS) if predicate(i)]
