"""Schema typing of XML parameter values (FORMATS.md, qwen3_coder)."""

from __future__ import annotations

import json

import pytest

from toolcall_middleware.parsers import Tool
from toolcall_middleware.parsers.schema import convert_value, parameter_type, schema_type


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
