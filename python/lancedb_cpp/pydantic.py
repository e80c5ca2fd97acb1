# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Pydantic models as table schemas, with the same Arrow mapping as ``lancedb.pydantic``.

A field's Python type maps to an Arrow type:

====================================  ============================================
``int`` / ``float`` / ``bool``        ``int64`` / ``float64`` / ``bool``
``str`` / ``bytes``                   ``utf8`` / ``binary``
``date`` / ``datetime``               ``date32`` / ``timestamp[us]`` (time zone from
                                      ``Field(json_schema_extra={"tz": ...})``)
``List[T]`` / ``Tuple[T, ...]``       ``list<T>``
a pydantic model                      ``struct`` of its fields
``Vector(dim, value_type)``           ``fixed_size_list<value_type>[dim]``
``MultiVector(dim, value_type)``      ``list<fixed_size_list<value_type>[dim]>``
an ``Enum`` of str values             ``dictionary<int32, utf8>``
an ``Enum`` of other values           the Arrow type of that value type (mixed: ``utf8``)
====================================  ============================================

``Optional[T]`` (or ``T | None``) makes the field nullable; other fields are not, except
vectors, which are nullable unless made with ``nullable=False``.
"""

from __future__ import annotations

import datetime as _dt
import enum
import inspect
import types
import typing
import warnings
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Type

import pyarrow as pa
import pydantic
from pydantic_core import CoreSchema, core_schema

if TYPE_CHECKING:  # pragma: no cover
    from pydantic.fields import FieldInfo

__all__ = [
    "FixedSizeListMixin",
    "LanceModel",
    "MultiVector",
    "Vector",
    "get_extras",
    "is_nullable",
    "model_to_dict",
    "pydantic_to_schema",
    "vector",
]

_NoneType = type(None)


class FixedSizeListMixin(ABC):
    """What the schema derivation asks of a vector type: its dimension and value type."""

    @staticmethod
    @abstractmethod
    def dim() -> int:
        raise NotImplementedError

    @staticmethod
    @abstractmethod
    def value_arrow_type() -> pa.DataType:
        raise NotImplementedError


def _vector_class(
    dim: int, value_type: pa.DataType, nullable: bool, multi: bool
) -> Type[FixedSizeListMixin]:
    """Build the list subclass that a ``Vector``/``MultiVector`` annotation stands for."""
    if not isinstance(dim, int) or isinstance(dim, bool) or dim <= 0:
        raise ValueError(f"vector dimension must be a positive int, got {dim!r}")
    if not isinstance(value_type, pa.DataType):
        raise TypeError(f"value_type must be a pyarrow.DataType, got {value_type!r}")

    def one_vector_schema() -> CoreSchema:
        return core_schema.list_schema(
            items_schema=core_schema.float_schema(), min_length=dim, max_length=dim
        )

    label = "MultiVector" if multi else "FixedSizeList"
    body: Dict[str, Any] = {
        "__repr__": lambda self: f"{label}(dim={dim})",
        "nullable": staticmethod(lambda: nullable),
        "dim": staticmethod(lambda: dim),
        "value_arrow_type": staticmethod(lambda: value_type),
    }
    if multi:
        body["is_multi_vector"] = staticmethod(lambda: True)

    def get_core_schema(cls, _source: Any, _handler: pydantic.GetCoreSchemaHandler):
        items = (
            core_schema.list_schema(items_schema=one_vector_schema())
            if multi
            else one_vector_schema()
        )
        # Validate as a list of floats of the right length, then wrap it in this class.
        return core_schema.no_info_after_validator_function(cls, items)

    body["__get_pydantic_core_schema__"] = classmethod(get_core_schema)
    return type("MultiVectorList" if multi else "FixedSizeList", (list, FixedSizeListMixin), body)


def Vector(  # noqa: N802 - LanceDB's name
    dim: int, value_type: pa.DataType = pa.float32(), nullable: bool = True
) -> Type[FixedSizeListMixin]:
    """A vector field type: ``embedding: Vector(768)`` stores a
    ``fixed_size_list<float32>[768]``, nullable unless ``nullable=False``.

    >>> import pydantic
    >>> class Doc(pydantic.BaseModel):
    ...     text: str
    ...     embedding: Vector(4, pa.float16())
    >>> pydantic_to_schema(Doc).field("embedding").type
    FixedSizeListType(fixed_size_list<item: halffloat>[4])
    """
    return _vector_class(dim, value_type, nullable, multi=False)


def MultiVector(  # noqa: N802 - LanceDB's name
    dim: int, value_type: pa.DataType = pa.float32(), nullable: bool = True
) -> Type:
    """A field holding several vectors of `dim` values each (as ColPali-style models
    produce): stored as ``list<fixed_size_list<value_type>[dim]>``."""
    return _vector_class(dim, value_type, nullable, multi=True)


def _bare_vector(*_args: Any) -> Any:
    raise TypeError("Vector must be parameterized with a dimension, e.g. Vector(128).")


# ``x: Vector`` without a dimension would otherwise give pydantic a function to inspect.
Vector.__get_pydantic_core_schema__ = _bare_vector  # type: ignore[attr-defined]


def vector(dim: int, value_type: pa.DataType = pa.float32()) -> Type[FixedSizeListMixin]:
    """Deprecated spelling of :func:`Vector`."""
    warnings.warn(
        "lancedb.pydantic.vector() is deprecated, use lancedb.pydantic.Vector instead. "
        "This function will be removed in a future release",
        DeprecationWarning,
        stacklevel=2,
    )
    return Vector(dim, value_type)


# ---------------------------------------------------------------------------------------------
# Schema derivation


def get_extras(field_info: "FieldInfo", key: str) -> Any:
    """The value of `key` in a field's ``json_schema_extra`` (None when absent)."""
    extra = field_info.json_schema_extra
    if isinstance(extra, dict):
        return extra.get(key)
    return None


def _union_members(annotation: Any) -> Optional[tuple]:
    """The members of a ``Union[...]`` / ``X | Y`` annotation, else None."""
    if typing.get_origin(annotation) is typing.Union:
        return typing.get_args(annotation)
    union_type = getattr(types, "UnionType", None)
    if union_type is not None and isinstance(annotation, union_type):
        return annotation.__args__
    return None


def _optional_inner(annotation: Any) -> Any:
    """``T`` for ``Optional[T]`` / ``T | None`` (exactly one other member), else None."""
    members = _union_members(annotation)
    if members is None or _NoneType not in members:
        return None
    others = [m for m in members if m is not _NoneType]
    return others[0] if len(others) == 1 else None


def _subclass(tp: Any, base: type) -> bool:
    return inspect.isclass(tp) and not isinstance(tp, types.GenericAlias) and _issub(tp, base)


def _issub(tp: type, base: type) -> bool:
    try:
        return issubclass(tp, base)
    except TypeError:
        return False


def _unsupported(tp: Any, hint: str = "") -> TypeError:
    return TypeError(f"Converting Pydantic type to Arrow Type: unsupported type {tp}.{hint}")


_SCALARS = {
    int: pa.int64(),
    float: pa.float64(),
    str: pa.utf8(),
    bool: pa.bool_(),
    bytes: pa.binary(),
    _dt.date: pa.date32(),
}


def _scalar_or_sequence(tp: Any, field: "FieldInfo") -> pa.DataType:
    # Exact types only: a subclass of int that is not an Enum is not supported.
    for py_type, arrow_type in _SCALARS.items():
        if tp is py_type:
            return arrow_type
    if tp is _dt.datetime:
        return pa.timestamp("us", tz=get_extras(field, "tz"))
    if typing.get_origin(tp) in (list, tuple):
        args = typing.get_args(tp)
        if not args:
            raise _unsupported(
                tp, " Specify the element type, e.g. List[int] instead of a bare List."
            )
        return _list_of(args[0], field)
    raise _unsupported(tp)


def _enum_type(tp: Type[enum.Enum], field: "FieldInfo") -> pa.DataType:
    kinds = {type(member.value) for member in tp}
    if len(kinds) != 1:
        return pa.utf8()
    (kind,) = kinds
    if kind is str:
        return pa.dictionary(pa.int32(), pa.utf8())
    return _scalar_or_sequence(kind, field)


def _type_of(tp: Any, field: "FieldInfo") -> pa.DataType:
    """The Arrow type of a (non-Optional) annotation."""
    if _subclass(tp, pydantic.BaseModel):
        return pa.struct(_model_fields(tp))
    if _subclass(tp, FixedSizeListMixin):
        one = pa.list_(tp.value_arrow_type(), tp.dim())
        multi = getattr(tp, "is_multi_vector", None)
        return pa.list_(one) if multi is not None and multi() else one
    if _subclass(tp, enum.Enum):
        return _enum_type(tp, field)
    return _scalar_or_sequence(tp, field)


def _list_of(item: Any, field: "FieldInfo") -> pa.DataType:
    inner = _optional_inner(item)
    return pa.list_(_type_of(item if inner is None else inner, field))


def _field_type(field: "FieldInfo") -> pa.DataType:
    annotation = field.annotation
    inner = _optional_inner(annotation)
    return _type_of(annotation if inner is None else inner, field)


def is_nullable(field: "FieldInfo") -> bool:
    """Whether a model field becomes a nullable Arrow field: ``Optional`` ones, and vectors
    made with ``nullable=True`` (the default)."""
    annotation = field.annotation
    members = _union_members(annotation)
    if members is not None:
        return _NoneType in members
    if _subclass(annotation, FixedSizeListMixin):
        return bool(annotation.nullable())
    return False


def _model_fields(model: Type[pydantic.BaseModel]) -> List[pa.Field]:
    return [
        pa.field(name, _field_type(info), is_nullable(info))
        for name, info in model.model_fields.items()
    ]


def pydantic_to_schema(model: Type[pydantic.BaseModel]) -> pa.Schema:
    """The Arrow schema of a pydantic model class, one field per model field in order.

    >>> from typing import List, Optional
    >>> class Item(pydantic.BaseModel):
    ...     id: int
    ...     tags: List[str]
    ...     score: Optional[float] = None
    >>> print(pydantic_to_schema(Item))
    id: int64 not null
    tags: list<item: string> not null
      child 0, item: string
    score: double
    """
    return pa.schema(_model_fields(model))


# ---------------------------------------------------------------------------------------------
# Models


def model_to_dict(model: pydantic.BaseModel) -> Dict[str, Any]:
    """A model instance as a dict of plain values (nested models become dicts)."""
    return model.model_dump()


class LanceModel(pydantic.BaseModel):
    """Base class for pydantic models that describe a table's rows.

    Pass the class as ``schema=`` to ``create_table``, instances to ``add`` /
    ``merge_insert(...).execute``, and the class to ``to_pydantic`` to read rows back::

        class Movie(LanceModel):
            title: str
            year: int
            vector: Vector(3)

        table = db.create_table("movies", schema=Movie)
        table.add([Movie(title="Heat", year=1995, vector=[0.1, 0.2, 0.3])])
        table.search([0.1, 0.2, 0.3]).limit(1).to_pydantic(Movie)
    """

    @classmethod
    def to_arrow_schema(cls) -> pa.Schema:
        """The Arrow schema of the table this model describes (with the embedding functions
        of ``func.SourceField()`` / ``func.VectorField()`` fields in its metadata)."""
        schema = pydantic_to_schema(cls)
        configs = cls.parse_embedding_functions()
        if configs:
            from .embeddings import EmbeddingFunctionRegistry

            registry = EmbeddingFunctionRegistry.get_instance()
            schema = schema.with_metadata(registry.get_table_metadata(configs))
        return schema

    @classmethod
    def field_names(cls) -> List[str]:
        """The model's field names, in declaration order."""
        return list(cls.safe_get_fields().keys())

    @classmethod
    def safe_get_fields(cls) -> Dict[str, "FieldInfo"]:
        """The model's fields (name -> FieldInfo)."""
        return cls.model_fields

    @classmethod
    def parse_embedding_functions(cls) -> list:
        """The embedding function configurations of this model: each field made with
        ``func.VectorField()`` paired with every field made with ``func.SourceField()`` of
        that same function object."""
        from .embeddings import EmbeddingFunctionConfig

        fields = cls.safe_get_fields()
        configs = []
        for vector_name, vector_info in fields.items():
            function = get_extras(vector_info, "vector_column_for")
            if function is None:
                continue
            for source_name, source_info in fields.items():
                # Identity, not equality: equal functions may embed different columns.
                if get_extras(source_info, "source_column_for") is function:
                    configs.append(
                        EmbeddingFunctionConfig(
                            source_column=source_name,
                            vector_column=vector_name,
                            function=function,
                        )
                    )
        return configs
