"""The fronts' wire: SSE framing and the JSON of what a front sends.

``named_events`` writes ``(type, data)`` pairs as SSE events with an ``event:`` line
(Anthropic, Responses); ``large_events`` writes events holding a whole answer's text one
piece at a time; ``dumps`` writes a document, large or nested past orjson's limit.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from .large import LARGE_STRING, Escapes, dumps_large

Headers = list[tuple[bytes, bytes]]

SSE_HEADERS: Headers = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


#: Where streamed bytes come from: bytes, or pieces written one after another as they are
#: made (the events that carry a whole answer's text: only one is ever held).
Output = bytes | Iterator[bytes]


def dumps(doc: Any, *, large: bool = False) -> bytes:
    """JSON of a document the front sends. ``large``: it may hold a string of ``LARGE_STRING``
    or more (a whole answer's text), written as ``large.dumps_large`` writes it. What orjson
    refuses to write (a value nested past its 255 levels) the standard library writes."""
    if large:
        return dumps_large(doc)
    try:
        return orjson.dumps(doc)
    except orjson.JSONEncodeError:
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()


#: ``event_head`` per kind: a front has a handful of kinds; the cache stops at ``_MAX_HEADS``.
_EVENT_HEADS: dict[str, bytes] = {}
_MAX_HEADS = 64


def named_events(events: Iterable[tuple[str, Any]], *, large: bool = False) -> bytes:
    """``(type, data)`` pairs as SSE events with an ``event:`` line (Anthropic, Responses):
    ``event: <type>\ndata: <one-line JSON>\n\n`` (neither encoder writes a newline).
    ``large``: see ``dumps`` (and ``large_events``, which writes them without joining them)."""
    if large:
        return b"".join(large_events(events))
    parts: list[bytes] = []
    dump = orjson.dumps
    heads = _EVENT_HEADS
    for kind, data in events:
        parts += (heads.get(kind) or event_head(kind), dump(data), b"\n\n")
    return b"".join(parts)


def large_events(events: Iterable[tuple[str, Any]]) -> Iterator[bytes]:
    """``named_events(events, large=True)`` in pieces, each event written as it is asked for:
    whoever sends them holds one at a time. Events that carry the same large string share
    its one escape."""
    escapes = Escapes()
    for kind, data in events:
        yield event_head(kind)
        yield dumps_large(data, escapes)
        yield b"\n\n"


def event_head(kind: str) -> bytes:
    """``event: <kind>\ndata: `` (cached: a front has a handful of kinds)."""
    head = _EVENT_HEADS.get(kind)
    if head is None:
        head = b"event: " + kind.encode() + b"\ndata: "
        if len(_EVENT_HEADS) < _MAX_HEADS:
            _EVENT_HEADS[kind] = head
    return head


__all__ = [
    "LARGE_STRING",
    "SSE_HEADERS",
    "Headers",
    "Output",
    "dumps",
    "event_head",
    "large_events",
    "named_events",
]
