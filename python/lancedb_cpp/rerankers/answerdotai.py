# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``AnswerdotaiRerankers``: not supported by lancedb_cpp (creating one raises
NotImplementedError)."""

from ._hosted import AnswerdotaiRerankers

__all__ = ["AnswerdotaiRerankers"]
