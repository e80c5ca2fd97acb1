# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Optional third-party libraries, imported on first use (``lancedb.dependencies``).

``numpy``, ``pandas``, ``polars``, ``torch``, ``datasets``, ``tensorflow``, ``ray`` and
``lance`` are stand-ins that import the real module when an attribute is first read; a
library that is not installed raises ModuleNotFoundError naming it at that point, not at
import. ``_X_AVAILABLE`` says whether it is installed, and ``_check_for_X(obj)`` whether
`obj` (or its type) comes from it, without importing it.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from importlib import import_module
from importlib.util import find_spec
from types import ModuleType
from typing import Any, Tuple

# The prefix an error message shows for an attribute of each library.
_ALIASES = {"numpy": "np.", "pandas": "pd.", "polars": "pl.", "tensorflow": "tf."}


class _LazyModule(ModuleType):
    """A stand-in for module `module_name` that imports it on first attribute access."""

    __lazy__ = True

    def __init__(self, module_name: str, *, module_available: bool) -> None:
        super().__init__(module_name)
        self._module_name = module_name
        self._module_available = module_available

    def __getattr__(self, attr: str) -> Any:
        if attr == "__wrapped__":  # not a decorator: keep hasattr() from importing
            raise AttributeError(attr)
        if self._module_available:
            module = import_module(self._module_name)
            self.__dict__.update(module.__dict__)
            globals()[self._module_name] = module
            return getattr(module, attr)
        if attr == "__name__":
            return self._module_name
        if attr.startswith("__") and attr.endswith("__") and attr != "__version__":
            return None
        prefix = _ALIASES.get(self._module_name, f"{self._module_name}.")
        raise ModuleNotFoundError(
            f"{prefix}{attr} requires {self._module_name!r} module to be installed"
        )


def _lazy_import(module_name: str) -> Tuple[ModuleType, bool]:
    """The module if already imported, else a stand-in; and whether it is installed."""
    if module_name in sys.modules:
        return sys.modules[module_name], True
    try:
        spec = find_spec(module_name)
        available = spec is not None and spec.loader is not None
    except (ModuleNotFoundError, ValueError):
        available = False
    return _LazyModule(module_name, module_available=available), available


numpy, _NUMPY_AVAILABLE = _lazy_import("numpy")
pandas, _PANDAS_AVAILABLE = _lazy_import("pandas")
polars, _POLARS_AVAILABLE = _lazy_import("polars")
torch, _TORCH_AVAILABLE = _lazy_import("torch")
datasets, _HUGGING_FACE_AVAILABLE = _lazy_import("datasets")
tensorflow, _TENSORFLOW_AVAILABLE = _lazy_import("tensorflow")
ray, _RAY_AVAILABLE = _lazy_import("ray")
lance, _LANCE_AVAILABLE = _lazy_import("lance")


@lru_cache(maxsize=None)
def _might_be(cls: type, module_name: str) -> bool:
    """Whether a class in `cls`'s MRO comes from `module_name` (judged by its repr)."""
    try:
        return any(f"{module_name}." in str(klass) for klass in cls.mro())
    except TypeError:
        return False


def _check(available: bool, obj: Any, check_type: bool, module_name: str) -> bool:
    return available and _might_be(type(obj) if check_type else obj, module_name)


def _check_for_numpy(obj: Any, *, check_type: bool = True) -> bool:
    return _check(_NUMPY_AVAILABLE, obj, check_type, "numpy")


def _check_for_pandas(obj: Any, *, check_type: bool = True) -> bool:
    return _check(_PANDAS_AVAILABLE, obj, check_type, "pandas")


def _check_for_polars(obj: Any, *, check_type: bool = True) -> bool:
    return _check(_POLARS_AVAILABLE, obj, check_type, "polars")


def _check_for_torch(obj: Any, *, check_type: bool = True) -> bool:
    return _check(_TORCH_AVAILABLE, obj, check_type, "torch")


def _check_for_hugging_face(obj: Any, *, check_type: bool = True) -> bool:
    return _check(_HUGGING_FACE_AVAILABLE, obj, check_type, "datasets")


def _check_for_tensorflow(obj: Any, *, check_type: bool = True) -> bool:
    return _check(_TENSORFLOW_AVAILABLE, obj, check_type, "tensorflow")


def _check_for_ray(obj: Any, *, check_type: bool = True) -> bool:
    return _check(_RAY_AVAILABLE, obj, check_type, "ray")


def _check_for_lance(obj: Any, *, check_type: bool = True) -> bool:
    return _check(_LANCE_AVAILABLE, obj, check_type, "lance")


__all__ = [
    "datasets", "numpy", "pandas", "polars", "ray", "tensorflow", "torch", "lance",
    "_check_for_hugging_face", "_check_for_numpy", "_check_for_pandas", "_check_for_polars",
    "_check_for_tensorflow", "_check_for_torch", "_check_for_ray", "_check_for_lance",
    "_LazyModule",
    "_NUMPY_AVAILABLE", "_PANDAS_AVAILABLE", "_POLARS_AVAILABLE", "_TORCH_AVAILABLE",
    "_HUGGING_FACE_AVAILABLE", "_TENSORFLOW_AVAILABLE", "_RAY_AVAILABLE", "_LANCE_AVAILABLE",
]  # fmt: skip
