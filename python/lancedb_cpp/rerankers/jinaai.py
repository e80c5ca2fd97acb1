# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``JinaReranker``: not supported by lancedb_cpp; creating one raises NotImplementedError."""

from ._hosted import JinaReranker

__all__ = ["JinaReranker"]
