# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Server-side jobs of a remote database (``create_index_async`` returns one): their state is
polled through ``/v1/jobs/describe``, cancelled through ``/v1/jobs/cancel``."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any, Dict, Optional

from ..exceptions import JobCancelledError, JobFailedError

_STATES = {
    "in_progress": "running",
    "done": "finished",
    "succeeded": "finished",
    "failed": "failed",
    "timed_out": "failed",
    "cancelled": "cancelled",
    "canceled": "cancelled",
}


def job_state(text: Optional[str]) -> str:
    """LanceDB's state of a server job state ("running" for unknown ones)."""
    return _STATES.get(str(text or "").lower(), "running")


class RemoteJob:
    """A job the server runs; ``wait()`` polls until it ends."""

    def __init__(self, conn: Any, job_id: Optional[str]):
        self._conn = conn
        self._id = job_id

    @classmethod
    def wrap(cls, conn: Any, job_id: Optional[str]) -> "RemoteJob":
        return cls(conn, job_id)

    @property
    def id(self) -> Optional[str]:
        return self._id

    def _describe(self) -> Optional[Dict[str, Any]]:
        client = self._conn._client
        request_id, response = client.send(
            "POST", "/v1/jobs/describe", json={"job_id": self._id}, retry=False
        )
        if response.status_code == 404:
            return None
        return client.check(request_id, response).json()

    def status(self) -> str:
        """ "running", "finished", "failed" or "cancelled"."""
        if self._id is None:
            return "finished"
        description = self._describe()
        return "failed" if description is None else job_state(description.get("job_state"))

    def wait(self, timeout: Optional[timedelta] = None) -> Any:
        """Poll until the job ends (JobFailedError / JobCancelledError / TimeoutError)."""
        if self._id is None:
            return None
        deadline = None if timeout is None else time.monotonic() + timeout.total_seconds()
        delay = 0.1
        while True:
            description = self._describe() or {}
            state = job_state(description.get("job_state"))
            if state == "finished":
                return description.get("result")
            if state == "failed":
                failure = description.get("failure") or {}
                message, phase = failure.get("message"), failure.get("phase")
                if message and phase:
                    suffix = f": {message} (in {phase})"
                elif message:
                    suffix = f": {message}"
                else:
                    suffix = f" in {phase}" if phase else ""
                raise JobFailedError(f"Job {self._id} failed{suffix}")
            if state == "cancelled":
                raise JobCancelledError(f"Job {self._id} was cancelled")
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"Job {self._id} did not finish in time")
            time.sleep(delay)
            delay = min(delay * 2, 2.0)

    def cancel(self) -> None:
        """Ask the server to stop the job."""
        if self._id is None:
            return
        client = self._conn._client
        request_id, response = client.send(
            "POST", "/v1/jobs/cancel", json={"job_id": self._id}, retry=False
        )
        if response.status_code != 404:
            client.check(request_id, response)
