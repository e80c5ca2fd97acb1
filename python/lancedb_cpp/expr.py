# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Column expressions, as ``lancedb.expr``: ``col("price") * 2 > lit(10)`` builds an
expression whose ``to_sql()`` is the SQL lancedb-cpp's filters, projections, updates and merge
conditions take (``where(expr)``, ``select({"alias": expr})``, ``delete(expr)``, ...).

The SQL text is LanceDB's: binary operations in parentheses, ``NOT`` for ``~``, identifiers in
backticks unless they are plain lower-case names, literals rendered as SQL literals.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from typing import Iterable, Optional, Union

import pyarrow as pa

from ._sql_keywords import SQL_KEYWORDS

__all__ = ["Expr", "col", "lit", "func"]

ExprLike = Union["Expr", bool, int, float, str, bytes, date, datetime, Decimal]

# Functions func() accepts (those LanceDB 0.39's expression builder knows).
_FUNCTIONS = ("lower", "upper", "contains", "ltrim", "rtrim", "btrim", "concat", "octet_length")
_PLAIN_NAME = re.compile(r"[a-z_][a-z0-9_]*")
# Arrow type names as arrow_cast spells them.
_ARROW_CAST_NAMES = {
    "bool": "Boolean", "boolean": "Boolean", "int8": "Int8", "int16": "Int16", "int32": "Int32",
    "int64": "Int64", "uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32",
    "uint64": "UInt64", "float16": "Float16", "halffloat": "Float16", "float32": "Float32",
    "float": "Float32", "float64": "Float64", "double": "Float64", "string": "Utf8",
    "utf8": "Utf8", "large_string": "LargeUtf8", "large_utf8": "LargeUtf8",
    "binary": "Binary", "large_binary": "LargeBinary", "date32": "Date32", "date32[day]": "Date32",
    "date64": "Date64", "date64[ms]": "Date64",
}  # fmt: skip


def _identifier(name: str) -> str:
    if _PLAIN_NAME.fullmatch(name) and name not in SQL_KEYWORDS:
        return name
    return "`" + name.replace("`", "``") + "`"


def _literal_sql(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        text = repr(value)
        if "e" in text and text not in ("inf", "-inf", "nan"):  # positional, as LanceDB prints
            text = format(Decimal(text), "f")
            if "." not in text:
                text += ".0"
        return text
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'"
    if isinstance(value, datetime):
        return f"CAST('{value.isoformat(sep=' ')}' AS TIMESTAMP)"
    if isinstance(value, date):
        return f"CAST('{value.isoformat()}' AS DATE)"
    if isinstance(value, Decimal):
        sign, digits, exponent = value.as_tuple()
        scale = max(0, -int(exponent))
        precision = max(len(digits), scale)
        return f"arrow_cast('{value}', 'Decimal128({precision}, {scale})')"
    raise TypeError(f"Unsupported literal type: {type(value).__name__}")


def _coerce(value: ExprLike) -> "Expr":
    return value if isinstance(value, Expr) else lit(value)


class Expr:
    """A column expression. Build one with ``col``, ``lit`` and ``func`` and combine with the
    Python operators (``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, ``&``, ``|``, ``~``, ``+``,
    ``-``, ``*``, ``/``) or the named methods."""

    __slots__ = ("_sql", "_column")

    def __init__(self, sql: str, *, column_path: Optional[str] = None) -> None:
        self._sql = sql
        self._column = column_path

    def _binary(self, op: str, other: ExprLike) -> "Expr":
        return Expr(f"({self._sql} {op} {_coerce(other)._sql})")

    def _rbinary(self, op: str, other: ExprLike) -> "Expr":
        return Expr(f"({_coerce(other)._sql} {op} {self._sql})")

    def __eq__(self, other: ExprLike) -> "Expr":  # type: ignore[override]
        return self._binary("=", other)

    def __ne__(self, other: ExprLike) -> "Expr":  # type: ignore[override]
        return self._binary("<>", other)

    def __lt__(self, other: ExprLike) -> "Expr":
        return self._binary("<", other)

    def __le__(self, other: ExprLike) -> "Expr":
        return self._binary("<=", other)

    def __gt__(self, other: ExprLike) -> "Expr":
        return self._binary(">", other)

    def __ge__(self, other: ExprLike) -> "Expr":
        return self._binary(">=", other)

    def __and__(self, other: ExprLike) -> "Expr":
        return self._binary("AND", other)

    def __rand__(self, other: ExprLike) -> "Expr":
        return self._rbinary("AND", other)

    def __or__(self, other: ExprLike) -> "Expr":
        return self._binary("OR", other)

    def __ror__(self, other: ExprLike) -> "Expr":
        return self._rbinary("OR", other)

    def __invert__(self) -> "Expr":
        return Expr(f"NOT {self._sql}")

    def __add__(self, other: ExprLike) -> "Expr":
        return self._binary("+", other)

    def __radd__(self, other: ExprLike) -> "Expr":
        return self._rbinary("+", other)

    def __sub__(self, other: ExprLike) -> "Expr":
        return self._binary("-", other)

    def __rsub__(self, other: ExprLike) -> "Expr":
        return self._rbinary("-", other)

    def __mul__(self, other: ExprLike) -> "Expr":
        return self._binary("*", other)

    def __rmul__(self, other: ExprLike) -> "Expr":
        return self._rbinary("*", other)

    def __truediv__(self, other: ExprLike) -> "Expr":
        return self._binary("/", other)

    def __rtruediv__(self, other: ExprLike) -> "Expr":
        return self._rbinary("/", other)

    __hash__ = None  # type: ignore[assignment]  # == builds an expression

    def lower(self) -> "Expr":
        return func("lower", self)

    def upper(self) -> "Expr":
        return func("upper", self)

    def contains(self, substr: ExprLike) -> "Expr":
        return func("contains", self, substr)

    def isin(self, values: Iterable[ExprLike]) -> "Expr":
        items = ", ".join(_coerce(v)._sql for v in values)
        return Expr(f"{self._sql} IN ({items})")

    def cast(self, data_type: Union[str, pa.DataType]) -> "Expr":
        key = str(data_type).lower()
        name = _ARROW_CAST_NAMES.get(key)
        if name is None:
            raise ValueError(f"Unsupported cast type: {data_type}")
        return Expr(f"arrow_cast({self._sql}, '{name}')")

    def eq(self, other: ExprLike) -> "Expr":
        return self == other

    def ne(self, other: ExprLike) -> "Expr":
        return self != other

    def lt(self, other: ExprLike) -> "Expr":
        return self < other

    def lte(self, other: ExprLike) -> "Expr":
        return self <= other

    def gt(self, other: ExprLike) -> "Expr":
        return self > other

    def gte(self, other: ExprLike) -> "Expr":
        return self >= other

    def and_(self, other: ExprLike) -> "Expr":
        return self & other

    def or_(self, other: ExprLike) -> "Expr":
        return self | other

    def _column_name(self) -> Optional[str]:
        return self._column

    def to_sql(self) -> str:
        """The SQL text of the expression."""
        return self._sql

    def __repr__(self) -> str:
        return f"Expr({self._sql})"

    def __bool__(self) -> bool:
        raise TypeError("An Expr has no truth value; combine expressions with & | ~")


def col(name: str) -> Expr:
    """The column `name` (a name containing dots is one column, not a nested path)."""
    if not isinstance(name, str):
        raise TypeError(f"argument 'name': '{type(name).__name__}' object is not an instance of 'str'")
    return Expr(_identifier(name), column_path=name)


def lit(value: Union[bool, int, float, str, bytes, date, datetime, Decimal]) -> Expr:
    """A literal value."""
    return Expr(_literal_sql(value))


def func(name: str, *args: ExprLike) -> Expr:
    """Call the SQL function `name` (one of: lower, upper, contains, ltrim, rtrim, btrim,
    concat, octet_length)."""
    if name not in _FUNCTIONS:
        raise ValueError(f"Invalid input, unknown function: {name}")
    return Expr(f"{name}(" + ", ".join(_coerce(a)._sql for a in args) + ")")
