# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""Model definitions parameterized by the pydantic module (ours or LanceDB's)."""
from datetime import date, datetime
from enum import Enum, IntEnum
from typing import List, Optional, Tuple, Union
import pyarrow as pa
import pydantic
from pydantic import Field


class Color(str, Enum):
    RED = "red"
    BLUE = "blue"


class Plain(Enum):
    A = "a"
    B = "b"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Mixed(Enum):
    X = 1
    Y = "y"


class Ratio(Enum):
    HALF = 0.5
    ONE = 1.0


def build(mod):
    LanceModel, Vector, MultiVector = mod.LanceModel, mod.Vector, mod.MultiVector
    out = {}

    class Scalars(LanceModel):
        i: int
        f: float
        b: bool
        s: str
        by: bytes
    out["scalars"] = Scalars

    class Optionals(LanceModel):
        i: Optional[int] = None
        f: Union[float, None] = None
        s: "str | None" = None
        by: Optional[bytes] = None
        l: Optional[List[int]] = None
    out["optionals"] = Optionals

    class Lists(LanceModel):
        ints: List[int]
        strs: list[str]
        nested: List[List[float]]
        opt_items: List[Optional[int]]
        tup: Tuple[int, ...]
        opt_list: Optional[list[bool]] = None
    out["lists"] = Lists

    class Inner(LanceModel):
        a: int
        b: Optional[str] = None
    class Outer(LanceModel):
        id: int
        inner: Inner
        maybe: Optional[Inner] = None
        many: List[Inner]
    out["nested"] = Outer

    class Plainbase(pydantic.BaseModel):
        x: float
        y: float
    class Deep(LanceModel):
        point: Plainbase
        pts: Optional[List[Plainbase]] = None
        deeper: Outer
    out["deep"] = Deep

    class Dates(LanceModel):
        d: date
        ts: datetime
        tz: datetime = Field(json_schema_extra={"tz": "UTC"})
        od: Optional[date] = None
        ots: Optional[datetime] = None
        dates: List[date]
    out["dates"] = Dates

    class Vectors(LanceModel):
        v: Vector(3)
        h: Vector(4, pa.float16())
        d: Vector(2, pa.float64())
        nn: Vector(5, nullable=False)
        ov: Optional[Vector(2, nullable=False)] = None
    out["vectors"] = Vectors

    class Multi(LanceModel):
        id: int
        mv: MultiVector(4)
        mvh: MultiVector(2, pa.float16(), nullable=False)
        vecs: List[Vector(2)]
    out["multivector"] = Multi

    class Enums(LanceModel):
        c: Color
        p: Plain
        lv: Level
        mx: Mixed
        r: Ratio
        oc: Optional[Color] = None
        cs: List[Color]
    out["enums"] = Enums

    class Docs(LanceModel):
        text: str
        vector: Vector(8)
        meta: Optional[Inner] = None
        score: float = 0.0
    out["docs"] = Docs

    class PlainModel(pydantic.BaseModel):
        id: int
        emb: Vector(16)
        name: Optional[str] = None
    out["plain_basemodel"] = PlainModel

    class Pep604(LanceModel):
        a: int | None = None
        b: list[int] | None = None
        c: list[int | None]
        d: "Inner | None" = None
    out["pep604"] = Pep604

    class Defaults(LanceModel):
        a: int = 3
        b: str = Field(default="x", description="doc")
        c: List[str] = Field(default_factory=list)
    out["defaults"] = Defaults
    return out
