# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Column expressions, as ``lancedb.expr``: ``col("price") * 2 > lit(10)`` builds an
expression whose ``to_sql()`` is the SQL lancedb-cpp's filters, projections, updates and merge
conditions take (``where(expr)``, ``select({"alias": expr})``, ``delete(expr)``, ...).

The SQL text is LanceDB 0.39's (its expression builder prints DataFusion expressions with
DataFusion's SQL unparser): binary operations in parentheses, ``NOT`` for ``~`` (``~`` of an
``IN`` list negates the list: ``a NOT IN (1)``), identifiers in backticks when they are SQL
keywords or not plain lower-case names, casts as ``arrow_cast(x, '<Arrow type name>')``,
bytes as ``X'CAFE'``, floats positional (``1e20`` prints ``100000000000000000000.0``),
datetimes as UTC wall-clock ``CAST('...' AS TIMESTAMP)`` and Decimals as
``arrow_cast('1.5', 'Decimal128(2, 1)')``.
"""

from __future__ import annotations

import math
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Iterable, List, Optional, Union

import pyarrow as pa

from ._sql_keywords import SQL_KEYWORDS

__all__ = ["Expr", "col", "lit", "func"]

ExprLike = Union["Expr", bool, int, float, str, bytes, date, datetime, Decimal]

# Functions func() accepts (those LanceDB 0.39's expression builder registers).
_FUNCTIONS = ("lower", "upper", "contains", "btrim", "ltrim", "rtrim", "concat", "octet_length")

# The type names Expr.cast takes as strings (LanceDB's table, in its order: the error lists it).
_STR_TO_PA_TYPE = {
    "bool": pa.bool_(), "boolean": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(),
    "int32": pa.int32(), "int64": pa.int64(), "uint8": pa.uint8(), "uint16": pa.uint16(),
    "uint32": pa.uint32(), "uint64": pa.uint64(), "float16": pa.float16(),
    "float32": pa.float32(), "float": pa.float32(), "float64": pa.float64(),
    "double": pa.float64(), "string": pa.string(), "utf8": pa.string(), "str": pa.string(),
    "large_string": pa.large_utf8(), "large_utf8": pa.large_utf8(), "date32": pa.date32(),
    "date": pa.date32(), "date64": pa.date64(),
}  # fmt: skip

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_INT128_MIN, _INT128_MAX = -(2**127), 2**127 - 1
_UNIX_EPOCH_ORDINAL = 719163  # date(1970, 1, 1).toordinal()
_MICROS_PER_DAY = 86_400_000_000


# ── SQL text of the pieces ───────────────────────────────────────────────────────────────────


def _identifier(name: str) -> str:
    plain = name == "" or (
        (name[0] == "_" or "a" <= name[0] <= "z")
        and all(c == "_" or "a" <= c <= "z" or "0" <= c <= "9" for c in name)
    )
    if plain and name not in SQL_KEYWORDS:
        return name
    return "`" + name.replace("`", "``") + "`"


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _float_sql(value: float) -> str:
    if math.isnan(value):
        return "arrow_cast('NaN', 'Float64')"
    if math.isinf(value):
        return "arrow_cast('inf', 'Float64')" if value > 0 else "arrow_cast('-inf', 'Float64')"
    if value.is_integer():  # every digit of the double, then ".0"
        return format(Decimal(value), "f") + ".0"
    return format(Decimal(repr(value)), "f")  # the shortest round-trip digits, positional


def _civil_from_days(days: int) -> tuple:
    """(year, month, day) of `days` since 1970-01-01, in the proleptic Gregorian calendar (any
    year, unlike datetime.date)."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def _date_text(days: int) -> str:
    year, month, day = _civil_from_days(days)
    year_text = f"{year:04d}" if 0 <= year <= 9999 else f"{year:+05d}"
    return f"{year_text}-{month:02d}-{day:02d}"


def _timestamp_text(micros: int) -> str:
    days, rest = divmod(micros, _MICROS_PER_DAY)
    seconds, fraction = divmod(rest, 1_000_000)
    text = f"{_date_text(days)} {seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    if fraction == 0:
        return text
    if fraction % 1000 == 0:
        return f"{text}.{fraction // 1000:03d}"
    return f"{text}.{fraction:06d}"


def _datetime_micros(value: datetime) -> int:
    """Microseconds since the epoch as LanceDB computes them: a naive datetime is UTC wall
    clock; the float seconds of timestamp() times 1e6, rounded half away from zero."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    scaled = value.timestamp() * 1_000_000.0
    magnitude = abs(scaled)
    whole = math.floor(magnitude)
    if magnitude - whole >= 0.5:
        whole += 1
    return int(-whole if scaled < 0 else whole)


def _decimal_sql(value: Decimal) -> str:
    """arrow_cast('<digits>', 'Decimal128(p, s)'): precision and scale from the digits of
    str(value), as LanceDB reads them (an exponent form such as '1E+3' is an error there)."""
    text = str(value).strip()
    dot = text.find(".")
    scale = len(text) - dot - 1 if dot >= 0 else 0
    digits = text.replace(".", "")
    body = digits[1:] if digits[:1] in ("+", "-") else digits
    if not body or not body.isdigit() or not body.isascii():
        reason = "cannot parse integer from empty string" if not body else "invalid digit found in string"
        raise ValueError(f"failed to parse decimal digits: {reason}")
    unscaled = int(digits)
    if unscaled > _INT128_MAX:
        raise ValueError("failed to parse decimal digits: number too large to fit in target type")
    if unscaled < _INT128_MIN:
        raise ValueError("failed to parse decimal digits: number too small to fit in target type")
    precision = len(digits.lstrip("-"))
    magnitude = str(abs(unscaled))
    sign = "-" if unscaled < 0 else ""
    if scale == 0:
        shown = sign + magnitude
    elif len(magnitude) > scale:
        shown = f"{sign}{magnitude[:-scale]}.{magnitude[-scale:]}"
    else:
        shown = f"{sign}0.{magnitude.rjust(scale, '0')}"
    return f"arrow_cast('{shown}', 'Decimal128({precision}, {scale})')"


def _literal_sql(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if _INT64_MIN <= value <= _INT64_MAX:
            return str(int(value))
        try:
            return _float_sql(float(value))  # as LanceDB: too wide for int64, so a float
        except OverflowError:
            raise ValueError(
                "unsupported literal type: int. Supported: bool, int, float, str, bytes, date, "
                "datetime, Decimal"
            ) from None
    if type(value).__name__ == "Decimal":
        return _decimal_sql(value)  # type: ignore[arg-type]
    if isinstance(value, float):
        return _float_sql(float(value))
    if isinstance(value, str):
        return _sql_string(value)
    if isinstance(value, bytes):
        return "X'" + value.hex().upper() + "'"
    if isinstance(value, datetime):
        return f"CAST('{_timestamp_text(_datetime_micros(value))}' AS TIMESTAMP)"
    if isinstance(value, date):
        return f"CAST('{_date_text(value.toordinal() - _UNIX_EPOCH_ORDINAL)}' AS DATE)"
    if isinstance(value, Decimal):  # a Decimal subclass: LanceDB takes its float value
        return _float_sql(float(value))
    raise TypeError(f"Unsupported literal type: {type(value).__name__}")


# ── Arrow type names, as arrow-rs prints a DataType (what arrow_cast parses) ────────────────

_UNITS = {"s": "s", "ms": "ms", "us": "µs", "ns": "ns"}
_SIMPLE_TYPE_NAMES = {
    pa.null(): "Null", pa.bool_(): "Boolean", pa.int8(): "Int8", pa.int16(): "Int16",
    pa.int32(): "Int32", pa.int64(): "Int64", pa.uint8(): "UInt8", pa.uint16(): "UInt16",
    pa.uint32(): "UInt32", pa.uint64(): "UInt64", pa.float16(): "Float16",
    pa.float32(): "Float32", pa.float64(): "Float64", pa.string(): "Utf8",
    pa.large_string(): "LargeUtf8", pa.binary(): "Binary", pa.large_binary(): "LargeBinary",
    pa.date32(): "Date32", pa.date64(): "Date64",
    pa.month_day_nano_interval(): "Interval(MonthDayNano)",
}  # fmt: skip
for _name, _arrow in (("string_view", "Utf8View"), ("binary_view", "BinaryView")):
    if hasattr(pa, _name):
        _SIMPLE_TYPE_NAMES[getattr(pa, _name)()] = _arrow


def _rust_debug_string(text: str) -> str:
    out = []
    for c in text:
        if c in ('"', "\\"):
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif c == "\0":
            out.append("\\0")
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{{{ord(c):x}}}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _metadata_text(field: pa.Field) -> str:
    if not field.metadata:
        return ""
    items = sorted((k.decode(), v.decode()) for k, v in field.metadata.items())
    return ", metadata: {" + ", ".join(
        f"{_rust_debug_string(k)}: {_rust_debug_string(v)}" for k, v in items
    ) + "}"


def _item_text(field: pa.Field, default_name: Optional[str]) -> str:
    text = ("" if field.nullable else "non-null ") + _arrow_type_name(field.type)
    if default_name is not None and field.name != default_name:
        text += f", field: '{field.name}'"
    return text + _metadata_text(field)


def _named_field_text(field: pa.Field) -> str:
    return f"{_rust_debug_string(field.name)}: {_item_text(field, None)}"


def _arrow_type_name(t: pa.DataType) -> str:
    types = pa.types
    simple = _SIMPLE_TYPE_NAMES.get(t)
    if simple is not None:
        return simple
    if types.is_fixed_size_binary(t) and not types.is_decimal(t):
        return f"FixedSizeBinary({t.byte_width})"
    if types.is_timestamp(t):
        tz = f", {_rust_debug_string(t.tz)}" if t.tz is not None else ""
        return f"Timestamp({_UNITS[t.unit]}{tz})"
    if types.is_time32(t) or types.is_time64(t) or types.is_duration(t):
        kind = "Duration" if types.is_duration(t) else f"Time{t.bit_width}"
        return f"{kind}({_UNITS[t.unit]})"
    if types.is_decimal(t):
        return f"Decimal{t.bit_width}({t.precision}, {t.scale})"
    if types.is_fixed_size_list(t):
        return f"FixedSizeList({t.list_size} x {_item_text(t.value_field, 'item')})"
    for predicate, name in (("is_list", "List"), ("is_large_list", "LargeList"),
                            ("is_list_view", "ListView"), ("is_large_list_view", "LargeListView")):  # fmt: skip
        if hasattr(types, predicate) and getattr(types, predicate)(t):
            return f"{name}({_item_text(t.value_field, 'item')})"
    if types.is_map(t):
        entries = pa.field(
            "entries", pa.struct([t.key_field, t.item_field]), nullable=False
        )
        return f"Map({_named_field_text(entries)}, {'sorted' if t.keys_sorted else 'unsorted'})"
    if types.is_struct(t):
        return "Struct(" + ", ".join(_named_field_text(t.field(i)) for i in range(t.num_fields)) + ")"
    if types.is_dictionary(t):
        return f"Dictionary({_arrow_type_name(t.index_type)}, {_arrow_type_name(t.value_type)})"
    if types.is_run_end_encoded(t):
        run_ends = pa.field("run_ends", t.run_end_type, nullable=False)
        values = pa.field("values", t.value_type)
        return f"RunEndEncoded({_named_field_text(run_ends)}, {_named_field_text(values)})"
    if types.is_union(t):
        mode = "Dense" if t.mode == "dense" else "Sparse"
        members = ", ".join(
            f"{code}: ({_named_field_text(t.field(i))})" for i, code in enumerate(t.type_codes)
        )
        return f"Union({mode}, {members})"
    raise ValueError(f"Unsupported cast type: {t}")


# ── The expression tree ──────────────────────────────────────────────────────────────────────


class _Node:
    """One node of an expression; immutable."""

    __slots__ = ()

    def sql(self) -> str:
        raise NotImplementedError


class _Column(_Node):
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def sql(self) -> str:
        return _identifier(self.name)


class _Literal(_Node):
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def sql(self) -> str:
        return self.text


class _Binary(_Node):
    __slots__ = ("op", "left", "right")

    def __init__(self, op: str, left: _Node, right: _Node) -> None:
        self.op, self.left, self.right = op, left, right

    def sql(self) -> str:
        return f"({self.left.sql()} {self.op} {self.right.sql()})"


class _Not(_Node):
    __slots__ = ("operand",)

    def __init__(self, operand: _Node) -> None:
        self.operand = operand

    def sql(self) -> str:
        return f"NOT {self.operand.sql()}"


class _InList(_Node):
    __slots__ = ("operand", "items", "negated")

    def __init__(self, operand: _Node, items: List[_Node], negated: bool) -> None:
        self.operand, self.items, self.negated = operand, items, negated

    def sql(self) -> str:
        if not self.items:  # x IN () is false, x NOT IN () true
            return "true" if self.negated else "false"
        items = ", ".join(i.sql() for i in self.items)
        return f"{self.operand.sql()} {'NOT IN' if self.negated else 'IN'} ({items})"


class _Call(_Node):
    __slots__ = ("name", "args")

    def __init__(self, name: str, args: List[_Node]) -> None:
        self.name, self.args = name, args

    def sql(self) -> str:
        return f"{self.name}(" + ", ".join(a.sql() for a in self.args) + ")"


class _Cast(_Node):
    __slots__ = ("operand", "type_name")

    def __init__(self, operand: _Node, type_name: str) -> None:
        self.operand, self.type_name = operand, type_name

    def sql(self) -> str:
        return f"arrow_cast({self.operand.sql()}, {_sql_string(self.type_name)})"


def _coerce(value: ExprLike) -> "Expr":
    return value if isinstance(value, Expr) else lit(value)


class Expr:
    """A column expression. Build one with ``col``, ``lit`` and ``func`` and combine with the
    Python operators (``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``, ``&``, ``|``, ``~``, ``+``,
    ``-``, ``*``, ``/``) or the named methods."""

    __slots__ = ("_node", "_column_path")
    __hash__ = None  # type: ignore[assignment]  # == builds an expression

    def __init__(self, node: _Node, *, column_path: Optional[str] = None) -> None:
        self._node = node
        self._column_path = column_path

    def _binary(self, op: str, other: ExprLike) -> "Expr":
        return Expr(_Binary(op, self._node, _coerce(other)._node))

    def _rbinary(self, op: str, other: ExprLike) -> "Expr":
        return Expr(_Binary(op, _coerce(other)._node, self._node))

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
        node = self._node
        if isinstance(node, _InList):  # as DataFusion: NOT of an IN list negates the list
            return Expr(_InList(node.operand, node.items, not node.negated))
        return Expr(_Not(node))

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

    def lower(self) -> "Expr":
        """Convert string values to lower case."""
        return Expr(_Call("lower", [self._node]))

    def upper(self) -> "Expr":
        """Convert string values to upper case."""
        return Expr(_Call("upper", [self._node]))

    def contains(self, substr: ExprLike) -> "Expr":
        """True where the string contains `substr`."""
        return Expr(_Call("contains", [self._node, _coerce(substr)._node]))

    def isin(self, values: Iterable[ExprLike]) -> "Expr":
        """True where the value is one of `values` (SQL ``IN``)."""
        return Expr(_InList(self._node, [_coerce(v)._node for v in values], False))

    def cast(self, data_type: Union[str, pa.DataType]) -> "Expr":
        """Cast to `data_type`: a pyarrow DataType or one of the names of LanceDB's table
        (``"int32"``, ``"float64"``, ``"string"``, ``"date32"``, ...)."""
        if isinstance(data_type, str):
            try:
                data_type = _STR_TO_PA_TYPE[data_type]
            except KeyError:
                raise ValueError(
                    f"unsupported data type: '{data_type}'. Supported: "
                    f"{', '.join(_STR_TO_PA_TYPE)}"
                ) from None
        if not isinstance(data_type, pa.DataType):
            raise TypeError(
                "argument 'data_type': Expected instance of pyarrow.lib.DataType, got "
                f"builtins.{type(data_type).__name__}"
            )
        return Expr(_Cast(self._node, _arrow_type_name(data_type)))

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
        """The column name when this is a bare column expression, else None."""
        return self._node.name if isinstance(self._node, _Column) else None

    def to_sql(self) -> str:
        """The SQL text of the expression."""
        return self._node.sql()

    def __repr__(self) -> str:
        return f"Expr({self.to_sql()})"


def col(name: str) -> Expr:
    """The column `name` (a name containing dots is one column, not a nested path)."""
    if not isinstance(name, str):
        raise TypeError(f"argument 'name': '{type(name).__name__}' object is not an instance of 'str'")
    return Expr(_Column(name), column_path=name)


def lit(value: Union[bool, int, float, str, bytes, date, datetime, Decimal]) -> Expr:
    """A literal value: bool, int, float, str, bytes, date, datetime or Decimal."""
    if not isinstance(value, (bool, int, float, str, bytes, date, datetime, Decimal)):
        raise TypeError(f"Unsupported literal type: {type(value).__name__}")
    return Expr(_Literal(_literal_sql(value)))


def func(name: str, *args: ExprLike) -> Expr:
    """Call the SQL function `name` (one of: lower, upper, contains, btrim, ltrim, rtrim,
    concat, octet_length)."""
    nodes = [_coerce(a)._node for a in args]
    if not isinstance(name, str):
        raise TypeError(f"argument 'name': '{type(name).__name__}' object is not an instance of 'str'")
    if name not in _FUNCTIONS:
        raise ValueError(f"Invalid input, unknown function: {name}")
    return Expr(_Call(name, nodes))
