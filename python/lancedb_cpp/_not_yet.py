# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Names of LanceDB features lancedb_cpp does not have yet: they exist, so imports work, and
using them raises NotImplementedError naming the feature."""

from __future__ import annotations

from typing import Any, Callable


def unsupported_class(name: str, feature: str) -> type:
    """A class whose construction raises NotImplementedError naming `feature`."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(f"{name}: {feature} is not supported by lancedb_cpp yet")

    return type(name, (), {"__init__": __init__, "__doc__": f"Not supported yet: {feature}."})


def unsupported_function(name: str, feature: str) -> Callable[..., Any]:
    """A function that raises NotImplementedError naming `feature`."""

    def function(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{name}: {feature} is not supported by lancedb_cpp yet")

    function.__name__ = name
    function.__doc__ = f"Not supported yet: {feature}."
    return function
