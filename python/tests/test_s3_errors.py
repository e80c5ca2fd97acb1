# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""s3:// failure modes (issue 28): bad input gets an error naming the problem; the commit
guarantee holds against a store that ignores conditional puts; injected 503s and dropped
replies are retried, and a commit whose reply was lost is neither lost nor doubled. The
settings come from the storage options, the AWS_* environment or the credentials file."""

import time

import pyarrow as pa
import pytest

import lancedb_cpp
from s3_proxy import FaultProxy
from s3_server import ACCESS_KEY, REGION, SECRET_KEY, free_port, s3, s3_server  # noqa: F401

ROWS = pa.table({"id": pa.array([1, 2, 3], pa.int64())})


@pytest.fixture
def no_aws_env(monkeypatch, tmp_path):
    for name in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
                 "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT",
                 "AWS_ALLOW_HTTP", "AWS_PROFILE"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-such-file"))


def test_unknown_bucket_is_named(s3):
    db = lancedb_cpp.connect("s3://no-such-bucket-x1/db", storage_options=s3.options)
    with pytest.raises(OSError, match="Bucket 'no-such-bucket-x1' does not exist"):
        db.table_names()
    with pytest.raises(OSError, match="Bucket 'no-such-bucket-x1' does not exist"):
        db.create_table("t", ROWS)
    with pytest.raises(OSError, match="no-such-bucket-x1"):
        db.open_table("t")


def test_closed_port_fails_within_the_configured_retries(s3):
    port = free_port()  # nothing listens there
    options = dict(s3.options, aws_endpoint=f"http://127.0.0.1:{port}", connect_timeout="1s",
                   client_max_retries="2", client_retry_timeout="5s")
    db = lancedb_cpp.connect(s3.uri(), storage_options=options)
    start = time.monotonic()
    with pytest.raises(OSError, match=f"127.0.0.1:{port}.*(connect|Connection)") as e:
        db.create_table("t", ROWS)
    assert "after 3 attempts" in str(e.value)
    # A guard against hanging, not a performance figure: 3 quick attempts and two waits.
    assert time.monotonic() - start < 60


def test_missing_credentials(s3, no_aws_env):
    options = {"aws_endpoint": s3.server.endpoint, "allow_http": "true"}
    with pytest.raises(ValueError, match="No AWS credentials found.*AWS_ACCESS_KEY_ID"):
        lancedb_cpp.connect(s3.uri(), storage_options=options)


def test_refused_credentials_are_named():
    from s3_server import start_server

    server = start_server(INITIAL_NO_AUTH_ACTION_COUNT="0")  # checks every access key
    try:
        options = {"aws_access_key_id": "AKIANOSUCHKEY", "aws_secret_access_key": "x",
                   "aws_endpoint": server.endpoint, "allow_http": "true"}
        db = lancedb_cpp.connect("s3://some-bucket/db", storage_options=options)
        with pytest.raises(OSError, match="refused .*InvalidAccessKeyId.*check the credentials "
                                          r"\(from storage options\)"):
            db.create_table("t", ROWS)
    finally:
        server.process.terminate()
        server.process.wait(timeout=10)


def test_unknown_option_and_bad_values(s3):
    with pytest.raises(ValueError, match="Unknown storage option 'aws_endpoitn'"):
        lancedb_cpp.connect(s3.uri(), storage_options=dict(s3.options, aws_endpoitn="x"))
    plain = {k: v for k, v in s3.options.items() if k != "allow_http"}
    with pytest.raises(ValueError, match="allow_http=true"):
        lancedb_cpp.connect(s3.uri(), storage_options=plain)
    with pytest.raises(ValueError, match="'timeout' must be a duration"):
        lancedb_cpp.connect(s3.uri(), storage_options=dict(s3.options, timeout="soon"))
    with pytest.raises(ValueError, match="no bucket name"):
        lancedb_cpp.connect("s3:///db", storage_options=s3.options)
    # Object-store keys belong to the connection, not to one table.
    db = lancedb_cpp.connect(s3.uri(), storage_options=s3.options)
    with pytest.raises(NotImplementedError, match="give object-store options to connect"):
        db.create_table("t", ROWS, storage_options={"aws_region": "eu-west-1"})
    # Python booleans are accepted as LanceDB accepts them.
    db = lancedb_cpp.connect(s3.uri(), storage_options=dict(s3.options, allow_http=True))
    assert db.create_table("t", ROWS).count_rows() == 3


def test_settings_from_the_environment(s3, no_aws_env, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.server.endpoint)
    monkeypatch.setenv("AWS_ALLOW_HTTP", "true")
    db = lancedb_cpp.connect(s3.uri())
    db.create_table("t", ROWS)
    assert db.open_table("t").count_rows() == 3


def test_credentials_file_and_profile(s3, no_aws_env, monkeypatch, tmp_path):
    creds = tmp_path / "credentials"
    creds.write_text(
        "[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n"
        f"[ci]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n"
    )
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(creds))
    monkeypatch.setenv("AWS_PROFILE", "ci")
    options = {"aws_endpoint": s3.server.endpoint, "allow_http": "true"}
    db = lancedb_cpp.connect(s3.uri(), storage_options=options)
    assert db.create_table("t", ROWS).count_rows() == 3
    monkeypatch.setenv("AWS_PROFILE", "nobody")
    with pytest.raises(ValueError, match="profile 'nobody'"):
        lancedb_cpp.connect(s3.uri(), storage_options=options)


def test_probe_leaves_nothing_behind(s3):
    lancedb_cpp.connect(s3.uri(), storage_options=s3.options).create_table("t", ROWS)
    assert not [k for k in s3.keys() if "probe" in k]


def test_store_ignoring_conditional_puts_is_refused(s3):
    with FaultProxy(s3.server.endpoint, strip_if_none_match=True) as proxy:
        options = dict(s3.options, aws_endpoint=proxy.endpoint)
        db = lancedb_cpp.connect(s3.uri(), storage_options=options)
        with pytest.raises(NotImplementedError, match="ignores conditional puts.*allow_unsafe_commit"):
            db.create_table("t", ROWS)
        assert db.table_names() == []
        unsafe = lancedb_cpp.connect(s3.uri(),
                                     storage_options=dict(options, allow_unsafe_commit="true"))
        t = unsafe.create_table("t", ROWS)
        t.add(ROWS)
        assert t.count_rows() == 6
    assert not [k for k in s3.keys() if "probe" in k]


def test_injected_503s_are_retried(s3):
    with FaultProxy(s3.server.endpoint, fail_every=4) as proxy:
        options = dict(s3.options, aws_endpoint=proxy.endpoint)
        t = lancedb_cpp.connect(s3.uri(), storage_options=options).create_table("t", ROWS)
        for _ in range(5):
            t.add(ROWS)
        t.delete("id = 2")
        assert t.count_rows() == 12
        assert proxy.failed > 0
    reread = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).open_table("t")
    assert reread.version == 7
    assert reread.count_rows() == 12


def test_commit_whose_reply_was_lost_is_kept_once(s3):
    # Every second manifest put reaches the store but its reply is dropped: the retry gets 412
    # and the client reads the manifest back to see that the version is its own.
    with FaultProxy(s3.server.endpoint, drop_conditional_every=2) as proxy:
        options = dict(s3.options, aws_endpoint=proxy.endpoint)
        t = lancedb_cpp.connect(s3.uri(), storage_options=options).create_table("t", ROWS)
        for _ in range(4):
            t.add(ROWS)
        assert proxy.dropped >= 2
    reread = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).open_table("t")
    assert [v["version"] for v in reread.list_versions()] == [1, 2, 3, 4, 5]
    assert reread.count_rows() == 15


def test_commit_whose_reply_came_too_late_is_kept_once(s3):
    # Every third conditional put is applied but answered after the client's 1 s timeout.
    with FaultProxy(s3.server.endpoint, delay_conditional_every=3, delay_seconds=2) as proxy:
        options = dict(s3.options, aws_endpoint=proxy.endpoint, timeout="1s")
        t = lancedb_cpp.connect(s3.uri(), storage_options=options).create_table("t", ROWS)
        for _ in range(3):
            t.add(ROWS)
        t.delete("id = 1")
        assert proxy.delayed >= 1
    reread = lancedb_cpp.connect(s3.uri(), storage_options=s3.options).open_table("t")
    assert [v["version"] for v in reread.list_versions()] == [1, 2, 3, 4, 5]
    assert reread.count_rows() == 8
