"""Gemma 4 tool calls (``provider="gemma4"``).

    Let me check.<|tool_call>call:get_weather{location:<|"|>Paris, France<|"|>,days:3}<tool_call|>

A call is ``call:NAME{ARGUMENTS}`` between ``<|tool_call>`` and ``<tool_call|>`` (which some
Gemma 4 builds write as ``<turn|>``); parallel calls are consecutive blocks. Names may hold
``-``, ``.`` and ``/``. The arguments are Gemma's own syntax (``gemma_args``), turned into JSON
as they arrive: string values stream. ``<|channel>thought`` … ``<channel|>`` is the model's
reasoning; a bare ``call:NAME{…}`` right after its close (the opening token dropped, as Gemma 4
does) is a call too. A ``<|tool_call>`` not followed by ``call:NAME{`` is the model's text again; a
call cut off by the end of the stream keeps what arrived.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Sequence

from ..events import CALL_END, CallArgs, CallStart, Event, Reasoning
from .base import MarkerSearch, ParserContext
from .descriptor import VENDOR, Format, NameRule, register
from .driver import OptionalClose, StreamParser, literal_at, marker_tables, scan_markers, skip_space
from .gemma_args import STRING_QUOTE, GemmaArguments

CALL_OPEN = "<|tool_call>"
CALL_CLOSE = "<tool_call|>"
TURN_END = "<turn|>"
CHANNEL_OPEN = "<|channel>"
CHANNEL_CLOSE = "<channel|>"
RESPONSE_OPEN = "<|tool_response>"
RESPONSE_CLOSE = "<tool_response|>"
CALL_PREFIX = "call:"
THOUGHT_LABEL = "thought\n"

_NAME = re.compile(r"[\w.\-/]*")


class _State(enum.IntEnum):
    TEXT = 0
    CHANNEL = enum.auto()  # the thought channel: reasoning
    AFTER_CHANNEL = enum.auto()  # straight after <channel|>: a bare "call:" may follow
    OPENED = enum.auto()  # after <|tool_call>: "call:"
    NAME = enum.auto()  # the name, up to "{"
    ARGS = enum.auto()  # the arguments' structure
    STRING = enum.auto()  # a string's contents, up to <|"|>
    AFTER = enum.auto()  # after the arguments: <tool_call|> (may be missing)


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _CHANNEL, _AFTER_CHANNEL, _OPENED, _NAME_STATE, _ARGS, _STRING, _AFTER = _State

# Where a call's arguments may end early: its close, the turn's end, the next call.
_ENDS = (CALL_CLOSE, TURN_END, CALL_OPEN)
_SEARCH, _STRAYS = marker_tables(
    _State,
    {
        _TEXT: (CALL_OPEN, CHANNEL_OPEN, CHANNEL_CLOSE),
        _CHANNEL: (CHANNEL_CLOSE, CALL_OPEN),
        _STRING: (STRING_QUOTE, *_ENDS),
    },
    # Special tokens with no place here: dropped, counted.
    strays={
        _TEXT: (CALL_CLOSE, STRING_QUOTE, RESPONSE_OPEN, RESPONSE_CLOSE, TURN_END),
        _CHANNEL: (CHANNEL_OPEN, STRING_QUOTE, CALL_CLOSE, TURN_END),
        _STRING: (CHANNEL_OPEN, CHANNEL_CLOSE),
    },
)
_ARGS_SEARCH = MarkerSearch((STRING_QUOTE, *_ENDS, CHANNEL_OPEN, CHANNEL_CLOSE))


class Gemma4Parser(StreamParser):
    TRIGGERS = "<"
    _searches = _SEARCH
    _strays = _STRAYS
    _SHORTCUT_STATES = (_STRING, _CHANNEL)

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._opening = ""  # the call's markup so far: text again if it is no call
        self._name = ""
        self._colon = False  # a stray ":" after <|tool_call> may still come
        self._label = ""  # the start of a thought channel, while it may be its label
        self._fresh_channel = False  # the channel's label may still come
        self._arguments = GemmaArguments()
        self._after = OptionalClose(CALL_CLOSE, TURN_END, repeat=True)

    def _held_markup(self) -> int:
        state = self._state
        if state is _OPENED or state is _NAME_STATE:
            return len(self._opening)
        if state is _CHANNEL:
            return len(self._label)
        return self._after.held if state is _AFTER else 0

    @property
    def held_arguments(self) -> int:
        return self._arguments.held

    def _more_strays(self) -> int:
        return self._after.strays

    def _shortcut(self, text: str) -> list[Event] | None:
        # A piece of a string value, or of reasoning: what ``_segment`` makes of it.
        if self._state is _CHANNEL:
            return None if self._label or self._fresh_channel else [Reasoning(text)]
        fragment = self._arguments.string(text)
        return [CallArgs(fragment)] if fragment else []

    def _segment(self, segment: str, out: list[Event]) -> None:
        if self._state is _STRING:
            fragment = self._arguments.string(segment)
            if fragment:
                out.append(CallArgs(fragment))
            return
        # CHANNEL: reasoning, less the "thought" label that names the channel
        if self._fresh_channel:
            head = self._label + segment
            if THOUGHT_LABEL.startswith(head):
                self._label = head
                return
            self._fresh_channel = False
            self._label = ""
            segment = head.removeprefix(THOUGHT_LABEL)
            if not segment:
                return
        out.append(Reasoning(segment))

    def _marker(self, marker: str, out: list[Event]) -> None:
        state = self._state
        if state is _STRING:
            if marker == STRING_QUOTE:
                pieces: list[str] = []
                self._arguments.string_end(pieces)
                self._emit(pieces, out)
                self._state = _ARGS
                return
            self._end_call(out)  # the string and the call never closed
        elif state is _CHANNEL:
            self._end_channel(out)
        if marker == CHANNEL_CLOSE:
            if state is not _CHANNEL:  # a close with no channel open (one the template
                self._dropped += 1  # opened, split off upstream): a stray, but a call may
            self._state = _AFTER_CHANNEL  # follow it as it follows the channel
            return
        if marker == CALL_OPEN:
            self._open_call()
        elif marker == CHANNEL_OPEN:
            self._fresh_channel = True
            self._label = ""
            self._state = _CHANNEL
        else:  # a call's end markers, after a string that never closed
            self._state = _TEXT

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        state = self._state
        if state is _ARGS:
            return self._read_arguments(buf, pos, out, final)
        if state is _NAME_STATE:
            return self._read_name(buf, pos, out)
        if state is _AFTER:
            after, closing = self._after.step(buf, pos, out, final)
            if closing is not None:
                self._state = _TEXT
            return after
        if state is _AFTER_CHANNEL:
            bare = literal_at(buf, pos, (CALL_PREFIX,), final)
            if bare is None:
                return None
            if bare:
                self._opening = bare
                self._name = ""
                self._state = _NAME_STATE
                return pos + len(bare)
            self._state = _TEXT
            return pos
        # OPENED: "call:", perhaps after space or a stray ":"
        start = skip_space(buf, pos)
        self._opening += buf[pos:start]
        if start == len(buf):
            return start
        if buf[start] == ":" and self._colon:  # <|tool_call>:call:
            self._colon = False
            self._opening += ":"
            return start + 1
        prefix = literal_at(buf, start, (CALL_PREFIX,), final)
        if prefix is None:
            return None if start == pos else start
        if not prefix:
            return self._not_a_call(out, start)
        self._opening += prefix
        self._name = ""
        self._state = _NAME_STATE
        return start + len(prefix)

    def _open_call(self) -> None:
        self._opening = CALL_OPEN
        self._colon = True
        self._state = _OPENED

    def _read_name(self, buf: str, pos: int, out: list[Event]) -> int:
        match = _NAME.match(buf, pos)
        assert match is not None  # (it matches the empty string)
        end = match.end()
        self._name += buf[pos:end]
        self._opening += buf[pos:end]
        if end == len(buf):
            return end
        if buf[end] != "{" or not self._name:
            return self._not_a_call(out, end)
        self._opening = ""
        out.append(CallStart(self._name))
        self._arguments = GemmaArguments()
        out.append(CallArgs(self._arguments.start()))
        self._state = _ARGS
        return end + 1

    def _not_a_call(self, out: list[Event], resume: int) -> int:
        """What was read as a call's start is the model's text again."""
        self._give_back(self._opening, out)
        self._opening = ""
        self._state = _TEXT
        return resume

    def _read_arguments(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        found = scan_markers(buf, pos, _ARGS_SEARCH, final)
        if found is None:
            return None
        end, marker, resume = found
        pieces: list[str] = []
        stop = self._arguments.structure(buf, pos, end, pieces)
        if self._arguments.done:  # the object closed: the call's close comes next
            self._emit(pieces, out)
            out.append(CALL_END)
            self._after = OptionalClose(CALL_CLOSE, TURN_END, repeat=True)
            self._state = _AFTER
            return stop
        if marker is None:
            self._emit(pieces, out)
            return resume
        if marker == STRING_QUOTE:
            self._arguments.string_start(pieces)
            self._emit(pieces, out)
            self._state = _STRING
        elif marker in _ENDS:
            self._emit(pieces, out)
            self._end_call(out)  # its object never closed
            if marker == CALL_OPEN:
                self._open_call()
        else:  # a channel token inside a call: a stray
            self._emit(pieces, out)
            self._dropped += 1
        return resume

    def _emit(self, pieces: list[str], out: list[Event]) -> None:
        if pieces:
            out.append(CallArgs("".join(pieces)))

    def _end_call(self, out: list[Event]) -> None:
        pieces: list[str] = []
        self._arguments.finish(pieces)
        self._emit(pieces, out)
        out.append(CALL_END)
        self._state = _TEXT

    def _end_channel(self, out: list[Event]) -> None:
        if self._label not in ("", THOUGHT_LABEL, THOUGHT_LABEL.rstrip()):
            out.append(Reasoning(self._label))
        self._label = ""
        self._fresh_channel = False

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state is _OPENED or state is _NAME_STATE:
            self._give_back(self._opening, out)
            self._opening = ""
        elif state is _ARGS or state is _STRING:
            self._end_call(out)  # cut off: keep what arrived
        elif state is _CHANNEL:
            self._end_channel(out)
        elif state is _AFTER:
            self._after.flush(out)
        self._state = _TEXT


def gemma_value(value: object) -> str:
    """A JSON value as Gemma writes it (for ``write_calls``)."""
    if isinstance(value, str):
        return STRING_QUOTE + value + STRING_QUOTE
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{gemma_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(gemma_value(v) for v in value) + "]"
    return json.dumps(value)


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return "".join(
        f"{CALL_OPEN}{CALL_PREFIX}{name}{gemma_value(json.loads(arguments))}{CALL_CLOSE}"
        for name, arguments in calls
    )


FORMAT = register(
    Format(
        "gemma4",
        Gemma4Parser,
        family="gemma",
        model_names=(NameRule(("gemma-4", "gemma4", "gemma_4"), VENDOR),),
        sniff_markers=(CALL_OPEN, CHANNEL_OPEN),
        stray_tokens=(CALL_CLOSE, CHANNEL_CLOSE, STRING_QUOTE, RESPONSE_OPEN, RESPONSE_CLOSE),
        write_calls=write_calls,
        markup_pieces=(
            CALL_OPEN,
            CALL_CLOSE,
            TURN_END,
            CHANNEL_OPEN,
            CHANNEL_CLOSE,
            "thought\n",
            STRING_QUOTE,
            RESPONSE_OPEN,
            "call:get_weather{",
            "call:bash",
            "location:",
            "days:3",
            "{a:[1,true]}",
            ",",
            "}",
        ),
    )
)
