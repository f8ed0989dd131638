"""Values written as nested XML elements, typed by the tool's schema (MiniMax M3).

    <shipping><city>Singapore</city><zip>018956</zip></shipping>
    <items><item><sku>a</sku></item><item><sku>b</sku></item></items>

A parameter's body is read as a tree and turned into JSON only when it closes. Child elements
make an object; where the schema says array, ``<item>`` children make one. A key repeated in an
object collects its values in a list. Leaf text is converted by the schema type at its place
(``018956`` where an integer is declared: ``18956``), as the XML formats convert values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .schema import STRING, convert_value, schema_type

#: An element of a nested body: ``("open", tag)``, ``("close", tag)`` or ``("text", text)``.
Piece = tuple[str, str]
ITEM = "item"
_TEXT_KEY = "$text"  # text beside child elements


def resolve(schema: object) -> Mapping[str, Any] | None:
    """The schema that describes a value: the schema, or the first option of ``anyOf`` /
    ``oneOf`` that is not ``null``."""
    if not isinstance(schema, Mapping):
        return None
    if "type" in schema or "properties" in schema or "items" in schema:
        return schema
    for combinator in ("anyOf", "oneOf"):
        options = schema.get(combinator)
        if isinstance(options, list):
            for option in options:
                if isinstance(option, Mapping) and option.get("type") != "null":
                    return resolve(option)
    return schema


def child_schema(parent: Mapping[str, Any] | None, tag: str, index: int) -> object:
    """The schema of child ``tag`` (the ``index``-th child) of a value described by ``parent``."""
    if parent is None:
        return None
    if schema_type(parent) == "array":
        prefix = parent.get("prefixItems")
        if isinstance(prefix, list) and index < len(prefix):
            return prefix[index]
        items = parent.get("items")
        return items if isinstance(items, Mapping) else None
    properties = parent.get("properties")
    if isinstance(properties, Mapping) and tag in properties:
        return properties[tag]
    extra = parent.get("additionalProperties")
    return extra if isinstance(extra, Mapping) else None


class _Element:
    __slots__ = ("children", "schema", "tag", "texts")

    def __init__(self, tag: str, schema: object) -> None:
        self.tag = tag
        self.schema = resolve(schema)
        self.children: list[tuple[str, Any]] = []
        self.texts: list[str] = []

    def child_schema(self, tag: str) -> object:
        return child_schema(self.schema, tag, len(self.children))

    def value(self) -> Any:
        text = "".join(self.texts)
        if not self.children:
            kind = STRING if self.schema is None else schema_type(self.schema)
            return json.loads(convert_value(text, kind))
        if self.schema is not None and schema_type(self.schema) == "array":
            values = [value for _, value in self.children]
            if text.strip():
                values.append(text)
            return values
        members: dict[str, Any] = {}
        repeated: set[str] = set()  # keys whose values are collected in a list here
        for tag, value in self.children:
            if tag not in members:
                members[tag] = value
            elif tag in repeated:
                members[tag].append(value)
            else:
                members[tag] = [members[tag], value]
                repeated.add(tag)
        if text.strip():
            key = _TEXT_KEY
            while key in members:
                key = "$" + key
            members[key] = text
        return members


def build(pieces: Sequence[Piece], schema: object) -> str:
    """The JSON text of a nested body, typed by the parameter's ``schema``.

    A closing tag closes the open element of its name and every element inside it; one that
    matches nothing open is ignored; elements still open at the end are closed.
    """
    root = _Element("", schema)
    stack = [root]
    for kind, payload in pieces:
        if kind == "open":
            stack.append(_Element(payload, stack[-1].child_schema(payload)))
        elif kind == "close":
            if any(element.tag == payload for element in stack[1:]):
                while True:
                    element = stack.pop()
                    stack[-1].children.append((element.tag, element.value()))
                    if element.tag == payload:
                        break
        else:
            stack[-1].texts.append(payload)
    while len(stack) > 1:
        element = stack.pop()
        stack[-1].children.append((element.tag, element.value()))
    return json.dumps(root.value(), ensure_ascii=False)
