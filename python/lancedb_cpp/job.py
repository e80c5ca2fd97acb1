# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Handles to background jobs (``lancedb.job``): not supported by lancedb_cpp yet, which
runs every operation to completion before returning. The classes exist; constructing one
raises NotImplementedError, as do the ``*_async`` methods that would return one."""

from __future__ import annotations

from ._not_yet import JOBS, unsupported_class

AsyncJob = unsupported_class("AsyncJob", JOBS, __name__)
Job = unsupported_class("Job", JOBS, __name__)
JobDescription = unsupported_class("JobDescription", JOBS, __name__)
JobFailureInfo = unsupported_class("JobFailureInfo", JOBS, __name__)
JobInfo = unsupported_class("JobInfo", JOBS, __name__)

__all__ = ["AsyncJob", "Job", "JobDescription", "JobFailureInfo", "JobInfo"]
