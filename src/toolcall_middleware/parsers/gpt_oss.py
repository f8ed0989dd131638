"""gpt-oss (harmony) messages that leak as text (``provider="gpt_oss"``).

    <|channel|>analysis<|message|>We need the weather.<|end|>
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json
    <|message|>{"location": "SF"}<|call|>          (one line in the stream)

A message whose header names a recipient (``to=functions.NAME``) is a call with its body as the
arguments; any other message body is the model's text, its header framing: reasoning for the
``analysis`` channel, text for the others (``final``). The recipient may sit before or after
``<|channel|>``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence

from ..events import Event, Reasoning, Text
from .base import ParserContext
from .delimited import DelimitedCallParser
from .descriptor import VENDOR, Format, NameRule, register
from .driver import marker_tables

START = "<|start|>"
CHANNEL = "<|channel|>"
CONSTRAIN = "<|constrain|>"
MESSAGE = "<|message|>"
END = "<|end|>"
CALL = "<|call|>"
RETURN = "<|return|>"
FUNCTIONS_PREFIX = "functions."

_HEADER_MARKERS = (START, CHANNEL, CONSTRAIN)
_ENDS = (END, CALL, RETURN)
_RECIPIENT = re.compile(r"\bto=([^\s<]+)")
_ANALYSIS = re.compile(re.escape(CHANNEL) + r"\s*analysis\b")


class _State(enum.IntEnum):
    TEXT = 0
    HEADER = enum.auto()
    BODY = enum.auto()  # a message that is text
    ARGS = enum.auto()  # a message to a tool


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _HEADER, _BODY, _ARGS = _State


_SEARCH, _STRAYS = marker_tables(
    _State,
    {
        _TEXT: (*_HEADER_MARKERS, MESSAGE),
        _HEADER: (*_HEADER_MARKERS, MESSAGE, *_ENDS),
        _BODY: (START, CHANNEL, *_ENDS),
        _ARGS: (START, CHANNEL, *_ENDS),
    },
    # An end with no message open; a header's markers inside a message.
    strays={_TEXT: _ENDS, _BODY: (CONSTRAIN, MESSAGE), _ARGS: (CONSTRAIN, MESSAGE)},
)


def recipient_name(header: str) -> str | None:
    """The function a message header addresses, or ``None`` when it addresses no one."""
    match = _RECIPIENT.search(header)
    if match is None:
        return None
    recipient = match.group(1)
    return recipient.removeprefix(FUNCTIONS_PREFIX) or None


class GptOssParser(DelimitedCallParser):
    TRIGGERS = "<"
    _searches = _SEARCH
    _strays = _STRAYS
    _SHORTCUT_STATES = (_ARGS,)

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._header = ""  # the raw header: text again if no message follows
        self._analysis = False  # the message being read is the analysis channel: reasoning

    def _held_markup(self) -> int:
        if self._state is _HEADER:
            return len(self._header)
        return super()._held_markup()

    def _segment(self, segment: str, out: list[Event]) -> None:
        state = self._state
        if state is _BODY:
            out.append(Reasoning(segment) if self._analysis else Text(segment))
        elif state is _HEADER:
            self._header += segment
        else:
            self._add_arguments(segment, out)

    def _marker(self, marker: str, out: list[Event]) -> None:
        state = self._state
        if state is _HEADER:
            if marker == MESSAGE:
                self._open_message(out)
                return
            if marker in (CHANNEL, CONSTRAIN):
                self._header += marker
                return
            self._give_back(self._header, out)  # a header that never got its message
        elif state is _ARGS:
            self._end_call(out)
        if marker in _HEADER_MARKERS:
            self._header = marker
            self._state = _HEADER
        elif marker == MESSAGE:  # a message without a header
            self._analysis = False
            self._state = _BODY
        else:  # an end marker: the message (if any) is over
            self._state = _TEXT

    def _open_message(self, out: list[Event]) -> None:
        name = recipient_name(self._header)
        self._analysis = _ANALYSIS.search(self._header) is not None
        self._header = ""
        if name is None:
            self._state = _BODY
            return
        self._start_call(name, out)
        self._state = _ARGS

    def _close(self, out: list[Event]) -> None:
        if self._state is _HEADER:
            self._give_back(self._header, out)
        elif self._state is _ARGS:
            self._end_call(out)  # cut off: keep what arrived
        self._state = _TEXT


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return "".join(
        f"{START}assistant{CHANNEL}commentary to={FUNCTIONS_PREFIX}{name} {CONSTRAIN}json"
        f"{MESSAGE}{arguments}{CALL}"
        for name, arguments in calls
    )


FORMAT = register(
    Format(
        "gpt_oss",
        GptOssParser,
        family="gpt_oss",
        model_names=(NameRule(("gpt-oss", "gpt_oss"), VENDOR),),
        sniff_markers=(CHANNEL, START + "assistant"),
        stray_tokens=(START, CHANNEL, CONSTRAIN, MESSAGE, END, CALL, RETURN),
        write_calls=write_calls,
        markup_pieces=(
            START,
            "assistant",
            CHANNEL,
            "analysis",
            "commentary to=functions.bash ",
            CONSTRAIN,
            "json",
            MESSAGE,
            '{"a": 1}',
            CALL,
            END,
            RETURN,
        ),
    )
)
