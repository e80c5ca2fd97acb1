# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``lancedb.conftest``: what LanceDB's package ships for its own doctests and tests, and what
their users import from it — the mock text embedding functions registered as ``"test"``,
``"nonnorm"`` and ``"test-rate-limited"``, and a pytest fixture that runs each doctest in a
temporary directory without colour. Importing it needs pytest, as in LanceDB."""

import os
import time
from typing import List

import numpy as np
import pytest

from .embeddings import EmbeddingFunctionRegistry, TextEmbeddingFunction

_WIDTH = 10  # the mock embeddings look at the first ten characters of a text


@pytest.fixture(autouse=True)
def doctest_setup(monkeypatch, tmpdir):
    """Doctests print without colour at 80 columns, in a directory of their own."""
    monkeypatch.setitem(os.environ, "NO_COLOR", "1")
    monkeypatch.setitem(os.environ, "COLUMNS", "80")
    monkeypatch.chdir(tmpdir)


def _first_characters(text: str, value) -> List[float]:
    """One float per character of the first ten (value(c)); ten zeros for a shorter text."""
    head = text[:_WIDTH]
    if len(head) < _WIDTH:
        return [0.0] * _WIDTH
    return [float(value(c)) for c in head]


registry = EmbeddingFunctionRegistry.get_instance()


@registry.register("test")
class MockTextEmbeddingFunction(TextEmbeddingFunction):
    """Ten dimensions: the hashes of a text's first ten characters, scaled to unit length
    (zeros for a text shorter than ten characters)."""

    def generate_embeddings(self, texts):
        return [self._compute_one_embedding(text) for text in texts]

    def _compute_one_embedding(self, text):
        values = np.asarray(_first_characters(text, hash))
        norm = np.linalg.norm(values)
        return values / norm if norm else values

    def ndims(self):
        return _WIDTH


@registry.register("nonnorm")
class MockNonNormTextEmbeddingFunction(TextEmbeddingFunction):
    """Ten dimensions: the code points of a text's first ten characters, not normalized."""

    def generate_embeddings(self, texts):
        return [self._compute_one_embedding(text) for text in texts]

    def _compute_one_embedding(self, text):
        return np.asarray(_first_characters(text, ord))

    def ndims(self):
        return _WIDTH


class RateLimitedAPI:
    """A stand-in for a hosted API that refuses a second request within `rate_limit` s."""

    rate_limit = 0.1
    last_request_time = 0.0

    @staticmethod
    def make_request():
        now = time.time()
        if now - RateLimitedAPI.last_request_time < RateLimitedAPI.rate_limit:
            raise Exception("Rate limit exceeded. Please try again later.")
        RateLimitedAPI.last_request_time = now
        return "Request successful"


@registry.register("test-rate-limited")
class MockRateLimitedEmbeddingFunction(MockTextEmbeddingFunction):
    """MockTextEmbeddingFunction behind RateLimitedAPI (for the retry tests)."""

    def generate_embeddings(self, texts):
        RateLimitedAPI.make_request()
        return super().generate_embeddings(texts)
