# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""What lancedb_cpp does not support raises NotImplementedError; an engine error is never
answered by some other operation."""

import pytest

from lancedb_cpp.table import Table


class _QueryNotSupported:
    """Stands in for the native table: queries are NotSupported, a plain scan would work."""

    def query(self, **kwargs):
        raise NotImplementedError("query is not supported here")

    def query_schema(self, **kwargs):
        raise NotImplementedError("query is not supported here")

    def scan(self, *args):
        raise AssertionError("the query fell back to a scan")


def test_engine_not_supported_is_raised_not_answered_by_a_scan():
    table = Table(None, _QueryNotSupported())
    with pytest.raises(NotImplementedError, match="query is not supported here"):
        table.search().limit(5).to_arrow()
    with pytest.raises(NotImplementedError, match="query is not supported here"):
        table.search().select(["id"]).output_schema()
