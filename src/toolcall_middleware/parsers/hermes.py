"""Hermes / Qwen2.5 / Qwen3 JSON-in-tags tool calls (``provider="hermes"``).

    text <tool_call>
    {"name": "get_weather", "arguments": {"city": "Tokyo"}}
    </tool_call>

``parameters`` is an alias of ``arguments``, which may also be a JSON string. The arguments
stream as the model writes them. ``</tool_call>`` may be missing (end of stream, or text
follows). A ``<tool_call>`` not followed by a call object is the model's text.
"""

from __future__ import annotations

import enum

from ..events import Event
from . import register
from .base import MarkerSearch, ParserContext
from .callobject import CallObject, Status
from .driver import OptionalClose, StreamParser, search_table, skip_space

OPEN = "<tool_call>"
CLOSE = "</tool_call>"


class _State(enum.IntEnum):
    TEXT = 0
    OPENED = enum.auto()  # after <tool_call>: whitespace, then the object's "{"
    OBJECT = enum.auto()
    AFTER = enum.auto()  # after the object: whitespace, then </tool_call> (may be missing)


_SEARCH = search_table(_State, {_State.TEXT: MarkerSearch((OPEN,))})


@register("hermes")
class HermesParser(StreamParser):
    TRIGGERS = "<"
    _searches = _SEARCH

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _State.TEXT
        self._opening = ""  # "<tool_call>" and the whitespace after it, text if no call follows
        self._object = CallObject(needs_arguments=False)
        self._after = OptionalClose(CLOSE)

    @property
    def held_arguments(self) -> int:
        return self._object.held

    def _held_markup(self) -> int:
        state = self._state
        if state is _State.OPENED or state is _State.OBJECT:
            return len(self._opening)
        return self._after.held

    def _marker(self, marker: str, out: list[Event]) -> None:  # <tool_call>, in TEXT
        self._opening = marker
        self._state = _State.OPENED

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        state = self._state
        if state is _State.OPENED:
            start = skip_space(buf, pos)
            self._opening += buf[pos:start]
            if start == len(buf):
                return start
            if buf[start] == "{":
                self._object = CallObject(needs_arguments=False)
                self._state = _State.OBJECT
            else:
                self._give_back(self._opening, out)
                self._state = _State.TEXT
            return start
        if state is _State.OBJECT:
            stop = self._object.feed(buf, pos, out)
            status = self._object.status
            if status is Status.CALL:
                self._state = _State.AFTER
            elif status is Status.NOT_CALL:
                self._give_back(self._opening + self._object.raw, out)
                self._state = _State.TEXT
            return stop
        after, closing = self._after.step(buf, pos, out, final)
        if closing is not None:
            self._state = _State.TEXT
        return after

    def _close(self, out: list[Event]) -> None:
        if self._state is _State.OPENED:
            self._give_back(self._opening, out)
        elif self._state is _State.OBJECT:
            self._object.finish(out)
            if self._object.status is Status.NOT_CALL:
                self._give_back(self._opening + self._object.raw, out)
        elif self._state is _State.AFTER:
            self._after.flush(out)
        self._state = _State.TEXT
