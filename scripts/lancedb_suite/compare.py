# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Compare the two runs of LanceDB's suite that scripts/lancedb_suite.sh makes (JUnit XML
reports lancedb.xml and cpp.xml in the given directory): a per-file table in Markdown, and
<dir>/differences.txt with each test that passes on LanceDB and not on lancedb_cpp."""

import collections
import pathlib
import sys
import xml.etree.ElementTree as ET


def outcomes(report: pathlib.Path):
    """{(file, test): 'passed' | 'failed' | 'skipped'}; a file that fails at import counts as
    one failed 'collection' entry."""
    result = {}
    if not report.exists():
        return result
    for case in ET.parse(report).getroot().iter("testcase"):
        classname = case.get("classname", "")
        module = classname.split(".")[0] if classname else case.get("name", "")
        file = module + ".py" if module else "?"
        name = classname[len(module) + 1:] + "::" + case.get("name") if "." in classname \
            else case.get("name")
        if case.find("failure") is not None or case.find("error") is not None:
            state = "failed"
        elif case.find("skipped") is not None:
            state = "skipped"
        else:
            state = "passed"
        result[(file, name)] = state
    return result


def main() -> int:
    out = pathlib.Path(sys.argv[1])
    ours, theirs = outcomes(out / "cpp.xml"), outcomes(out / "lancedb.xml")
    files = sorted({f for f, _ in ours} | {f for f, _ in theirs})
    count = collections.Counter()
    for (f, _), state in theirs.items():
        count[("lancedb", f, state)] += 1
    for (f, _), state in ours.items():
        count[("cpp", f, state)] += 1
    print("| file | LanceDB passed | lancedb_cpp passed | lancedb_cpp failed | "
          "lancedb_cpp skipped |")
    print("|---|---:|---:|---:|---:|")
    totals = collections.Counter()
    for f in files:
        row = (count[("lancedb", f, "passed")], count[("cpp", f, "passed")],
               count[("cpp", f, "failed")], count[("cpp", f, "skipped")])
        totals.update(dict(zip("abcd", row)))
        print(f"| {f} | " + " | ".join(str(x) for x in row) + " |")
    print(f"| **total** | {totals['a']} | {totals['b']} | {totals['c']} | {totals['d']} |")
    differences = sorted(k for k, v in theirs.items() if v == "passed" and ours.get(k) != "passed")
    (out / "differences.txt").write_text(
        "".join(f"{f}::{name} ({ours.get((f, name), 'absent')})\n" for f, name in differences))
    print(f"\n{len(differences)} tests pass on LanceDB and not on lancedb_cpp "
          f"(listed in {out / 'differences.txt'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
