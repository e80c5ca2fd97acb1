# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""The import alias that runs LanceDB's own test suite on lancedb_cpp
(scripts/lancedb_suite/sitecustomize.py): `lancedb` is lancedb_cpp itself, still a package
with its files, and `lancedb._lancedb` is the native extension."""

import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]

PROBE = """
import importlib.resources, json
import lancedb, lancedb_cpp, lancedb.table, lancedb._lancedb as native
print(json.dumps({
    "same": lancedb is lancedb_cpp and lancedb.table is lancedb_cpp.table,
    "spec": lancedb_cpp.__spec__.name,
    "py_typed": importlib.resources.files(lancedb).joinpath("py.typed").is_file(),
    "native": native is lancedb_cpp._native and native.__file__.endswith(".so"),
}))
try:
    import lancedb.no_such_module
except ModuleNotFoundError as err:
    print(json.dumps({"missing": err.name}))
"""


def test_alias_keeps_the_package_a_package():
    import json

    import lancedb_cpp

    # lancedb_cpp from where this run imports it (installed, or python/ with the built module)
    home = pathlib.Path(lancedb_cpp.__file__).resolve().parents[1]
    paths = [str(REPO / "scripts" / "lancedb_suite"), str(home)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, check=True, capture_output=True, text=True
    ).stdout.splitlines()
    assert json.loads(out[0]) == {
        "same": True, "spec": "lancedb_cpp", "py_typed": True, "native": True,
    }  # fmt: skip
    assert json.loads(out[1]) == {"missing": "lancedb.no_such_module"}
