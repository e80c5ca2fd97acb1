# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""OAuth for remote connections (``connect_async("db://...", oauth_config=OAuthConfig(...))``),
as LanceDB's client does it: a header provider that sends ``authorization: Bearer <token>``
(and ``x-lancedb-credential-type: oidc``),
the token fetched with the client-credentials grant (the token endpoint from the issuer's
OIDC discovery document) or from Azure's instance metadata service (managed identity), and
fetched again `refresh_buffer_secs` (300) before it expires (3600 s when the answer has no
``expires_in``).

Thread-safety: one token fetch at a time, however many threads ask for headers.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from typing import Any, Dict, List, Optional
from urllib.parse import urlparse

from . import OAuthConfig, OAuthFlowType
from .header import HeaderProvider

__all__ = ["OAuthConfig", "OAuthFlowType", "OAuthHeaderProvider"]

AZURE_IMDS_ENDPOINT = "http://169.254.169.254/metadata/identity/oauth2/token"
AZURE_IMDS_API_VERSION = "2018-02-01"
DEFAULT_REFRESH_BUFFER_SECS = 300
DEFAULT_TOKEN_TTL_SECS = 3600
_TIMEOUT = 30.0


def _status_text(response: Any) -> str:
    from .client import status_text

    return status_text(response.status_code)


class _ClientCredentials:
    def __init__(self, issuer_url: str, client_id: str, client_secret: Optional[str],
                 scopes: List[str]):  # fmt: skip
        if client_secret is None:
            raise ValueError("Invalid input, client_secret is required for ClientCredentials flow")
        parsed = urlparse(issuer_url)
        if not parsed.scheme or not parsed.netloc:
            raise ValueError(f"Invalid input, Invalid OAuth issuer_url: {issuer_url!r}")
        if parsed.scheme != "https" and not (
            parsed.scheme == "http" and _is_loopback(parsed.hostname or "")
        ):
            raise ValueError(
                "Invalid input, ClientCredentials OAuth issuer_url must use https, except for "
                "loopback hosts"
            )
        self.issuer_url = issuer_url
        self.client_id = client_id
        self.client_secret = client_secret
        self.scopes = scopes
        self._token_endpoint: Optional[str] = None

    def _endpoint(self, session: Any) -> str:
        if self._token_endpoint is not None:
            return self._token_endpoint
        url = f"{self.issuer_url.rstrip('/')}/.well-known/openid-configuration"
        try:
            response = session.get(url, timeout=_TIMEOUT)
        except Exception as e:  # noqa: BLE001 - reported as LanceDB reports it
            raise RuntimeError(
                f"Runtime error: Failed to fetch OIDC discovery document: {e}"
            ) from None
        if not 200 <= response.status_code < 300:
            raise RuntimeError(
                f"Runtime error: OIDC discovery failed with status {_status_text(response)}: "
                f"{response.text}"
            )
        try:
            self._token_endpoint = response.json()["token_endpoint"]
        except (ValueError, KeyError, TypeError) as e:
            raise RuntimeError(
                f"Runtime error: Failed to parse OIDC discovery document: {e}"
            ) from None
        return self._token_endpoint

    def fetch(self, session: Any) -> Dict[str, Any]:
        endpoint = self._endpoint(session)
        form = {
            "grant_type": "client_credentials",
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "scope": " ".join(self.scopes),
        }
        try:
            response = session.post(endpoint, data=form, timeout=_TIMEOUT)
        except Exception as e:  # noqa: BLE001
            raise RuntimeError(f"Runtime error: Token request to {endpoint} failed: {e}") from None
        if not 200 <= response.status_code < 300:
            raise RuntimeError(
                f"Runtime error: Token request failed with status {_status_text(response)}: "
                f"{response.text}"
            )
        return _token(response, "token response")


class _AzureManagedIdentity:
    def __init__(self, scopes: List[str], client_id: Optional[str]):
        if len(scopes) != 1:
            raise ValueError(
                "Invalid input, AzureManagedIdentity flow requires exactly one OAuth scope or "
                "resource"
            )
        scope = scopes[0]
        self.resource = scope[: -len("/.default")] if scope.endswith("/.default") else scope
        self.client_id = client_id

    def fetch(self, session: Any) -> Dict[str, Any]:
        params = {"api-version": AZURE_IMDS_API_VERSION, "resource": self.resource}
        if self.client_id is not None:
            params["client_id"] = self.client_id
        try:
            # No proxy for the link-local metadata service (as LanceDB's client).
            response = session.get(
                AZURE_IMDS_ENDPOINT, params=params, headers={"Metadata": "true"},
                timeout=_TIMEOUT, proxies={"http": None, "https": None},
            )  # fmt: skip
        except Exception as e:  # noqa: BLE001
            raise RuntimeError(f"Runtime error: Azure IMDS request failed: {e}") from None
        if not 200 <= response.status_code < 300:
            raise RuntimeError(
                f"Runtime error: Azure IMDS returned status {_status_text(response)}: "
                f"{response.text}"
            )
        return _token(response, "IMDS token response")


def _token(response: Any, what: str) -> Dict[str, Any]:
    try:
        data = response.json()
        token = data["access_token"]
        expires_in = data.get("expires_in")
        expires_in = None if expires_in is None else int(float(expires_in))
    except (ValueError, KeyError, TypeError) as e:
        raise RuntimeError(f"Runtime error: Failed to parse {what}: {e}") from None
    return {"access_token": token, "expires_in": expires_in}


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class OAuthHeaderProvider(HeaderProvider):
    """The header provider of an ``OAuthConfig``."""

    def __init__(self, config: Any):
        flow = getattr(config.flow, "value", config.flow)
        if not config.scopes:
            raise ValueError("Invalid input, At least one OAuth scope is required")
        if flow == "client_credentials":
            self._source: Any = _ClientCredentials(
                config.issuer_url, config.client_id, config.client_secret, list(config.scopes)
            )
        elif flow == "azure_managed_identity":
            self._source = _AzureManagedIdentity(
                list(config.scopes), config.managed_identity_client_id
            )
        else:
            raise ValueError(f"Invalid input, Unknown OAuth flow type: {flow}")
        buffer = config.refresh_buffer_secs
        self._buffer = DEFAULT_REFRESH_BUFFER_SECS if buffer is None else int(buffer)
        self._token: Optional[str] = None
        self._expires_at = 0.0
        self._lock = threading.Lock()
        self._session: Any = None

    def get_headers(self) -> Dict[str, str]:
        """``authorization: Bearer <token>``, fetching a token first when there is none or it
        expires within the refresh buffer."""
        with self._lock:
            if self._token is None or time.monotonic() + self._buffer >= self._expires_at:
                if self._session is None:
                    from .client import _requests

                    self._session = _requests().Session()
                answer = self._source.fetch(self._session)
                ttl = answer["expires_in"]
                self._token = answer["access_token"]
                self._expires_at = time.monotonic() + (
                    DEFAULT_TOKEN_TTL_SECS if ttl is None else ttl
                )
            # LanceDB 0.39 names the credential type too (as its Python OAuthProvider).
            return {"authorization": f"Bearer {self._token}", "x-lancedb-credential-type": "oidc"}
