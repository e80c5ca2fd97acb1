# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Permutations (``lancedb.permutation``: shuffled, split views of a table for training) are
not supported yet; the names exist and raise NotImplementedError naming the feature."""

from __future__ import annotations

from typing import Any

from . import _not_yet as nyi
from ._not_yet import not_yet, unsupported_class
from .table import LanceTable, Table  # noqa: F401 (as LanceDB)

DEFAULT_BATCH_SIZE = 100

Permutation = unsupported_class("Permutation", nyi.PERMUTATIONS, __name__)
PermutationBuilder = unsupported_class("PermutationBuilder", nyi.PERMUTATIONS, __name__)
PermutationReader = unsupported_class("PermutationReader", nyi.PERMUTATIONS, __name__)
Permutations = unsupported_class("Permutations", nyi.PERMUTATIONS, __name__)
Transforms = unsupported_class("Transforms", nyi.PERMUTATIONS, __name__)


@not_yet(nyi.PERMUTATIONS)
def permutation_builder(table: Table) -> PermutationBuilder:
    """Start building a permutation of `table`."""


@not_yet(nyi.PERMUTATIONS)
def async_permutation_builder(table: Any) -> PermutationBuilder:
    """Start building a permutation of an AsyncTable."""


__all__ = [
    "Permutation",
    "PermutationBuilder",
    "Permutations",
    "Transforms",
    "async_permutation_builder",
    "permutation_builder",
]
