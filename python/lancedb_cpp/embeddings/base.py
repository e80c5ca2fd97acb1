# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The embedding function interface (same names and behaviour as ``lancedb.embeddings``).

An embedding function is a pydantic model: its fields are its configuration, and the
arguments it was created with (``create(**kwargs)``) are what a table stores in its schema
metadata so that the function can be rebuilt when the table is opened again."""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from typing import Any, Dict, List, Optional, Union

import numpy as np
import pyarrow as pa
from pydantic import BaseModel, Field, PrivateAttr

from .utils import TEXT, retry_with_exponential_backoff


def _with_note(err: Exception, note: str) -> Exception:
    if hasattr(err, "add_note"):
        err.add_note(note)
    return err


class EmbeddingFunction(BaseModel, ABC):
    """Base class of embedding functions. Subclasses implement ``ndims()``,
    ``compute_source_embeddings`` (for the stored column) and ``compute_query_embeddings``
    (for a search query); both return one vector (or None) per input."""

    # How often a failing call is retried (with exponential backoff); 0 disables retries.
    max_retries: int = 7
    _ndims: int = PrivateAttr()
    _original_args: dict = PrivateAttr()

    @classmethod
    def create(cls, **kwargs: Any) -> "EmbeddingFunction":
        """Build the function from keyword arguments; ``"$var:name"`` / ``"$var:name:default"``
        values are looked up in the registry's variables. The arguments as given are kept
        (``safe_model_dump``) for the table metadata."""
        instance = cls(**cls._resolve_variables(kwargs))
        instance._original_args = kwargs
        return instance

    @classmethod
    def _resolve_variables(cls, args: Dict[str, Any]) -> Dict[str, Any]:
        from .registry import EmbeddingFunctionRegistry

        registry = EmbeddingFunctionRegistry.get_instance()
        sensitive = set(cls.sensitive_keys())
        resolved = copy.deepcopy(args)
        for key, value in args.items():
            if not isinstance(value, str):
                continue
            if not value.startswith("$var:"):
                if key in sensitive:
                    raise _with_note(
                        ValueError(f"Sensitive key '{key}' cannot be set to a hardcoded value"),
                        "Help: Use $var: to set sensitive keys to variables",
                    )
                continue
            name, sep, default = value[len("$var:"):].partition(":")
            try:
                resolved[key] = registry.get_var(name)
            except KeyError:
                if not sep:
                    raise _with_note(
                        ValueError(f"Variable '{name}' not found in registry"),
                        "Help: Variables are reset in new Python sessions. "
                        "Use `registry.set_var` to set variables.",
                    ) from None
                resolved[key] = default
        return resolved

    @staticmethod
    def sensitive_keys() -> List[str]:
        """Argument names (API keys ...) that must be given as ``$var:`` references."""
        return []

    @abstractmethod
    def compute_query_embeddings(self, *args: Any, **kwargs: Any) -> List[Optional[np.ndarray]]:
        """One embedding per query input (None where it cannot be embedded)."""

    @abstractmethod
    def compute_source_embeddings(self, *args: Any, **kwargs: Any) -> List[Optional[np.ndarray]]:
        """One embedding per value of the source column (None where it cannot be embedded)."""

    def compute_query_embeddings_with_retry(self, *args: Any, **kwargs: Any) -> list:
        """``compute_query_embeddings``, retried up to ``max_retries`` times."""
        call = retry_with_exponential_backoff(
            self.compute_query_embeddings, max_retries=self.max_retries
        )
        return call(*args, **kwargs)

    def compute_source_embeddings_with_retry(self, *args: Any, **kwargs: Any) -> list:
        """``compute_source_embeddings``, retried up to ``max_retries`` times."""
        call = retry_with_exponential_backoff(
            self.compute_source_embeddings, max_retries=self.max_retries
        )
        return call(*args, **kwargs)

    def sanitize_input(self, texts: TEXT) -> Union[List[str], np.ndarray]:
        """A str becomes a one-element list; Arrow arrays become Python lists."""
        if isinstance(texts, str):
            return [texts]
        if isinstance(texts, pa.ChunkedArray):
            return texts.combine_chunks().to_pylist()
        if isinstance(texts, pa.Array):
            return texts.to_pylist()
        return texts

    def safe_model_dump(self) -> dict:
        """The arguments given to ``create`` (unresolved ``$var:`` references included)."""
        if not hasattr(self, "_original_args"):
            raise ValueError(
                "EmbeddingFunction was not created with EmbeddingFunction.create()"
            )
        return self._original_args

    @abstractmethod
    def ndims(self) -> int:
        """The dimension of the vectors this function produces."""

    def SourceField(self, **kwargs: Any) -> Any:  # noqa: N802 - LanceDB's name
        """A pydantic Field marking the model field this function embeds."""
        return Field(json_schema_extra={"source_column_for": self}, **kwargs)

    def VectorField(self, **kwargs: Any) -> Any:  # noqa: N802 - LanceDB's name
        """A pydantic Field marking the model field that receives this function's vectors."""
        return Field(json_schema_extra={"vector_column_for": self}, **kwargs)

    def __eq__(self, other: object) -> bool:
        return hasattr(other, "__dict__") and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash(frozenset(vars(self).items()))


class EmbeddingFunctionConfig(BaseModel):
    """Which embedding function fills which vector column from which source column."""

    vector_column: str
    source_column: str
    function: EmbeddingFunction


class TextEmbeddingFunction(EmbeddingFunction):
    """An embedding function of text: implement ``generate_embeddings(texts)``; queries and
    source values are embedded the same way."""

    def compute_query_embeddings(self, query: str, *args: Any, **kwargs: Any) -> list:
        return self.compute_source_embeddings(query, *args, **kwargs)

    def compute_source_embeddings(self, texts: TEXT, *args: Any, **kwargs: Any) -> list:
        return self.generate_embeddings(self.sanitize_input(texts))

    @abstractmethod
    def generate_embeddings(
        self, texts: Union[List[str], np.ndarray], *args: Any, **kwargs: Any
    ) -> List[Optional[np.ndarray]]:
        """One embedding per text."""
