"""The fronts' fast path for the usual upstream event, and the one rule it follows.

Nearly every event a front reads is one text or reasoning delta, or one more piece of the open
call's arguments, and nearly every event it sends is one delta event of its own API. Decoding
the whole chunk, building the core's event and the API's event as dicts, and encoding them
again costs several times what the text itself does. So, for those events only:

- ``ChatReader.read_fast`` (``reader.py``) reads the delta's text out of the event's bytes
  through the stream's chunk template (``chunk_template.ChunkTemplate``, the one the chat path
  uses), without decoding the rest of the chunk, or ``read_handed`` takes what the chat path
  read of it (``handoff.py``);
- ``Translator.fast_delta`` (a front's one hook) gives the bytes of its own event for that
  text, written from an ``EventTemplate`` (``templates.py``): bytes learnt once per item or
  block, where only a number (a sequence number) and the JSON-escaped text vary.

This module holds the dispatch: ``UsualEvents.event``, the front's hook the responder calls.

**The rule: every fast path yields exactly the bytes the general path would, or declines.**
Declining changes nothing, and the general path then runs as if the fast path did not exist.
``tests/fronts/test_fastpath.py`` holds every front to it on hostile streams.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ...handoff import ArgsPiece, Handed, TextPiece
from .reader import NOTHING, ChatReader

#: A front's fast path for one whole SSE event, given what the chat path handed of it.
FastEvent = Callable[[bytes, Handed | None], bytes | None]


#: Take the fast path (tests turn it off to compare both paths; off, ``fast_events`` gives
#: ``None`` and every event goes the general way).
enabled = True


class _Done(Protocol):
    @property
    def done(self) -> bool: ...


class UsualEvents:
    """A front's fast path for the responder (its ``FrontStream.fast_event`` is ``event``, a
    bound method), over the front's ``ChatReader``: for one whole SSE event (``data:
    {...}\\n\\n``, nothing else) and what the chat path ``handed`` of it (``handoff.py``), the
    bytes the front's ``chunk`` would give for its decoded chunk, or ``None`` (nothing changed:
    decode it and call ``chunk``).

    The reader reads the event (``read_handed``, else ``read_fast``); ``fast_delta(kind,
    text)`` gives the front's bytes for what it read, or ``None``, and then ``general(kind,
    text)`` gives them the general way (from ``ChatReader.core_event``). Nothing is read once
    ``front.done``."""

    __slots__ = ("_fast_delta", "_front", "_general", "_reader")

    def __init__(
        self,
        reader: ChatReader,
        fast_delta: Callable[[int, str], bytes | None],
        general: Callable[[int, str], bytes],
        front: _Done,
    ) -> None:
        self._reader = reader
        self._fast_delta = fast_delta
        self._general = general
        self._front = front

    def event(self, event: bytes, handed: Handed | None) -> bytes | None:
        if self._front.done:
            return None
        reader = self._reader
        found = reader.read_fast(event) if handed is None else reader.read_handed(handed)
        if found is None:
            return None
        kind, text = found
        if kind == NOTHING:
            return b""
        data = self._fast_delta(kind, text)
        return self._general(kind, text) if data is None else data


def fast_events(
    reader: ChatReader,
    fast_delta: Callable[[int, str], bytes | None],
    general: Callable[[int, str], bytes],
    front: _Done,
) -> FastEvent | None:
    """``UsualEvents(...).event``, or ``None`` when the fast path is off (``enabled``)."""
    return UsualEvents(reader, fast_delta, general, front).event if enabled else None


def handed_chunk(handed: Handed) -> dict[str, Any]:
    """The chunk the chat path handed a reading of (``handoff.py``), as a front reads a chunk
    (``FrontStream.chunk``): its one choice, of its index, with that choice's delta, and no
    finish reason or usage. (A handed delta object is the chat path's own: the reader takes
    strings and numbers from it at once and keeps no part of it.)"""
    delta: dict[str, Any]
    if isinstance(handed, TextPiece):
        delta = dict.fromkeys(handed.fields, handed.text)
    elif isinstance(handed, ArgsPiece):
        args = {"index": handed.call, "function": {"arguments": handed.fragment}}
        delta = {"tool_calls": [args]}
    else:
        delta = handed.delta
    return {"choices": [{"index": handed.index, "delta": delta}]}
