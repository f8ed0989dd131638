"""The events a provider parser produces from model text.

Parsers turn text (any cut of it) into a flat sequence of these events; the stream rewriter
turns them into OpenAI ``tool_calls`` deltas. ``Text`` is model text to keep in the field it
came from; a call is ``CallStart``, zero or more ``CallArgs`` and ``CallEnd``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Text:
    text: str


@dataclass(frozen=True, slots=True)
class CallStart:
    name: str
    #: The model's own call id when it wrote one (Kimi ``functions.bash:0``), else ``None``.
    id: str | None = None


@dataclass(frozen=True, slots=True)
class CallArgs:
    #: A piece of the JSON arguments text; the pieces of one call concatenate to its arguments.
    fragment: str


@dataclass(frozen=True, slots=True)
class CallEnd:
    pass


Event = Text | CallStart | CallArgs | CallEnd

CALL_END = CallEnd()
