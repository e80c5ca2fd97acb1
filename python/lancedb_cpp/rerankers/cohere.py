# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``CohereReranker``: not supported by lancedb_cpp; creating one raises NotImplementedError."""

from ._hosted import CohereReranker

__all__ = ["CohereReranker"]
