# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""LanceDB's quickstart, with only the import changed."""

import pandas as pd
import pyarrow as pa


def test_quickstart(tmp_path):
    import lancedb_cpp as lancedb

    uri = str(tmp_path / "sample-lancedb")
    db = lancedb.connect(uri)

    data = [
        {"vector": [3.1, 4.1], "item": "foo", "price": 10.0},
        {"vector": [5.9, 26.5], "item": "bar", "price": 20.0},
    ]
    tbl = db.create_table("my_table", data=data)
    assert tbl.schema.field("vector").type == pa.list_(pa.float32(), 2)

    df = pd.DataFrame(
        [
            {"vector": [1.3, 1.4], "item": "fizz", "price": 100.0},
            {"vector": [9.5, 56.2], "item": "buzz", "price": 200.0},
        ]
    )
    tbl.add(df)
    assert len(tbl) == 4
    assert db.table_names() == ["my_table"]
    assert db.list_tables().tables == ["my_table"]

    rows = tbl.search().where("price > 50").select(["item", "price"]).limit(5).to_pandas()
    assert sorted(rows["item"]) == ["buzz", "fizz"]
    assert list(rows.columns) == ["item", "price"]

    result = tbl.delete('item = "fizz"' if False else "item = 'fizz'")
    assert result.num_deleted_rows == 1 and result.version == 3
    result = tbl.update(where="item = 'buzz'", values={"price": 250.0})
    assert result.rows_updated == 1 and result.version == 4
    assert tbl.search().where("item = 'buzz'").to_list()[0]["price"] == 250.0

    versions = tbl.list_versions()
    assert [v["version"] for v in versions] == [1, 2, 3, 4]
    tbl.checkout(2)
    assert len(tbl) == 4
    tbl.checkout_latest()
    tbl.restore(2)
    assert tbl.version == 5 and len(tbl) == 4

    tbl = db.open_table("my_table")
    assert tbl.to_pandas().shape == (4, 3)
    db.drop_table("my_table")
    assert db.table_names() == []


def test_quickstart_without_sql(tmp_path):
    import lancedb_cpp as lancedb

    db = lancedb.connect(tmp_path / "db")
    data = [
        {"vector": [3.1, 4.1], "item": "foo", "price": 10.0},
        {"vector": [5.9, 26.5], "item": "bar", "price": 20.0},
    ]
    tbl = db.create_table("my_table", data=data)
    tbl.add(pd.DataFrame([{"vector": [1.3, 1.4], "item": "fizz", "price": 100.0}]))
    assert tbl.search().select(["item"]).limit(2).to_list() == [{"item": "foo"}, {"item": "bar"}]
    assert tbl.head(1).num_rows == 1
    tbl.checkout(1)
    assert len(tbl) == 2
    tbl.checkout_latest()
    tbl.restore(1)
    assert tbl.version == 3 and len(tbl) == 2
    db.drop_table("my_table")
    assert db.list_tables().tables == []
