"""Schema typing of XML parameter values (docs/formats.md, Typed values)."""

from __future__ import annotations

import json

import pytest
from parser_helpers import assemble, every_cut_agrees

from toolcall_middleware.parsers import ParserContext, Tool, formats
from toolcall_middleware.parsers.schema import (
    convert_value,
    json_type,
    parameter_type,
    schema_type,
)
from toolcall_middleware.parsers.xmlargs import XmlCallParser


@pytest.mark.parametrize(
    ("schema", "kind"),
    [
        ({"type": "integer"}, "integer"),
        ({"type": ["null", "number"]}, "number"),
        ({"type": ["string", "null"]}, "string"),
        ({"anyOf": [{"type": "null"}, {"type": "boolean"}]}, "boolean"),
        ({"oneOf": [{"type": "array"}, {"type": "object"}]}, "array"),
        ({"anyOf": [{"anyOf": [{"type": "null"}]}, {"type": "object"}]}, "object"),
        ({"properties": {"a": {}}}, "object"),
        ({"items": {"type": "string"}}, "array"),
        ({"type": "null"}, "null"),
        ({"type": "date-time"}, "string"),
        ({}, "string"),
        (None, "string"),
    ],
)
def test_schema_type_is_the_first_non_null_type(schema: object, kind: str) -> None:
    assert schema_type(schema) == kind


def test_parameter_not_in_schema_or_no_tool_is_a_string() -> None:
    tool = Tool("f", {"type": "object", "properties": {"n": {"type": "integer"}}})
    assert parameter_type(tool, "n") == "integer"
    assert parameter_type(tool, "other") == "string"
    assert parameter_type(None, "n") == "string"
    assert parameter_type(Tool("g"), "n") == "string"


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        (" 42 ", "integer", 42),
        ("3.0", "integer", 3),
        ("3.5", "integer", "3.5"),
        ("seven", "integer", "seven"),
        ("12345678901234567890", "integer", 12345678901234567890),
        ("2", "number", 2),
        ("2.50", "number", 2.5),
        ("1e3", "number", 1000),
        ("nan", "number", "nan"),
        ("True", "boolean", True),
        ("false", "boolean", False),
        ("yes", "boolean", "yes"),
        ('{"a": [1, 2]}', "object", {"a": [1, 2]}),
        ("{'a': (1, None, True)}", "object", {"a": [1, None, True]}),
        ("[1, 'x']", "array", [1, "x"]),
        ("{1, 2}", "array", "{1, 2}"),  # a Python set is not JSON: the string stays
        ("not json", "object", "not json"),
        ("null", "integer", None),
        ("null", "object", None),
        (" null ", "string", None),  # the literal null is null whatever the type
        ('x\n"y"', "string", 'x\n"y"'),
    ],
)
def test_convert_value(value: str, kind: str, expected: object) -> None:
    assert json.loads(convert_value(value, kind)) == expected


@pytest.mark.parametrize(
    ("declared", "kind"),
    [
        ("float", "number"),
        ("double", "number"),
        ("Decimal", "number"),
        ("num", "number"),
        ("int", "integer"),
        ("int64", "integer"),
        ("uint8", "integer"),
        ("long", "integer"),
        ("bool", "boolean"),
        ("binary", "boolean"),
        ("dict", "object"),
        ("Dict[str, Any]", "object"),
        ("list", "array"),
        ("List[int]", "array"),
        ("tuple", "array"),
        ("str", "string"),
        ("text", "string"),
        ("enum", "string"),
        ("Integer", "integer"),
        ("date-time", "string"),
        ("any", "string"),
    ],
)
def test_type_names_outside_json_schema_read_as_peers_read_them(declared: str, kind: str) -> None:
    assert json_type(declared) == kind
    assert schema_type({"type": declared}) == kind
    assert schema_type({"type": [declared, "null"]}) == kind


MEASURE = Tool(
    "measure",
    {
        "type": "object",
        "properties": {
            "ratio": {"type": "float"},
            "weight": {"type": "double"},
            "count": {"type": "int"},
            "ok": {"type": "bool"},
            "options": {"type": "dict"},
            "tags": {"type": "list"},
            "label": {"type": "str"},
            "id": {"type": "string"},
        },
    },
)
VALUES = {
    "ratio": 3.14,
    "weight": 2,
    "count": 3,
    "ok": True,
    "options": {"a": [1]},
    "tags": ["x", "y"],
    "label": "3.14",
    "id": "007",
}
XML_FORMATS = [
    name
    for name, fmt in formats().items()
    if isinstance(fmt.parser, type) and issubclass(fmt.parser, XmlCallParser)
]


@pytest.mark.parametrize("provider", XML_FORMATS)
def test_schema_typed_formats_convert_values_of_non_json_schema_types(provider: str) -> None:
    writer = formats()[provider].write_calls
    assert writer is not None
    values = dict(VALUES)
    if provider == "minimax_m3":
        # M3 writes objects and arrays as elements, which only a schema types: a "dict" says
        # nothing of what its members hold.
        del values["options"]
    text = writer([("measure", json.dumps(values))])
    result = assemble(every_cut_agrees(provider, text, ParserContext((MEASURE,))))
    assert [c.name for c in result.calls] == ["measure"]
    assert result.arguments() == [values]
