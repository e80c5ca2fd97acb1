# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The registry of embedding functions, and their (de)serialization in table metadata.

A table stores its embedding functions in its Arrow schema metadata under the key
``embedding_functions``: a JSON list (indented by 2) of objects with the keys ``name`` (the
registered alias), ``model`` (the ``create`` arguments), ``source_column`` and
``vector_column`` -- the same bytes LanceDB writes, so tables move between the engines."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Type

from .base import EmbeddingFunction, EmbeddingFunctionConfig

METADATA_KEY = "embedding_functions"


class EmbeddingFunctionRegistry:
    """Maps names to embedding function classes. Use the process-wide instance
    (``get_registry()`` / ``EmbeddingFunctionRegistry.get_instance()``) and its
    ``register(alias)`` class decorator; ``registry.get(alias).create(**kwargs)`` builds
    a function."""

    @classmethod
    def get_instance(cls) -> "EmbeddingFunctionRegistry":
        return _GLOBAL

    def __init__(self) -> None:
        self._functions: Dict[str, Type[EmbeddingFunction]] = {}
        self._variables: Dict[str, str] = {}

    def register(self, alias: Optional[str] = None):
        """A class decorator registering an EmbeddingFunction subclass under `alias` (or its
        class name)."""

        def decorator(cls):
            if not (isinstance(cls, type) and issubclass(cls, EmbeddingFunction)):
                raise TypeError("Must be a subclass of EmbeddingFunction")
            if cls.__name__ in self._functions:
                raise KeyError(f"{cls.__name__} was already registered")
            self._functions[alias or cls.__name__] = cls
            # As LanceDB: the alias given (None when registered without one) is what the
            # table metadata records as the function's name.
            cls.__embedding_function_registry_alias__ = alias
            return cls

        return decorator

    def reset(self) -> None:
        """Forget every registered function."""
        self._functions = {}

    def get(self, name: str) -> Type[EmbeddingFunction]:
        """The class registered under `name` (KeyError when there is none)."""
        return self._functions[name]

    def parse_functions(
        self, metadata: Optional[Dict[Any, Any]]
    ) -> Dict[str, EmbeddingFunctionConfig]:
        """The configurations stored in Arrow schema metadata, by vector column ({} when there
        are none). A function name that is not registered raises KeyError."""
        if metadata is None:
            return {}
        raw = metadata.get(METADATA_KEY.encode(), metadata.get(METADATA_KEY))
        if raw is None:
            return {}
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8")
        configs = {}
        for entry in json.loads(raw):
            function = self.get(entry["name"]).create(**entry["model"])
            configs[entry["vector_column"]] = EmbeddingFunctionConfig(
                vector_column=entry["vector_column"],
                source_column=entry["source_column"],
                function=function,
            )
        return configs

    def function_to_metadata(self, conf: EmbeddingFunctionConfig) -> Dict[str, Any]:
        """The JSON-ready description of one configuration."""
        function = conf.function
        name = getattr(
            function, "__embedding_function_registry_alias__", type(function).__name__
        )
        return {
            "name": name,
            "model": function.safe_model_dump(),
            "source_column": conf.source_column,
            "vector_column": conf.vector_column,
        }

    def get_table_metadata(self, func_list: Optional[List[EmbeddingFunctionConfig]]):
        """Schema metadata (``{"embedding_functions": bytes}``) for these configurations, or
        None when there are none."""
        if not func_list:
            return None
        entries = [self.function_to_metadata(conf) for conf in func_list]
        return {METADATA_KEY: json.dumps(entries, indent=2).encode("utf-8")}

    def set_var(self, name: str, value: str) -> None:
        """Set a variable that ``create`` arguments reference as ``"$var:name"`` (or
        ``"$var:name:default"``). Names cannot contain a colon."""
        if ":" in name:
            raise ValueError("Variable names cannot contain colons")
        self._variables[name] = value

    def get_var(self, name: str) -> str:
        """A variable's value (KeyError when unset)."""
        return self._variables[name]


_GLOBAL = EmbeddingFunctionRegistry()


def register(name: Optional[str] = None):
    """``get_registry().register(name)``."""
    return _GLOBAL.register(name)


def get_registry() -> EmbeddingFunctionRegistry:
    """The process-wide registry."""
    return _GLOBAL
