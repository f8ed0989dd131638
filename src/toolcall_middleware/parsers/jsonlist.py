"""Base of the formats that write their calls as a JSON list of call objects.

    functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, {"name": "get_time"}]
    <tool_calls>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]</tool_calls>

An opening (a subclass finds it in plain text) is followed by ``[``, then call objects as
``hermes`` reads them (arguments streamed as written), separated by commas, then ``]`` and
maybe a closing marker. Until the first call comes, everything read is held: if the first
entry is no call (or the list is empty, or no list follows), it all goes back as the model's
text, less an opening that is a special token (dropped and counted). Once a call came, the
brackets and commas are framing; a later entry that is no call is the model's text (counted),
and the calls beside it still go out.

An opening that says it holds calls (a special token, a tag) takes any name; a bare ``[`` in
prose is a list of calls only when its first object names an offered tool.
"""

from __future__ import annotations

import enum

from ..events import CallArgs, Event
from .base import ParserContext, held_size
from .callobject import CALL, NOT_CALL, CallObject
from .driver import OptionalClose, StreamParser, skip_space
from .jsonscan import ValueEnd


class State(enum.IntEnum):
    TEXT = 0
    OPENED = enum.auto()  # after an opening: whitespace, then "[" (or "{": one call object)
    ITEM = enum.auto()  # in the list: whitespace, then an entry or "]"
    OBJECT = enum.auto()  # an entry's call object
    BETWEEN = enum.auto()  # after an entry: "," or "]"
    JUNK = enum.auto()  # an entry that is no call, after a call: read to its end
    AFTER = enum.auto()  # after the list: whitespace, then maybe its closing marker
    WORD = enum.auto()  # a subclass's words after an opening (``_read_word``)


# Module names for the members: looking a member up on its enum class runs Python code.
TEXT, OPENED, ITEM, OBJECT, BETWEEN, JUNK, AFTER, WORD = State


class JsonListParser(StreamParser):
    """Subclasses find openings in ``TEXT`` (``_marker``) and call ``_open``."""

    #: Whether an object needs an ``arguments`` (or ``parameters``) key to be a call.
    NEEDS_ARGUMENTS = False
    _SHORTCUT_STATES = (OBJECT,)

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = TEXT
        self._names = frozenset(tool.name for tool in context.tools)
        self._opening = ""  # markup held until a call comes: the model's text if none does
        self._special = ""  # the special token the opening starts with: never given back
        self._tagged = True  # any name makes a call (else only an offered tool's)
        self._committed = False  # a call of this list went out
        self._single = False  # one call object, no list
        self._single_ok = False  # the opening may be followed by one call object
        self._closing: tuple[str, ...] = ()
        self._object = CallObject(needs_arguments=self.NEEDS_ARGUMENTS)
        self._junk = ValueEnd()
        self._junk_text: list[str] = []
        self._after = OptionalClose()

    @property
    def held_arguments(self) -> int:
        return self._object.held if self._state is OBJECT else 0

    def _held_markup(self) -> int:
        state = self._state
        held = len(self._opening) + held_size(self._junk_text)
        if state is OBJECT:
            return held + self._object.held_header
        return held + self._after.held if state is AFTER else held

    def _shortcut(self, text: str) -> list[Event] | None:
        # A piece of a call's arguments that goes out as written; else the object reads it.
        if self._object.take(text):
            return [CallArgs(text)]
        out: list[Event] = []
        stop = self._read_object(text, 0, out)
        if stop < len(text):
            self._pending = text[self._run(text, stop, out, final=False) :]
        return out

    def _open(
        self,
        opening: str,
        *,
        tagged: bool,
        closing: tuple[str, ...] = (),
        special: str = "",
        bracketed: bool = False,
        single: bool = False,
    ) -> None:
        """A list of calls may begin with markup ``opening``. ``tagged``: any name is a call;
        ``closing``: what may follow the list as its framing; ``special``: the special token
        ``opening`` starts with; ``bracketed``: it ends with the list's ``[``; ``single``: one call
        object may stand instead of the list."""
        self._opening = opening
        self._special = special
        self._tagged = tagged
        self._closing = closing
        self._committed = False
        self._single = False
        self._single_ok = single
        self._state = ITEM if bracketed else OPENED

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        state = self._state
        if state is OBJECT:
            return self._read_object(buf, pos, out)
        if state is JUNK:
            return self._read_junk(buf, pos, out)
        if state is AFTER:
            after, closing = self._after.step(buf, pos, out, final)
            if closing is not None:
                self._state = TEXT
            return after
        if state is WORD:
            return self._read_word(buf, pos, out, final)
        start = skip_space(buf, pos)
        if not self._committed:
            self._opening += buf[pos:start]
        if start == len(buf):
            return start
        char = buf[start]
        if state is OPENED:
            if char == "[":
                self._opening += char
                self._state = ITEM
                return start + 1
            if char == "{" and self._single_ok:
                self._single = True
                self._start_object()
                return start
            self._not_a_list(out)
            return start
        if state is BETWEEN:
            if char == ",":
                self._state = ITEM
                return start + 1
            if char == "]":
                self._list_closed()
                return start + 1
            self._state = TEXT  # not a list of calls from here: the model's text
            return start
        # ITEM
        if char == "{":
            self._start_object()
            return start
        if char == "]":
            if self._committed:  # (a comma before it: framing too)
                self._list_closed()
            else:  # a list of no calls: text
                self._opening += char
                self._not_a_list(out)
            return start + 1
        if not self._committed:
            self._not_a_list(out)
            return start
        self._junk = ValueEnd()  # an entry that is no call object
        self._state = JUNK
        return start

    def _read_word(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        """A subclass's own step after an opening (``WORD``)."""
        raise NotImplementedError

    def _start_object(self) -> None:
        accepts = None if self._tagged else self._names.__contains__
        self._object = CallObject(needs_arguments=self.NEEDS_ARGUMENTS, accepts=accepts)
        self._state = OBJECT

    def _read_object(self, buf: str, pos: int, out: list[Event]) -> int:
        stop = self._object.feed(buf, pos, out)
        status = self._object.status
        if status is CALL:
            self._committed = True
            self._opening = ""
            if self._single:
                self._list_closed()
            else:
                self._state = BETWEEN
        elif status is NOT_CALL:
            raw = self._object.raw
            if not self._committed:
                self._opening += raw
                self._not_a_list(out)
                return stop
            # An object in the list that is no call: read to its end, then the model's text.
            self._junk = ValueEnd()
            self._junk_text = [raw]
            if self._junk.scan(raw, 0) == -1:
                self._state = JUNK
            else:
                self._junk_done(out)
        return stop

    def _read_junk(self, buf: str, pos: int, out: list[Event]) -> int:
        end = self._junk.scan(buf, pos)
        stop = len(buf) if end == -1 else end
        self._junk_text.append(buf[pos:stop])
        if end != -1:
            self._junk_done(out)
        return stop

    def _junk_done(self, out: list[Event]) -> None:
        junk = "".join(self._junk_text)
        self._junk_text = []
        self._give_back(junk, out)
        self._state = BETWEEN

    def _list_closed(self) -> None:
        if self._closing:
            self._after = OptionalClose(*self._closing)
            self._state = AFTER
        else:
            self._state = TEXT

    def _not_a_list(self, out: list[Event]) -> None:
        """No call came: what was held is the model's text (a special token aside)."""
        opening, self._opening = self._opening, ""
        special = self._special
        if special and opening.startswith(special):
            self._dropped += 1
            opening = opening[len(special) :]
        if opening:
            self._give_back(opening, out)
        self._state = TEXT

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state is OBJECT:
            self._object.finish(out)  # cut off: a call keeps what arrived
            if self._object.status is CALL:
                self._committed = True
            elif self._committed:
                self._junk_text = [self._object.raw]
            else:
                self._opening += self._object.raw
        elif state is AFTER:
            self._after.flush(out)
        if self._junk_text:
            self._give_back("".join(self._junk_text), out)
            self._junk_text = []
        if not self._committed and state is not TEXT and state is not AFTER:
            self._not_a_list(out)
        self._opening = ""
        self._state = TEXT
