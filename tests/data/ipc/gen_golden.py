# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
#
# Regenerate the golden Arrow IPC files read by src/array/ipc_test.cc (pyarrow as the oracle).
# Usage: python3 gen_golden.py   (writes next to this script)
import decimal
import os

import pyarrow as pa
import pyarrow.ipc as ipc

HERE = os.path.dirname(os.path.abspath(__file__))


def make_batch():
    fields = [
        pa.field("i32", pa.int32(), metadata={"k": "v"}),
        pa.field("u8", pa.uint8(), nullable=False),
        pa.field("i64", pa.int64()),
        pa.field("f16", pa.float16()),
        pa.field("f64", pa.float64()),
        pa.field("b", pa.bool_()),
        pa.field("s", pa.utf8()),
        pa.field("ls", pa.large_utf8()),
        pa.field("bin", pa.binary()),
        pa.field("lbin", pa.large_binary()),
        pa.field("fsb", pa.binary(3)),
        pa.field("d32", pa.date32()),
        pa.field("d64", pa.date64()),
        pa.field("ts", pa.timestamp("us", tz="UTC")),
        pa.field("t32", pa.time32("ms")),
        pa.field("t64", pa.time64("ns")),
        pa.field("dur", pa.duration("ms")),
        pa.field("dec", pa.decimal128(10, 2)),
        pa.field("lst", pa.list_(pa.int32())),
        pa.field("llst", pa.large_list(pa.utf8())),
        pa.field("fsl", pa.list_(pa.float32(), 2)),
        pa.field("st", pa.struct([("x", pa.int16()), ("y", pa.utf8())])),
        pa.field("nul", pa.null()),
    ]
    schema = pa.schema(fields, metadata={"origin": "pyarrow"})
    import numpy as np
    cols = [
        pa.array([1, None, 3, 4, 5], pa.int32()),
        pa.array([10, 20, 30, 40, 50], pa.uint8()),
        pa.array([-1, 2**40, None, 0, 7], pa.int64()),
        pa.array(np.array([1.5, -2.0, 0.25, 0, 65504], dtype=np.float16), pa.float16()),
        pa.array([0.5, None, 2.5, 3.5, -1e300], pa.float64()),
        pa.array([True, False, None, True, True], pa.bool_()),
        pa.array(["a", "", None, "hello", "wörld"], pa.utf8()),
        pa.array(["x", "yy", "zzz", None, ""], pa.large_utf8()),
        pa.array([b"\x00\x01", None, b"", b"abc", b"z"], pa.binary()),
        pa.array([b"L", b"LL", None, b"", b"LLLL"], pa.large_binary()),
        pa.array([b"abc", b"def", None, b"ghi", b"jkl"], pa.binary(3)),
        pa.array([0, 19000, None, -1, 1], pa.date32()),
        pa.array([0, 86400000, None, -86400000, 1641600000000], pa.date64()),
        pa.array([0, 1700000000000000, None, -1, 5], pa.timestamp("us", tz="UTC")),
        pa.array([0, 1000, None, 86399999, 5], pa.time32("ms")),
        pa.array([0, 1000, None, 86399999999999, 5], pa.time64("ns")),
        pa.array([0, -1000, None, 123456789, 5], pa.duration("ms")),
        pa.array([decimal.Decimal("1.23"), None, decimal.Decimal("-99999999.99"),
                  decimal.Decimal("0.00"), decimal.Decimal("42.00")], pa.decimal128(10, 2)),
        pa.array([[1, 2], [], None, [None, 4], [5]], pa.list_(pa.int32())),
        pa.array([["a"], None, [], ["b", None, "c"], ["d"]], pa.large_list(pa.utf8())),
        pa.array([[1.0, 2.0], None, [3.0, None], [5.0, 6.0], [7.0, 8.0]],
                 pa.list_(pa.float32(), 2)),
        pa.array([{"x": 1, "y": "p"}, None, {"x": None, "y": "q"}, {"x": 4, "y": None},
                  {"x": 5, "y": "r"}], pa.struct([("x", pa.int16()), ("y", pa.utf8())])),
        pa.nulls(5),
    ]
    return pa.record_batch(cols, schema=schema)


def main():
    batch = make_batch()
    sliced = batch.slice(1, 3)  # non-zero offsets
    with ipc.new_stream(os.path.join(HERE, "golden_stream.arrows"), batch.schema) as w:
        w.write_batch(batch)
        w.write_batch(sliced)
    with ipc.new_file(os.path.join(HERE, "golden_file.arrow"), batch.schema) as w:
        w.write_batch(batch)
        w.write_batch(sliced)
    opts = ipc.IpcWriteOptions(compression="zstd")
    with ipc.new_file(os.path.join(HERE, "golden_zstd.arrow"), batch.schema, options=opts) as w:
        w.write_batch(batch)
    opts = ipc.IpcWriteOptions(compression="lz4")
    with ipc.new_stream(os.path.join(HERE, "golden_lz4.arrows"), batch.schema, options=opts) as w:
        w.write_batch(batch)


if __name__ == "__main__":
    main()
