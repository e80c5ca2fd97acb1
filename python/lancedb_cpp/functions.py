# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Server-side functions (UDFs) and the result of a computed-column refresh job
(``lancedb.functions``). UDFs are a LanceDB Enterprise feature lancedb_cpp does not have: their
classes exist, and constructing one raises NotImplementedError. ``RefreshColumnResult`` is what
``refresh_column_async(...).wait()`` returns."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from pydantic import BaseModel, ConfigDict, NonNegativeInt

from ._not_yet import FUNCTIONS, unsupported_class

UdfDefinition = unsupported_class("UdfDefinition", FUNCTIONS, __name__)
FunctionVersion = unsupported_class("FunctionVersion", FUNCTIONS, __name__)
FunctionApplication = unsupported_class("FunctionApplication", FUNCTIONS, __name__)


class RefreshColumnResult(BaseModel):
    """Terminal result of a computed-column refresh job.

    rows_assigned: rows given a (non-NULL) value; rows_failed: rows whose expression failed,
    left unfilled; rows_remaining: rows still unfilled that a later refresh evaluates again;
    source_version: the version the refresh read; published_version: the version that
    published the values (None when no row was assigned and nothing was committed).
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    rows_assigned: NonNegativeInt
    rows_failed: NonNegativeInt
    rows_remaining: NonNegativeInt
    source_version: NonNegativeInt
    published_version: Optional[NonNegativeInt] = None

    @property
    def rows_filled(self) -> int:
        """Deprecated alias of :attr:`rows_assigned`."""
        return self.rows_assigned

    @property
    def version(self) -> Optional[int]:
        """Deprecated alias of :attr:`published_version`."""
        return self.published_version

    @classmethod
    def from_json(cls, payload: str) -> "RefreshColumnResult":
        """Parse the JSON form (``to_canonical_json``)."""
        return cls.model_validate_json(payload)

    def to_canonical_json(self) -> str:
        """Compact JSON with sorted keys, leaving out a None published_version."""
        known: Dict[str, Any] = {k: v for k, v in self.model_dump().items() if v is not None}
        return json.dumps(known, sort_keys=True, separators=(",", ":"))


__all__ = ["FunctionApplication", "FunctionVersion", "RefreshColumnResult", "UdfDefinition"]
