# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""LanceDB's remote client (``lancedb.remote``): the configuration of connections to a remote
database (``connect("db://name", api_key=..., client_config=...)``), as LanceDB's dataclasses,
dicts coerced to them as LanceDB does. The connection (db.py), its tables (table.py) and the
HTTP client (client.py) speak LanceDB's REST protocol; see docs/remote.md."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from enum import Enum
from typing import List, Optional

from .header import HeaderProvider

__all__ = [
    "ClientConfig",
    "HeaderProvider",
    "OAuthConfig",
    "OAuthFlowType",
    "RetryConfig",
    "TimeoutConfig",
    "TlsConfig",
]


def _to_timedelta(value) -> Optional[timedelta]:
    if value is None or isinstance(value, timedelta):
        return value
    if isinstance(value, (int, float)):
        return timedelta(seconds=value)
    raise ValueError(
        f"Invalid value for timeout: {value}, must be a timedelta or number of seconds"
    )


def _version() -> str:
    from .. import _native

    return _native.__version__


@dataclass
class TimeoutConfig:
    """Timeouts of remote requests."""

    timeout: Optional[timedelta] = None
    connect_timeout: Optional[timedelta] = None
    read_timeout: Optional[timedelta] = None
    pool_idle_timeout: Optional[timedelta] = None

    def __post_init__(self):
        # Numbers are seconds (as in LanceDB).
        self.timeout = _to_timedelta(self.timeout)
        self.connect_timeout = _to_timedelta(self.connect_timeout)
        self.read_timeout = _to_timedelta(self.read_timeout)
        self.pool_idle_timeout = _to_timedelta(self.pool_idle_timeout)


@dataclass
class RetryConfig:
    """Retries of remote requests."""

    retries: Optional[int] = None
    connect_retries: Optional[int] = None
    read_retries: Optional[int] = None
    backoff_factor: Optional[float] = None
    backoff_jitter: Optional[float] = None
    statuses: Optional[List[int]] = None


@dataclass
class TlsConfig:
    """TLS settings of remote requests."""

    cert_file: Optional[str] = None
    key_file: Optional[str] = None
    ssl_ca_cert: Optional[str] = None
    assert_hostname: bool = True


@dataclass
class ClientConfig:
    """Settings of the remote client."""

    user_agent: str = field(default_factory=lambda: f"LanceDB-Python-Client/{_version()}")
    retry_config: RetryConfig = field(default_factory=RetryConfig)
    timeout_config: Optional[TimeoutConfig] = field(default_factory=TimeoutConfig)
    extra_headers: Optional[dict] = None
    id_delimiter: Optional[str] = None
    tls_config: Optional[TlsConfig] = None
    header_provider: Optional[HeaderProvider] = None
    user_id: Optional[str] = None

    def __post_init__(self):
        if isinstance(self.retry_config, dict):
            self.retry_config = RetryConfig(**self.retry_config)
        if isinstance(self.timeout_config, dict):
            self.timeout_config = TimeoutConfig(**self.timeout_config)
        if isinstance(self.tls_config, dict):
            self.tls_config = TlsConfig(**self.tls_config)


class OAuthFlowType(str, Enum):
    CLIENT_CREDENTIALS = "client_credentials"
    AZURE_MANAGED_IDENTITY = "azure_managed_identity"


@dataclass
class OAuthConfig:
    """OAuth settings of the remote client."""

    issuer_url: str
    client_id: str
    scopes: List[str]
    flow: OAuthFlowType = OAuthFlowType.CLIENT_CREDENTIALS
    client_secret: Optional[str] = None
    managed_identity_client_id: Optional[str] = None
    refresh_buffer_secs: Optional[int] = None



def __getattr__(name: str):
    # The connection class loads on first use (its module imports lancedb_cpp's table code).
    if name == "RemoteDBConnection":
        from .db import RemoteDBConnection

        return RemoteDBConnection
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
