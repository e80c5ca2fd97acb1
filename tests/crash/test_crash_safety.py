# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""A writer killed with SIGKILL 200 times loses no acknowledged operation and corrupts nothing.

crash_harness.py holds the driver and the oracle, tools/crash_writer.cc the writer;
scripts/soak.sh runs 1000 kills (figures in docs/reliability.md).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import crash_harness  # noqa: E402


def test_two_hundred_kills(tmp_path):
    summary = crash_harness.run(200, seed=11, uri=str(tmp_path / "db"))
    assert summary["kills"] == 200
    # Enough happened between the kills for the test to mean something.
    assert summary["operations"] > 400


def test_oracle_sequence_is_the_writers():
    # The first operations of seed 11, as tools/crash_writer.cc computes them (SplitMix64).
    kinds = [crash_harness.op_kind(11, i) for i in range(200)]
    assert {"append", "delete", "update", "merge", "compact", "index", "cleanup"} == set(kinds)
    assert crash_harness.splitmix64(0) == 0xE220A8397B1DCDAF
