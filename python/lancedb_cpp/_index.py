# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Index management on ``Table`` (mixed in): ``create_index`` in both LanceDB forms (a config
object from :mod:`lancedb_cpp.index`, or the legacy keywords), ``list_indices``,
``index_stats``, ``drop_index``, ``wait_for_index`` and ``optimize_indices``. Indices build
synchronously in the engine; progress goes to a tqdm bar (``progress=True``, when tqdm is
installed) or to a callable ``progress(stage, fraction)``."""

from __future__ import annotations

import contextlib
import json
import warnings
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

import pyarrow as pa

from . import _native
from ._unsupported import reject_unsupported, warn_deprecated
from .index import FTS, SCALAR_INDEX_TYPES, IndexConfig, IndexStatistics, listed_type_name

_METRICS = ("l2", "euclidean", "cosine", "dot", "hamming")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _index_config(d: Dict[str, Any]) -> IndexConfig:
    """An IndexConfig from the engine's description of an index."""
    millis = d["created_at_millis"]
    details = d["details_json"]
    return IndexConfig(
        name=d["name"],
        index_type=listed_type_name(d["index_type"]),
        columns=list(d["columns"]),
        index_uuid=d["index_uuid"],
        type_url=d["type_url"],
        created_at=None if millis is None else _EPOCH + timedelta(milliseconds=millis),
        num_indexed_rows=d["num_indexed_rows"],
        num_unindexed_rows=d["num_unindexed_rows"],
        size_bytes=d["size_bytes"],
        num_segments=d["num_segments"],
        index_version=d["index_version"],
        index_details=None if details is None else json.loads(details),
    )


def _progress_callback(progress: Any) -> Optional[Callable[[str, float], None]]:
    if progress is None or progress is False:
        return None
    if callable(progress):
        return progress
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is optional
        return None
    bars = {}

    def update(stage: str, fraction: float) -> None:
        bar = bars.get(stage)
        if bar is None:
            for old in bars.values():
                old.close()
            bar = bars[stage] = tqdm(total=100, desc=stage, unit="%")
        bar.update(max(0, round(fraction * 100) - bar.n))
        if fraction >= 1.0:
            bar.close()

    return update


def _legacy_num_bits(kind: str, num_bits: int) -> Optional[int]:
    """The legacy form's `num_bits` (default 8) for the engine: PQ's code width, and IVF_RQ's
    as LanceDB takes it (8 by default); None otherwise."""
    if kind in ("IVF_PQ", "IVF_HNSW_PQ", "IVF_RQ"):
        return num_bits
    return None


def _check_multivector_metric(table: Any, column: str, distance_type: Any) -> None:
    """LanceDB indexes a multivector column (a list of fixed-size lists) for cosine only, and
    raises RuntimeError (a Lance index error) for any other distance; so do we."""
    try:
        field = table.schema.field(column)
    except KeyError:
        return  # the engine names the missing column
    t = field.type
    multivector = (pa.types.is_list(t) or pa.types.is_large_list(t)) and (
        pa.types.is_fixed_size_list(t.value_type)
    )
    if multivector and str(distance_type).lower() != "cosine":
        raise RuntimeError(
            f"Build Vector Index: multivector type supports only cosine distance (column "
            f"'{column}', distance type {distance_type})"
        )


# LanceDB's errors (RuntimeError from its engine) for index types that cannot take uint8 data.
_UINT8_BUILDER_ERRORS = {
    "IVF_PQ": "PQ builder: unsupported data type: UInt8",
    "IVF_HNSW_PQ": "PQ builder: unsupported data type: UInt8",
    "IVF_SQ": "SQ builder: unsupported data type: UInt8",
    "IVF_HNSW_SQ": "SQ builder: unsupported data type: UInt8",
    "IVF_RQ": "Compute residual vector: centroids and vector type mismatch: centroid: UInt8, "
    "vector: UInt8",
}


def _check_binary_vectors(schema: Any, column: str, kind: str, distance_type: str) -> None:
    """Raise LanceDB's RuntimeError when a uint8 (binary) vector column is indexed with a
    distance other than hamming, or by an index type other than IVF_FLAT / IVF_HNSW_FLAT."""
    import pyarrow as pa

    try:
        value_type = schema.field(column).type
    except KeyError:
        return  # the engine names the missing column
    if not pa.types.is_fixed_size_list(value_type) or not pa.types.is_uint8(
        value_type.value_type
    ):
        return
    distance_type = "l2" if distance_type == "euclidean" else distance_type
    if distance_type != "hamming":
        raise RuntimeError(
            "lance error: LanceError(Index): Unsupported data type UInt8 with distance type "
            f"{distance_type} (uint8 vectors are indexed with distance_type='hamming')"
        )
    if kind in _UINT8_BUILDER_ERRORS:
        raise RuntimeError(
            f"lance error: LanceError(Index): {_UINT8_BUILDER_ERRORS[kind]} ({kind} cannot "
            "index uint8 vectors; hamming distance is indexed by IVF_FLAT and IVF_HNSW_FLAT)"
        )


_LEGACY_CREATE_INDEX = (
    "The create_index() API with metric/num_partitions parameters is deprecated and will be "
    "removed in a future version. Please migrate to the new unified API:\n"
    "  # Old (deprecated):\n"
    "  table.create_index('l2', vector_column_name='my_vector')\n"
    "  # New (recommended):\n"
    "  table.create_index('my_vector', config=IvfPq(distance_type='l2'))"
)


def _is_legacy_call(
    first, config, num_partitions, num_sub_vectors, vector_column_name, accelerator,
    index_cache_size,
) -> bool:  # fmt: skip
    """Whether create_index was called in LanceDB's deprecated form: no config, and a legacy
    parameter set, a vector column named by `vector_column_name`, or a metric first."""
    if config is not None:
        return False
    if any(x is not None for x in (num_partitions, num_sub_vectors, accelerator, index_cache_size)):
        return True
    if vector_column_name is not None and vector_column_name != "vector":
        return True
    return isinstance(first, str) and first.lower() in _METRICS


@contextlib.contextmanager
def _as_lance_index_error():
    """Lance's index errors that LanceDB raises as RuntimeError: an index name that exists
    (replace=False), an odd num_sub_vectors for 4-bit PQ."""
    try:
        yield
    except ValueError as err:
        lance_errors = ("already exists, please specify a different name",
                        "PQ: num_sub_vectors must be divisible by 2")  # fmt: skip
        if not any(text in str(err) for text in lance_errors):
            raise
        raise RuntimeError(f"lance error: LanceError(Index): {err}") from None


class IndexMixin:
    """Index methods of ``Table`` (requires ``self._inner`` and ``self._check_writable``)."""

    def create_index(
        self,
        metric: str = "l2",
        num_partitions: Optional[int] = None,
        num_sub_vectors: Optional[int] = None,
        vector_column_name: Optional[str] = None,
        replace: bool = True,
        accelerator: Optional[str] = None,
        index_cache_size: Optional[int] = None,
        num_bits: int = 8,
        index_type: str = "IVF_PQ",
        max_iterations: int = 50,
        sample_rate: int = 256,
        m: int = 20,
        ef_construction: int = 300,
        *,
        config: Any = None,
        wait_timeout: Optional[timedelta] = None,
        name: Optional[str] = None,
        train: bool = True,
        target_partition_size: Optional[int] = None,
        seed: Optional[int] = None,
        progress: Any = None,
    ) -> None:
        """Build a vector index and commit it.

        ``create_index("vector", config=IvfPq(num_partitions=256))`` or the legacy form
        ``create_index(metric="cosine", num_partitions=256, num_sub_vectors=16,
        vector_column_name="vector", index_type="IVF_PQ")``. The name defaults to
        "{column}_idx"; ``replace=False`` makes an existing name an error (LanceDB's
        RuntimeError). The index is built before this returns. Not supported
        (NotImplementedError unless None): `accelerator` (also in a config) and
        `wait_timeout`; `index_cache_size` (deprecated) is ignored, as in LanceDB.
        """
        if _is_legacy_call(
            metric, config, num_partitions, num_sub_vectors, vector_column_name, accelerator,
            index_cache_size,
        ):  # fmt: skip
            warnings.warn(_LEGACY_CREATE_INDEX, DeprecationWarning, stacklevel=2)
        # index_cache_size is LanceDB's deprecated legacy parameter, which it ignores: the
        # legacy call warns above.
        reject_unsupported(
            "create_index",
            accelerator=(accelerator, None),
            wait_timeout=(wait_timeout, None),
        )
        if config is not None:
            reject_unsupported(
                "create_index", accelerator=(getattr(config, "accelerator", None), None)
            )
        self._check_writable()
        column = vector_column_name
        if metric is not None and str(metric).lower() not in _METRICS:
            # create_index("vector", config=...): the first argument names the column.
            if column is None:
                column = metric
            metric = "l2"
        column = column or "vector"
        kind = getattr(config, "index_type", None) if config is not None else None
        if kind == "FTS":
            create_fts(self, column, config, name=name, replace=replace)
            return
        if kind in SCALAR_INDEX_TYPES:
            # Scalar indices have no training step: `train` changes nothing for them.
            with _as_lance_index_error():
                _native.create_scalar_index(
                    self._inner, column, index_type=kind, name=name or "", replace=bool(replace)
                )
            return
        if not train:
            raise NotImplementedError("train=False is supported for scalar indices only")
        if config is not None:
            kind = getattr(config, "index_type", None)
            if kind is None:
                raise NotImplementedError(
                    f"{type(config).__name__} indices are not supported yet"
                )
            params = dict(
                index_type=kind,
                distance_type=getattr(config, "distance_type", "l2"),
                num_partitions=getattr(config, "num_partitions", None),
                target_partition_size=getattr(config, "target_partition_size", None),
                num_sub_vectors=getattr(config, "num_sub_vectors", None),
                num_bits=getattr(config, "num_bits", None),
                max_iterations=getattr(config, "max_iterations", 50),
                sample_rate=getattr(config, "sample_rate", 256),
                m=getattr(config, "m", 20),
                ef_construction=getattr(config, "ef_construction", 300),
                seed=getattr(config, "seed", None) if seed is None else seed,
                accelerator=None,
            )
        else:
            kind = str(index_type).upper()
            params = dict(
                index_type=kind,
                distance_type=str(metric).lower(),
                num_partitions=num_partitions,
                target_partition_size=target_partition_size,
                num_sub_vectors=num_sub_vectors,
                num_bits=_legacy_num_bits(kind, num_bits),
                max_iterations=max_iterations,
                sample_rate=sample_rate,
                m=m,
                ef_construction=ef_construction,
                seed=seed,
                accelerator=None,
            )
        _check_multivector_metric(self, column, params["distance_type"])
        _check_binary_vectors(
            self.schema, column, kind, str(params["distance_type"] or "l2").lower()
        )
        with _as_lance_index_error():
            _native.create_index(
                self._inner,
                column,
                name=name or "",
                replace=bool(replace),
                progress=_progress_callback(progress),
                **params,
            )

    def create_fts_index(
        self,
        field_names: Union[str, List[str]],
        *,
        ordering_field_names: Optional[Union[str, List[str]]] = None,
        replace: bool = False,
        writer_heap_size: Optional[int] = 1024 * 1024 * 1024,
        use_tantivy: bool = False,
        tokenizer_name: Optional[str] = None,
        with_position: bool = False,
        base_tokenizer: str = "simple",
        language: str = "English",
        max_token_length: Optional[int] = 40,
        lower_case: bool = True,
        stem: bool = True,
        remove_stop_words: bool = True,
        custom_stop_words: Optional[List[str]] = None,
        ascii_folding: bool = True,
        ngram_min_length: int = 3,
        ngram_max_length: int = 3,
        prefix_only: bool = False,
        block_size: int = 128,
        document_granularity: Any = "row",
        name: Optional[str] = None,
        wait_timeout: Optional[timedelta] = None,
    ) -> None:
        """Build an FTS (inverted) index on the string column `field_names` and commit it
        (LanceDB's create_fts_index; ``create_index(column, config=FTS(...))`` is the same).
        The name defaults to "{column}_idx"; ``replace=False`` makes an existing name an
        error. `wait_timeout` is not supported (NotImplementedError unless None)."""
        warn_deprecated("create_fts_index", "0.25.0", "Use create_index() with config=FTS() instead.")
        reject_unsupported("create_fts_index", wait_timeout=(wait_timeout, None))
        if use_tantivy:
            raise ValueError(
                "Tantivy-based FTS has been removed. "
                "Remove use_tantivy and recreate the index with native FTS."
            )
        if ordering_field_names is not None:
            raise ValueError(
                "ordering_field_names was only supported by the removed "
                "Tantivy-based FTS implementation."
            )
        if writer_heap_size != 1024 * 1024 * 1024:
            raise ValueError(
                "writer_heap_size was only supported by the removed "
                "Tantivy-based FTS implementation."
            )
        if not isinstance(field_names, str):
            raise ValueError(
                "Native FTS indexes can only be created on a single field "
                "at a time. To search over multiple text fields, create a "
                "separate FTS index for each field."
            )
        if tokenizer_name is None:
            options = dict(
                base_tokenizer=base_tokenizer,
                language=language,
                with_position=with_position,
                max_token_length=max_token_length,
                lower_case=lower_case,
                stem=stem,
                remove_stop_words=remove_stop_words,
                custom_stop_words=custom_stop_words,
                ascii_folding=ascii_folding,
                ngram_min_length=ngram_min_length,
                ngram_max_length=ngram_max_length,
                prefix_only=prefix_only,
            )
        else:
            options = tokenizer_preset(tokenizer_name)
            options["custom_stop_words"] = custom_stop_words
            options["with_position"] = with_position
        config = FTS(block_size=block_size, document_granularity=document_granularity, **options)
        create_fts(self, field_names, config, name=name, replace=replace)

    def create_scalar_index(
        self,
        column: str,
        *,
        replace: bool = True,
        index_type: str = "BTREE",
        wait_timeout: Optional[timedelta] = None,
        name: Optional[str] = None,
    ) -> None:
        """Build a scalar index on `column` and commit it: ``index_type`` "BTREE" (sorted keys;
        equality, ranges, IN, IS NULL), "BITMAP" (low-cardinality columns) or "LABEL_LIST"
        (list columns; array_has_any / array_has_all / array_contains). The name defaults to
        "{column}_idx"; ``replace=False`` makes an existing name an error. Filters, counts,
        deletes, updates and vector-search prefilters then use it. Not supported
        (NotImplementedError unless None): `wait_timeout`."""
        warn_deprecated(
            "create_scalar_index",
            "0.25.0",
            "Use create_index() with config=BTree()/Bitmap()/LabelList() instead.",
        )
        reject_unsupported("create_scalar_index", wait_timeout=(wait_timeout, None))
        self._check_writable()
        kind = str(index_type).upper()
        if kind not in SCALAR_INDEX_TYPES:
            raise ValueError(
                f"Unknown index type {index_type}; expected one of: BTREE, BITMAP, LABEL_LIST"
            )
        with _as_lance_index_error():
            _native.create_scalar_index(
                self._inner, column, index_type=kind, name=name or "", replace=bool(replace)
            )

    def list_indices(self) -> List[IndexConfig]:
        """The table's indices, ordered by name."""
        return [_index_config(d) for d in _native.list_indices(self._inner)]

    def tokenize(
        self, query: str, *, column: Optional[str] = None, index_name: Optional[str] = None
    ) -> List[Any]:
        """Tokenize `query` with the analysis options stored in the FTS index on `column` or
        named `index_name` (exactly one of the two): a list of ``FtsToken``."""
        from . import FtsToken

        if not isinstance(query, str):
            raise TypeError(
                f"argument 'query': '{type(query).__name__}' object is not an instance of 'str'"
            )
        pairs = _native.table_tokenize(self._inner, query, column=column, index_name=index_name)
        return [FtsToken(text, position) for text, position in pairs]

    def index_stats(self, index_name: str) -> Optional[IndexStatistics]:
        """Statistics of an index, or None when there is no index of that name."""
        stats = _native.index_stats(self._inner, index_name)
        return None if stats is None else IndexStatistics(**stats)

    def prewarm_index(self, name: str) -> None:
        """Load index ``name`` into the caches searches use, so that the first query does not
        pay for opening it (RuntimeError, as LanceDB, when there is no such index)."""
        _native.prewarm_index(self._inner, name)

    def drop_index(self, name: str) -> None:
        """Remove an index (ValueError when there is none of that name)."""
        self._check_writable()
        _native.drop_index(self._inner, name)

    def wait_for_index(
        self, index_names: Iterable[str], timeout: timedelta = timedelta(seconds=300)
    ) -> None:
        """Return once the indices cover every row; indices build synchronously here, so this
        checks that they exist."""
        names = [index_names] if isinstance(index_names, str) else list(index_names)
        _native.wait_for_index(self._inner, names, timeout.total_seconds())

    def optimize_indices(self, *, progress: Any = None) -> None:
        """Add the rows appended since indexing to every index (vector and scalar), without
        retraining."""
        self._check_writable()
        _native.optimize_indices(self._inner, progress=_progress_callback(progress))



_STEM_LANGUAGES = {
    "ar": "Arabic", "da": "Danish", "du": "Dutch", "en": "English", "fi": "Finnish",
    "fr": "French", "de": "German", "gr": "Greek", "hu": "Hungarian", "it": "Italian",
    "no": "Norwegian", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian",
    "es": "Spanish", "sv": "Swedish", "ta": "Tamil", "tr": "Turkish",
}  # fmt: skip


def tokenizer_preset(tokenizer_name: str) -> Dict[str, Any]:
    """The analysis options of LanceDB's legacy `tokenizer_name` presets: "default", "raw",
    "whitespace" and "<language code>_stem" (e.g. "en_stem")."""
    plain = dict(
        language="English", stem=False, remove_stop_words=False, ascii_folding=False,
        ngram_min_length=3, ngram_max_length=3, prefix_only=False,
    )  # fmt: skip
    if tokenizer_name == "default":
        return dict(plain, base_tokenizer="simple", max_token_length=40, lower_case=True)
    if tokenizer_name in ("raw", "whitespace"):
        return dict(plain, base_tokenizer=tokenizer_name, max_token_length=None, lower_case=False)
    if len(tokenizer_name) != 7 or not tokenizer_name.endswith("_stem"):
        raise ValueError(f"Invalid tokenizer name {tokenizer_name}")
    code = tokenizer_name[:2]
    if code not in _STEM_LANGUAGES:
        raise ValueError(f"Invalid language code {code}")
    return dict(
        plain, base_tokenizer="simple", language=_STEM_LANGUAGES[code], max_token_length=40,
        lower_case=True, stem=True,
    )  # fmt: skip


# The languages of the FTS stemmers and stop-word lists, as LanceDB lists them.
FTS_LANGUAGES = (
    "Arabic", "Danish", "Dutch", "English", "Finnish", "French", "German", "Greek", "Hungarian",
    "Italian", "Norwegian", "Portuguese", "Romanian", "Russian", "Spanish", "Swedish", "Tamil",
    "Turkish",
)  # fmt: skip
_BASE_TOKENIZERS = ("simple", "whitespace", "raw", "ngram", "icu", "icu/split")


def _stop_words(words: Any, creating: bool) -> Optional[List[str]]:
    """`custom_stop_words` checked as LanceDB's binding checks it: a list of strings."""
    if words is None:
        return None
    if isinstance(words, str) or not isinstance(words, (list, tuple)):
        if creating:
            raise TypeError("failed to extract field FtsParams.custom_stop_words")
        kind = "`str`" if isinstance(words, str) else f"'{type(words).__name__}'"
        raise TypeError(f"argument 'custom_stop_words': Can't extract {kind} to `Vec`")
    for word in words:
        if not isinstance(word, str):
            if creating:
                raise TypeError("failed to extract field FtsParams.custom_stop_words")
            raise TypeError(
                f"argument 'custom_stop_words': '{type(word).__name__}' object is not an "
                "instance of 'str'"
            )
    return list(words)


def analysis_kwargs(config: Any, creating: bool = False) -> Dict[str, Any]:
    """The engine's analysis keywords of an FTS config, checked as LanceDB checks them
    (`creating`: for an index, whose errors LanceDB words differently from tokenize's)."""
    language = str(config.language)
    if language not in FTS_LANGUAGES:
        err = ValueError(f"LanceDB does not support the requested language: '{language}'")
        if creating:
            err.add_note(f"Supported languages: {', '.join(FTS_LANGUAGES)}")
        raise err
    base = str(config.base_tokenizer)
    if creating and base not in _BASE_TOKENIZERS and not base.startswith(("jieba", "lindera")):
        raise ValueError(f"Invalid input, unknown base tokenizer {base}")
    stop_words = _stop_words(config.custom_stop_words, creating)
    granularity = getattr(config, "document_granularity", "row")
    if str(getattr(granularity, "value", granularity)).lower() != "row":
        raise NotImplementedError(
            "document_granularity=LIST_ELEMENT (one document per list element) is not "
            "supported by lancedb_cpp yet"
        )
    return dict(
        with_position=bool(config.with_position),
        base_tokenizer=str(config.base_tokenizer),
        language=str(config.language),
        max_token_length=config.max_token_length,
        lower_case=bool(config.lower_case),
        stem=bool(config.stem),
        remove_stop_words=bool(config.remove_stop_words),
        custom_stop_words=stop_words,
        ascii_folding=bool(config.ascii_folding),
        ngram_min_length=int(config.ngram_min_length),
        ngram_max_length=int(config.ngram_max_length),
        prefix_only=bool(config.prefix_only),
        block_size=int(config.block_size),
    )


def create_fts(table: Any, column: str, config: Any, *, name: Optional[str], replace: bool) -> None:
    """Build the FTS index `config` on `column` of `table`."""
    table._check_writable()
    with _as_lance_index_error():
        _native.create_fts_index(
            table._inner,
            column,
            name=name or "",
            replace=bool(replace),
            memory_limit=getattr(config, "memory_limit", None),
            num_workers=getattr(config, "num_workers", None),
            **analysis_kwargs(config, creating=True),
        )
