# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Permutations (``lancedb.permutation``): not supported yet; the names exist and raise
NotImplementedError."""

from ._not_yet import unsupported_class, unsupported_function

_FEATURE = "permutations (permutation_builder)"
Permutation = unsupported_class("Permutation", _FEATURE)
PermutationBuilder = unsupported_class("PermutationBuilder", _FEATURE)
PermutationReader = unsupported_class("PermutationReader", _FEATURE)
Permutations = unsupported_class("Permutations", _FEATURE)
Transforms = unsupported_class("Transforms", _FEATURE)
permutation_builder = unsupported_function("permutation_builder", _FEATURE)
async_permutation_builder = unsupported_function("async_permutation_builder", _FEATURE)
DEFAULT_BATCH_SIZE = 100

__all__ = [
    "Permutation",
    "PermutationBuilder",
    "Permutations",
    "Transforms",
    "async_permutation_builder",
    "permutation_builder",
]
