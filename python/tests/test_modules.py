# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""lancedb_cpp.util, .common and .schema against lancedb's on the same inputs."""

import lancedb.common as real_common
import lancedb.schema as real_schema
import lancedb.util as real_util
import pyarrow as pa
import pytest

import lancedb_cpp.common as common
import lancedb_cpp.schema as schema
import lancedb_cpp.util as util

URIS = ["/tmp/x", "rel/dir", "file:///tmp/x", "s3://b/p", "gs://b", "memory://x", "az://c/p",
        "C:/x"]  # fmt: skip


@pytest.mark.parametrize("uri", URIS)
def test_uris(uri):
    assert util.get_uri_scheme(uri) == real_util.get_uri_scheme(uri)
    assert util.get_uri_location(uri) == real_util.get_uri_location(uri)
    assert common.sanitize_uri(uri) == real_common.sanitize_uri(uri)


def test_join_uri_and_table_names():
    for base, parts in [("s3://a/", ("b", "c")), ("/a/", ("b",)), ("memory://m", ("t",))]:
        assert util.join_uri(base, *parts) == real_util.join_uri(base, *parts)
    for name in ["ok_name", "a-b.c", "", "a/b", "bad name!", "x" * 300]:
        try:
            real_util.validate_table_name(name)
            want = None
        except ValueError as e:
            want = str(e)
        if want is None:
            util.validate_table_name(name)
        else:
            with pytest.raises(ValueError) as got:
                util.validate_table_name(name)
            assert str(got.value) == want


def test_vector_helpers():
    types = [pa.list_(pa.float32(), 4), pa.list_(pa.float32()), pa.int64(),
             pa.list_(pa.list_(pa.float32(), 2)), pa.list_(pa.float16(), 8),
             pa.list_(pa.uint8(), 16)]  # fmt: skip
    for t in types:
        assert util.is_vector_column(t) == real_util.is_vector_column(t), t
        assert util.infer_vector_column_dim(t) == real_util.infer_vector_column_dim(t), t
    s = pa.schema([("v", pa.list_(pa.float32(), 4)), ("id", pa.int64())])
    assert util.inf_vector_column_query(s) == real_util.inf_vector_column_query(s)
    assert util.infer_vector_column_name(s, "vector", [1, 2, 3, 4], None) == "v"
    for v in ["a", [1, 2], None, 1.5, True]:
        assert util.value_to_sql(v) == real_util.value_to_sql(v)
    assert schema.vector(3) == real_schema.vector(3)
    assert schema.vector(4, pa.float16()) == real_schema.vector(4, pa.float16())


def test_imports_and_readers():
    with pytest.raises(ImportError, match="Please install nosuchmod"):
        util.attempt_import_or_raise("nosuchmod")
    with pytest.raises(ImportError, match="Please install pip install x"):
        util.attempt_import_or_raise("nosuchmod", "pip install x")
    reader = common.data_to_reader([{"a": 1}, {"a": 2}])
    assert reader.read_all().column("a").to_pylist() == [1, 2]
    assert issubclass(common.Credential, str)
    with pytest.raises(ValueError):
        common.validate_schema(pa.schema([]))


def test_remote_config_values_and_unsupported_modules():
    import dataclasses
    import inspect

    import lancedb.remote as real_remote

    import lancedb_cpp.namespace as namespace
    import lancedb_cpp.remote as remote

    for name in ["TimeoutConfig", "RetryConfig", "TlsConfig", "ClientConfig", "OAuthConfig"]:
        ours, real = getattr(remote, name), getattr(real_remote, name)
        assert dataclasses.is_dataclass(ours)
        assert list(inspect.signature(ours).parameters) == list(inspect.signature(real).parameters)
    assert remote.ClientConfig() == remote.ClientConfig(retry_config=remote.RetryConfig())
    assert [f.value for f in remote.OAuthFlowType] == [f.value for f in real_remote.OAuthFlowType]
    with pytest.raises(NotImplementedError, match="rest"):
        namespace.connect_namespace("rest", {"uri": "http://localhost:4099"})


def test_to_lance_manifest_naming_and_rename(tmp_path):
    import asyncio

    import lance
    import lancedb as real_lancedb

    db = lancedb_cpp_connect(tmp_path / "a")
    t = db.create_table("t", pa.table({"id": list(range(10))}))
    t.add(pa.table({"id": [10, 11]}))
    ds = t.to_lance()
    assert isinstance(ds, lance.LanceDataset) and ds.version == t.version
    assert ds.count_rows() == 12
    real = real_lancedb.connect(str(tmp_path / "b")).create_table("t", pa.table({"id": [1]}))
    assert t.uses_v2_manifest_paths() == real.uses_v2_manifest_paths()
    with pytest.raises(NotImplementedError, match="rename_table"):
        db.rename_table("t", "u")
    with pytest.raises(NotImplementedError):
        real_lancedb.connect(str(tmp_path / "b")).rename_table("t", "u")

    async def run():
        adb = await lancedb_cpp_async(tmp_path / "a")
        at = await adb.open_table("t")
        return (await at.to_lance()).count_rows(), await at.uses_v2_manifest_paths()

    assert asyncio.run(run()) == (12, t.uses_v2_manifest_paths())


def lancedb_cpp_connect(path):
    import lancedb_cpp

    return lancedb_cpp.connect(str(path))


async def lancedb_cpp_async(path):
    import lancedb_cpp

    return await lancedb_cpp.connect_async(str(path))
