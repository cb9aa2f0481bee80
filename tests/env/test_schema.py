"""Tool schemas from type hints and Google-style docstrings (covert.env.schema, covert.env.tools).

No ``from __future__ import annotations`` here on purpose: several environments are defined inside
test functions, and their hints must be real objects rather than strings naming local classes.
"""

import enum
import json
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Optional, TypedDict

import pytest

from covert.env import Entity, Environment, SchemaError, ToolSpec, tool
from covert.env.schema import ENTITY_KEY, parse_docstring, record_schema, type_schema


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Size(enum.IntEnum):
    SMALL = 1
    LARGE = 2


class Point(TypedDict):
    """A point on a map.

    Attributes:
        x: Horizontal position.
        y: Vertical position.
    """

    x: float
    y: float


class Place(TypedDict, total=False):
    """A named place.

    Attributes:
        name: What the place is called.
        where: Its location.
        tags: Free-form labels.
    """

    name: str
    where: Point
    tags: list[str]


@dataclass
class Address:
    """A postal address.

    Attributes:
        street: Street and number,
            possibly long.
        city: City name.
        zip: Five-digit ZIP code.
        note: Delivery note.
    """

    street: str
    city: str
    zip: Annotated[str, Entity("zip_code")]
    note: str = ""
    labels: list[str] = field(default_factory=list)


class Showcase(Environment):
    """A toy environment whose single tool uses every supported hint."""

    name = "showcase"

    @tool(writes=True, errors=("nope",))
    def everything(
        self,
        text: str,
        count: int,
        ratio: float,
        flag: bool,
        mode: Literal["fast", "slow"],
        color: Color,
        size: Size,
        names: list[str],
        scores: dict[str, int],
        anything: dict,
        point: Point,
        place: Place,
        address: Address,
        order_ref: Annotated[str, Entity("order_id")],
        ids: list[Annotated[str, Entity("item_id")]],
        maybe: Optional[int] = None,
        maybe_new: str | None = None,
        level: int = 3,
        label: str = "",
        strict: bool = False,
    ) -> Point:
        """Do everything at once.

        A second paragraph that is part of the summary.

        Args:
            text: Some text.
            count: How many.
            ratio: A fraction
                that needs two lines
                or even three.
            flag: A switch.
            mode: Speed.
            color: A colour.
            size: A size.
            names: Names.
            scores: Score per name.
            anything: Free-form object.
            point: A point.
            place: A place.
            address: An address.
            order_ref: The order.
            ids: Item ids.
            maybe: Optional number.
            maybe_new: Optional text (PEP 604 union).
            level: A level.
            label: A label.
            strict (bool): Typed in the docstring too.

        Returns:
            The point
            reached.
        """
        return {"x": 0.0, "y": 0.0}


SPEC: ToolSpec = Showcase.tool_specs["everything"]
PARAMS = SPEC.parameters
PROPS = PARAMS["properties"]


# -- primitive and container hints ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("param", "expected_type"),
    [("text", "string"), ("count", "integer"), ("ratio", "number"), ("flag", "boolean")],
)
def test_primitives(param: str, expected_type: str) -> None:
    assert PROPS[param]["type"] == expected_type


def test_literal_and_enums() -> None:
    assert PROPS["mode"]["type"] == "string"
    assert PROPS["mode"]["enum"] == ["fast", "slow"]
    assert PROPS["color"] == {"type": "string", "enum": ["red", "green"], "description": "A colour."}
    assert PROPS["size"]["type"] == "integer"
    assert PROPS["size"]["enum"] == [1, 2]
    assert type_schema(Literal[1, 2, 3]) == {"type": "integer", "enum": [1, 2, 3]}
    assert type_schema(Literal[True]) == {"type": "boolean", "enum": [True]}


def test_list_and_dict() -> None:
    assert PROPS["names"]["type"] == "array"
    assert PROPS["names"]["items"] == {"type": "string"}
    assert PROPS["scores"]["type"] == "object"
    assert PROPS["scores"]["additionalProperties"] == {"type": "integer"}
    assert PROPS["anything"]["type"] == "object"
    assert "additionalProperties" not in PROPS["anything"]
    assert type_schema(list[list[int]]) == {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}
    assert type_schema(Any) == {}


def test_optional_with_default_none_is_not_required() -> None:
    assert PROPS["maybe"]["type"] == "integer"
    assert PROPS["maybe_new"]["type"] == "string"
    for name in ("maybe", "maybe_new"):
        assert name not in PARAMS["required"]
        assert "default" not in PROPS[name], "a None default is not recorded"


def test_required_and_defaults() -> None:
    assert PARAMS["type"] == "object"
    assert PARAMS["required"] == [
        "text", "count", "ratio", "flag", "mode", "color", "size", "names", "scores", "anything", "point",
        "place", "address", "order_ref", "ids",
    ]
    assert PROPS["level"]["default"] == 3
    assert PROPS["label"]["default"] == ""
    assert PROPS["strict"]["default"] is False
    assert list(PROPS)[-5:] == ["maybe", "maybe_new", "level", "label", "strict"], "signature order"


def test_every_parameter_is_described() -> None:
    for name, prop in PROPS.items():
        assert prop.get("description"), name
    assert PROPS["ratio"]["description"] == "A fraction that needs two lines or even three."
    assert PROPS["strict"]["description"] == "Typed in the docstring too."
    assert SPEC.description == "Do everything at once. A second paragraph that is part of the summary."
    assert SPEC.returns["description"] == "The point reached."
    assert SPEC.writes is True
    assert SPEC.errors == ("nope",)


def test_nested_typeddict() -> None:
    point = PROPS["point"]
    assert point["type"] == "object"
    assert point["properties"]["x"] == {"type": "number", "description": "Horizontal position."}
    assert point["required"] == ["x", "y"]
    assert point["description"] == "A point.", "the parameter's description wins over the type's summary"
    assert record_schema(Point)["description"] == "A point on a map."
    place = PROPS["place"]
    assert place["required"] == [], "total=False makes every key optional"
    assert place["properties"]["where"]["properties"]["y"]["type"] == "number"
    assert place["properties"]["tags"] == {"type": "array", "items": {"type": "string"}, "description": "Free-form labels."}
    assert SPEC.returns["type"] == "object"
    assert set(SPEC.returns["properties"]) == {"x", "y"}


def test_nested_dataclass() -> None:
    schema = record_schema(Address)
    assert schema["description"] == "A postal address."
    assert schema["required"] == ["street", "city", "zip"]
    assert schema["properties"]["street"]["description"] == "Street and number, possibly long."
    assert schema["properties"]["zip"] == {"type": "string", ENTITY_KEY: "zip_code", "description": "Five-digit ZIP code."}
    assert schema["properties"]["labels"] == {"type": "array", "items": {"type": "string"}}
    assert PROPS["address"]["properties"]["city"]["description"] == "City name."


def test_entity_annotation_and_openai_strips_it() -> None:
    assert PROPS["order_ref"][ENTITY_KEY] == "order_id"
    assert PROPS["ids"]["items"][ENTITY_KEY] == "item_id"
    assert SPEC.param_entity("order_ref") == "order_id"
    assert SPEC.param_entity("ids") == "item_id"
    assert SPEC.param_entity("text") == "text"
    openai = SPEC.openai()
    assert openai["type"] == "function"
    assert openai["function"]["name"] == "everything"
    assert openai["function"]["description"] == SPEC.description
    assert "x-" not in json.dumps(openai)
    assert "x-entity" in json.dumps(SPEC.parameters), "the spec itself keeps the annotation"
    assert openai["function"]["parameters"]["properties"]["order_ref"] == {"type": "string", "description": "The order."}
    assert Showcase.openai_tools() == [openai]
    assert SPEC.metadata() == {"returns": SPEC.returns, "writes": True, "errors": ["nope"]}


def test_param_entity_plural_ids_without_tag() -> None:
    class Env(Environment):
        @tool
        def take(self, item_ids: list[str], order_id: str) -> dict:
            """Take items.

            Args:
                item_ids: Items.
                order_id: Order.
            """
            return {}

    spec = Env.tool_specs["take"]
    assert spec.param_entity("item_ids") == "item_id"
    assert spec.param_entity("order_id") == "order_id"
    assert spec.writes is False and spec.errors == ()


def test_tool_name_override_and_definition_order() -> None:
    class Env(Environment):
        @tool(name="second_name")
        def b(self) -> dict:
            """B."""
            return {}

        @tool
        def a(self) -> dict:
            """A."""
            return {}

        def helper(self) -> None:
            """Not a tool."""

    assert list(Env.tool_specs) == ["second_name", "a"]
    assert Env.tool_specs["second_name"].method == "b"
    assert Env.tool_specs["a"].parameters == {"type": "object", "properties": {}, "required": []}


# -- errors ----------------------------------------------------------------------------------------
def test_missing_param_description() -> None:
    with pytest.raises(SchemaError, match=r"'broken'.*'count'.*description"):

        class Env(Environment):
            @tool
            def broken(self, text: str, count: int) -> dict:
                """Broken.

                Args:
                    text: Described.
                """
                return {}


def test_missing_summary() -> None:
    with pytest.raises(SchemaError, match="docstring summary"):

        class Env(Environment):
            @tool
            def broken(self, text: str) -> dict:
                return {}


def test_missing_type_hint() -> None:
    with pytest.raises(SchemaError, match=r"'count'.*type hint"):

        class Env(Environment):
            @tool
            def broken(self, text: str, count) -> dict:  # type: ignore[no-untyped-def]
                """Broken.

                Args:
                    text: Described.
                    count: Described too.
                """
                return {}


@pytest.mark.parametrize("star", ["args", "kwargs"])
def test_star_args(star: str) -> None:
    with pytest.raises(SchemaError, match=r"\*args/\*\*kwargs"):
        if star == "args":

            class Env(Environment):
                @tool
                def broken(self, *args: str) -> dict:
                    """Broken.

                    Args:
                        args: Things.
                    """
                    return {}

        else:

            class Env2(Environment):
                @tool
                def broken(self, **kwargs: str) -> dict:
                    """Broken.

                    Args:
                        kwargs: Things.
                    """
                    return {}


def test_unsupported_type() -> None:
    with pytest.raises(SchemaError, match=r"broken\.ids.*unsupported type hint"):

        class Env(Environment):
            @tool
            def broken(self, ids: set[int]) -> dict:
                """Broken.

                Args:
                    ids: Ids.
                """
                return {}


@pytest.mark.parametrize("hint", [Literal["a", 1], Literal[1, True], Literal[None]])
def test_mixed_literal(hint: Any) -> None:
    with pytest.raises(SchemaError, match="Literal values must share one primitive type"):
        type_schema(hint, "owner")


def test_other_unsupported_hints() -> None:
    with pytest.raises(SchemaError, match="list needs an item type"):
        type_schema(list, "f.x")
    with pytest.raises(SchemaError, match=r"only Optional\[X\] unions"):
        type_schema(int | str, "f.x")
    with pytest.raises(SchemaError, match="unsupported type hint"):
        type_schema(tuple[int, int], "f.x")
    assert issubclass(SchemaError, TypeError)


# -- docstrings -----------------------------------------------------------------------------------
def test_parse_docstring_multiline() -> None:
    doc = parse_docstring(
        """Summary line
        continues here.

        Args:
            first: The first argument, whose description
                runs over two lines.
            second (list[int]): Typed; also
                spans: several lines, even with a colon.
            *rest: Variadic.
            **extra: Keyword variadic.
            empty:
                Description only on the next line.

        Returns:
            A value
            on two lines.

        Attributes:
            field_a: First attribute.
            field_b: Second
                attribute.

        Raises:
            ValueError: Sometimes.
        """
    )
    assert doc.summary == "Summary line continues here."
    assert doc.args == {
        "first": "The first argument, whose description runs over two lines.",
        "second": "Typed; also spans: several lines, even with a colon.",
        "rest": "Variadic.",
        "extra": "Keyword variadic.",
        "empty": "Description only on the next line.",
    }
    assert doc.returns == "A value on two lines."
    assert doc.attributes == {"field_a": "First attribute.", "field_b": "Second attribute."}


def test_parse_docstring_aliases_and_empty() -> None:
    doc = parse_docstring("Do it.\n\nParameters:\n    x: An x.\n\nReturn:\n    Nothing.")
    assert doc.args == {"x": "An x."}
    assert doc.returns == "Nothing."
    empty = parse_docstring(None)
    assert (empty.summary, empty.args, empty.returns, empty.attributes) == ("", {}, "", {})
    assert parse_docstring("Arguments:\n    y: Why.").args == {"y": "Why."}


def test_not_required_fields_are_optional_in_the_return_schema() -> None:
    import typing
    from typing import TypedDict

    if not hasattr(typing, "NotRequired"):
        pytest.skip("typing.NotRequired needs Python 3.11")
    NotRequired = typing.NotRequired  # noqa: N806

    from covert.env.schema import record_schema

    class Status(TypedDict):
        """A status.

        Attributes:
            name: The name.
            battery: Battery percent, when there is one.
        """

        name: str
        battery: NotRequired[int]

    schema = record_schema(Status)
    assert schema["required"] == ["name"]
    assert schema["properties"]["battery"] == {"type": "integer", "description": "Battery percent, when there is one."}
