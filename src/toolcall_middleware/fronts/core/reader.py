"""``ChatReader``: the fronts' reader of the (already repaired) Chat Completions answer.

It reads decoded chunks as ``chunk_reader.ChunkReader`` does, and the usual chunk (one text,
or one more piece of the open call's arguments) also from its SSE event's bytes, undecoded
(``read_fast``), or from what the chat path handed of it (``read_handed``, ``handoff.py``):
the stream's fast path (``fast_path.py`` states its rule). ``learn`` takes the stream's chunk
template (as the chat path does, a few tries per stream); ``read_fast`` then reads each event
that is the template with one text, or one more piece of the open call's arguments, by
slicing, and moves the reader on exactly as ``feed`` would have for the decoded chunk. It
declines (``None``, nothing changed) whenever ``feed`` would do anything else: another shape,
JSON that is not exactly one string, text after a call (which ends it), a limit reached.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...chunk_template import ChunkTemplate
from ...deltas import PIECE_HEAD, PIECE_MIDDLE, PIECE_TAIL
from ...fast_path import TEMPLATE_TRIES
from ...handoff import ArgsPiece, Handed, TextPiece
from .chunk_reader import MAX_ARGUMENTS_BYTES, ChunkReader
from .events import ArgsDelta, Event, ReasoningDelta, TextDelta

#: What the usual event reads as: the kind of the one core event the general path reads from
#: its chunk (``ReasoningDelta``, ``TextDelta`` of ``content``, ``ArgsDelta`` of the open
#: call), or ``NOTHING`` when it reads none.
REASONING, CONTENT, ARGUMENTS, NOTHING = 0, 1, 2, 3

_loads, _JSONDecodeError = orjson.loads, orjson.JSONDecodeError
_NOTHING_READ = (NOTHING, "")
#: The delta members of one piece of a call's arguments, around its index and its text.
_ARGS_HEAD, _ARGS_MIDDLE, _ARGS_TAIL = PIECE_HEAD[1:], PIECE_MIDDLE, PIECE_TAIL[:-1]
#: Call indexes as JSON writes them (no sign, no leading zero, no exponent), the first few
#: hundred looked up rather than parsed.
_INDEXES = {b"%d" % i: i for i in range(512)}


class ChatReader(ChunkReader):
    """One upstream answer (choice 0) in, ``events.Event``s out: from decoded chunks
    (``feed``), or, for the usual chunk, from its event's bytes (``read_fast``) or the chat
    path's reading (``read_handed``)."""

    _template: ChunkTemplate | None = None
    _template_tries = TEMPLATE_TRIES
    # From the template: the head of an event holding one piece of a call's arguments, and
    # its end after the text. No event starts with "\0": none matches before a template.
    _arguments_head, _arguments_at, _arguments_end = b"\0", 0, b""

    def learn(self, data: bytes, chunk: dict[str, Any]) -> None:
        """Take the stream's chunk template from ``data``, the JSON of ``chunk``, before
        ``chunk`` is fed: a chunk of one choice 0 without finish, usage or error, in orjson's
        compact form."""
        if not self._template_tries:
            return
        template = self._template
        if template is not None and data.startswith(template.prefix):
            return  # it holds: this chunk just was not the usual one
        delta = _usual_delta(chunk)
        if delta is None:
            return
        self._template_tries -= 1
        learnt = ChunkTemplate.learn(data, chunk, 0, delta)
        if learnt is not None:
            self._template = learnt
            self._arguments_head = learnt.head + _ARGS_HEAD
            self._arguments_at = len(self._arguments_head)
            self._arguments_end = _ARGS_TAIL + learnt.tail

    def read_fast(self, event: bytes) -> tuple[int, str] | None:
        """One SSE event, ``data: {...}\\n\\n`` and nothing else, read undecoded: the one
        event ``feed`` would give for its chunk as ``(kind, text)``, the reader moved on as
        ``feed`` moves it; or ``None``, nothing changed: decode it and ``feed`` it."""
        template = self._template
        if template is None or self.holds_bytes:  # (a character cut short waits for its
            return None  # channel's next text)
        if event.startswith(self._arguments_head):
            return self._read_arguments(event)
        found = template.read(event)  # the one reading of a text event, the chat path's too
        if found is None:
            return None
        fields, text = found
        return self._text(CONTENT if fields[0] == "content" else REASONING, text)

    def _read_arguments(self, event: bytes) -> tuple[int, str] | None:
        """One piece of the open call's arguments: what ``feed`` reads through
        ``NativeToolCalls.continuation``."""
        end = self._arguments_end
        if not event.endswith(end):
            return None
        # Without the separator, ``value`` is empty: not a string, declined below.
        digits, _, value = event[self._arguments_at : -len(end)].partition(_ARGS_MIDDLE)
        index = _INDEXES.get(digits)
        # (No leading zero; and no more digits than any index has: ``int`` refuses thousands.)
        if index is None and digits.isdigit() and digits[0] != 48 and len(digits) < 20:
            index = int(digits)
        if index is None:
            return None
        try:
            if value[0] != 34 or value[-1] != 34:
                return None
            fragment = _loads(value)
        except (IndexError, _JSONDecodeError):
            return None
        return self._arguments(index, fragment)

    def read_handed(self, handed: Handed) -> tuple[int, str] | None:
        """``read_fast`` for an event the chat path read already (``handoff.py``)."""
        if handed.index != 0 or self.holds_bytes:
            return None
        if isinstance(handed, ArgsPiece):  # a piece of a call's arguments, as most call events
            return self._arguments(handed.call, handed.fragment)
        if isinstance(handed, TextPiece):
            fields, text = handed.fields, handed.text
            return self._text(CONTENT if fields[0] == "content" else REASONING, text)
        # A delta object: decoded JSON, where only a dict takes a string key (the subscripts
        # test the types).
        delta: Any = handed.delta
        try:
            entries = delta["tool_calls"]
            (entry,) = entries
            function, call_index = entry["function"], entry["index"]
            fragment = function["arguments"]
        except (KeyError, TypeError, ValueError):
            return None
        if (
            len(delta) != 1
            or type(entries) is not list
            or len(entry) != 2
            or len(function) != 1
            or type(call_index) is not int
            or type(fragment) is not str
        ):
            return None
        return self._arguments(call_index, fragment)

    def _text(self, kind: int, text: str) -> tuple[int, str] | None:
        """What ``feed`` does with one text of this kind, or ``None``: it would do more."""
        size = self._answer_size + len(text)
        if (
            not text
            or self.done
            or not self._calls_closed
            or (self.max_answer_bytes is not None and size > self.max_answer_bytes)
        ):
            return None
        self._answer_size = size
        return kind, text

    def core_event(self, kind: int, text: str) -> Event:
        """The core event ``read_fast`` or ``read_handed`` read as ``(kind, text)``."""
        if kind == ARGUMENTS:
            call = self._open
            assert call is not None  # (the call it was a piece of)
            return ArgsDelta(call.index, text)
        return ReasoningDelta(text) if kind == REASONING else TextDelta(text)

    def _arguments(self, index: int, fragment: str) -> tuple[int, str] | None:
        """What ``feed`` does with one piece of a call's arguments (``continuation``), or
        ``None``: it would do more."""
        call = self._open
        size = len(fragment)
        answer = self._answer_size + size
        if (
            call is None
            or self.done
            or not size
            or call.size + size > self.max_arguments_bytes
            or (self.max_answer_bytes is not None and answer > self.max_answer_bytes)
        ):
            return None
        piece = self._native.open_arguments(index, fragment)
        if piece is None:
            return None
        if piece < 0:
            return _NOTHING_READ
        # What ``ChatReader._entries`` does with the one piece, its limits checked above.
        call.size += size
        self._answer_size = answer
        call.parts.append(fragment)
        return ARGUMENTS, fragment


def _usual_delta(chunk: dict[str, Any]) -> dict[str, Any] | None:
    """The delta of a chunk whose template the fast path may read: one choice 0, no finish,
    no usage, no error, and a delta with members."""
    choices = chunk.get("choices")
    if (
        type(choices) is not list
        or len(choices) != 1
        or "error" in chunk
        or chunk.get("usage") is not None
    ):
        return None
    choice = choices[0]
    if type(choice) is not dict or choice.get("finish_reason") is not None:
        return None
    index, delta = choice.get("index", 0), choice.get("delta")
    if type(index) is not int or index != 0 or type(delta) is not dict or not delta:
        return None
    return delta


__all__ = ["ARGUMENTS", "CONTENT", "MAX_ARGUMENTS_BYTES", "NOTHING", "REASONING", "ChatReader"]
