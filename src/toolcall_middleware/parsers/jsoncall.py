"""Base of the formats that write a call as a JSON object after an opening (``hermes``,
``llama3_json``).

After the opening come whitespace and the call object's ``{``; anything else makes the opening
the model's text again. After the object: whitespace, then maybe a closing marker.
"""

from __future__ import annotations

import enum

from ..events import CallArgs, Event
from .base import ParserContext
from .callobject import CALL, NOT_CALL, CallObject
from .driver import OptionalClose, StreamParser, skip_space


class State(enum.IntEnum):
    TEXT = 0
    OPENED = enum.auto()  # after the opening: whitespace, then the object's "{"
    OBJECT = enum.auto()
    AFTER = enum.auto()  # after the object: whitespace, then the closing marker (or not)


# Module names for the members: looking a member up on its enum class runs Python code.
TEXT, OPENED, OBJECT, AFTER = State


class JsonCallParser(StreamParser):
    """Subclasses find the opening in ``State.TEXT`` (``_marker``); ``_closed`` may take a
    closing marker somewhere other than back to text."""

    #: Whether an object needs an ``arguments`` (or ``parameters``) key to be a call.
    NEEDS_ARGUMENTS = False
    #: Whether the closing marker repeated after a call is a stray (a tag, not a separator).
    REPEATED_CLOSE_IS_STRAY = False
    _SHORTCUT_STATES = (OBJECT,)

    def __init__(self, context: ParserContext, closing: str) -> None:
        super().__init__(context)
        self._state = TEXT
        self._opening = ""  # markup that is text again if no call follows
        self._object = CallObject(needs_arguments=self.NEEDS_ARGUMENTS)
        # A "}" straight after the call object is a brace too many: the tail of its markup.
        self._after = OptionalClose(closing, tail="}", repeat=self.REPEATED_CLOSE_IS_STRAY)

    @property
    def held_arguments(self) -> int:
        return self._object.held

    def _shortcut(self, text: str) -> list[Event] | None:
        # A piece of a call's arguments that goes out as written (``CallObject.take``, without
        # its call); else the object reads it, as ``_read`` would, without its state dispatch.
        arguments = self._object.streaming
        if arguments is not None and arguments.take(text):
            return [CallArgs(text)]
        out: list[Event] = []
        stop = self._read_object(text, 0, out)
        if stop < len(text):
            self._pending = text[self._run(text, stop, out, final=False) :]
        return out

    def _more_strays(self) -> int:
        return self._after.strays

    def _held_markup(self) -> int:
        state = self._state
        if state is OBJECT:
            return len(self._opening) + self._object.held_header
        if state is OPENED:
            return len(self._opening)
        return self._after.held

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        state = self._state
        if state is OBJECT:
            return self._read_object(buf, pos, out)
        if state is AFTER:
            after, closing = self._after.step(buf, pos, out, final)
            if closing is not None:
                self._closed(closing)
            return after
        start = skip_space(buf, pos)  # OPENED
        self._opening += buf[pos:start]
        if start == len(buf):
            return start
        if buf[start] == "{":
            self._start_object(self._opening)
        else:
            self._give_back(self._opening, out)
            self._state = TEXT
        return start

    def _read_object(self, buf: str, pos: int, out: list[Event]) -> int:
        stop = self._object.feed(buf, pos, out)
        status = self._object.status
        if status is CALL:
            self._state = AFTER
        elif status is NOT_CALL:
            self._not_a_call(out)
            self._state = TEXT
        return stop

    def _closed(self, closing: str) -> None:
        """After a call: the closing marker, or ``""`` when there was none."""
        self._state = TEXT

    def _start_object(self, opening: str) -> None:
        self._opening = opening
        self._object = CallObject(needs_arguments=self.NEEDS_ARGUMENTS)
        self._state = OBJECT

    def _not_a_call(self, out: list[Event]) -> None:
        self._give_back(self._opening + self._object.raw, out)

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state is OPENED:
            self._give_back(self._opening, out)
        elif state is OBJECT:
            self._object.finish(out)
            if self._object.status is NOT_CALL:
                self._not_a_call(out)
        elif state is AFTER:
            self._after.flush(out)
        self._state = TEXT
