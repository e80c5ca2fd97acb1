# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""``WatsonxReranker``: not supported by lancedb_cpp; creating one raises NotImplementedError."""

from ._hosted import WatsonxReranker

__all__ = ["WatsonxReranker"]
