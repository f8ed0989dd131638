"""Mistral tool calls (``provider="mistral"``), before and since tokenizer v11.

    pre-v11: [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    v11+   : [TOOL_CALLS]get_weather{"city": "Paris"}
             [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}

Arguments (an object, or a JSON string) stream as the model writes them. Mistral rejects
tool-call ids that are not exactly 9 alphanumeric characters on the next turn, so the parser
leaves ids to the rewriter and says which style it needs in ``ID_STYLE``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence

from ..events import CALL_END, CallArgs, CallStart, Event
from .base import MarkerSearch, ParserContext
from .callobject import CALL, NOT_CALL, CallObject
from .descriptor import VENDOR, Format, NameRule, register
from .driver import OptionalClose, StreamParser, literal_at, search_table, skip_space
from .jsonscan import ArgumentsValue, ValueEnd

TOOL_CALLS = "[TOOL_CALLS]"
ARGS = "[ARGS]"

_NAME_STOP = re.compile(r"[^\w.\-]")


class _State(enum.IntEnum):
    TEXT = 0
    OPENED = enum.auto()  # after [TOOL_CALLS]: "[", "{" or a name decides
    ARRAY = enum.auto()  # pre-v11: between the call objects of the array
    OBJECT = enum.auto()
    JUNK = enum.auto()  # pre-v11: an array entry that is not a call object
    NAME = enum.auto()  # v11: the name
    NAME_END = enum.auto()  # after the name: whitespace, then "{" or [ARGS]
    ARGS = enum.auto()
    AFTER = enum.auto()  # after the calls: a "}" or "]" too many is the tail of their markup


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _OPENED, _ARRAY, _OBJECT, _JUNK, _NAME, _NAME_END, _ARGS, _AFTER = _State
#: The characters a JSON value other than an object starts with: an entry that is not a call.
_JUNK_START = frozenset('"[-0123456789tfn')


_SEARCH = search_table(_State, {_TEXT: MarkerSearch((TOOL_CALLS,))})


class MistralParser(StreamParser):
    TRIGGERS = "["
    #: Mistral needs 9-character alphanumeric call ids.
    ID_STYLE = "mistral9"
    _searches = _SEARCH
    _SHORTCUT_STATES = (_ARGS, _OBJECT)

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._opening = ""  # markup that is text again if no call follows
        self._array = False  # pre-v11: the calls sit in a JSON array
        self._name = ""
        self._object = CallObject(needs_arguments=False)
        self._arguments = ArgumentsValue()
        self._junk = ValueEnd()
        self._after = OptionalClose(tail="}]")
        #: Markup dropped if a call follows: a repeated [TOOL_CALLS], array entries that are
        #: not calls (if none follows, all of it is given back as text).
        self._unconfirmed_strays = 0

    @property
    def held_arguments(self) -> int:
        return self._object.held + self._arguments.held

    def _held_markup(self) -> int:
        # Emptied once the call starts or turns out to be text.
        return len(self._opening) + self._after.held + self._object.held_header

    def _more_strays(self) -> int:
        return self._after.strays

    def _shortcut(self, text: str) -> list[Event] | None:
        # A piece of a call's arguments that goes out as written.
        taken = (self._arguments if self._state is _ARGS else self._object).take(text)
        return [CallArgs(text)] if taken else None

    def _marker(self, marker: str, out: list[Event]) -> None:  # [TOOL_CALLS], in TEXT
        self._opening = marker
        self._array = False
        self._unconfirmed_strays = 0
        self._state = _OPENED

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        state = self._state
        if state is _OBJECT:
            return self._read_object(buf, pos, out)
        if state is _ARGS:
            pieces: list[str] = []
            end = self._arguments.feed(buf, pos, pieces)
            if pieces:
                out.append(CallArgs("".join(pieces)))
            if end == -1:
                return len(buf)
            out.append(CALL_END)
            self._state = _AFTER
            return end
        if state is _NAME:
            return self._read_name(buf, pos)
        if state is _NAME_END:
            return self._after_name(buf, pos, out, final)
        if state is _JUNK:
            return self._skip_junk(buf, pos)
        if state is _AFTER:
            after, closing = self._after.step(buf, pos, out, final)
            if closing is not None:
                self._state = _TEXT
            return after
        # OPENED or ARRAY: whitespace, then what comes next decides.
        start = skip_space(buf, pos)
        if self._opening:
            self._opening += buf[pos:start]
        if start == len(buf):
            return start
        if state is _ARRAY:
            return self._in_array(buf, start, out)
        repeated = literal_at(buf, start, (TOOL_CALLS,), final)
        if repeated is None:
            return None if start == pos else start
        if repeated:  # [TOOL_CALLS] again before the calls
            self._opening += repeated
            self._unconfirmed_strays += 1
            return start + len(repeated)
        return self._after_opening(buf, start, out)

    def _in_array(self, buf: str, start: int, out: list[Event]) -> int:
        char = buf[start]
        if char == "{":
            self._object = CallObject(needs_arguments=False)
            self._state = _OBJECT
            return start
        if char == "," or char == "]":
            if self._opening:
                self._opening += char
            if char == "]":  # if no call came, the array stays text
                self._array_end(out)
            return start + 1
        if char in _JUNK_START:  # a value that is not a call: skipped, whatever it holds
            self._junk = ValueEnd()
            self._junk_entry()
            self._state = _JUNK
            return start
        self._not_a_call(out)
        return start

    def _junk_entry(self) -> None:
        if self._opening:  # no call yet: it is dropped only if one comes
            self._unconfirmed_strays += 1
        else:
            self._dropped += 1

    def _skip_junk(self, buf: str, pos: int) -> int:
        end = self._junk.scan(buf, pos)
        stop = len(buf) if end == -1 else end
        if self._opening:
            self._opening += buf[pos:stop]
        if end != -1:
            self._state = _ARRAY
        return stop

    def _array_end(self, out: list[Event]) -> None:
        if self._opening:
            self._not_a_call(out)
        else:
            self._state = _AFTER

    def _after_opening(self, buf: str, start: int, out: list[Event]) -> int:
        char = buf[start]
        if char == "[":
            self._opening += char
            self._array = True
            self._state = _ARRAY
            return start + 1
        if char == "{":
            self._object = CallObject(needs_arguments=False)
            self._state = _OBJECT
            return start
        if _NAME_STOP.match(char) is None:
            self._name = ""
            self._state = _NAME
            return start
        self._not_a_call(out)
        return start

    def _read_object(self, buf: str, pos: int, out: list[Event]) -> int:
        stop = self._object.feed(buf, pos, out)
        status = self._object.status
        if status is CALL:
            self._confirmed()
            self._state = _ARRAY if self._array else _AFTER
        elif status is NOT_CALL:
            raw = self._object.raw
            if not self._array:
                self._opening += raw
                self._not_a_call(out)
                return stop
            # An object in the array that is not a call: junk, skipped to its end.
            if self._opening:
                self._opening += raw
            self._junk_entry()
            self._junk = ValueEnd()
            self._state = _ARRAY if self._junk.scan(raw, 0) != -1 else _JUNK
        return stop

    def _confirmed(self) -> None:
        """A call came: the markup held for it was markup after all."""
        self._opening = ""
        self._dropped += self._unconfirmed_strays
        self._unconfirmed_strays = 0

    def _read_name(self, buf: str, pos: int) -> int:
        match = _NAME_STOP.search(buf, pos)
        end = len(buf) if match is None else match.start()
        self._name += buf[pos:end]
        self._opening += buf[pos:end]
        if match is not None:
            self._state = _NAME_END
        return end

    def _after_name(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        start = skip_space(buf, pos)
        self._opening += buf[pos:start]
        if start == len(buf):
            return start
        if buf[start] == "{":
            self._start_call(out)
            return start
        args = literal_at(buf, start, (ARGS,), final)
        if args is None:
            return None if start == pos else start
        if args:
            self._start_call(out)
            return start + len(args)
        self._not_a_call(out)
        return start

    def _start_call(self, out: list[Event]) -> None:
        out.append(CallStart(self._name))
        self._confirmed()
        self._arguments = ArgumentsValue()
        self._state = _ARGS

    def _not_a_call(self, out: list[Event]) -> None:
        if self._opening:
            self._give_back(self._opening, out)
        self._opening = ""
        self._unconfirmed_strays = 0
        self._state = _TEXT

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state is _OBJECT:
            self._object.finish(out)
            if self._object.status is NOT_CALL:
                self._opening += self._object.raw
        elif state is _ARGS:
            pieces: list[str] = []
            self._arguments.finish(pieces)
            if pieces:
                out.append(CallArgs("".join(pieces)))
            out.append(CALL_END)  # cut off: keep what arrived
        elif state is _AFTER:
            self._after.flush(out)
        if state is not _ARGS:
            self._not_a_call(out)
        self._state = _TEXT


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    """Calls in the v11 layout."""
    return "".join(f"{TOOL_CALLS}{name}{arguments}" for name, arguments in calls)


FORMAT = register(
    Format(
        "mistral",
        MistralParser,
        family="mistral",
        model_names=(
            NameRule(
                (
                    "mistral",
                    "mixtral",
                    "ministral",
                    "magistral",
                    "devstral",
                    "codestral",
                    "pixtral",
                ),
                VENDOR,
            ),
        ),
        sniff_markers=(TOOL_CALLS,),
        write_calls=write_calls,
        markup_pieces=(
            TOOL_CALLS,
            ARGS,
            "bash",
            '{"a": "}"}',
            '{"name": "bash", "arguments": {}}',
            '"{\\"x\\": 2}"',
            "[TOOL_",
            '"junk"',
        ),
    )
)
