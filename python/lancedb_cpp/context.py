# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Rolling context windows over rows of text (``lancedb.context``).

``contextualize(df).window(3).stride(1).text_col("token").to_pandas()`` joins each run of
`window` consecutive rows' text with spaces, starting a window every `stride` rows; a
window cut short by the end of the data (or of its group, with ``groupby``) is kept only if
it has at least ``min_window_size`` rows (default 2). Each output row keeps the other
columns of its window's first row.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

from .exceptions import MissingColumnError, MissingValueError

__all__ = ["Contextualizer", "contextualize"]


def contextualize(raw_df: Any) -> "Contextualizer":
    """A Contextualizer over the rows of the pandas DataFrame `raw_df`."""
    return Contextualizer(raw_df)


class Contextualizer:
    """Builds context windows from a DataFrame; see ``contextualize``."""

    def __init__(self, raw_df: Any):
        self._raw_df = raw_df
        self._text_col: Optional[str] = None
        self._groupby: Optional[str] = None
        self._stride: Optional[int] = None
        self._window: Optional[int] = None
        self._min_window_size = 2

    def window(self, window: int) -> "Contextualizer":
        """Rows per window."""
        self._window = window
        return self

    def stride(self, stride: int) -> "Contextualizer":
        """Rows between the starts of consecutive windows."""
        self._stride = stride
        return self

    def groupby(self, groupby: str) -> "Contextualizer":
        """A column whose groups windows do not cross."""
        self._groupby = groupby
        return self

    def text_col(self, text_col: str) -> "Contextualizer":
        """The column whose text the windows join."""
        self._text_col = text_col
        return self

    def min_window_size(self, min_window_size: int) -> "Contextualizer":
        """The fewest rows a window cut short by the end of its group may have."""
        self._min_window_size = min_window_size
        return self

    def to_df(self) -> Any:
        """Deprecated alias of to_pandas()."""
        warnings.warn(
            "to_df() is deprecated, use to_pandas() instead", DeprecationWarning, stacklevel=2
        )
        return self.to_pandas()

    def to_pandas(self) -> Any:
        """The context windows as a pandas DataFrame."""
        import pandas as pd

        if self._text_col not in self._raw_df.columns.tolist():
            raise MissingColumnError(self._text_col)
        if self._window is None or self._window < 1:
            raise MissingValueError(
                "The value of window is None or less than 1. Specify the window size "
                "(number of rows to include in each window)"
            )
        if self._stride is None or self._stride < 1:
            raise MissingValueError(
                "The value of stride is None or less than 1. Specify the stride (number of "
                "rows to skip between each window)"
            )
        if self._groupby is None:
            return self._windows(self._raw_df)
        groups = self._raw_df.groupby(self._groupby)
        return pd.concat([self._windows(group) for _, group in groups])

    def _windows(self, rows: Any) -> Any:
        text = rows[self._text_col].values
        count = len(rows)
        starts = [
            start
            for start in range(0, count, self._stride)
            if start + self._window <= count or count - start >= self._min_window_size
        ]
        # Starts are ascending and only a tail can fail the size test: keep a prefix.
        out = rows.iloc[:: self._stride, :].iloc[: len(starts)].copy()
        out[self._text_col] = [" ".join(text[s : s + self._window]) for s in starts]
        return out
