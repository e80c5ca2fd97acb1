# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Jobs: refresh_column_async, create_index_async and drop_table_async run in-process on a
thread and return a Job (AsyncJob on the async API) with LanceDB's contract: status(),
wait(timeout) returning the typed result or raising, cancel(); the connection lists, opens and
cancels its jobs. Jobs are held at their start (by wrapping the native refresh) so that running,
timed-out and cancelled states are reached deterministically."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

import lancedb
import pyarrow as pa
import pytest

import lancedb_cpp
from lancedb_cpp import _native
from lancedb_cpp.exceptions import JobCancelledError, JobFailedError, JobNotFoundError
from lancedb_cpp.functions import RefreshColumnResult
from lancedb_cpp.index import IvfPq
from lancedb_cpp.job import AsyncJob, Job, JobInfo


@pytest.fixture
def db(tmp_path):
    return lancedb_cpp.connect(str(tmp_path))


@pytest.fixture
def table(db):
    t = db.create_table("t", [{"x": 1}, {"x": 2}])
    t.add_columns(computed={"d": "x * 2"})
    return t


@pytest.fixture
def held(monkeypatch):
    """Refreshes wait for `held.set()` before they run."""
    gate = threading.Event()
    real = _native.refresh_column

    def refresh(*args, **kwargs):
        assert gate.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(_native, "refresh_column", refresh)
    yield gate
    gate.set()


def test_refresh_job_returns_its_typed_result(table):
    job = table.refresh_column_async("d")
    assert isinstance(job, Job)
    result = job.wait()
    assert result == RefreshColumnResult(
        rows_assigned=2, rows_failed=0, rows_remaining=0, source_version=2, published_version=4
    )
    assert (result.rows_filled, result.version) == (2, 4)
    assert job.status() == job.state == "finished"
    assert job.job_type == "refresh_column"
    assert job.spec == {"table": "t", "column": "d"}
    assert job.result == result.model_dump()
    assert job.failure is None
    assert job.wait() == result  # waiting again gives the same result
    assert table.to_arrow()["d"].to_pylist() == [2, 4]


def test_result_model_round_trips_json_as_lancedb():
    ours = RefreshColumnResult(rows_assigned=1, rows_failed=0, rows_remaining=0, source_version=5)
    theirs = lancedb.functions.RefreshColumnResult(
        rows_assigned=1, rows_failed=0, rows_remaining=0, source_version=5
    )
    assert repr(ours) == repr(theirs)
    assert ours.to_canonical_json() == theirs.to_canonical_json()
    assert RefreshColumnResult.from_json(theirs.to_canonical_json()) == ours
    with pytest.raises(ValueError):
        RefreshColumnResult(rows_assigned=-1, rows_failed=0, rows_remaining=0, source_version=1)


def test_running_job_is_listed_opened_and_waited_with_a_timeout(db, table, held):
    job = table.refresh_column_async("d")
    assert job.status() == "running"
    assert job.id.startswith("local-")
    (info,) = db.list_jobs()
    assert isinstance(info, JobInfo)
    assert (info.job_id, info.table, info.job_type, info.state) == (
        job.id,
        "t",
        "refresh_column",
        "running",
    )
    with pytest.raises(TimeoutError):
        job.wait(timedelta(milliseconds=50))
    with pytest.raises(TimeoutError):
        db.open_job(job.id).wait(0.01)
    assert job.status() == "running" and table.to_arrow()["d"].to_pylist() == [None, None]
    held.set()
    assert job.wait(timedelta(seconds=30)).rows_assigned == 2
    assert db.open_job(job.id).status() == "finished"
    assert [j.state for j in db.list_jobs()] == ["finished"]
    assert db.cancel_job(job.id) is False  # already ended: a no-op
    job.cancel()
    assert job.status() == "finished"


def test_cancelled_refresh_writes_nothing(db, table, held):
    version = table.version
    job = table.refresh_column_async("d")
    job.cancel()
    held.set()
    with pytest.raises(JobCancelledError):
        job.wait()
    assert job.status() == "cancelled"
    assert table.version == version
    assert table.to_arrow()["d"].to_pylist() == [None, None]
    # The next refresh fills the column.
    assert table.refresh_column("d").rows_filled == 2


def test_cancel_by_id_from_the_connection(db, table, held):
    job = table.refresh_column_async("d")
    assert db.cancel_job(job.id) is True
    held.set()
    with pytest.raises(JobCancelledError):
        db.open_job(job.id).wait()
    assert db.list_jobs()[0].state == "cancelled"


def test_unknown_job_id(db):
    assert db.list_jobs() == []
    for call in (db.open_job, db.cancel_job):
        with pytest.raises(JobNotFoundError, match="Job 'nope' was not found"):
            call("nope")
    assert issubclass(JobNotFoundError, ValueError)


def test_failed_job_raises_its_error_on_wait(db):
    t = db.create_table("ints", [{"x": 1}, {"x": 2}])
    job = t.create_index_async("x", config=IvfPq())
    with pytest.raises(JobFailedError, match="Job failed") as raised:
        job.wait()
    assert isinstance(raised.value.__cause__, (ValueError, TypeError, NotImplementedError))
    assert str(raised.value.__cause__) in str(raised.value)
    assert job.status() == "failed"
    assert job.failure.message == str(raised.value.__cause__)
    assert t.list_indices() == []


def test_create_index_job(db):
    t = db.create_table("t", pa.table({"x": list(range(100))}))
    job = t.create_index_async("x", config=lancedb_cpp.index.BTree())
    assert job.wait() is None
    assert job.status() == "finished"
    assert [i.name for i in t.list_indices()] == ["x_idx"]
    with pytest.raises(ValueError, match="nope"):
        t.create_index_async("nope", config=lancedb_cpp.index.BTree())


def test_drop_table_job(db):
    db.create_table("gone", [{"x": 1}])
    job = db.drop_table_async("gone")
    assert job.wait() is None
    assert job.status() == "finished"
    assert "gone" not in db.table_names()
    with pytest.raises(ValueError, match="Table 'missing' was not found"):
        db.drop_table_async("missing")
    assert [j.job_type for j in db.list_jobs()] == ["drop_table"]


def test_finished_job_without_a_handle():
    job = Job(None)
    assert (job.id, job.status(), job.wait(), job.state) == (None, "finished", None, "finished")
    job.cancel()
    with pytest.raises(NotImplementedError, match="server-side"):
        job.events()


def test_async_jobs(tmp_path, monkeypatch):
    gate = threading.Event()
    real = _native.refresh_column

    def refresh(*args, **kwargs):
        assert gate.wait(30)
        return real(*args, **kwargs)

    async def run():
        db = await lancedb_cpp.connect_async(str(tmp_path))
        t = await db.create_table("t", [{"x": 1}, {"x": 2}])
        await t.add_columns(computed={"d": "x * 2"})
        monkeypatch.setattr(_native, "refresh_column", refresh)
        job = await t.refresh_column_async("d")
        assert isinstance(job, AsyncJob)
        assert await job.status() == "running"
        with pytest.raises(TimeoutError):
            await job.wait(timedelta(milliseconds=50))
        assert [j.job_id for j in await db.list_jobs()] == [job.id]
        gate.set()
        result = await job.wait()
        assert (result.rows_assigned, result.published_version) == (2, 4)
        opened = await db.open_job(job.id)
        assert await opened.status() == "finished"
        assert await db.cancel_job(job.id) is False

        gate.clear()
        cancelled = await t.refresh_column_async("d")
        await t.add([{"x": 3}])
        await cancelled.cancel()
        gate.set()
        with pytest.raises(JobCancelledError):
            await cancelled.wait()

        index_job = await t.create_index_async("x", config=lancedb_cpp.index.BTree())
        assert await index_job.wait() is None
        drop_job = await db.drop_table_async("t")
        assert await drop_job.wait() is None
        return await db.table_names()

    assert asyncio.run(run()) == []
