# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Header providers of LanceDB's remote client (``lancedb.remote.header``): objects that
supply extra HTTP headers before each request (each attempt) to a remote database
(``ClientConfig(header_provider=...)``); their headers override the static ones. They are
plain Python and work as LanceDB's.

Thread-safety: ``StaticHeaderProvider`` is immutable; ``OAuthProvider`` is internally
synchronized (one token fetch at a time, however many threads ask for headers).
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from typing import Any, Callable, Dict, Optional

__all__ = ["HeaderProvider", "OAuthProvider", "StaticHeaderProvider"]


class HeaderProvider(ABC):
    """Supplies extra HTTP headers for each remote request. An exception raised by
    ``get_headers`` fails the request."""

    @abstractmethod
    def get_headers(self) -> Dict[str, str]:
        """The headers to add to the next request."""


class StaticHeaderProvider(HeaderProvider):
    """The same headers for every request (a copy of `headers`, taken at construction)."""

    def __init__(self, headers: Dict[str, str]):
        self._headers = dict(headers)

    def get_headers(self) -> Dict[str, str]:
        """A copy of the headers (changing it does not change later requests)."""
        return dict(self._headers)


class OAuthProvider(HeaderProvider):
    """A bearer token from `token_fetcher`, fetched again when it is about to expire.

    `token_fetcher` returns a dict with "access_token" and optionally "expires_in" (seconds);
    without an expiry the token is kept for good. A token is refreshed
    `refresh_buffer_seconds` before it expires.
    """

    def __init__(
        self, token_fetcher: Callable[[], Any], refresh_buffer_seconds: int = 300
    ):
        self._token_fetcher = token_fetcher
        self._refresh_buffer = refresh_buffer_seconds
        self._current_token: Optional[str] = None
        self._token_expires_at: Optional[float] = None
        self._refresh_lock = threading.Lock()

    def _needs_refresh(self) -> bool:
        if self._current_token is None:
            return True
        if self._token_expires_at is None:
            return False
        return time.time() >= self._token_expires_at - self._refresh_buffer

    def _refresh_token_if_needed(self) -> None:
        with self._refresh_lock:
            if not self._needs_refresh():  # another thread refreshed it meanwhile
                return
            token = self._token_fetcher()
            self._current_token = token.get("access_token")
            if not self._current_token:
                raise ValueError("Token fetcher did not return 'access_token'")
            expires_in = token.get("expires_in")
            self._token_expires_at = time.time() + expires_in if expires_in else None

    def get_headers(self) -> Dict[str, str]:
        """The Authorization header with the current token (and LanceDB's credential-type
        header, ``x-lancedb-credential-type: oidc``), refreshing the token first if needed."""
        self._refresh_token_if_needed()
        if not self._current_token:
            raise RuntimeError("Failed to obtain OAuth token")
        return {
            "Authorization": f"Bearer {self._current_token}",
            "x-lancedb-credential-type": "oidc",
        }
