# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Helpers for embedding functions (``lancedb.embeddings.utils``): input type aliases, retries
with backoff, rate limiting, batching wrappers, optional-import helpers."""

from __future__ import annotations

import functools
import importlib
import logging
import random
import threading
import time
import urllib.request
import weakref
from typing import Any, Callable, Dict, List, Optional, Union

import numpy as np
import pyarrow as pa

_LOG = logging.getLogger(__name__)

TEXT = Union[str, List[str], pa.Array, pa.ChunkedArray, np.ndarray]
IMAGES = Union[str, bytes, List[str], List[bytes], pa.Array, pa.ChunkedArray, np.ndarray]
AUDIO = Union[str, bytes, List[str], List[bytes], pa.Array, pa.ChunkedArray, np.ndarray]

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


def url_retrieve(url: str) -> bytes:
    """The bytes at `url` (http(s) or file URL), as LanceDB's helper for image inputs."""
    with urllib.request.urlopen(url) as response:
        return response.read()


def retry(
    tries: int = 10, delay: float = 1, max_delay: float = 30, backoff: float = 3, jitter: float = 1
) -> Callable:
    """Decorator: call up to `tries` times, sleeping ``min(delay * backoff**i + jitter,
    max_delay)`` seconds after failure i; the last failure propagates."""

    def decorate(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for attempt in range(tries):
                try:
                    return func(*args, **kwargs)
                except Exception:  # noqa: BLE001 - retried, re-raised on the last attempt
                    if attempt + 1 >= tries:
                        raise
                    time.sleep(min(delay * backoff**attempt + jitter, max_delay))
            return None

        return wrapper

    return decorate


def weak_lru(maxsize: int = 128) -> Callable:
    """Method decorator: an LRU cache keyed on (a weak reference to) the instance and the
    arguments, so the cache never keeps an instance alive."""

    def decorate(method: Callable) -> Callable:
        @functools.lru_cache(maxsize)
        def cached(ref: "weakref.ref[Any]", *args: Any, **kwargs: Any) -> Any:
            return method(ref(), *args, **kwargs)

        @functools.wraps(method)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            return cached(weakref.ref(self), *args, **kwargs)

        return wrapper

    return decorate


def api_key_not_found_help(provider: str) -> None:
    """Log and raise the error for a provider whose API key is not set."""
    _LOG.error("Could not find API key for %s", provider)
    raise ValueError(f"Please set the {provider.upper()}_API_KEY environment variable.")


def attempt_import_or_raise(module: str, mitigation: Optional[str] = None) -> Any:
    """Import `module`, or raise ImportError asking to install `mitigation` (or `module`)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"Please install {mitigation or module}") from e


def is_flash_attn_2_available() -> bool:
    """Whether the optional ``flash_attn`` package can be imported."""
    try:
        attempt_import_or_raise("flash_attn", "flash_attn")
    except ImportError:
        return False
    return True


def create_import_stub(module_name: str, package_name: Optional[str] = None) -> Any:
    """A stand-in for an optional module: any attribute chain resolves (so classes can subclass
    it), and calling anything raises ImportError naming the package to install."""
    needed = package_name or module_name

    class _Missing:
        def __getattr__(self, name: str) -> Any:
            return _Missing()

        def __mro_entries__(self, bases: Any) -> Any:  # `class M(stub.nn.Module)` still works
            return (object,)

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            raise ImportError(f"You need to install {needed} to use this functionality")

    return _Missing()


class FunctionWrapper:
    """Wraps a function that embeds a list of inputs, adding batching, retries, rate limiting
    and a progress bar: ``FunctionWrapper(f).batch_size(32).retry().rate_limit()(texts)``."""

    def __init__(self, func: Callable):
        self.func = func
        self.rate_limiter_kwargs: Dict[str, Any] = {}
        self.retry_kwargs: Dict[str, Any] = {}
        self._batch_size: Optional[int] = None
        self._progress = False

    def __repr__(self) -> str:
        return f"EmbeddingFunction(func={self.func})"

    def rate_limit(self, max_calls: float = 0.9, period: float = 1.0) -> "FunctionWrapper":
        self.rate_limiter_kwargs = {"max_calls": max_calls, "period": period}
        return self

    def retry(
        self, tries: int = 10, delay: float = 1, max_delay: float = 30, backoff: float = 3,
        jitter: float = 1,
    ) -> "FunctionWrapper":  # fmt: skip
        self.retry_kwargs = {"tries": tries, "delay": delay, "max_delay": max_delay,
                             "backoff": backoff, "jitter": jitter}  # fmt: skip
        return self

    def batch_size(self, batch_size: int) -> "FunctionWrapper":
        self._batch_size = batch_size
        return self

    def show_progress(self) -> "FunctionWrapper":
        self._progress = True
        return self

    def to_batches(self, arr: Any) -> Any:
        """Slices of `arr` of at most batch_size (the whole input without one)."""
        step = self._batch_size or max(len(arr), 1)
        starts = range(0, len(arr), step)
        if self._progress:
            tqdm = attempt_import_or_raise("tqdm").tqdm
            starts = tqdm(starts, total=len(starts))
        for start in starts:
            yield arr[start : start + step]

    def __call__(self, inputs: Any) -> List[Any]:
        def embed(chunk: Any) -> Any:
            return self.func(chunk.tolist() if hasattr(chunk, "tolist") else list(chunk))

        if self.retry_kwargs:
            embed = retry(**self.retry_kwargs)(embed)
        if self.rate_limiter_kwargs:
            embed = RateLimiter(**self.rate_limiter_kwargs)(embed)
        return [vector for chunk in self.to_batches(inputs) for vector in embed(chunk)]
