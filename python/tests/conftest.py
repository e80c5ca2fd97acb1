# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Fixtures: a lancedb_cpp database and the real LanceDB (the oracle) side by side."""

import warnings

import pytest

import lancedb_cpp


@pytest.fixture
def db(tmp_path):
    return lancedb_cpp.connect(tmp_path / "cpp")


@pytest.fixture
def oracle(tmp_path):
    import lancedb
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    return lancedb.connect(tmp_path / "oracle")


@pytest.fixture
def both(db, oracle):
    """(lancedb_cpp connection, lancedb connection)."""
    return db, oracle
