"""DeepSeek V3 / R1 and V3.1 special-token tool calls (``provider="deepseek"``).

    V3/R1: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
           ```json
           {"location": "Tokyo"}
           ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
    V3.1:  <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"location": "Tokyo"}
           <｜tool▁call▁end｜><｜tool▁calls▁end｜>

One parser reads both: a header of ``function`` before the separator means the V3 layout, where
the name follows the separator on its own line and the arguments sit in a code fence. Text
outside the sections is kept verbatim; anything inside a section that is not a call is framing.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence

from ..events import Event
from .base import ParserContext
from .delimited import DelimitedCallParser
from .descriptor import DEEPSEEK, DEEPSEEK_LINE, THINKING, Format, NameRule, register
from .driver import marker_tables

CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END_MARKER = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"
V3_TYPE = "function"

_V3_NAME_STOP = re.compile(r"[\s`{\[]")


class _State(enum.IntEnum):
    TEXT = 0
    SECTION = enum.auto()
    HEADER = enum.auto()  # between call begin and the separator
    V3_NAME = enum.auto()  # V3: the name after the separator
    ARGS = enum.auto()


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _SECTION, _HEADER, _V3_NAME, _ARGS = _State


_SEARCH, _STRAYS = marker_tables(
    _State,
    {
        _TEXT: (CALLS_BEGIN, CALL_BEGIN),
        _SECTION: (CALL_BEGIN, CALLS_END, CALLS_BEGIN),
        _HEADER: (SEP, CALL_END_MARKER, CALL_BEGIN, CALLS_END),
        _V3_NAME: (CALL_END_MARKER, CALL_BEGIN, CALLS_END),
        _ARGS: (CALL_END_MARKER, CALL_BEGIN, CALLS_END),
    },
    strays={
        _TEXT: (CALLS_END, CALL_END_MARKER, SEP),
        _SECTION: (CALL_END_MARKER, SEP),
        _HEADER: (CALLS_BEGIN,),
        _V3_NAME: (SEP, CALLS_BEGIN),
        _ARGS: (SEP, CALLS_BEGIN),
    },
)


class DeepSeekParser(DelimitedCallParser):
    TRIGGERS = "<"
    _searches = _SEARCH
    _strays = _STRAYS
    _SHORTCUT_STATES = (_ARGS,)

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._in_section = False
        self._header = ""
        self._name = ""

    def _held_markup(self) -> int:
        state = self._state
        if state is _HEADER or state is _V3_NAME:
            return len(self._header)  # V3: the name is in it
        return super()._held_markup()

    def _segment(self, segment: str, out: list[Event]) -> None:
        state = self._state
        if state is _HEADER:
            self._header += segment
        elif state is _V3_NAME:
            self._header += segment  # text again if the stream ends before the name does
            self._v3_name(segment, out)
        elif state is _ARGS:
            self._add_arguments(segment, out)
        # SECTION: framing.

    def _v3_name(self, segment: str, out: list[Event]) -> None:
        if not self._name:
            segment = segment.lstrip()
        match = _V3_NAME_STOP.search(segment)
        if match is None:
            self._name += segment
            return
        self._name += segment[: match.start()]
        if not self._name:  # "{" straight after the separator: a V3.1 tool named "function"
            self._name = V3_TYPE
        self._open_call(self._name, out)
        self._add_arguments(segment[match.start() :], out)

    def _marker(self, marker: str, out: list[Event]) -> None:
        state = self._state
        if marker == SEP:  # only searched for in HEADER
            name = self._header.strip()
            if name == V3_TYPE:
                self._header += SEP
                self._name = ""
                self._state = _V3_NAME
                return
            self._header = ""
            self._open_call(name, out)
            return
        if state is _HEADER:  # a call without a separator: a name and no arguments
            if self._header.strip():
                self._open_call(self._header.strip(), out)
                self._end_call(out)
        elif state is _V3_NAME:
            if self._name:
                self._open_call(self._name, out)
                self._end_call(out)
        elif state is _ARGS:
            self._end_call(out)
        self._header = ""
        if marker == CALL_BEGIN:
            if state is _TEXT:
                self._in_section = False
            self._state = _HEADER
        elif marker == CALLS_BEGIN:
            self._in_section = True
            self._state = _SECTION
        elif marker == CALLS_END:
            self._in_section = False
            self._state = _TEXT
        else:  # CALL_END_MARKER
            self._state = _SECTION if self._in_section else _TEXT

    def _open_call(self, name: str, out: list[Event]) -> None:
        self._header = ""
        self._start_call(name, out)
        self._state = _ARGS

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state is _HEADER or state is _V3_NAME:
            self._give_back(CALL_BEGIN + self._header, out)
        elif state is _ARGS:
            self._end_call(out)  # cut off: keep what arrived
        self._state = _TEXT
        self._in_section = False


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    """Calls in the V3.1 layout."""
    body = "".join(
        f"{CALL_BEGIN}{name}{SEP}{arguments}{CALL_END_MARKER}" for name, arguments in calls
    )
    return CALLS_BEGIN + body + CALLS_END


FORMAT = register(
    Format(
        "deepseek",
        DeepSeekParser,
        family="deepseek",
        model_names=(
            NameRule(("deepseek",), DEEPSEEK),
            # V3.2-Exp kept V3.1's template and markup; V3.2 itself writes DSML.
            NameRule(("deepseek*v3.2-exp",), DEEPSEEK_LINE),
        ),
        sniff_markers=(CALLS_BEGIN, CALL_BEGIN),
        stray_tokens=(CALLS_BEGIN, CALLS_END, CALL_BEGIN, CALL_END_MARKER, SEP),
        # R1's template opens the block (R1-0528 writes <think> too, which is then dropped).
        thinking_opened=("deepseek-r1",),
        # V3.1's template (and V3.2-Exp's) opens it when the request turns thinking on.
        thinking_opened_when_asked=("deepseek*v3.1", "deepseek*v3.2-exp"),
        thinking_switch=THINKING,
        write_calls=write_calls,
        markup_pieces=(
            CALLS_BEGIN,
            CALLS_END,
            CALL_BEGIN,
            CALL_END_MARKER,
            SEP,
            "function",
            "bash",
            "```json\n",
            "```",
            '{"a": 1}',
            "<｜tool",
        ),
    )
)
