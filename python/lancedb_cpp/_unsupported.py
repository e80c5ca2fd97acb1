# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Parameters of LanceDB's API that lancedb_cpp accepts but does not implement.

Such a parameter keeps LanceDB's name and default, so that code written for LanceDB runs
unchanged while it passes the default; any other value raises NotImplementedError naming the
parameter, never silently does something else.
"""

from __future__ import annotations

from typing import Any, Tuple


def _is_default(value: Any, default: Any) -> bool:
    if value is default:
        return True
    if default is None or value is None:
        return False
    return type(value) is type(default) and value == default


def reject_unsupported(function: str, **params: Tuple[Any, Any]) -> None:
    """Raise NotImplementedError for the first of `params` (name=(value, default)) whose value
    is not its default."""
    for name, (value, default) in params.items():
        if not _is_default(value, default):
            raise NotImplementedError(
                f"{function}({name}=...) is not supported by lancedb_cpp; leave it at its "
                f"default ({default!r})"
            )


def warn_deprecated(function: str, since: str, details: str, stacklevel: int = 3) -> None:
    """Emit the DeprecationWarning LanceDB emits for `function`, deprecated in LanceDB
    `since`: "<function> is deprecated as of <since>. <details>"."""
    import warnings

    warnings.warn(
        f"{function} is deprecated as of {since}. {details}",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
