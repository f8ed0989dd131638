"""The text fields of a chat delta or message: ``content`` and the two reasoning fields.

Servers send a model's reasoning as ``reasoning_content`` or ``reasoning``, some as both with
the same text. Both go through the parser (tool-call markup often sits in the reasoning), once
when they carry the same text; what comes out goes back to the fields it came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CONTENT = ("content",)
REASONING_CONTENT = ("reasoning_content",)
REASONING = ("reasoning",)
#: Both reasoning fields carrying one text, in the order a delta has them.
REASONING_CONTENT_FIRST = ("reasoning_content", "reasoning")
REASONING_FIRST = ("reasoning", "reasoning_content")
REASONING_FIELDS = REASONING_CONTENT_FIRST
#: Where reasoning split out of the content goes while the stream has named no field of its own.
DEFAULT_REASONING = REASONING_CONTENT
#: Every text field a client concatenates.
TEXT_FIELDS = ("content", "reasoning", "reasoning_content")

_NO_TEXT: tuple[tuple[str, ...], None] = ((), None)
_PREFERRED_REASONING, _OTHER_REASONING = REASONING_CONTENT_FIRST
_SINGLE_FIELDS = (CONTENT, REASONING_CONTENT, REASONING)


def only_text(delta: dict[str, Any]) -> tuple[tuple[str, ...], str | None]:
    """The delta's fields and text when it is nothing but one text (one field, or both
    reasoning fields carrying the same text, named in the delta's order); else no text."""
    size = len(delta)
    if size == 1:
        for fields in _SINGLE_FIELDS:
            text = delta.get(fields[0])
            if text is not None:
                return (fields, text) if type(text) is str else _NO_TEXT
    elif size == 2:
        text = delta.get("reasoning")
        if type(text) is str and text == delta.get("reasoning_content"):
            first = next(iter(delta))
            return (
                REASONING_CONTENT_FIRST if first == "reasoning_content" else REASONING_FIRST
            ), text
    return _NO_TEXT


def text_channels(delta: dict[str, Any]) -> list[tuple[str, ...]]:
    """The text fields of a delta or message to parse, reasoning first (in its order); both
    reasoning fields are parsed once when they carry the same text."""
    channels: list[tuple[str, ...]] = []
    reasoning = [f for f in delta if f in REASONING_FIELDS and isinstance(delta[f], str)]
    if len(reasoning) == 2 and delta[reasoning[0]] != delta[reasoning[1]]:
        channels.extend((f,) for f in reasoning)
    elif reasoning:
        channels.append(tuple(reasoning))
    if isinstance(delta.get("content"), str):
        channels.append(CONTENT)
    return channels


def reasoning_text(delta: Mapping[str, Any]) -> str | None:
    """A delta's (or message's) reasoning as one text, for a reader that keeps one reasoning
    channel (the API fronts): ``reasoning_content`` when it holds text, else ``reasoning``
    (servers that send both send the same text); ``None`` when neither holds any."""
    text = delta.get(_PREFERRED_REASONING)
    if text and type(text) is str:
        return text
    text = delta.get(_OTHER_REASONING)
    return text if text and type(text) is str else None
