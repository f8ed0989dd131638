"""Typing XML parameter values from the request's tool schema.

The XML formats (``qwen3_coder``, ``qwen_xml``, ``glm45``, ``minimax_m2``) write every value as
raw text; the schema says what JSON it becomes. A value that does not convert stays a string:
a call is never dropped over a type.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Mapping
from json.encoder import encode_basestring
from typing import Any

from .base import Tool

STRING = "string"
_KNOWN = frozenset({"string", "integer", "number", "boolean", "object", "array", "null"})
# Type names tools declare outside the JSON Schema vocabulary, read as peers' parsers read them
# (vLLM's and SGLang's Qwen3-Coder parsers): by prefix, lowercased.
_ALIAS_PREFIXES = (
    (("int", "uint", "long", "short", "unsigned"), "integer"),
    (("num", "float", "double", "decimal", "real"), "number"),
    (("bool",), "boolean"),
    (("dict", "map", "obj"), "object"),
    (("list", "arr", "tuple", "set"), "array"),
)
_BOOLEAN_ALIASES = frozenset({"binary"})
_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_MAX_EXACT_FLOAT = 2**53


def json_string(text: str) -> str:
    """``text`` as a JSON string literal (non-ASCII kept as is)."""
    result: str = encode_basestring(text)
    return result


def escape_piece(text: str) -> str:
    """A piece of a JSON string's contents: escaping is per character, so pieces concatenate."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return text  # nothing to escape (control characters are not printable)
    result: str = encode_basestring(text)
    return result[1:-1]


def parameter_type(tool: Tool | None, key: str) -> str:
    """The JSON type parameter ``key`` of ``tool`` converts to; ``"string"`` when unknown."""
    return schema_type(parameter_schema(tool, key))


def parameter_schema(tool: Tool | None, key: str) -> object:
    """The schema of parameter ``key`` of ``tool`` (``None`` when it declares none)."""
    if tool is None:
        return None
    properties = tool.parameters.get("properties")
    return properties.get(key) if isinstance(properties, Mapping) else None


def allows_null(schema: object, depth: int = 0) -> bool:
    """Whether a schema allows ``null``: ``type: "null"``, ``[T, "null"]``, or a null option of
    ``anyOf``/``oneOf``."""
    if not isinstance(schema, Mapping) or depth > 8:
        return False
    declared = schema.get("type")
    if declared == "null" or (isinstance(declared, list) and "null" in declared):
        return True
    return any(
        allows_null(option, depth + 1)
        for combinator in ("anyOf", "oneOf")
        if isinstance(options := schema.get(combinator), list)
        for option in options
    )


def schema_type(schema: object, depth: int = 0) -> str:
    """The first non-null type a schema allows: ``type``, ``[T, "null"]``, ``anyOf``/``oneOf``."""
    if not isinstance(schema, Mapping) or depth > 8:
        return STRING
    declared = schema.get("type")
    if isinstance(declared, str):
        return json_type(declared)
    if isinstance(declared, list):
        for item in declared:
            if isinstance(item, str) and item != "null":
                return json_type(item)
        return "null" if "null" in declared else STRING
    saw_null = False
    for combinator in ("anyOf", "oneOf", "allOf"):
        options = schema.get(combinator)
        if isinstance(options, list):
            for option in options:
                found = schema_type(option, depth + 1)
                if found != "null":
                    return found
                saw_null = True
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return "null" if saw_null else STRING


def json_type(declared: str) -> str:
    """The JSON Schema type a declared type name means: its own name when it is one, else the
    type its alias reads as (``float``, ``double`` → number, ``int64`` → integer, ``bool`` →
    boolean, ``dict`` → object, ``list`` → array); anything else (``str``, ``date-time``) is a
    string."""
    if declared in _KNOWN:
        return declared
    lowered = declared.strip().lower()
    if lowered in _KNOWN:
        return lowered
    if lowered in _BOOLEAN_ALIASES:
        return "boolean"
    for prefixes, kind in _ALIAS_PREFIXES:
        if lowered.startswith(prefixes):
            return kind
    return STRING


def convert_value(value: str, kind: str) -> str:
    """The JSON text for a raw parameter value of schema type ``kind``.

    integer → int; number → int if integral else float; boolean → true/false; object/array →
    JSON, else Python-literal syntax (``{'a': 1}``); the literal ``null`` → null. Anything that
    does not convert, and every other type, is the value as a JSON string.
    """
    text = value.strip()
    converted: str | None = None
    if text == "null":
        converted = "null"
    elif kind == "integer":
        converted = _integer(text)
    elif kind == "number":
        converted = _number(text)
    elif kind == "boolean":
        lowered = text.lower()
        converted = lowered if lowered in ("true", "false") else None
    elif kind in ("object", "array"):
        converted = _structured(text)
    return converted if converted is not None else json_string(value)


def _integer(text: str) -> str | None:
    if _INTEGER.fullmatch(text):
        return _canonical_integer(text)
    number = _number(text)
    # "3.0" is still an integer; "3.5" is not.
    return number if number is not None and _INTEGER.fullmatch(number) else None


def _canonical_integer(text: str) -> str:
    """``str(int(text))`` for any number of digits (``int`` refuses more than 4300)."""
    digits = text.lstrip("+-").lstrip("0") or "0"
    return "-" + digits if text[0] == "-" and digits != "0" else digits


def _number(text: str) -> str | None:
    if _INTEGER.fullmatch(text):
        return _canonical_integer(text)
    if not _NUMBER.fullmatch(text):
        return None
    number = float(text)
    if not math.isfinite(number):
        return None
    if number.is_integer() and abs(number) < _MAX_EXACT_FLOAT:
        return str(int(number))
    return repr(number)


def _structured(text: str) -> str | None:
    parsed: Any
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested past the stack; a string
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    try:
        return json.dumps(parsed, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
