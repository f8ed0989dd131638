"""Qwen3-Coder / Qwen3.5 (and MiMo) XML tool calls (``provider="qwen3_coder"``).

    <tool_call>
    <function=write_file>
    <parameter=path>
    src/app.py
    </parameter>
    </function>
    </tool_call>

Values are raw text typed by the request's schema (see ``xmlargs``); string values stream as
they arrive. A missing ``</parameter>`` is closed by the next ``<parameter=`` or
``</function>``; a bare ``<function=...>`` without ``<tool_call>`` is still a call.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from ..events import Event, Reasoning
from .base import MarkerSearch, ParserContext
from .descriptor import QWEN_LINE, VENDOR, Format, NameRule, raw_values, register
from .driver import OptionalClose, literal_at, marker_tables, skip_space
from .xmlargs import XmlCallParser

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
FUNCTION = "<function="
FUNCTION_END = "</function>"
PARAMETER = "<parameter="
PARAMETER_END = "</parameter>"

# A function header ends at ">"; a newline or "<" first means it was not a header after all.
_FUNCTION_HEADER_STOP = re.compile(r"[>\n<]")


class _State(enum.IntEnum):
    TEXT = 0
    OPENED = enum.auto()  # after <tool_call>: whitespace, then <function=
    FUNCTION_HEADER = enum.auto()  # the name, up to ">"
    BODY = enum.auto()  # between parameters: framing
    PARAMETER_HEADER = enum.auto()  # the key, up to ">"
    VALUE = enum.auto()
    AFTER = enum.auto()  # after </function>: whitespace, then </tool_call> (may be missing)
    # Formats that wrap this markup with a think block of their own (seed_oss):
    THINK = enum.auto()  # reasoning
    THOUGHT = enum.auto()  # after the think block: whitespace is framing


#: The states, for the tables of a wrapping format (``search_tables``).
State = _State
# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _OPENED, _FUNCTION_HEADER, _BODY, _PARAMETER_HEADER, _VALUE, _AFTER, _THINK, _THOUGHT = (
    _State
)


def search_tables(
    open_: str,
    close: str,
    think: tuple[str, str] | None = None,
    strays: Mapping[_State, tuple[str, ...]] = MappingProxyType({}),
) -> tuple[tuple[MarkerSearch | None, ...], tuple[frozenset[str], ...]]:
    """The marker tables of this markup inside ``open_``/``close`` tags (``think``: the tags of
    a think block the format opens in plain text)."""
    markers: dict[_State, tuple[str, ...]] = {
        _TEXT: (open_, FUNCTION, *(think[:1] if think else ())),
        _BODY: (PARAMETER, FUNCTION_END, close, FUNCTION, open_),
        _PARAMETER_HEADER: (">",),
        _VALUE: (PARAMETER_END, PARAMETER, FUNCTION_END),
    }
    if think:
        markers[_THINK] = (think[1],)
    return marker_tables(_State, markers, strays)


_SEARCH, _STRAYS = search_tables(OPEN, CLOSE)


class Qwen3CoderParser(XmlCallParser):
    TRIGGERS = "<"
    _searches = _SEARCH
    _strays = _STRAYS
    #: The tags around a call (a wrapping format has its own), and of a think block the
    #: format opens in plain text (none here: ``think.py`` splits Qwen's ``<think>``).
    OPEN, CLOSE = OPEN, CLOSE
    THINK_OPEN = THINK_CLOSE = ""

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._opening = ""  # markup that is text again if no call follows
        self._header = ""
        self._after = OptionalClose(self.CLOSE, repeat=True)  # the closing tag twice: a stray
        self._fresh = False  # a think block just opened: its leading whitespace is framing

    def _more_strays(self) -> int:
        return self._after.strays

    def _held_markup(self) -> int:
        state = self._state
        if state is _OPENED:
            return len(self._opening)
        if state is _FUNCTION_HEADER:
            return len(self._opening) + len(self._header)
        if state is _PARAMETER_HEADER:
            return len(self._header)
        return self._after.held

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        state = self._state
        if state is _OPENED:
            return self._after_open(buf, pos, out, final)
        if state is _FUNCTION_HEADER:
            return self._function_header(buf, pos, out)
        if state is _THOUGHT:
            start = skip_space(buf, pos)
            if start < len(buf):
                self._state = _TEXT
            return start
        after, closing = self._after.step(buf, pos, out, final)  # AFTER
        if closing is not None:
            self._state = _TEXT
        return after

    def _after_open(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        start = skip_space(buf, pos)
        self._opening += buf[pos:start]
        if start == len(buf):
            return start
        function = literal_at(buf, start, (FUNCTION,), final)
        if function is None:
            return None if start == pos else start
        if function:
            self._opening += function
            self._header = ""
            self._state = _FUNCTION_HEADER
            return start + len(function)
        self._give_back(self._opening, out)
        self._state = _TEXT
        return start

    def _function_header(self, buf: str, pos: int, out: list[Event]) -> int:
        match = _FUNCTION_HEADER_STOP.search(buf, pos)
        if match is None:
            self._header += buf[pos:]
            return len(buf)
        self._header += buf[pos : match.start()]
        name = self._header.strip()
        if match.group() != ">" or not name:
            self._give_back(self._opening + self._header, out)
            self._state = _TEXT
            return match.start()
        self._start_call(name, out)
        self._state = _BODY
        return match.end()

    def _segment(self, segment: str, out: list[Event]) -> None:
        state = self._state
        if state is _VALUE:
            self._arguments.value(segment, out)
        elif state is _PARAMETER_HEADER:
            self._header += segment
        elif state is _THINK:
            if self._fresh:
                segment = segment.lstrip()
                if not segment:
                    return
                self._fresh = False
            out.append(Reasoning(segment))
        # BODY: whitespace between parameters is framing.

    def _marker(self, marker: str, out: list[Event]) -> None:
        state = self._state
        if state is _THINK:  # its closing tag
            self._state = _THOUGHT
        elif state is _TEXT:
            if marker == self.THINK_OPEN:
                self._fresh = True
                self._state = _THINK
                return
            self._opening = marker
            self._header = ""
            self._state = _OPENED if marker == self.OPEN else _FUNCTION_HEADER
        elif state is _PARAMETER_HEADER:  # ">"
            self._arguments.open(self._header.strip(), out)
            self._state = _VALUE
        elif marker == PARAMETER:
            self._arguments.close(out)
            self._header = ""
            self._state = _PARAMETER_HEADER
        elif marker == PARAMETER_END:
            self._arguments.close(out)
            self._state = _BODY
        elif marker == FUNCTION_END:
            self._end_call(out)
            self._state = _AFTER
        else:  # in BODY: the call ends without </function>
            self._end_call(out)
            self._opening = marker
            self._header = ""
            if marker == FUNCTION:
                self._state = _FUNCTION_HEADER
            else:
                self._state = _OPENED if marker == self.OPEN else _TEXT

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state is _OPENED:
            self._give_back(self._opening, out)
        elif state is _FUNCTION_HEADER:
            self._give_back(self._opening + self._header, out)
        elif state in (_BODY, _PARAMETER_HEADER, _VALUE):
            self._end_call(out)  # cut off: keep what arrived
        elif state is _AFTER:
            self._after.flush(out)
        self._state = _TEXT  # (THINK, THOUGHT: the reasoning went out as it came)


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return "\n".join(
        f"{OPEN}\n{FUNCTION}{name}>\n"
        + "".join(
            f"{PARAMETER}{key}>\n{value}\n{PARAMETER_END}\n" for key, value in raw_values(arguments)
        )
        + f"{FUNCTION_END}\n{CLOSE}"
        for name, arguments in calls
    )


FORMAT = register(
    Format(
        "qwen3_coder",
        Qwen3CoderParser,
        family="qwen",
        model_names=(
            NameRule(("qwen3-coder", "qwen3_coder", "qwen3.5"), QWEN_LINE),
            # Xiaomi's MiMo (MiMo-V2-Flash) writes the same XML.
            NameRule(("mimo",), VENDOR),
            # StepFun's Step 3.5 writes Qwen3-Coder's markup (Step 3 wrote its own).
            NameRule(("step-3.5", "step3.5", "step3p5", "step-3p5"), VENDOR),
        ),
        write_calls=write_calls,
        markup_pieces=(
            OPEN,
            CLOSE,
            "<function=bash>",
            FUNCTION,
            FUNCTION_END,
            "<parameter=command>",
            "<parameter=days>",
            PARAMETER_END,
            "{'a': 1}",
        ),
    )
)
