# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``openai``: OpenAI's embedding API (and servers compatible with it, through `base_url`)
over the ``openai`` client, as LanceDB's ``OpenAIEmbeddings``."""

from __future__ import annotations

import logging
from functools import cached_property
from typing import Any, List, Optional, Union

import numpy as np

from .utils import attempt_import_or_raise
from .base import TextEmbeddingFunction
from .registry import register

_LOG = logging.getLogger(__name__)


@register("openai")
class OpenAIEmbeddings(TextEmbeddingFunction):
    """Embeddings from the OpenAI API (https://platform.openai.com/docs/guides/embeddings).

    Parameters
    ----------
    name : str, default "text-embedding-ada-002"
        The model (text-embedding-ada-002, text-embedding-3-large, text-embedding-3-small, or
        any model of an OpenAI-compatible server given by `base_url`).
    dim : int, optional
        The dimension asked of the text-embedding-3 models.
    base_url, default_headers, organization : optional
        Passed to the client (``openai.OpenAI``).
    api_key : str, optional
        A ``$var:`` reference (a sensitive key); without it the client reads
        ``OPENAI_API_KEY``.
    use_azure : bool, default False
        Use ``openai.AzureOpenAI`` (configured by its own environment variables).
    """

    name: str = "text-embedding-ada-002"
    dim: Optional[int] = None
    base_url: Optional[str] = None
    default_headers: Optional[dict] = None
    organization: Optional[str] = None
    api_key: Optional[str] = None
    use_azure: bool = False

    @staticmethod
    def sensitive_keys() -> List[str]:
        return ["api_key"]

    @staticmethod
    def model_names() -> List[str]:
        return ["text-embedding-ada-002", "text-embedding-3-large", "text-embedding-3-small"]

    def ndims(self) -> int:
        if self.name == "text-embedding-ada-002":
            return 1536
        if self.name == "text-embedding-3-large":
            return self.dim or 3072
        if self.name == "text-embedding-3-small":
            return self.dim or 1536
        raise ValueError(f"Unknown model name {self.name}")

    def generate_embeddings(self, texts: Union[List[str], np.ndarray]) -> list:
        """One embedding per text; None for an empty or missing text, and for every text when
        the API refuses the request as bad (``openai.BadRequestError``)."""
        openai = attempt_import_or_raise("openai")
        indices = [i for i, text in enumerate(texts) if text]
        request: dict = {"input": [texts[i] for i in indices], "model": self.name}
        if self.name != "text-embedding-ada-002" and self.dim is not None:
            request["dimensions"] = self.dim
        try:
            response = self._openai_client.embeddings.create(**request)
        except openai.AuthenticationError:
            _LOG.error("Authentication failed: Invalid API key provided")
            raise
        except openai.BadRequestError:
            _LOG.exception("Bad request: %s", texts)
            return [None] * len(texts)
        found = {i: item.embedding for item, i in zip(response.data, indices)}
        return [found.get(i) for i in range(len(texts))]

    @cached_property
    def _openai_client(self) -> Any:
        openai = attempt_import_or_raise("openai")
        kwargs = {
            key: value
            for key, value in (
                ("base_url", self.base_url), ("default_headers", self.default_headers),
                ("organization", self.organization), ("api_key", self.api_key),
            )  # fmt: skip
            if value
        }
        return openai.AzureOpenAI(**kwargs) if self.use_azure else openai.OpenAI(**kwargs)

    def __getstate__(self) -> dict:
        return _without_clients(super().__getstate__(), "_openai_client")


def _without_clients(state: dict, *names: str) -> dict:
    """A pickled pydantic state without the cached clients (sockets do not pickle)."""
    state = dict(state)
    state["__dict__"] = {k: v for k, v in state["__dict__"].items() if k not in names}
    return state
