# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Count the tests that scripts/test.sh ran, from the reports it collects: GoogleTest JSON
reports under <reports>/cpp-*/ and pytest JUnit XML reports <reports>/python-*.xml.

    python3 scripts/test_counts.py build/test-reports
"""

import json
import pathlib
import sys
import xml.etree.ElementTree as ET


def gtest_counts(directory: pathlib.Path):
    ran = skipped = failed = 0
    for report in sorted(directory.rglob("*.json")):
        data = json.loads(report.read_text())
        for suite in data.get("testsuites", []):
            for case in suite.get("testsuite", []):
                if case.get("status") != "RUN":
                    continue
                if case.get("result") == "SKIPPED":
                    skipped += 1
                elif case.get("failures"):
                    failed += 1
                else:
                    ran += 1
    return ran, skipped, failed


def junit_counts(report: pathlib.Path):
    root = ET.parse(report).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    tests = sum(int(s.get("tests", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    return tests - skipped - failed, skipped, failed


def main() -> int:
    reports = pathlib.Path(sys.argv[1])
    rows = []
    for directory in sorted(reports.glob("cpp-*")):
        rows.append(("C++ " + directory.name[4:], *gtest_counts(directory)))
    for report in sorted(reports.glob("python-*.xml")):
        rows.append(("Python " + report.stem[7:], *junit_counts(report)))
    print("== tests run (passed / skipped / failed)")
    for name, passed, skipped, failed in rows:
        print(f"{passed:6d} / {skipped:3d} / {failed:3d}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
