# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The HTTP client of remote connections: LanceDB's REST transport over ``requests``.

One ``RestClient`` per connection holds the base URL, the default headers (``x-api-key``,
``x-lancedb-database``, extra headers, user id), the header provider, the timeouts and the
retry policy, as LanceDB's client resolves them from a ``ClientConfig`` and the environment
(``LANCE_CLIENT_*``). Every request gets an ``x-request-id`` (a uuid4, kept across retries);
errors are ``HttpError`` / ``RetryError`` with LanceDB's messages.

Thread-safety: a client may be shared between threads; each thread (and each process after a
fork) uses its own ``requests.Session``.
"""

from __future__ import annotations

import http
import os
import random
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import quote, urlparse

from . import ClientConfig
from .errors import HttpError, RetryError

ARROW_STREAM_CONTENT_TYPE = "application/vnd.apache.arrow.stream"
ARROW_FILE_CONTENT_TYPE = "application/vnd.apache.arrow.file"
REQUEST_TIMEOUT_HEADER = "x-request-timeout-ms"

_DEFAULT_STATUSES = [409, 429, 500, 502, 503, 504]


def _requests():
    try:
        import requests
    except ImportError as e:  # pragma: no cover - requests is a dependency
        raise ImportError(
            "remote connections (db://) need the 'requests' package: pip install requests"
        ) from e
    return requests


def status_text(status: int) -> str:
    """The status as reqwest prints it: ``507 Insufficient Storage``."""
    try:
        return f"{status} {http.HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def http_error_message(request_id: str, source: str) -> str:
    """LanceDB's text of an HTTP error."""
    return f"Http error: (request_id={request_id}) {source}"


def http_error(request_id: str, source: str, status: Optional[int] = None) -> HttpError:
    return HttpError(http_error_message(request_id, source), request_id, status)


def response_error(request_id: str, response: Any) -> HttpError:
    """The error of a non-2xx response: ``<status> <reason>: <body>``."""
    try:
        text = response.text
    except Exception:  # noqa: BLE001 - the body could not be read
        text = None
    source = status_text(response.status_code)
    if text is not None:
        source = f"{source}: {text}"
    return http_error(request_id, source, response.status_code)


def parse_db_url(db_url: str) -> Tuple[str, Optional[str]]:
    """``db://name/prefix`` -> (name, prefix or None)."""
    parsed = urlparse(db_url)
    if parsed.scheme != "db":
        raise ValueError(f"Invalid scheme: {parsed.scheme}, only accepts db://")
    if not parsed.netloc:
        raise ValueError(f"Invalid input, Invalid database URL (missing host) '{db_url}'")
    prefix = parsed.path.lstrip("/")
    return parsed.netloc, prefix or None


def validate_dns_hostname(hostname: str) -> None:
    """LanceDB's check of the LanceDB Cloud host name it builds from the uri and region."""
    try:
        ascii_name = hostname if hostname.isascii() else hostname.encode("idna").decode("ascii")
    except UnicodeError as e:
        raise ValueError(
            "Invalid input, LanceDB Cloud database URI or region produced an invalid "
            f"hostname: {e}"
        ) from None
    if len(ascii_name) > 253 or any(
        not label or len(label) > 63 for label in ascii_name.split(".")
    ):
        raise ValueError(
            "Invalid input, LanceDB Cloud database URI or region produced an invalid "
            "hostname: DNS labels must contain 1 to 63 bytes and the full hostname must not "
            "exceed 253 bytes"
        )


def _env_seconds(value: Optional[timedelta], env: str, default: Optional[float]):
    if value is not None:
        return value.total_seconds()
    text = os.environ.get(env)
    if text is not None:
        try:
            return float(int(text))
        except ValueError:
            raise ValueError(
                f"Invalid input, Invalid value for {env} environment variable: '{text}'"
            ) from None
    return default


@dataclass
class ResolvedRetryConfig:
    """A RetryConfig with LanceDB's defaults applied. (LanceDB documents LANCE_CLIENT_*
    environment variables for these, but its client does not read them; neither does this.)"""

    retries: int
    connect_retries: int
    read_retries: int
    backoff_factor: float
    backoff_jitter: float
    statuses: List[int]

    @classmethod
    def resolve(cls, config: Any) -> "ResolvedRetryConfig":
        def pick(value: Any, default: Any, kind: type) -> Any:
            return default if value is None else kind(value)

        return cls(
            retries=pick(config.retries, 3, int),
            connect_retries=pick(config.connect_retries, 3, int),
            read_retries=pick(config.read_retries, 3, int),
            backoff_factor=pick(config.backoff_factor, 0.25, float),
            backoff_jitter=pick(config.backoff_jitter, 0.25, float),
            statuses=list(_DEFAULT_STATUSES if config.statuses is None else config.statuses),
        )


class RetryCounter:
    """The failures of one logical request, as LanceDB counts them."""

    def __init__(self, config: ResolvedRetryConfig, request_id: str):
        self.config = config
        self.request_id = request_id
        self.request_failures = 0
        self.connect_failures = 0
        self.read_failures = 0

    def _check(self, source: BaseException, status: Optional[int]) -> None:
        c = self.config
        if (
            self.request_failures >= c.retries
            or self.connect_failures >= c.connect_retries
            or self.read_failures >= c.read_retries
        ):
            message = (
                f"Hit retry limit for request_id={self.request_id} "
                f"(request_failures={self.request_failures}/{c.retries}, "
                f"connect_failures={self.connect_failures}/{c.connect_retries}, "
                f"read_failures={self.read_failures}/{c.read_retries})"
            )
            error = RetryError(
                message,
                self.request_id,
                self.request_failures,
                self.connect_failures,
                self.read_failures,
                c.retries,
                c.connect_retries,
                c.read_retries,
                status,
            )
            raise error from source

    def request_failed(self, source: HttpError) -> None:
        self.request_failures += 1
        self._check(source, source.status_code)

    def connect_failed(self, source: HttpError) -> None:
        self.connect_failures += 1
        self._check(source, source.status_code)

    def read_failed(self, source: HttpError) -> None:
        self.read_failures += 1
        self._check(source, source.status_code)

    def sleep_time(self) -> float:
        c = self.config
        return c.backoff_factor * (2.0**self.request_failures) + random.random() * c.backoff_jitter


class RestClient:
    """The transport of one remote connection."""

    def __init__(
        self,
        db_url: str,
        api_key: str,
        region: str,
        host_override: Optional[str],
        client_config: ClientConfig,
        storage_options: Optional[Dict[str, str]] = None,
    ):
        db_name, db_prefix = parse_db_url(db_url)
        self.db_name = db_name
        if host_override is not None:
            self.host = host_override
        else:
            hostname = f"{db_name}.{region}.api.lancedb.com"
            validate_dns_hostname(hostname)
            self.host = f"https://{hostname}"
        self.config = client_config
        self.headers = self._default_headers(
            api_key, region, db_name, host_override is not None, db_prefix, storage_options
        )
        self.header_provider = client_config.header_provider
        self.id_delimiter = client_config.id_delimiter or "$"
        timeouts = client_config.timeout_config
        if timeouts is None:
            from . import TimeoutConfig

            timeouts = TimeoutConfig()
        self.connect_timeout = _env_seconds(
            timeouts.connect_timeout, "LANCE_CLIENT_CONNECT_TIMEOUT", 120.0
        )
        self.read_timeout = _env_seconds(timeouts.read_timeout, "LANCE_CLIENT_READ_TIMEOUT", 300.0)
        self.timeout = _env_seconds(timeouts.timeout, "LANCE_CLIENT_TIMEOUT", None)
        self.retry_config = ResolvedRetryConfig.resolve(client_config.retry_config)
        self._local = threading.local()
        self._verify: Any = True
        self._cert: Any = None
        tls = client_config.tls_config
        if tls is not None:
            if tls.cert_file and tls.key_file:
                self._cert = (tls.cert_file, tls.key_file)
            if tls.ssl_ca_cert:
                self._verify = tls.ssl_ca_cert

    def _default_headers(
        self,
        api_key: str,
        region: str,
        db_name: str,
        has_host_override: bool,
        db_prefix: Optional[str],
        storage_options: Optional[Dict[str, str]],
    ) -> Dict[str, str]:
        config = self.config
        headers: Dict[str, str] = {"User-Agent": config.user_agent}
        if api_key:
            headers["x-api-key"] = api_key
        if region == "local":
            headers["Host"] = f"{db_name}.local.api.lancedb.com"
        if has_host_override:
            headers["x-lancedb-database"] = db_name
        if db_prefix:
            headers["x-lancedb-database-prefix"] = db_prefix
        options = storage_options or {}
        account = options.get("azure_storage_account_name", options.get("account_name"))
        if account:
            headers["x-azure-storage-account-name"] = account
        for key, value in (config.extra_headers or {}).items():
            headers[key] = value
        user_id = config.user_id
        if not user_id:
            user_id = os.environ.get("LANCEDB_USER_ID") or None
        if not user_id and os.environ.get("LANCEDB_USER_ID_ENV_KEY"):
            user_id = os.environ.get(os.environ["LANCEDB_USER_ID_ENV_KEY"]) or None
        if user_id:
            headers["x-lancedb-user-id"] = user_id
        return headers

    # Transport ------------------------------------------------------------------------------

    def _session(self) -> Any:
        local = self._local
        session = getattr(local, "session", None)
        if session is None or getattr(local, "pid", None) != os.getpid():
            session = _requests().Session()
            # No .netrc credentials or CA bundle variables (LanceDB's client reads neither);
            # proxies come from the environment as reqwest takes them (see _send_once).
            session.trust_env = False
            local.session = session
            local.pid = os.getpid()
        return session

    def url(self, path: str) -> str:
        return f"{self.host}{path}"

    def table_path(self, identifier: str, action: str = "") -> str:
        """``/v1/table/{id}/{action}`` with the identifier percent-encoded as a URL path
        segment would be (``$`` stays literal)."""
        return f"/v1/table/{quote(identifier, safe='$')}/{action}"

    def _static_request_id(self) -> Optional[str]:
        """An ``x-request-id`` of the extra headers names every request (as in LanceDB)."""
        for key, value in self.headers.items():
            if key.lower() == "x-request-id":
                return value
        return None

    def _headers(self, extra: Optional[Dict[str, str]], request_id: str) -> Dict[str, str]:
        headers = dict(self.headers)
        if extra:
            headers.update(extra)
        if not any(k.lower() == "x-request-id" for k in headers):
            headers["x-request-id"] = request_id
        if self.header_provider is not None:
            for key, value in self.header_provider.get_headers().items():
                for existing in [k for k in headers if k.lower() == key.lower()]:
                    del headers[existing]
                headers[key] = value
        return headers

    def _timeout(self) -> Tuple[float, Optional[float]]:
        read = self.read_timeout
        if self.timeout is not None:
            read = min(read, self.timeout) if read is not None else self.timeout
        connect = self.connect_timeout
        if self.timeout is not None:
            connect = min(connect, self.timeout)
        return (connect, read)

    def _send_once(
        self,
        method: str,
        path: str,
        request_id: str,
        params: Optional[List[Tuple[str, Any]]],
        headers: Optional[Dict[str, str]],
        body: Any,
        json_body: Any,
    ) -> Any:
        """One attempt; transport failures become HttpError tagged with their kind."""
        requests = _requests()
        query = list(params or [])
        if self.id_delimiter != "$":
            query.append(("delimiter", self.id_delimiter))
        all_headers = self._headers(headers, request_id)
        kwargs: Dict[str, Any] = {}
        if json_body is not _NO_BODY:
            import json

            kwargs["data"] = json.dumps(json_body).encode()
            all_headers.setdefault("Content-Type", "application/json")
        elif body is not None:
            kwargs["data"] = body
        url = self.url(path)
        try:
            return self._session().request(
                method,
                url,
                params=query or None,
                headers=all_headers,
                timeout=self._timeout(),
                verify=self._verify,
                cert=self._cert,
                proxies=requests.utils.get_environ_proxies(url),
                **kwargs,
            )
        except requests.exceptions.ConnectionError as e:
            kind = "connect"
            if not isinstance(e, requests.exceptions.ConnectTimeout) and _is_read_error(e):
                kind = "read"
            raise _TransportError(kind, request_id, _transport_text(e)) from e
        except (
            requests.exceptions.Timeout,
            requests.exceptions.ChunkedEncodingError,
            requests.exceptions.ContentDecodingError,
        ) as e:
            raise _TransportError("read", request_id, _transport_text(e)) from e
        except requests.exceptions.RequestException as e:
            raise _TransportError("other", request_id, _transport_text(e)) from e

    @staticmethod
    def new_request_id() -> str:
        return str(uuid.uuid4())

    def send_once(
        self,
        method: str,
        path: str,
        request_id: str,
        *,
        params: Optional[List[Tuple[str, Any]]] = None,
        headers: Optional[Dict[str, str]] = None,
        body: Any = None,
    ) -> Any:
        """One attempt without retries; a transport failure raises ``_TransportError``
        (its ``kind`` "connect", "read" or "other", its ``error`` the HttpError)."""
        return self._send_once(method, path, request_id, params, headers, body, _NO_BODY)

    def send(
        self,
        method: str,
        path: str,
        *,
        params: Optional[List[Tuple[str, Any]]] = None,
        headers: Optional[Dict[str, str]] = None,
        body: Any = None,
        json: Any = None,
        retry: bool = True,
        request_id: Optional[str] = None,
    ) -> Tuple[str, Any]:
        """Send a request; return (request id, response). With `retry`, retry on the retry
        statuses and on connect/read failures as LanceDB does (a ``RetryError`` once a budget
        is spent); without, only transport failures raise. The response may still carry an
        error status: see ``check``."""
        json_body = _NO_BODY if json is None else json
        request_id = request_id or self._static_request_id() or str(uuid.uuid4())
        if not retry:
            try:
                return request_id, self._send_once(
                    method, path, request_id, params, headers, body, json_body
                )
            except _TransportError as e:
                raise e.error from e.__cause__
        counter = RetryCounter(self.retry_config, request_id)
        statuses = self.retry_config.statuses
        while True:
            try:
                response = self._send_once(
                    method, path, request_id, params, headers, body, json_body
                )
            except _TransportError as e:
                if e.kind == "connect":
                    counter.connect_failed(e.source)
                elif e.kind == "read":
                    counter.read_failed(e.source)
                else:
                    raise e.error from e.__cause__
            else:
                if 200 <= response.status_code < 300 or response.status_code not in statuses:
                    return request_id, response
                counter.request_failed(response_error(request_id, response))
            time.sleep(counter.sleep_time())

    def check(self, request_id: str, response: Any) -> Any:
        """`response` when it succeeded, else its HttpError."""
        if 200 <= response.status_code < 300:
            return response
        raise response_error(request_id, response)


class _NoBody:
    pass


_NO_BODY = _NoBody()


class _TransportError(Exception):
    """A request that got no response. ``error`` is the HttpError a caller sees; ``source``
    the bare transport error a RetryError names as its cause (LanceDB's reqwest error)."""

    def __init__(self, kind: str, request_id: str, text: str):
        super().__init__(text)
        self.kind = kind
        self.error = http_error(request_id, text)
        self.source = HttpError(text, request_id, None)


def _is_read_error(e: BaseException) -> bool:
    """Whether a ConnectionError happened after the connection was made (the server closed
    it while the response was read)."""
    text = repr(e)
    return (
        any(
            marker in text
            for marker in (
                "RemoteDisconnected",
                "IncompleteRead",
                "ProtocolError",
                "Read timed out",
            )
        )
        and "NewConnectionError" not in text
        and "Connection refused" not in text
    )


def _transport_text(e: Any) -> str:
    """reqwest's text of a failed request: ``error sending request for url (<url>)``."""
    url = getattr(getattr(e, "request", None), "url", None)
    return f"error sending request for url ({url})" if url else f"error sending request: {e}"
