# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Python UDFs and computed columns (``lancedb.functions``): not supported by lancedb_cpp
yet. The classes other modules name exist; constructing one raises NotImplementedError."""

from __future__ import annotations

from ._not_yet import FUNCTIONS, unsupported_class

UdfDefinition = unsupported_class("UdfDefinition", FUNCTIONS, __name__)
FunctionVersion = unsupported_class("FunctionVersion", FUNCTIONS, __name__)
FunctionApplication = unsupported_class("FunctionApplication", FUNCTIONS, __name__)
RefreshColumnResult = unsupported_class("RefreshColumnResult", FUNCTIONS, __name__)

__all__ = ["FunctionApplication", "FunctionVersion", "RefreshColumnResult", "UdfDefinition"]
