# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""lancedb.remote.header: the header providers behave as the installed lancedb's."""

import threading
import time

import lancedb.remote.header as real
import pytest

import lancedb_cpp.remote as remote
import lancedb_cpp.remote.header as ours


def test_static_provider_returns_copies():
    for module in (ours, real):
        headers = {"X-Key": "k"}
        provider = module.StaticHeaderProvider(headers)
        headers["X-Later"] = "ignored"
        got = provider.get_headers()
        got["X-Changed"] = "x"
        assert provider.get_headers() == {"X-Key": "k"}


def _tokens(*responses):
    calls = []

    def fetch():
        calls.append(1)
        return responses[min(len(calls), len(responses)) - 1]

    return fetch, calls


@pytest.mark.parametrize(
    "responses, buffer",
    [
        ([{"access_token": "a", "expires_in": 3600}], 300),
        ([{"access_token": "a"}, {"access_token": "b"}], 300),
        ([{"access_token": "a", "expires_in": 1}, {"access_token": "b", "expires_in": 1}], 5),
        ([{"expires_in": 10}], 300),
        ([{"access_token": ""}], 300),
    ],
)
def test_oauth_provider_as_lancedb(responses, buffer):
    outcomes = []
    for module in (ours, real):
        fetch, calls = _tokens(*responses)
        provider = module.OAuthProvider(fetch, refresh_buffer_seconds=buffer)
        got = []
        for _ in range(2):
            try:
                got.append(provider.get_headers())
            except Exception as err:  # noqa: BLE001  (compared with LanceDB's)
                got.append((type(err), str(err)))
        outcomes.append((got, len(calls), provider._token_expires_at is None))
    assert outcomes[0] == outcomes[1]


def test_oauth_provider_fetches_once_for_concurrent_callers():
    fetch, calls = _tokens({"access_token": "t", "expires_in": 3600})

    def slow():
        time.sleep(0.05)
        return fetch()

    provider = ours.OAuthProvider(slow)
    results = []
    threads = [threading.Thread(target=lambda: results.append(provider.get_headers()))
               for _ in range(5)]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(results) == 5
    assert all(r["Authorization"] == "Bearer t" for r in results)


def test_header_provider_is_one_class():
    assert remote.HeaderProvider is ours.HeaderProvider
    config = remote.ClientConfig(header_provider=ours.StaticHeaderProvider({"a": "b"}))
    assert config.header_provider.get_headers() == {"a": "b"}
    with pytest.raises(TypeError):
        ours.HeaderProvider()
