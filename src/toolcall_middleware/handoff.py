"""The chat path's reading of an event, handed to an in-process API front (an ASGI extension).

An API front (``fronts/``) that wraps ``ToolCallMiddleware`` in the same process reads every
event the chat path sends it, and the chat path has usually just read that very event: through
its chunk template (``chunk_template.py``) it knows the event's text without decoding the rest. A
front offers the extension ``EXTENSION`` in the scope it calls the chat path with; the chat
path may then add ``KEY`` to a streamed body message that is not the last (``more_body``
true), with one of:

- ``TextPiece(index, fields, text)``: the body is one SSE event, ``data: <chunk>`` and a blank
  line and nothing else, whose chunk has one choice, of this ``index``, without finish reason,
  and no usage, and whose delta is the text fields ``fields`` (as ``ChunkTemplate.read`` names
  them) each holding ``text``;
- ``ArgsPiece(index, call, fragment)``: the same, whose delta is one piece of the arguments
  of the call at output index ``call``: ``{"tool_calls": [{"index": call, "function":
  {"arguments": fragment}}]}``, as the chat path rewrites most events of a call;
- ``DeltaPiece(index, delta)``: the same, with this ``delta`` object.

**The rule: what is handed is exactly what decoding the body gives, or nothing is handed.**
The body goes out unchanged either way, so every other consumer, and a front that declines
what it is handed, reads the same bytes as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The scope extension a front offers (``scope["extensions"]``) to be handed readings.
EXTENSION = "toolcall.deltas"
#: The body message key a reading is handed under.
KEY = "toolcall.delta"


class TextPiece:
    """One text in one or more text fields of choice ``index`` (see the module's doc)."""

    __slots__ = ("fields", "index", "text")

    def __init__(self, index: int, fields: tuple[str, ...], text: str) -> None:
        self.index = index
        self.fields = fields
        self.text = text


class ArgsPiece:
    """One piece of the arguments of the call at output index ``call``."""

    __slots__ = ("call", "fragment", "index")

    def __init__(self, index: int, call: int, fragment: str) -> None:
        self.index = index
        self.call = call
        self.fragment = fragment


class DeltaPiece:
    """Any other delta object of choice ``index`` (the chat path's own: read, not kept)."""

    __slots__ = ("delta", "index")

    def __init__(self, index: int, delta: dict[str, Any]) -> None:
        self.index = index
        self.delta = delta


Handed = TextPiece | ArgsPiece | DeltaPiece


class Reading:
    """Where the chat path keeps its reading (``handed``) of the body it gave back last, or
    ``None``: set for every body, read in place by whoever passes it on (no copies between
    the reader and the responder)."""

    __slots__ = ("handed",)

    def __init__(self) -> None:
        self.handed: Handed | None = None


def offered(scope: Mapping[str, Any]) -> bool:
    """Whether the caller of this scope takes handed readings."""
    extensions = scope.get("extensions")
    return type(extensions) is dict and EXTENSION in extensions


def offer(scope: Mapping[str, Any]) -> dict[str, Any]:
    """``scope`` with the extension offered (the caller's own scope is not changed)."""
    extensions = scope.get("extensions")
    extensions = dict(extensions) if isinstance(extensions, dict) else {}
    extensions[EXTENSION] = {}
    return {**scope, "extensions": extensions}
