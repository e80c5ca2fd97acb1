# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The helpers of conftest.py cannot pass vacuously: a C++ producer that skipped, a filter that
matched no test, a missing binary or missing fixtures (with their variable set) fail."""

import pytest

from conftest import built, fixtures_dir, run_gtest


def test_run_gtest_passes_a_test_that_ran():
    ran = run_gtest(built("src/common/common_test"), ["TestDirs.SourceDirHoldsTheRepository"])
    assert list(ran) == ["TestDirs.SourceDirHoldsTheRepository"]


def test_run_gtest_fails_a_producer_without_its_input(monkeypatch):
    # Without LANCEDB_TABLE_IN there is nothing to read: the producer fails, never passes.
    monkeypatch.delenv("LANCEDB_TABLE_IN", raising=False)
    with pytest.raises(AssertionError, match="LANCEDB_TABLE_IN"):
        run_gtest(built("src/table/table_test"), ["TableCompat.ReadTableFromPylance"])


def test_run_gtest_fails_a_filter_that_matches_nothing():
    with pytest.raises(AssertionError, match="no test matches 'TableCompat.NoSuchTest'"):
        run_gtest(built("src/table/table_test"),
                  ["TableCompat.WriteTableForPylance", "TableCompat.NoSuchTest"])


def test_run_gtest_fails_a_failing_test(tmp_path):
    # A table pylance never wrote: the reader test fails (and the binary exits 1).
    with pytest.raises(AssertionError):
        run_gtest(built("src/table/table_test"), ["TableCompat.ReadTableFromPylance"],
                  LANCEDB_TABLE_IN=tmp_path / "missing.lance", LANCEDB_EXPECT_ROWS=1)


def test_missing_binary_fails_when_the_build_dir_is_set(monkeypatch, tmp_path):
    monkeypatch.setenv("LANCEDB_BUILD_DIR", str(tmp_path))
    with pytest.raises(pytest.fail.Exception, match="LANCEDB_BUILD_DIR is set"):
        built("src/table/table_test")


def test_missing_fixtures_fail_when_their_dir_is_set(monkeypatch, tmp_path):
    monkeypatch.setenv("LANCEDB_FIXTURES_DIR", str(tmp_path / "absent"))
    with pytest.raises(pytest.fail.Exception, match="LANCEDB_FIXTURES_DIR is set"):
        fixtures_dir()
