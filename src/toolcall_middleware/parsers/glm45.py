"""GLM-4.5 / 4.6 / 4.7 / 5.x tool calls (``provider="glm45"``).

    4.5: <tool_call>get_weather
         <arg_key>city</arg_key>
         <arg_value>Beijing</arg_value>
         </tool_call>
    4.7: <tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>
    zero-argument: <tool_call>get_time</tool_call>

Values are raw text typed by the request's schema (see ``xmlargs``). A ``<tool_call>`` not
followed by a name and then ``<arg_key>`` or ``</tool_call>`` is the model's text.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence

from ..events import Event
from .base import ParserContext
from .descriptor import VENDOR, Format, NameRule, raw_values, register
from .driver import literal_at, marker_tables, skip_space
from .xmlargs import XmlCallParser

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
KEY = "<arg_key>"
KEY_END = "</arg_key>"
VALUE = "<arg_value>"
VALUE_END = "</arg_value>"

_NAME_STOP = re.compile(r'[\s<>{}"]')


class _State(enum.IntEnum):
    TEXT = 0
    NAME = enum.auto()  # the function name after <tool_call>
    NAME_END = enum.auto()  # after the name: whitespace, then <arg_key> or </tool_call>
    BODY = enum.auto()  # between arguments: framing
    KEY = enum.auto()
    KEY_DONE = enum.auto()  # after </arg_key>: framing, then <arg_value>
    VALUE = enum.auto()
    # Formats that wrap the calls in a block of their own (hy_v3):
    BLOCK = enum.auto()  # between its calls: whitespace, then a call or the block's end


#: The states, for the tables of a format that reads this markup (``hy_v3``).
State = _State
# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _NAME, _NAME_END, _BODY, _KEY, _KEY_DONE, _VALUE, _BLOCK = _State


_SEARCH, _STRAYS = marker_tables(
    _State,
    {
        _TEXT: (OPEN,),
        _BODY: (KEY, CLOSE),
        _KEY: (KEY_END, VALUE, CLOSE),
        _KEY_DONE: (VALUE, KEY, CLOSE),
        _VALUE: (VALUE_END, KEY, CLOSE),
    },
    # Inside a call, an argument tag out of place is a stray. Outside calls the tags are text:
    # a model may write about them.
    strays={
        _BODY: (KEY_END, VALUE, VALUE_END),
        _KEY: (KEY, VALUE_END),
        _KEY_DONE: (KEY_END, VALUE_END),
        _VALUE: (VALUE, KEY_END),
    },
)


class Glm45Parser(XmlCallParser):
    TRIGGERS = "<"
    _searches = _SEARCH
    _strays = _STRAYS
    #: The tags that may follow a call's name (a format with a separator there adds it).
    NAME_ENDS: tuple[str, ...] = (KEY, CLOSE)

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._header = ""  # "<tool_call>" and what followed: text again if it is not a call
        self._name = ""
        self._key = ""

    def _held_markup(self) -> int:
        state = self._state
        if state is _NAME or state is _NAME_END:
            return len(self._header)  # the name is in it
        if state is _KEY or state is _KEY_DONE:
            return len(self._key)
        return 0

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        if self._state is _NAME:
            return self._read_name(buf, pos)
        return self._after_name(buf, pos, out, final)

    def _read_name(self, buf: str, pos: int) -> int:
        if not self._name:
            start = skip_space(buf, pos)
            self._header += buf[pos:start]
            pos = start
        match = _NAME_STOP.search(buf, pos)
        end = len(buf) if match is None else match.start()
        self._name += buf[pos:end]
        self._header += buf[pos:end]
        if match is not None:
            self._state = _NAME_END  # with no name, NAME_END finds it is not a call
        return end

    def _after_name(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        start = skip_space(buf, pos)
        self._header += buf[pos:start]
        if start == len(buf):
            return start
        marker = literal_at(buf, start, self.NAME_ENDS, final) if self._name else ""
        if marker is None:
            return None if start == pos else start
        if not marker:
            self._give_back(self._header, out)
            self._state = _TEXT
            return start
        self._start_call(self._name, out)
        self._marker(marker, out)
        return start + len(marker)

    def _segment(self, segment: str, out: list[Event]) -> None:
        state = self._state
        if state is _VALUE:
            self._arguments.value(segment, out)
        elif state is _KEY:
            self._key += segment
        # BODY, KEY_DONE: whitespace between the tags is framing.

    def _marker(self, marker: str, out: list[Event]) -> None:
        if marker == OPEN:  # only searched for in TEXT
            self._header = OPEN
            self._name = ""
            self._state = _NAME
        elif marker == KEY:
            self._arguments.close(out)
            self._key = ""
            self._state = _KEY
        elif marker == KEY_END:
            self._state = _KEY_DONE
        elif marker == VALUE:
            self._arguments.open(self._key.strip(), out)
            self._state = _VALUE
        elif marker == VALUE_END:
            self._arguments.close(out)
            self._state = _BODY
        else:  # CLOSE
            self._end_call(out)
            self._state = _TEXT

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state in (_NAME, _NAME_END):
            self._give_back(self._header, out)
        elif state is not _TEXT:
            self._end_call(out)  # cut off: keep what arrived
        self._state = _TEXT


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return "\n".join(
        f"{OPEN}{name}\n"
        + "".join(
            f"{KEY}{key}{KEY_END}\n{VALUE}{value}{VALUE_END}\n"
            for key, value in raw_values(arguments)
        )
        + CLOSE
        for name, arguments in calls
    )


FORMAT = register(
    Format(
        "glm45",
        Glm45Parser,
        family="glm",
        model_names=(NameRule(("glm", "zai"), VENDOR),),
        write_calls=write_calls,
        markup_pieces=(OPEN, CLOSE, "bash", KEY, KEY_END, VALUE, VALUE_END, "command", "days"),
    )
)
