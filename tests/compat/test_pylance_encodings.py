# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Fresh random tables written by pylance (file versions 2.1 and 2.2) scan identically in
lancedb-cpp: the data is shaped so that Lance picks each of its compressive encodings
(bit-packing, RLE, dictionaries, FSST, full-zip, lz4/zstd, byte-stream-split, constant pages),
and the tables span several pages and many mini-block chunks.
"""

import numpy as np
import pyarrow as pa
import pytest

import lance

N = 20_000


def _strings(rng, n, alphabet_size, min_len, max_len):
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz0123456789 "))[:alphabet_size]
    lens = rng.integers(min_len, max_len + 1, n)
    return ["".join(rng.choice(letters, k)) for k in lens]


def _with_nulls(rng, values, fraction):
    mask = rng.random(len(values)) < fraction
    return [None if m else v for v, m in zip(values, mask)]


def _lists(rng, n, make_item, max_len=6, null_fraction=0.1):
    out = []
    for _ in range(n):
        r = rng.random()
        if r < null_fraction:
            out.append(None)
        elif r < 2 * null_fraction:
            out.append([])
        else:
            out.append([make_item() for _ in range(rng.integers(1, max_len + 1))])
    return out


def random_table(seed):
    rng = np.random.default_rng(seed)
    n = N
    words = _strings(rng, 40, 26, 3, 12)
    cols = {
        "u8_small": pa.array(rng.integers(0, 7, n, dtype=np.uint8)),
        "i16_mid": pa.array(rng.integers(-300, 300, n, dtype=np.int16)),
        "u32_wide": pa.array(rng.integers(0, 2**20, n, dtype=np.uint32)),
        "i64_full": pa.array(rng.integers(-(2**62), 2**62, n, dtype=np.int64)),
        "i64_seq": pa.array(np.arange(n, dtype=np.int64) * 3 + 11),
        "i32_runs": pa.array(np.repeat(rng.integers(0, 1000, n // 500 + 1), 500)[:n].astype(np.int32)),
        "i64_runs_many": pa.array(np.repeat(rng.integers(0, 10**12, n // 300 + 1), 300)[:n]),
        "f32": pa.array(rng.random(n, dtype=np.float32)),
        "f64": pa.array(rng.standard_normal(n)),
        "bool": pa.array(rng.random(n) < 0.3),
        "nullable_i32": pa.array(_with_nulls(rng, rng.integers(0, 5000, n).tolist(), 0.2),
                                 pa.int32()),
        "nullable_f64": pa.array(_with_nulls(rng, rng.random(n).tolist(), 0.05), pa.float64()),
        "str_low": pa.array([words[i] for i in rng.integers(0, 5, n)]),
        "str_mid_card": pa.array([words[i] for i in rng.integers(0, 40, n)]),
        "str_high": pa.array(_strings(rng, n, 37, 0, 30)),
        "str_long": pa.array(_strings(rng, n, 20, 300, 700)),
        "str_nullable": pa.array(_with_nulls(rng, _strings(rng, n, 10, 1, 20), 0.15)),
        "large_str": pa.array(_strings(rng, n, 5, 0, 10), pa.large_string()),
        "bin": pa.array([bytes(rng.integers(0, 256, rng.integers(0, 24), dtype=np.uint8))
                         for _ in range(n)], pa.binary()),
        "all_null": pa.nulls(n, pa.int64()),
        "constant": pa.array(np.full(n, 42, dtype=np.int32)),
        "constant_bool": pa.array(np.full(n, True)),
        "constant_i8": pa.array(np.full(n, -3, dtype=np.int8)),
        "list_i32": pa.array(_lists(rng, n, lambda: int(rng.integers(0, 100))), pa.list_(pa.int32())),
        "list_str": pa.array(_lists(rng, n, lambda: words[int(rng.integers(0, 12))]),
                             pa.list_(pa.string())),
        "list_long": pa.array(_lists(rng, n, lambda: int(rng.integers(0, 10**9)), max_len=40),
                              pa.list_(pa.int64())),
        "struct": pa.StructArray.from_arrays(
            [pa.array(_with_nulls(rng, rng.integers(0, 50, n).tolist(), 0.1), pa.int32()),
             pa.array([words[i] for i in rng.integers(0, 30, n)])],
            names=["a", "b"],
            mask=pa.array(rng.random(n) < 0.05)),
        "vec16": pa.FixedSizeListArray.from_arrays(pa.array(rng.random(n * 16, dtype=np.float32)), 16),
        "vec256": pa.FixedSizeListArray.from_arrays(pa.array(rng.random(n * 256, dtype=np.float32)),
                                                    256),
        "nullable_vec4": pa.FixedSizeListArray.from_arrays(
            pa.array(rng.random(n * 4, dtype=np.float32)), 4,
            mask=pa.array(rng.random(n) < 0.1)),
    }
    return pa.table(cols)


def _compare(actual: pa.Table, expected: pa.Table):
    assert actual.num_rows == expected.num_rows
    assert actual.schema.names == expected.schema.names
    for name in expected.schema.names:
        a = actual.column(name).combine_chunks()
        e = expected.column(name).combine_chunks()
        assert a.type == e.type, f"{name}: {a.type} != {e.type}"
        if not a.equals(e):
            for i in range(len(e)):
                if not a[i].equals(e[i]):
                    raise AssertionError(f"{name}: row {i}: {a[i]} != {e[i]}")
            raise AssertionError(f"{name}: arrays differ")


@pytest.mark.parametrize("version", ["2.1", "2.2"])
def test_scan_random_pylance_table(tool, tmp_path, version):
    table = random_table(7 if version == "2.1" else 8)
    db = tmp_path / "db"
    lance.write_dataset(table, str(db / "t.lance"), data_storage_version=version,
                        max_rows_per_file=N // 2)
    expected = lance.dataset(str(db / "t.lance")).to_table()
    _compare(tool.scan(db, "t"), expected)


@pytest.mark.parametrize("version", ["2.1", "2.2"])
def test_filtered_scan_takes_matching_rows(tool, tmp_path, version):
    """A filter reads its column first and takes the other columns for the matching rows only,
    which decodes just the mini-block chunks and full-zip rows holding them."""
    table = random_table(9 if version == "2.1" else 10)
    table = table.append_column("k", pa.array(np.random.default_rng(5).integers(0, 1000, N)))
    db = tmp_path / "db"
    lance.write_dataset(table, str(db / "t.lance"), data_storage_version=version,
                        max_rows_per_file=N // 2)
    for where in ["k < 3", "k < 300", "k = 999"]:
        expected = lance.dataset(str(db / "t.lance")).to_table(filter=where)
        _compare(tool.scan(db, "t", "--where", where), expected)


@pytest.mark.parametrize("version", ["2.1", "2.2"])
@pytest.mark.parametrize("compression", ["zstd", "lz4"])
def test_scan_general_compression(tool, tmp_path, version, compression):
    """Opt-in `lance-encoding:compression` makes Lance wrap chunks (and long values) in
    General lz4/zstd framing."""
    rng = np.random.default_rng(3)
    n = N
    meta = {"lance-encoding:compression": compression}
    schema = pa.schema([
        pa.field("i64", pa.int64(), metadata=meta),
        pa.field("f64", pa.float64(), metadata=meta),
        pa.field("text", pa.string(), metadata=meta),
        pa.field("long_text", pa.string(), metadata=meta),
        pa.field("nullable", pa.int32(), metadata=meta),
    ])
    words = _strings(rng, 50, 26, 3, 9)
    table = pa.table({
        "i64": pa.array(rng.integers(0, 10**15, n)),
        "f64": pa.array(np.round(rng.random(n), 3)),
        "text": pa.array([" ".join(words[j] for j in rng.integers(0, 50, 5)) for _ in range(n)]),
        "long_text": pa.array([" ".join(words[j] for j in rng.integers(0, 50, 80))
                               for _ in range(n // 8)] * 8),
        "nullable": pa.array(_with_nulls(rng, rng.integers(0, 10**6, n).tolist(), 0.1),
                             pa.int32()),
    }, schema=schema)
    db = tmp_path / "db"
    lance.write_dataset(table, str(db / "t.lance"), data_storage_version=version)
    expected = lance.dataset(str(db / "t.lance")).to_table()
    _compare(tool.scan(db, "t"), expected)


def test_scan_byte_stream_split(tool, tmp_path):
    rng = np.random.default_rng(5)
    meta = {"lance-encoding:compression": "zstd", "lance-encoding:bss": "on"}
    schema = pa.schema([pa.field("f32", pa.float32(), metadata=meta),
                        pa.field("f64", pa.float64(), metadata=meta)])
    table = pa.table({"f32": pa.array(rng.standard_normal(N).astype(np.float32)),
                      "f64": pa.array(rng.standard_normal(N))}, schema=schema)
    db = tmp_path / "db"
    lance.write_dataset(table, str(db / "t.lance"), data_storage_version="2.2")
    expected = lance.dataset(str(db / "t.lance")).to_table()
    _compare(tool.scan(db, "t"), expected)
