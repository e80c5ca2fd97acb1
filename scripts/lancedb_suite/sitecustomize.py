# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Import alias for running LanceDB's own Python test suite on lancedb_cpp
(scripts/lancedb_suite.sh): `import lancedb` and `import lancedb.<sub>` give lancedb_cpp and
lancedb_cpp.<sub>. Python imports this module at start-up when its directory is on PYTHONPATH.
Nothing of LanceDB's own package is used: a module lancedb_cpp lacks fails to import."""

import importlib
import importlib.abc
import importlib.util
import sys

ALIAS, TARGET = "lancedb", "lancedb_cpp"


class _AliasLoader(importlib.abc.Loader):
    """Loads `lancedb.x` as the module `lancedb_cpp.x` itself (one module, two names)."""

    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self._real_spec = module.__spec__
        return module

    def exec_module(self, module):
        # The import system has just replaced the module's __spec__ with the alias's; give
        # it back its own, so that it stays a package with its files (py.typed, resources).
        module.__spec__ = self._real_spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        real = TARGET + fullname[len(ALIAS):]
        if importlib.util.find_spec(real) is None:
            # Not LanceDB's own module either: the run measures lancedb_cpp alone.
            raise ModuleNotFoundError(f"No module named {fullname!r} ({real} does not exist)",
                                      name=fullname)
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real))


sys.meta_path.insert(0, _AliasFinder())
