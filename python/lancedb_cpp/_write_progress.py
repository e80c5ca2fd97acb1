# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Progress reports of ``Table.add(progress=...)``, as LanceDB 0.39 gives them.

`progress` is one of:

- ``True``: a tqdm bar (``tqdm.auto.tqdm(unit=" rows")``, needs the `tqdm` package), closed
  when the add ends;
- a callable, called with a dict ``{"output_rows", "output_bytes", "total_rows",
  "elapsed_seconds", "active_tasks", "total_tasks", "done"}`` after each batch read from the
  input, after each data file written, and once more with ``done=True`` (also when the add
  fails). ``output_bytes`` is the in-memory size of the batches read until a data file is
  written, then the bytes written; ``total_rows`` is None until the end when the input does not
  say how many rows it holds (readers, iterators, overwrite); the engine writes with one task;
- a tqdm-like object with ``update(n)``: its ``total`` is set when known, ``update`` gets the
  new rows, ``set_postfix_str`` the throughput ("12.3 MB/s | 1/1 workers") and ``refresh`` is
  called at the end.

As in LanceDB, an exception raised by the callback or the bar does not stop the add (here it
goes to ``sys.unraisablehook``).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

import pyarrow as pa

from . import _native


def _tqdm_bar() -> Any:
    try:
        from tqdm.auto import tqdm
    except ImportError as e:
        raise ModuleNotFoundError(
            "progress=True needs the tqdm package (pip install tqdm); or pass a callable or a "
            "tqdm-like object",
            name="tqdm",
        ) from e
    return tqdm(unit=" rows")


def _bar_callback(bar: Any) -> Callable[[Dict[str, Any]], None]:
    state = {"rows": 0, "total_set": False}

    def report(p: Dict[str, Any]) -> None:
        if p["total_rows"] is not None and not state["total_set"]:
            bar.total = p["total_rows"]
            state["total_set"] = True
        delta = p["output_rows"] - state["rows"]
        state["rows"] = p["output_rows"]
        if delta > 0:
            bar.update(delta)
            elapsed = p["elapsed_seconds"]
            if elapsed > 0 and hasattr(bar, "set_postfix_str"):
                rate = p["output_bytes"] / elapsed / 1_000_000
                bar.set_postfix_str(
                    f"{rate:.1f} MB/s | {p['active_tasks']}/{p['total_tasks']} workers"
                )
        if p["done"] and hasattr(bar, "refresh"):
            bar.refresh()

    return report


def normalize(progress: Any) -> Tuple[Optional[Callable[[Dict[str, Any]], None]], Any]:
    """The callback for `progress` and the bar to close after the add (None when the caller
    owns it). TypeError for anything but None/False/True, a callable or a tqdm-like object."""
    if progress is None or progress is False:
        return None, None
    if progress is True:
        bar = _tqdm_bar()
        return _bar_callback(bar), bar
    if callable(progress):
        return progress, None
    if callable(getattr(progress, "update", None)):
        return _bar_callback(progress), None
    raise TypeError(
        "progress must be True, a callable receiving a progress dict, or a tqdm-like object "
        f"with an update() method; got {type(progress).__name__}"
    )


def known_rows(data: Any, mode: str, on_bad_vectors: str) -> Optional[int]:
    """The rows `data` holds when it says so without being read (as LanceDB reports
    ``total_rows``): None for readers and iterators, for overwrite, and when bad vectors may be
    dropped."""
    if mode != "append" or on_bad_vectors == "drop":
        return None
    if isinstance(data, (pa.Table, pa.RecordBatch)):
        return data.num_rows
    if isinstance(data, list):
        return len(data)
    module = type(data).__module__.split(".")[0]
    if module in ("pandas", "polars") and type(data).__name__ == "DataFrame":
        return len(data)
    return None


def add(
    inner: Any,
    reader: pa.RecordBatchReader,
    mode: str,
    progress: Any,
    total_rows: Optional[int],
    allow_external_blob_outside_bases: bool = False,
) -> int:
    """Add `reader` to the native table reporting to `progress`; the new version. External
    blob URIs outside the registered base paths need `allow_external_blob_outside_bases`."""
    callback, owned = normalize(progress)
    allow = allow_external_blob_outside_bases
    try:
        if callback is None:
            return inner.add(reader, mode, allow_external_blob_outside_bases=allow)
        return _native.add_with_progress(
            inner, reader, mode, total_rows, callback, allow_external_blob_outside_bases=allow
        )
    finally:
        if owned is not None:
            owned.close()
