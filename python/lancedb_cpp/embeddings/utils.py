# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Helpers for embedding functions: input type alias, retries with backoff, rate limiting."""

from __future__ import annotations

import functools
import logging
import random
import threading
import time
from typing import Any, Callable, List, Union

import numpy as np
import pyarrow as pa

_LOG = logging.getLogger(__name__)

TEXT = Union[str, List[str], pa.Array, pa.ChunkedArray, np.ndarray]
IMAGES = Union[str, bytes, List[str], List[bytes], pa.Array, pa.ChunkedArray, np.ndarray]

# Errors that retrying cannot fix: bad arguments or programming errors (LanceDB retries
# these too; lancedb_cpp raises them at once).
_NON_RETRYABLE = (
    TypeError, ValueError, KeyError, AttributeError, NotImplementedError, IndexError,
    AssertionError,
)


def _is_non_retryable_error(error: BaseException) -> bool:
    """Refused credentials (as LanceDB) and argument/programming errors."""
    if type(error).__name__ == "AuthenticationError":
        return True
    if getattr(error, "status_code", None) in (401, 403):
        return True
    return isinstance(error, _NON_RETRYABLE)


def retry_with_exponential_backoff(
    func: Callable,
    initial_delay: float = 1,
    exponential_base: float = 2,
    jitter: bool = True,
    max_retries: int = 7,
) -> Callable:
    """Wrap `func` so that transient failures are retried, waiting longer after each one
    (`max_retries` 0 or less: call once). Argument errors are raised at once."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        attempts = 0
        delay = initial_delay
        while True:
            try:
                return func(*args, **kwargs)
            except Exception as err:  # noqa: BLE001 - classified below
                if _is_non_retryable_error(err):
                    raise
                attempts += 1
                if attempts > max_retries:
                    # LanceDB's error: a plain Exception carrying the message and the cause.
                    raise Exception(
                        f"Maximum number of retries ({max_retries}) exceeded.", err
                    ) from err
                delay *= exponential_base * (1 + (random.random() if jitter else 0))
                _LOG.warning(
                    "Embedding call failed: %s; retry %s of %s in %.1f s",
                    err, attempts, max_retries, delay,
                )
                time.sleep(delay)

    return wrapper


class RateLimiter:
    """Decorator allowing at most `max_calls` calls per `period` seconds (sleeps otherwise)."""

    def __init__(self, max_calls: int = 1, period: float = 1.0):
        self.max_calls = max(1, int(max_calls))
        self.period = period
        self._calls: List[float] = []
        self._lock = threading.Lock()

    def _wait(self) -> None:
        with self._lock:
            now = time.monotonic()
            self._calls = [t for t in self._calls if now - t < self.period]
            if len(self._calls) >= self.max_calls:
                pause = self.period - (now - self._calls[0])
                if pause > 0:
                    time.sleep(pause)
                self._calls.pop(0)
            self._calls.append(time.monotonic())

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self._wait()
            return func(*args, **kwargs)

        return wrapper


def url_retrieve(url: str):
    raise NotImplementedError("lancedb_cpp does not fetch embedding inputs over the network")
