# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Handles to operations that run in the background (``lancedb.job``).

lancedb_cpp runs a job in-process, on a thread of its own: ``refresh_column_async``,
``create_index_async`` and ``drop_table_async`` return a :class:`Job` (an :class:`AsyncJob` on
the async API) at once. ``status()`` is "running", "finished", "failed" or "cancelled";
``wait(timeout=None)`` returns the job's typed result (``None`` for jobs without one), raises
:class:`~lancedb_cpp.exceptions.JobFailedError` (its ``__cause__`` is the job's error) or
:class:`~lancedb_cpp.exceptions.JobCancelledError`, or ``TimeoutError`` when `timeout` passes
first; ``cancel()`` asks the job to stop (a refresh stops at its next batch and writes nothing;
cancelling a finished job is a no-op).

Unlike LanceDB, whose in-process jobs have no id, each job has an id ("local-<hex>") that the
connection's ``list_jobs()``, ``open_job(id)`` and ``cancel_job(id)`` know for as long as the
connection lives.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from concurrent.futures import Future
from concurrent.futures import TimeoutError as _FutureTimeout
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable, Dict, Generic, List, Optional, TypeVar, Union, cast

from .exceptions import JobCancelledError, JobFailedError, JobNotFoundError

T = TypeVar("T")

__all__ = ["AsyncJob", "Job", "JobDescription", "JobFailureInfo", "JobInfo"]

@dataclass(frozen=True)
class JobFailureInfo:
    """Why a job failed."""

    phase: Optional[str] = None
    message: Optional[str] = None
    retryable: Optional[bool] = None


@dataclass(frozen=True)
class JobInfo:
    """One entry of ``list_jobs()``."""

    job_id: str
    table: str
    job_type: str
    state: str
    created_at_millis: int


@dataclass(frozen=True)
class JobDescription:
    """The full record of a job."""

    job_id: str
    job_type: str
    state: str
    creation_ms: int
    _spec_json: Optional[str] = None
    _result_json: Optional[str] = None
    failure: Optional[JobFailureInfo] = None

    @property
    def spec(self) -> Optional[Any]:
        """The job's specification (what it was asked to do)."""
        return json.loads(self._spec_json) if self._spec_json is not None else None

    @property
    def result(self) -> Optional[Any]:
        """The job's terminal result as data, once it finished."""
        return json.loads(self._result_json) if self._result_json is not None else None


class _LocalJob:
    """An operation running on a thread of this process. Internally synchronized.

    `work(cancel)` runs on the thread; `cancel` is the object whose ``cancel()`` is called to
    ask the work to stop (None when it cannot be stopped). `to_data` turns the work's result
    into the JSON-able data ``Job.result`` reports.
    """

    def __init__(
        self,
        job_type: str,
        table: str,
        spec: Dict[str, Any],
        work: Callable[[], Any],
        cancel: Any = None,
        to_data: Optional[Callable[[Any], Any]] = None,
    ):
        self.id = f"local-{uuid.uuid4().hex}"
        self.job_type = job_type
        self.table = table
        self.spec = spec
        self.creation_ms = int(time.time() * 1000)
        self._work = work
        self._cancel = cancel
        self._to_data = to_data
        self._lock = threading.Lock()
        self._cancel_requested = False
        self._state = "running"
        self._error: Optional[BaseException] = None
        self._result: Any = None
        self.future: Future = Future()
        self._thread = threading.Thread(target=self._run, name=f"lancedb-job-{job_type}",
                                        daemon=True)  # fmt: skip

    def start(self) -> "_LocalJob":
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            result = self._work()
        except BaseException as error:  # noqa: BLE001 - the job records any error
            with self._lock:
                self._state = "cancelled" if self._cancel_requested else "failed"
                self._error = error
            self.future.set_result(None)
            return
        with self._lock:
            self._state = "finished"
            self._result = result
        self.future.set_result(None)

    @property
    def state(self) -> str:
        with self._lock:
            return self._state

    def cancel(self) -> bool:
        """Ask the job to stop; False when it had already ended."""
        with self._lock:
            if self._state != "running":
                return False
            self._cancel_requested = True
        if self._cancel is not None:
            self._cancel.cancel()
        return True

    def wait(self, timeout: Optional[float]) -> Any:
        try:
            self.future.result(timeout)
        except _FutureTimeout:
            raise TimeoutError(f"job {self.id} did not finish within {timeout} seconds") from None
        return self.outcome()

    def outcome(self) -> Any:
        """The result of an ended job, or its error raised."""
        with self._lock:
            state, error, result = self._state, self._error, self._result
        if state == "cancelled":
            raise JobCancelledError("Job was cancelled")
        if state == "failed":
            raise JobFailedError(f"Job failed: {error}") from error
        return result

    def describe(self) -> JobDescription:
        with self._lock:
            state, error, result = self._state, self._error, self._result
        result_json = None
        if state == "finished" and self._to_data is not None:
            result_json = json.dumps(self._to_data(result))
        failure = None
        if state == "failed":
            failure = JobFailureInfo(phase=None, message=str(error), retryable=False)
        return JobDescription(
            job_id=self.id,
            job_type=self.job_type,
            state=state,
            creation_ms=self.creation_ms,
            _spec_json=json.dumps(self.spec),
            _result_json=result_json,
            failure=failure,
        )

    def info(self) -> JobInfo:
        return JobInfo(self.id, self.table, self.job_type, self.state, self.creation_ms)


class _JobRegistry:
    """The jobs a connection started. Internally synchronized."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: Dict[str, _LocalJob] = {}

    def start(self, job: _LocalJob) -> _LocalJob:
        with self._lock:
            self._jobs[job.id] = job
        return job.start()

    def get(self, job_id: str) -> _LocalJob:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise JobNotFoundError(f"Job '{job_id}' was not found")
        return job

    def list(self) -> List[JobInfo]:
        with self._lock:
            jobs = list(self._jobs.values())
        return [job.info() for job in sorted(jobs, key=lambda j: j.creation_ms)]


_registry_lock = threading.Lock()


def _registry(connection: Any) -> _JobRegistry:
    """The job registry of `connection` (created on first use)."""
    with _registry_lock:
        registry = getattr(connection, "_local_jobs", None)
        if registry is None:
            registry = _JobRegistry()
            connection._local_jobs = registry
        return registry


def _seconds(timeout: Union[timedelta, float, int, None]) -> Optional[float]:
    if timeout is None:
        return None
    if isinstance(timeout, timedelta):
        seconds = timeout.total_seconds()
    elif isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        seconds = float(timeout)
    else:
        raise TypeError(f"timeout must be a timedelta or a number of seconds, not {timeout!r}")
    if seconds < 0:
        raise ValueError(f"timeout must not be negative, got {timeout!r}")
    return seconds


def _described(name: str, doc: str) -> property:
    """A read-only property of a job's description: ``self._field(name)``."""
    return property(lambda self: self._field(name), doc=doc)


class _JobFields:
    """The fields of a job's description, shared by :class:`AsyncJob` and :class:`Job`; each
    reads them through ``_field`` (None for a job that is not in this process)."""

    _inner: Any

    @property
    def state(self) -> Optional[str]:
        """The job's state (always current for an in-process job)."""
        return self._inner.state if self._inner is not None else "finished"

    job_type = _described("job_type", '"refresh_column", "create_index" or "drop_table".')
    creation_ms = _described("creation_ms", "When the job was started, in ms since the epoch.")
    spec = _described("spec", "What the job was asked to do (table, column ...).")
    result = _described(
        "result", "The job's result as data once it finished (None before, or without a result)."
    )
    failure = _described("failure", "Why the job failed (a JobFailureInfo), when it failed.")
    _spec_json = _described("_spec_json", "The job's spec as JSON.")
    _result_json = _described("_result_json", "The job's result as JSON.")

    def _field(self, name: str) -> Optional[Any]:
        raise NotImplementedError


class AsyncJob(_JobFields, Generic[T]):
    """A handle to an operation that may still be running (async API).

    ``inner`` None is a job that already finished without a result.
    """

    def __init__(self, inner: Optional[Any], result_decoder: Optional[Callable[[Any], T]] = None):
        self._inner = inner
        self._result_decoder = result_decoder

    @property
    def id(self) -> Optional[str]:
        """The job's id ("local-<hex>"), as ``open_job``/``cancel_job`` take it."""
        return self._inner.id if self._inner is not None else None

    async def status(self) -> str:
        """The job's state now: "running", "finished", "failed" or "cancelled"."""
        return self._inner.state if self._inner is not None else "finished"

    async def wait(self, timeout: Optional[timedelta] = None) -> T:
        """Wait for the job to end; its typed result (None for a job without one).

        Raises `JobFailedError` if it failed, `JobCancelledError` if it was cancelled, and
        `TimeoutError` if `timeout` passes first."""
        if self._inner is None:
            return cast(T, None)
        seconds = _seconds(timeout)
        future = asyncio.wrap_future(self._inner.future)
        try:
            await asyncio.wait_for(asyncio.shield(future), seconds)
        except asyncio.TimeoutError:
            raise TimeoutError(f"job {self.id} did not finish within {seconds} seconds") from None
        return self._decode(self._inner.outcome())

    def _decode(self, result: Any) -> T:
        if self._result_decoder is not None:
            return self._result_decoder(result)
        return cast(T, result)

    async def cancel(self) -> None:
        """Ask the job to stop. Cancelling an ended job is a no-op."""
        if self._inner is not None:
            self._inner.cancel()

    async def refresh(self) -> None:
        """A no-op: an in-process job's state is always current."""

    def _field(self, name: str) -> Optional[Any]:
        if self._inner is None:
            return None
        return getattr(self._inner.describe(), name)

    async def events(self, *, limit: Optional[int] = None, filter: Optional[str] = None) -> Any:
        """Not available: event history is kept for server-side jobs only."""
        raise NotImplementedError("job event history is only available for server-side jobs")

    def __repr__(self) -> str:
        return _job_repr("AsyncJob", self)


def _job_repr(kind: str, job: Any) -> str:
    fields = []
    if job.id is not None:
        fields.append(f"id={job.id!r}")
    fields.append(f"state={job.state!r}")
    for name in ("job_type", "creation_ms", "spec", "result", "failure"):
        value = getattr(job, name)
        if value is not None:
            fields.append(f"{name}={value!r}")
    body = "".join(f"\n    {field}," for field in fields)
    return f"{kind}({body}\n)"


class Job(_JobFields, Generic[T]):
    """Synchronous counterpart of :class:`AsyncJob`, with the same result type."""

    def __init__(self, inner: Optional[AsyncJob[T]]):
        self._inner = inner

    def _local(self) -> Optional[_LocalJob]:
        return self._inner._inner if self._inner is not None else None

    @property
    def id(self) -> Optional[str]:
        """The job's id. See :attr:`AsyncJob.id`."""
        return self._inner.id if self._inner is not None else None

    def status(self) -> str:
        """"running", "finished", "failed" or "cancelled"."""
        local = self._local()
        return local.state if local is not None else "finished"

    def wait(self, timeout: Optional[timedelta] = None) -> T:
        """Block until the job ends; its typed result. See :meth:`AsyncJob.wait`."""
        local = self._local()
        if local is None:
            return cast(T, None)
        return self._inner._decode(local.wait(_seconds(timeout)))

    def cancel(self) -> None:
        """Ask the job to stop. Cancelling an ended job is a no-op."""
        local = self._local()
        if local is not None:
            local.cancel()

    def refresh(self) -> None:
        """A no-op: an in-process job's state is always current."""

    def _field(self, name: str) -> Optional[Any]:
        return getattr(self._inner, name) if self._inner is not None else None

    def events(self, *, limit: Optional[int] = None, filter: Optional[str] = None) -> Any:
        """Not available: event history is kept for server-side jobs only."""
        raise NotImplementedError("job event history is only available for server-side jobs")

    def __repr__(self) -> str:
        return _job_repr("Job", self)


def _start(
    connection: Any,
    job_type: str,
    table: str,
    spec: Dict[str, Any],
    work: Callable[[], Any],
    *,
    cancel: Any = None,
    to_data: Optional[Callable[[Any], Any]] = None,
) -> AsyncJob:
    """Start `work` on a thread as a job of `connection`; its AsyncJob handle."""
    job = _LocalJob(job_type, table, spec, work, cancel, to_data)
    return AsyncJob(_registry(connection).start(job))

