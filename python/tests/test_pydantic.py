# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: The lancedb-cpp Authors
"""lancedb_cpp.pydantic: the Arrow schema of models equals LanceDB's; models go in and out of
tables; LanceDB's documented example runs unchanged."""

import os
import sys
from datetime import date, datetime, timezone
from typing import Dict, List, Optional, Union

import pyarrow as pa
import pydantic
import pytest
from pydantic import Field

sys.path.insert(0, os.path.dirname(__file__))

import lancedb_cpp  # noqa: E402
import lancedb_cpp.pydantic as ours  # noqa: E402
import pydantic_models  # noqa: E402
from lancedb_cpp.pydantic import LanceModel, MultiVector, Vector  # noqa: E402

import lancedb.pydantic as lancedb_pydantic  # noqa: E402  (the oracle)

OURS = pydantic_models.build(ours)
THEIRS = pydantic_models.build(lancedb_pydantic)


# ---------------------------------------------------------------------------------------------
# Schemas


@pytest.mark.parametrize("name", sorted(OURS))
def test_schema_equals_lancedb(name):
    mine = ours.pydantic_to_schema(OURS[name])
    theirs = lancedb_pydantic.pydantic_to_schema(THEIRS[name])
    assert mine.equals(theirs, check_metadata=True), f"\n{mine}\n!=\n{theirs}"
    if hasattr(OURS[name], "to_arrow_schema"):
        assert OURS[name].to_arrow_schema().equals(THEIRS[name].to_arrow_schema())


def test_public_names_match_lancedb():
    theirs = {
        n for n in dir(lancedb_pydantic)
        if not n.startswith("_") and getattr(getattr(lancedb_pydantic, n), "__module__", None) == "lancedb.pydantic"
    }
    missing = {n for n in theirs if not hasattr(ours, n)}
    assert not missing


def test_documented_vector_schema():
    class MyModel(pydantic.BaseModel):
        id: int
        url: str
        embeddings: Vector(768)

    assert ours.pydantic_to_schema(MyModel) == pa.schema([
        pa.field("id", pa.int64(), False),
        pa.field("url", pa.utf8(), False),
        pa.field("embeddings", pa.list_(pa.float32(), 768)),
    ])


@pytest.mark.parametrize(
    "annotation",
    [dict, Dict[str, int], Union[int, str], List, list, set, complex, Optional[Union[int, str]]],
    ids=str,
)
def test_unsupported_types_raise_typeerror_like_lancedb(annotation):
    class Ours(pydantic.BaseModel):
        x: annotation

    class Theirs(pydantic.BaseModel):
        x: annotation

    with pytest.raises(TypeError):
        lancedb_pydantic.pydantic_to_schema(Theirs)
    with pytest.raises(TypeError):
        ours.pydantic_to_schema(Ours)


def test_bare_vector_is_a_typeerror():
    with pytest.raises(TypeError, match="dimension"):
        class Bad(LanceModel):
            v: Vector  # type: ignore[valid-type]


def test_vector_validation_and_repr():
    class M(LanceModel):
        v: Vector(3)
        mv: MultiVector(2)

    m = M(v=[1, 2, 3], mv=[[1, 2], [3, 4], [5, 6]])
    assert m.v == [1.0, 2.0, 3.0] and isinstance(m.v, list)
    assert repr(m.v) == "FixedSizeList(dim=3)"
    assert type(m).model_fields["v"].annotation.dim() == 3
    with pytest.raises(pydantic.ValidationError):
        M(v=[1, 2], mv=[])
    with pytest.raises(pydantic.ValidationError):
        M(v=[1, 2, 3], mv=[[1, 2, 3]])


def test_vector_deprecated_alias():
    with pytest.warns(DeprecationWarning):
        v = ours.vector(4)
    assert v.dim() == 4


def test_field_names_and_helpers():
    Docs = OURS["docs"]
    assert Docs.field_names() == ["text", "vector", "meta", "score"]
    assert list(Docs.safe_get_fields()) == Docs.field_names()
    assert Docs.parse_embedding_functions() == []
    tz_field = OURS["dates"].model_fields["tz"]
    assert ours.get_extras(tz_field, "tz") == "UTC"
    assert ours.get_extras(tz_field, "nope") is None
    m = Docs(text="a", vector=[0.0] * 8)
    assert ours.model_to_dict(m) == m.model_dump()


def test_embedding_fields_pair_only_with_the_same_function_object(db):
    # Embedding functions themselves are tested in test_embeddings.py.
    class Emb(LanceModel):
        text: str = Field(json_schema_extra={"source_column_for": object()})
        vector: Vector(4) = Field(json_schema_extra={"vector_column_for": object()})

    assert Emb.parse_embedding_functions() == []
    assert Emb.to_arrow_schema().metadata is None
    db.create_table("emb", schema=Emb)
    assert db.table_names() == ["emb"]


# ---------------------------------------------------------------------------------------------
# Tables


class Address(LanceModel):
    city: str
    zip: Optional[str] = None


class Person(LanceModel):
    id: int
    name: str
    vector: Vector(3)
    half: Vector(2, pa.float16())
    address: Address
    previous: List[Address]
    tags: List[str]
    nick: Optional[str] = None
    score: Optional[float] = None
    born: date
    seen: datetime
    seen_utc: datetime = Field(json_schema_extra={"tz": "UTC"})
    photo: Optional[bytes] = None
    scores: Optional[List[Optional[int]]] = None


def _people():
    return [
        Person(
            id=i,
            name=f"p{i}",
            vector=[float(i), 1.0, 2.0],
            half=[0.5, float(i)],
            address=Address(city=f"c{i}", zip=None if i % 2 else str(i)),
            previous=[Address(city="old")] * i,
            tags=["a", "b"][: i % 3],
            nick=None if i % 2 else f"n{i}",
            score=None if i == 1 else i / 2,
            born=date(2000, 1, 1 + i),
            seen=datetime(2024, 5, 6, 7, 8, 9, 123456),
            seen_utc=datetime(2024, 5, 6, 7, 8, i, tzinfo=timezone.utc),
            photo=b"\x00\x01" if i == 2 else None,
            scores=[1, None, i] if i else None,
        )
        for i in range(4)
    ]


def test_round_trip(db):
    table = db.create_table("people", schema=Person)
    assert table.schema == Person.to_arrow_schema()
    people = _people()
    table.add(people)
    assert table.count_rows() == 4
    back = sorted(table.search().to_pydantic(Person), key=lambda p: p.id)
    assert back == people
    assert sorted(table.query().to_pydantic(Person), key=lambda p: p.id) == people
    hit = table.search([2.0, 1.0, 2.0]).limit(1).to_pydantic(Person)
    assert hit == [people[2]]
    assert repr(hit[0].vector) == "FixedSizeList(dim=3)"
    # A projection into a smaller model.

    class Slim(LanceModel):
        id: int
        address: Address

    slim = table.search().select(["id", "address"]).where("id = 3").to_pydantic(Slim)
    assert slim == [Slim(id=3, address=Address(city="c3"))]


def test_create_table_from_models(db):
    people = _people()
    table = db.create_table("people", data=people)
    assert table.schema == Person.to_arrow_schema()
    assert sorted(table.to_pandas()["id"]) == [0, 1, 2, 3]
    table2 = db.create_table("people2", data=people, schema=Person)
    assert sorted(table2.search().to_pydantic(Person), key=lambda p: p.id) == people


def test_merge_insert_with_models(db):
    table = db.create_table("people", data=_people()[:2])
    changed = _people()[1].model_copy(update={"name": "renamed"})
    result = (
        table.merge_insert("id")
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .execute([changed, _people()[3]])
    )
    assert (result.num_updated_rows, result.num_inserted_rows) == (1, 1)
    rows = {p.id: p for p in table.search().to_pydantic(Person)}
    assert sorted(rows) == [0, 1, 3] and rows[1].name == "renamed"


def test_enum_with_int_values_round_trips(db):
    from pydantic_models import Level

    class Task(LanceModel):
        id: int
        level: Level
        optional_level: Optional[Level] = None

    table = db.create_table("tasks", schema=Task)
    assert table.schema.field("level").type == pa.int64()
    tasks = [Task(id=1, level=Level.LOW), Task(id=2, level=Level.HIGH, optional_level=Level.LOW)]
    table.add(tasks)
    assert sorted(table.search().to_pydantic(Task), key=lambda t: t.id) == tasks


def test_lancedb_docstring_example(tmp_path, monkeypatch):
    """LanceModel's example from LanceDB's docstring, with ``import lancedb_cpp as lancedb``."""
    monkeypatch.chdir(tmp_path)
    import lancedb_cpp as lancedb
    from lancedb_cpp.pydantic import LanceModel, Vector

    class TestModel(LanceModel):
        name: str
        vector: Vector(2)

    db = lancedb.connect("./example")
    table = db.create_table("test", schema=TestModel)
    result = table.add([TestModel(name="test", vector=[1.0, 2.0])])
    assert repr(result) == "AddResult(version=2)"
    hits = table.search([0., 0.]).limit(1).to_pydantic(TestModel)
    assert repr(hits) == "[TestModel(name='test', vector=FixedSizeList(dim=2))]"


def test_table_written_by_lancedb_reads_back(tmp_path):
    import lancedb

    TheirPerson = _their_person()
    theirs = [TheirPerson(**p.model_dump()) for p in _people()]
    lancedb.connect(tmp_path).create_table("people", schema=TheirPerson).add(theirs)

    table = lancedb_cpp.connect(tmp_path).open_table("people")
    assert table.schema == Person.to_arrow_schema()
    back = sorted(table.search().to_pydantic(Person), key=lambda p: p.id)
    assert back == _people()
    # And the other way: rows added with ours read back by LanceDB.
    table.add([_people()[0].model_copy(update={"id": 10})])
    again = lancedb.connect(tmp_path).open_table("people").search().where("id = 10")
    assert again.to_pydantic(TheirPerson)[0].name == "p0"


def _their_person():
    from lancedb.pydantic import LanceModel as TheirModel, Vector as TheirVector

    class TheirAddress(TheirModel):
        city: str
        zip: Optional[str] = None

    annotations = dict(Person.__annotations__)
    fields = {}
    for name, info in Person.model_fields.items():
        ann = info.annotation
        if ann is Address:
            ann = TheirAddress
        elif ann == List[Address]:
            ann = List[TheirAddress]
        elif isinstance(ann, type) and issubclass(ann, ours.FixedSizeListMixin):
            ann = TheirVector(ann.dim(), ann.value_arrow_type())
        default = ... if info.is_required() else info.default
        fields[name] = (ann, Field(default, json_schema_extra=info.json_schema_extra))
    del annotations
    return pydantic.create_model("Person", __base__=TheirModel, **fields)


# ---------------------------------------------------------------------------------------------
# Bad input: LanceDB's exception types, nothing written


def test_single_model_is_rejected(db):
    table = db.create_table("people", schema=Person)
    with pytest.raises(ValueError, match="single LanceModel"):
        table.add(_people()[0])
    assert table.count_rows() == 0


def test_model_of_another_table(db):
    class Other(LanceModel):
        x: int

    table = db.create_table("people", data=_people())
    with pytest.raises(ValueError, match="field 'x' does not exist"):
        table.add([Other(x=1)])
    with pytest.raises(ValueError, match="field 'x' does not exist"):
        db.create_table("other", data=[Other(x=1)], schema=Person)
    assert table.count_rows() == 4 and table.version == 1


def test_model_missing_fields(db):
    class Partial(LanceModel):
        id: int
        name: str

    table = db.create_table("people", data=_people())
    # LanceDB raises RuntimeError (from Rust); ours is both a ValueError and a RuntimeError.
    with pytest.raises(RuntimeError, match="address"):
        table.add([Partial(id=9, name="x")])
    with pytest.raises(RuntimeError):
        table.add([_people()[0], Partial(id=9, name="x")])
    assert table.count_rows() == 4 and table.version == 1


def test_model_missing_nullable_fields_are_null(db):
    class Full(LanceModel):
        id: int
        note: Optional[str] = None

    class Short(LanceModel):
        id: int

    table = db.create_table("t", schema=Full)
    table.add([Short(id=1)])
    assert table.search().to_pydantic(Full) == [Full(id=1)]


def test_same_bad_input_errors_as_lancedb(both):
    import lancedb
    from lancedb.pydantic import LanceModel as TheirModel

    db, oracle = both

    def make(base):
        class P(base):
            id: int
            name: str

        class Q(base):
            id: int

        class X(base):
            x: int

        return P, Q, X

    for conn, base in ((db, LanceModel), (oracle, TheirModel)):
        P, Q, X = make(base)
        table = conn.create_table("p", schema=P)
        for bad, exc in (
            (P(id=1, name="a"), ValueError),
            ([X(x=1)], ValueError),
            ([Q(id=1)], RuntimeError),
        ):
            with pytest.raises(exc):
                table.add(bad)
        assert table.count_rows() == 0
    del lancedb


def test_to_pydantic_validation_error_for_wrong_model(db):
    class Other(LanceModel):
        x: int

    table = db.create_table("people", data=_people())
    with pytest.raises(pydantic.ValidationError):
        table.search().to_pydantic(Other)


def _str_enum_models(module):
    from pydantic_models import Color

    class Paint(module.LanceModel):
        id: int
        color: Color
        maybe: Optional[Color] = None
        palette: List[Color] = []

    return Paint


def _paints(Paint):
    from pydantic_models import Color

    return [
        Paint(id=1, color=Color.RED, palette=[Color.BLUE, Color.RED]),
        Paint(id=2, color=Color.BLUE, maybe=Color.RED),
        Paint(id=3, color=Color.RED, maybe=None, palette=[]),
    ]


def test_str_enum_tables_round_trip_like_lancedb(tmp_path):
    """LanceDB stores a str Enum as dictionary<int32, utf8>: create_table(schema=Model),
    add([Model(...)]) and to_pydantic(Model) work, store what LanceDB stores, and each reads the
    other's table."""
    import lancedb

    from pydantic_models import Color

    Paint = _str_enum_models(ours)
    TheirPaint = _str_enum_models(lancedb_pydantic)
    assert Paint.to_arrow_schema().field("color").type == pa.dictionary(pa.int32(), pa.utf8())
    db = lancedb_cpp.connect(tmp_path / "ours")
    oracle = lancedb.connect(tmp_path / "theirs")
    table = db.create_table("paint", schema=Paint)
    expected = oracle.create_table("paint", schema=TheirPaint)
    assert table.schema == expected.schema
    table.add(_paints(Paint))
    expected.add(_paints(TheirPaint))
    assert table.to_arrow() == expected.to_arrow()
    got = sorted(table.search().to_pydantic(Paint), key=lambda p: p.id)
    assert got == _paints(Paint)
    assert got[0].color is Color.RED and got[1].maybe is Color.RED
    assert [p.id for p in table.search().where("color = 'red'").to_pydantic(Paint)] == [1, 3]
    # LanceDB opens our table and we open LanceDB's, with the same rows.
    theirs_of_ours = lancedb.connect(tmp_path / "ours").open_table("paint")
    assert theirs_of_ours.to_arrow() == expected.to_arrow()
    assert sorted(theirs_of_ours.search().to_pydantic(TheirPaint), key=lambda p: p.id) == _paints(
        TheirPaint
    )
    ours_of_theirs = lancedb_cpp.connect(tmp_path / "theirs").open_table("paint")
    assert ours_of_theirs.to_arrow() == table.to_arrow()
