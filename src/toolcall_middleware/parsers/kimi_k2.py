"""Kimi K2 / K2.5 / K2-Thinking special-token tool calls (``provider="kimi_k2"``).

    text <|tool_calls_section_begin|>
    <|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"cmd": "ls"}<|tool_call_end|>
    <|tool_calls_section_end|> trailing text

Text outside sections is kept verbatim; anything inside a section that is not a call is template
framing. The model's call id is kept as the OpenAI id. Arguments stream as they arrive, except
when the id names no function: then they are held until the call ends, and the call goes to the
one offered tool they fit (``parsers.names``), or, when none or several fit, leaves unnamed for
the rewriter to drop.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from ..events import CALL_END, CallArgs, CallStart, Event
from .base import ParserContext
from .descriptor import KIMI, Format, NameRule, register
from .driver import StreamParser, marker_tables
from .names import is_function_name, sole_tool, tool_for_arguments

SECTION_BEGIN = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
SECTION_END = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
CALL_BEGIN = "<|tool_call_begin|>"
ARGUMENT_BEGIN = "<|tool_call_argument_begin|>"
CALL_END_MARKER = "<|tool_call_end|>"


class _State(enum.IntEnum):
    TEXT = 0
    SECTION = 1
    HEADER = 2
    ARGS = 3


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _SECTION, _HEADER, _ARGS = _State

# Every marker is a special token: one with no place in a state is a stray, dropped (counted).
_SEARCH, _STRAYS = marker_tables(
    _State,
    {
        _TEXT: (*SECTION_BEGIN, CALL_BEGIN),
        _SECTION: (*SECTION_BEGIN, *SECTION_END, CALL_BEGIN),
        _HEADER: (ARGUMENT_BEGIN, CALL_END_MARKER, CALL_BEGIN, *SECTION_END),
        _ARGS: (CALL_END_MARKER, CALL_BEGIN, *SECTION_END),
    },
    strays={
        _TEXT: (*SECTION_END, ARGUMENT_BEGIN, CALL_END_MARKER),
        _SECTION: (ARGUMENT_BEGIN, CALL_END_MARKER),
        _HEADER: SECTION_BEGIN,
        _ARGS: (*SECTION_BEGIN, ARGUMENT_BEGIN),
    },
)


def name_from_call_id(call_id: str, context: ParserContext) -> str | None:
    """The function a Kimi call id names, or ``None`` when it names none.

    ``functions.NAME:N`` and ``NAME:N`` name the function NAME. Anything else (a number, a
    client-style id echoed from history like ``call_3``, ``functions.bad.0``, an id without
    ``:N``) names one only when what it holds is exactly an offered tool's name.
    """
    body = call_id.removeprefix("functions.")
    name, colon, counter = body.rpartition(":")
    if colon and counter.strip().isdigit() and is_function_name(name):
        return name
    if context.tool(body) is not None:
        return body
    return None


class KimiK2Parser(StreamParser):
    TRIGGERS = "<"
    _searches = _SEARCH
    _strays = _STRAYS
    _SHORTCUT_STATES = (_ARGS,)

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._in_section = False  # False: a call opened without a section marker
        self._header = ""
        self._args_started = False
        self._held_space = ""  # trailing whitespace of the arguments so far
        self._deferred: list[str] | None = None  # arguments held until the name is known
        self._deferred_size = 0
        self._call_id = ""

    def _held_markup(self) -> int:
        """A call header; whitespace after the arguments, until more of them come."""
        return len(self._header) + len(self._held_space)

    @property
    def held_arguments(self) -> int:
        """Characters of arguments held until the call's tool is known (a bare or foreign id)."""
        return self._deferred_size

    def _shortcut(self, text: str) -> list[Event] | None:
        # A piece of a call's arguments (unless they wait for the call's name): as written,
        # less the whitespace before them and at their end, held until more of them show it
        # was inside.
        if self._deferred is not None:
            return None
        if not self._args_started:
            text = text.lstrip()
            if not text:
                return []
            self._args_started = True
        if self._held_space:
            text = self._held_space + text
            self._held_space = ""
        if text[-1].isspace():
            body = text.rstrip()
            self._held_space = text[len(body) :]
            text = body
        return [CallArgs(text)] if text else []

    def _segment(self, segment: str, out: list[Event]) -> None:
        state = self._state
        if state is _ARGS:
            self._add_arguments(segment, out)
        elif state is _HEADER:
            self._header += segment
        # SECTION: whitespace and noise between calls are template framing.

    def _marker(self, marker: str, out: list[Event]) -> None:
        state = self._state
        if marker == CALL_BEGIN:
            if state is _HEADER:
                self._start_call(out)
                self._end_call(out)
            elif state is _ARGS:
                self._end_call(out)
            elif state is _TEXT:
                self._in_section = False
            self._header = ""
            self._state = _HEADER
        elif marker == ARGUMENT_BEGIN:  # only searched for in HEADER
            self._start_call(out)
            self._state = _ARGS
        elif marker == CALL_END_MARKER:  # only searched for in HEADER and ARGS
            if state is _HEADER:
                self._start_call(out)
            self._end_call(out)
            self._state = _SECTION if self._in_section else _TEXT
        elif marker in SECTION_END:
            if state is _HEADER:
                self._start_call(out)
            if state is _HEADER or state is _ARGS:
                self._end_call(out)
            self._state = _TEXT
            self._in_section = False
        else:  # a section begins (again)
            self._state = _SECTION
            self._in_section = True

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state is _HEADER:
            # Cut off before the arguments began: not a call, so the model's text it stays.
            self._give_back(CALL_BEGIN + self._header, out)
            self._header = ""
        elif state is _ARGS:
            self._end_call(out)
        self._state = _TEXT
        self._in_section = False

    def _start_call(self, out: list[Event]) -> None:
        call_id = self._header.strip()
        self._header = ""
        self._call_id = call_id
        self._args_started = False
        self._held_space = ""
        name = name_from_call_id(call_id, self._context)
        if name is None:
            tool = sole_tool(self._context.tools)
            if tool is None:
                self._deferred = []  # the arguments choose the tool, once they are whole
                return
            name = tool.name
        out.append(CallStart(name, call_id or None))

    def _add_arguments(self, segment: str, out: list[Event]) -> None:
        if self._deferred is None:
            out.extend(self._shortcut(segment) or ())  # (it declines only deferred ones)
        else:
            self._deferred.append(segment)
            self._deferred_size += len(segment)

    def _end_call(self, out: list[Event]) -> None:
        if self._deferred is not None:
            arguments = "".join(self._deferred).strip()
            self._deferred = None
            self._deferred_size = 0
            tool = tool_for_arguments(self._context.tools, arguments)
            # No tool, or several, fit: a call without a name, which the rewriter drops.
            out.append(CallStart("" if tool is None else tool.name, self._call_id or None))
            if arguments:
                out.append(CallArgs(arguments))
        self._held_space = ""
        out.append(CALL_END)


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    """Calls as one Kimi tool section, with ids counted from ``start``."""
    body = "".join(
        f"{CALL_BEGIN}functions.{name}:{start + i}{ARGUMENT_BEGIN}{arguments}{CALL_END_MARKER}"
        for i, (name, arguments) in enumerate(calls)
    )
    return SECTION_BEGIN[0] + body + SECTION_END[0]


FORMAT = register(
    Format(
        "kimi_k2",
        KimiK2Parser,
        family="kimi",
        model_names=(NameRule(("kimi", "moonshot", "k2"), KIMI),),
        sniff_markers=(*SECTION_BEGIN, CALL_BEGIN),
        stray_tokens=(*SECTION_BEGIN, *SECTION_END, CALL_BEGIN, ARGUMENT_BEGIN, CALL_END_MARKER),
        write_calls=write_calls,
        markup_pieces=(
            *SECTION_BEGIN,
            *SECTION_END,
            CALL_BEGIN,
            ARGUMENT_BEGIN,
            CALL_END_MARKER,
            "functions.bash:3",
            "call_7",
            "<|tool_",
            '{"a": 1}',
        ),
    )
)
