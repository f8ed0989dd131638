"""Llama 3.x JSON tool calls (``provider="llama3_json"``).

    <|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "f",
    "arguments": {}}

A JSON object (optionally after ``<|python_tag|>``) with a ``name`` and ``parameters`` or
``arguments`` is a call; several are separated by ``;``. Any other object is the model's text:
it is held until it is known not to be a call (it ends, or shows it is not JSON), then delivered
unchanged. Arguments stream as the model writes them.
"""

from __future__ import annotations

import enum

from ..events import Event, Text
from . import register
from .base import MarkerSearch, ParserContext
from .callobject import CallObject, Status
from .driver import OptionalClose, StreamParser, search_table, skip_space

PYTHON_TAG = "<|python_tag|>"
SEPARATOR = ";"


class _State(enum.IntEnum):
    TEXT = 0
    OPENED = enum.auto()  # after <|python_tag|> or ";": whitespace, then "{"
    OBJECT = enum.auto()
    AFTER = enum.auto()  # after a call: whitespace, then ";" (framing) or text


_SEARCH = search_table(_State, {_State.TEXT: MarkerSearch((PYTHON_TAG, "{"))})


@register("llama3_json")
class Llama3JsonParser(StreamParser):
    TRIGGERS = "<{"
    _searches = _SEARCH

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _State.TEXT
        self._opening = ""  # markup that is text again if no call follows
        self._object = CallObject(needs_arguments=True)
        self._after = OptionalClose(SEPARATOR)

    @property
    def held_arguments(self) -> int:
        return self._object.held

    def _held_markup(self) -> int:
        state = self._state
        if state is _State.OPENED or state is _State.OBJECT:
            return len(self._opening)
        return self._after.held

    def _is_plain_text(self, text: str) -> bool:
        return self._state is _State.TEXT and "{" not in text and "<" not in text

    def _marker(self, marker: str, out: list[Event]) -> None:  # in TEXT
        if marker == PYTHON_TAG:
            self._opening = marker
            self._state = _State.OPENED
        else:  # "{": maybe a call object, which the brace begins
            self._start_object("")
            self._object.feed(marker, 0, out)

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        state = self._state
        if state is _State.OBJECT:
            stop = self._object.feed(buf, pos, out)
            status = self._object.status
            if status is Status.CALL:
                self._state = _State.AFTER
            elif status is Status.NOT_CALL:
                self._not_a_call(out)
                self._state = _State.TEXT
            return stop
        if state is _State.AFTER:
            after, closing = self._after.step(buf, pos, out, final)
            if closing == SEPARATOR:
                self._opening = SEPARATOR
                self._state = _State.OPENED
            elif closing is not None:
                self._state = _State.TEXT
            return after
        # OPENED: a call object, or the opening was text
        start = skip_space(buf, pos)
        self._opening += buf[pos:start]
        if start == len(buf):
            return start
        if buf[start] == "{":
            self._start_object(self._opening)
        else:
            self._give_back(self._opening, out)
            self._state = _State.TEXT
        return start

    def _start_object(self, opening: str) -> None:
        self._opening = opening
        self._object = CallObject(needs_arguments=True)
        self._state = _State.OBJECT

    def _not_a_call(self, out: list[Event]) -> None:
        text = self._opening + self._object.raw
        if self._opening:  # after <|python_tag|> or ";": markup
            self._give_back(text, out)
        else:  # an object in the model's prose
            out.append(Text(text))

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state is _State.OPENED:
            self._give_back(self._opening, out)
        elif state is _State.OBJECT:
            self._object.finish(out)
            if self._object.status is Status.NOT_CALL:
                self._not_a_call(out)
        elif state is _State.AFTER:
            self._after.flush(out)
        self._state = _State.TEXT
