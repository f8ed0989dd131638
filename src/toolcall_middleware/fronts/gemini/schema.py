"""Gemini's OpenAPI-subset ``Schema`` (``parameters``, ``responseSchema``) -> JSON Schema.

What ``FunctionDeclaration.from_callable`` and hand-written Gemini tools send:
``{"type": "OBJECT", "properties": {"city": {"type": "STRING"}}}``. Types become lower-case,
``nullable`` becomes a ``"null"`` type, proto-JSON's int64-as-string counts become numbers,
python-genai's ``defs``/``ref`` become ``$defs``/``$ref``, and the Gemini-only keys
(``propertyOrdering``, ``example``) go. Keys may come in camelCase or snake_case. Keys this
table does not know pass as they are; ``core.schema.clean_schema`` runs on the result.

The same conversion runs on the plain JSON Schema fields (``parametersJsonSchema``,
``responseJsonSchema``), where it changes nothing valid: gemini-cli 0.61 writes its side
requests' ``responseJsonSchema`` with Gemini's upper-case types, which no JSON Schema validator
(and no guided decoding upstream) takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.numbers import proto_integer
from .errors import invalid_argument
from .fields import camel

_DROPPED = frozenset({"propertyOrdering", "example"})
_COUNTS = frozenset(
    {"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"}
)
_RENAMED = {"defs": "$defs", "ref": "$ref"}
_ONE = frozenset({"items", "additionalProperties", "not"})
_MANY = frozenset({"anyOf", "allOf", "oneOf", "prefixItems"})
_NAMED = frozenset({"properties", "defs", "$defs", "definitions", "patternProperties"})
_DEFS_REF = "#/defs/"


def to_json_schema(schema: Any) -> Any:
    """A JSON Schema copy of a Gemini ``Schema``; the input is not modified. Anything that is
    not an object passes as it is (the upstream judges it); a count written as a string, as
    proto-JSON writes int64, must be one (raises ``GeminiError``)."""
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    nullable = False
    for raw_key, value in schema.items():
        key = camel(raw_key)
        if key in _DROPPED:
            continue
        if key == "nullable":
            nullable = value is True
        elif key == "type":
            kind = _type(value)
            if kind is not None:
                out["type"] = kind
        elif key in _NAMED and isinstance(value, Mapping):
            out[_RENAMED.get(key, key)] = {n: to_json_schema(s) for n, s in value.items()}
        elif key in _MANY and isinstance(value, list):
            out[key] = [to_json_schema(s) for s in value]
        elif key in _ONE:
            out[key] = to_json_schema(value)
        elif key in _COUNTS and isinstance(value, str):
            count = proto_integer(value)
            if count is None or count < 0:
                raise invalid_argument(f"{key}: {value[:40]!r} is not a count (ASCII digits)")
            out[key] = count
        elif key == "ref" and isinstance(value, str):
            out["$ref"] = (
                value.replace(_DEFS_REF, "#/$defs/", 1) if value.startswith(_DEFS_REF) else value
            )
        else:
            out[_RENAMED.get(key, key)] = value
    if nullable:
        _add_null(out)
    return out


def _type(value: Any) -> Any:
    """A type name (or list of them) in JSON Schema's lower case; None for Gemini's
    ``TYPE_UNSPECIFIED``, which says nothing."""
    if isinstance(value, str):
        return None if value.upper() in ("TYPE_UNSPECIFIED", "") else value.lower()
    if isinstance(value, list):
        return [v.lower() if isinstance(v, str) else v for v in value]
    return value


def _add_null(out: dict[str, Any]) -> None:
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"] if kind != "null" else "null"
    elif isinstance(kind, list):
        if "null" not in kind:
            out["type"] = [*kind, "null"]
    elif "anyOf" in out and {"type": "null"} not in out["anyOf"]:
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    # With neither, the schema takes any value already, null included.
    enum = out.get("enum")
    if isinstance(enum, list) and None not in enum:
        out["enum"] = [*enum, None]
