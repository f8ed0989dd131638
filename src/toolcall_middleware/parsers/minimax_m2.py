"""MiniMax M2 tool calls (``provider="minimax_m2"``).

    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Beijing</parameter>
    </invoke>
    </minimax:tool_call>

Several ``<invoke>`` per block; values are raw text typed by the request's schema (see
``xmlargs``). Anything between the tags inside a block is framing.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence

from ..events import Event
from .base import ParserContext
from .descriptor import VENDOR, Format, NameRule, raw_values, register
from .driver import marker_tables
from .xmlargs import XmlCallParser

OPEN = "<minimax:tool_call>"
CLOSE = "</minimax:tool_call>"
INVOKE = "<invoke"
INVOKE_END = "</invoke>"
PARAMETER = "<parameter"
PARAMETER_END = "</parameter>"
# Inside a value only the full opening tag closes it: "<parameters>" is value text.
NEXT_PARAMETER = "<parameter name="

_NAME_ATTRIBUTE = re.compile(r"""name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>/]+))""")


def attribute_name(header: str) -> str:
    """The ``name`` attribute of a tag header like `` name="get_weather"``."""
    match = _NAME_ATTRIBUTE.search(header)
    if match is None:
        return header.strip().strip("\"'")
    return next(group for group in match.groups() if group is not None).strip()


class _State(enum.IntEnum):
    TEXT = 0
    SECTION = enum.auto()
    INVOKE_HEADER = enum.auto()
    INVOKE = enum.auto()
    PARAMETER_HEADER = enum.auto()
    VALUE = enum.auto()


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _SECTION, _INVOKE_HEADER, _INVOKE, _PARAMETER_HEADER, _VALUE = _State


_SEARCH, _STRAYS = marker_tables(
    _State,
    {
        _TEXT: (OPEN,),
        _SECTION: (INVOKE, CLOSE),
        _INVOKE_HEADER: (">",),
        _INVOKE: (PARAMETER, INVOKE_END, INVOKE, CLOSE),
        _PARAMETER_HEADER: (">",),
        _VALUE: (PARAMETER_END, NEXT_PARAMETER, INVOKE_END, CLOSE),
    },
    # The block's tags are special tokens of MiniMax's tokenizer: out of place, they are strays.
    strays={_TEXT: (CLOSE,), _SECTION: (OPEN,), _INVOKE: (OPEN,), _VALUE: (OPEN,)},
)


class MinimaxM2Parser(XmlCallParser):
    TRIGGERS = "<"
    _searches = _SEARCH
    _strays = _STRAYS

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._header = ""

    def _held_markup(self) -> int:
        state = self._state
        if state is _INVOKE_HEADER or state is _PARAMETER_HEADER:
            return len(self._header)
        return 0

    def _segment(self, segment: str, out: list[Event]) -> None:
        state = self._state
        if state is _VALUE:
            self._arguments.value(segment, out)
        elif state in (_INVOKE_HEADER, _PARAMETER_HEADER):
            self._header += segment
        # SECTION, INVOKE: whitespace between the tags is framing.

    def _marker(self, marker: str, out: list[Event]) -> None:
        state = self._state
        if state is _INVOKE_HEADER:  # ">"
            name = attribute_name(self._header)
            self._start_call(name, out)
            self._state = _INVOKE
        elif state is _PARAMETER_HEADER:  # ">"
            self._arguments.open(attribute_name(self._header), out)
            self._state = _VALUE
        elif marker == OPEN:
            self._state = _SECTION
        elif marker == CLOSE:  # in a call, it ends it: its </parameter>, </invoke> never came
            if state is not _SECTION:
                self._end_call(out)
            self._state = _TEXT
        elif marker == INVOKE:
            if state is _INVOKE:
                self._end_call(out)
            self._header = ""
            self._state = _INVOKE_HEADER
        elif marker == INVOKE_END:
            self._end_call(out)
            self._state = _SECTION
        elif marker == PARAMETER_END:
            self._arguments.close(out)
            self._state = _INVOKE
        else:  # PARAMETER, or NEXT_PARAMETER closing an unclosed value
            self._arguments.close(out)
            self._header = marker[len(PARAMETER) :]
            self._state = _PARAMETER_HEADER

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state is _INVOKE_HEADER:
            self._give_back(INVOKE + self._header, out)
        elif state in (_INVOKE, _PARAMETER_HEADER, _VALUE):
            self._end_call(out)  # cut off: keep what arrived
        self._state = _TEXT


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    invokes = "".join(
        f'{INVOKE} name="{name}">\n'
        + "".join(
            f'{PARAMETER} name="{key}">{value}{PARAMETER_END}\n'
            for key, value in raw_values(arguments)
        )
        + f"{INVOKE_END}\n"
        for name, arguments in calls
    )
    return f"{OPEN}\n{invokes}{CLOSE}"


FORMAT = register(
    Format(
        "minimax_m2",
        MinimaxM2Parser,
        family="minimax",
        model_names=(NameRule(("minimax",), VENDOR),),
        sniff_markers=(OPEN,),
        stray_tokens=(OPEN, CLOSE),
        write_calls=write_calls,
        markup_pieces=(
            OPEN,
            CLOSE,
            '<invoke name="bash">',
            INVOKE_END,
            '<parameter name="command">',
            '<parameter name="days">',
            PARAMETER_END,
            INVOKE,
            "<parameters>",
        ),
    )
)
