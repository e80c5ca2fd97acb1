# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Configuration of LanceDB's remote client (``lancedb.remote``). The classes hold values as
LanceDB's do; connecting to a remote database (``db://``) is not supported by lancedb_cpp yet,
so ``connect`` rejects them with NotImplementedError."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from enum import Enum
from typing import List, Optional

from .._not_yet import REMOTE, unsupported_class
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


@dataclass
class TimeoutConfig:
    """Timeouts of remote requests."""

    timeout: Optional[timedelta] = None
    connect_timeout: Optional[timedelta] = None
    read_timeout: Optional[timedelta] = None
    pool_idle_timeout: Optional[timedelta] = None


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

    user_agent: str = "LanceDB-Python-Client/0.39.0"
    retry_config: RetryConfig = field(default_factory=RetryConfig)
    timeout_config: Optional[TimeoutConfig] = field(default_factory=TimeoutConfig)
    extra_headers: Optional[dict] = None
    id_delimiter: Optional[str] = None
    tls_config: Optional[TlsConfig] = None
    header_provider: Optional[HeaderProvider] = None
    user_id: Optional[str] = None


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


# Connections to remote databases (``db://``) are not built yet: constructing one raises.
RemoteDBConnection = unsupported_class("RemoteDBConnection", REMOTE, __name__)
