"""Reading one ``{"name": ..., "arguments": ...}`` call object as it arrives.

Shared by the formats that write calls as JSON objects (``hermes``, ``mistral`` before v11,
``llama3_json``). The name is decoded; the arguments value is forwarded as the model wrote it
(or, when given as a JSON string, as that string's decoded contents) while it streams. Until the
object is known to be a call its raw text is kept, so an object that is not a call goes back to
the model's text unchanged.

An object is a call once it has a string ``name`` that is a function name and its arguments
have begun as arguments begin (an object, a JSON string, ``null``), or it ends with a name and
no arguments. A text that only looks like a call (``"arguments": oops``, ``"name": ""``) is text.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from ..events import CALL_END, CallArgs, CallStart, Event
from .base import held_size
from .jsonscan import NON_SPACE, ArgumentsValue, StringDecoder, ValueEnd
from .names import is_function_name

NAME_KEYS = frozenset({"name"})
ARGUMENT_KEYS = frozenset({"arguments", "parameters"})


class Status(enum.Enum):
    READING = enum.auto()
    CALL = enum.auto()  # the call was emitted and has ended
    NOT_CALL = enum.auto()  # not a call: ``raw`` is its text, to deliver as text


# Module names for the members: looking a member up on its enum class runs Python code.
READING, CALL, NOT_CALL = Status


class _State(enum.Enum):
    START = enum.auto()
    KEY_OR_END = enum.auto()
    KEY = enum.auto()
    COLON = enum.auto()
    VALUE = enum.auto()
    NAME = enum.auto()
    ARGUMENTS = enum.auto()
    NULL_ARGUMENTS = enum.auto()  # arguments that begin with "n": null, or not a call
    SKIP = enum.auto()
    AFTER_VALUE = enum.auto()


# Module names for the members: looking a member up on its enum class runs Python code.
(
    _START,
    _KEY_OR_END,
    _KEY,
    _COLON,
    _VALUE,
    _NAME,
    _ARGUMENTS,
    _NULL_ARGUMENTS,
    _SKIP,
    _AFTER_VALUE,
) = _State
_NULL = "null"


class CallObject:
    """One call object, read from its ``{``; events go to ``out`` once it is known to be a call.

    It is a call once it has a ``name`` that is a function name and its ``arguments`` (or
    ``parameters``) have begun, or when it ends with a name and, unless ``needs_arguments``, no
    arguments; arguments that come before the name are held until then. ``accepts``, when
    given, says which names make a call (an object in prose naming no offered tool is text).
    """

    def __init__(
        self, *, needs_arguments: bool, accepts: Callable[[str], bool] | None = None
    ) -> None:
        self.status = READING
        self._needs_arguments = needs_arguments
        self._accepts = accepts
        self._state = _START
        self._committed = False
        self._raw: list[str] = []
        self._name: str | None = None
        self._key = ""
        self._parts: list[str] = []
        self._decoder = StringDecoder()
        self._arguments_seen = False
        #: The arguments began as arguments begin: an object, a JSON string holding one (or
        #: nothing), null.
        self._arguments_ok = False
        self._string_head = ""  # string arguments: what they hold, until it shows how it starts
        self._null = ""  # the "null" of arguments that are null, so far
        self._arguments = ArgumentsValue()
        self._deferred: list[str] = []
        self._skip = ValueEnd()
        self._string_size = 0  # characters of the key or name being read
        #: The arguments value while it streams (the call committed, its arguments being
        #: read), else None: what ``take`` asks, for a shortcut to ask without a call.
        self.streaming: ArgumentsValue | None = None

    @property
    def held(self) -> int:
        """Characters held back as what may be arguments: all of the object until it is known
        to be a call, then a scalar arguments value still being read; less ``held_header``."""
        if self.status is not READING:
            return 0
        if not self._committed:
            return held_size(self._raw) - self._string_size
        return self._arguments.held

    @property
    def held_header(self) -> int:
        """Characters of a key or name still being read: a call header, held under the cap of
        unresolved markup like every format's (a name that never ends is cut there)."""
        return self._string_size if self.status is READING else 0

    @property
    def raw(self) -> str:
        """The object's text so far; only kept until it is known to be a call."""
        return "".join(self._raw)

    def take(self, text: str) -> bool:
        """Take ``text`` if all of it is arguments of the call that go out as written: True,
        and ``feed`` would have made ``CallArgs(text)`` of it. False: nothing changed. (What
        a format's shortcut rests on: see ``driver.StreamParser._shortcut``.)"""
        streaming = self.streaming
        return streaming is not None and streaming.take(text)

    def feed(self, text: str, pos: int, out: list[Event]) -> int:
        """Read ``text[pos:]``; return where reading stopped.

        That is past the closing ``}``, or at the first character that shows the object is not
        a call object (not consumed), or ``len(text)`` when the object goes on.
        """
        start = pos
        i = self._read(text, pos, out)
        if not self._committed:
            self._raw.append(text[start:i])
        return i

    def finish(self, out: list[Event]) -> None:
        """End of stream: a started call keeps what arrived; otherwise it is not a call."""
        if self.status is not READING:
            return
        if self._state is _ARGUMENTS:
            pieces: list[str] = []
            self._arguments.finish(pieces)
            self._forward(pieces, out)
        elif self._state is not _NULL_ARGUMENTS or self._null == _NULL:
            self._commit_if_call(out, ended=True)  # a name and no arguments: kept as a call
        if self._committed:
            self.status = CALL
            out.append(CALL_END)
        else:
            self.status = NOT_CALL

    def _read(self, text: str, i: int, out: list[Event]) -> int:
        n = len(text)
        while i < n:
            state = self._state
            if state is _KEY or state is _NAME:
                end = self._decoder.decode(text, i, self._parts)
                if end == -1:
                    self._string_size += n - i
                    return n
                self._string_size = 0
                i = end
                decoded = "".join(self._parts)
                self._parts = []  # (the decoder, its string ended, holds nothing: it is reused)
                if state is _KEY:
                    self._key = decoded
                    self._state = _COLON
                elif not is_function_name(decoded) or (
                    self._accepts is not None and not self._accepts(decoded)
                ):  # "name": "" or "0": only looks like one
                    return self._fail(i, out)
                else:
                    self._name = decoded
                    self._state = _AFTER_VALUE
                    self._commit_if_call(out)
                continue
            if state is _NULL_ARGUMENTS:
                take = text[i : i + len(_NULL) - len(self._null)]
                self._null += take
                if not _NULL.startswith(self._null):
                    return self._fail(i, out)
                i += len(take)
                if self._null == _NULL:
                    self._arguments_ok = True
                    self._state = _AFTER_VALUE
                    self._commit_if_call(out)
                continue
            if state is _ARGUMENTS:
                pieces: list[str] = []
                end = self._arguments.feed(text, i, pieces)
                self._forward(pieces, out)
                if not self._arguments_ok and not self._string_arguments(pieces, end != -1, out):
                    return self._fail(n if end == -1 else end, out)
                if end == -1:
                    return n
                i = end
                self._state = _AFTER_VALUE
                self.streaming = None
                continue
            if state is _SKIP:
                end = self._skip.scan(text, i)
                if end == -1:
                    return n
                i = end
                self._state = _AFTER_VALUE
                continue
            char = text[i]
            if char.isspace():  # (whitespace as \s matches it)
                match = NON_SPACE.search(text, i)
                if match is None:
                    return n
                i = match.start()
                char = text[i]
            if state is _START:
                if char != "{":
                    return self._fail(i, out)
                self._state = _KEY_OR_END
            elif state is _KEY_OR_END:
                if char == "}":
                    return self._close(i + 1, out)
                if char != '"':
                    return self._fail(i, out)
                self._state = _KEY
            elif state is _COLON:
                if char != ":":
                    return self._fail(i, out)
                self._state = _VALUE
            elif state is _VALUE:
                self._start_value(char)
                if self._state is _NAME:
                    i += 1
                elif self._state is _ARGUMENTS:
                    self._commit_if_call(out)  # (string arguments: once they show an object)
                elif self._state is not _SKIP and self._state is not _NULL_ARGUMENTS:
                    return self._fail(i, out)
                continue  # the value's first character is the value's own
            elif state is _AFTER_VALUE:
                if char == "}":
                    return self._close(i + 1, out)
                if char != ",":
                    return self._fail(i, out)
                self._state = _KEY_OR_END
            i += 1
        return n

    def _start_value(self, first: str) -> None:
        key = self._key
        if key in NAME_KEYS and self._name is None:
            # A name that is not a string makes this something other than a call.
            self._state = _NAME if first == '"' else _VALUE
        elif key in ARGUMENT_KEYS and not self._arguments_seen:
            # Arguments are an object, a JSON string holding one, or null; anything else
            # (a number, a list, a bare word) means this only looks like a call.
            self._arguments_seen = True
            if first == "{" or first == '"':
                self._arguments_ok = first == "{"
                self._state = _ARGUMENTS
            elif first == "n":
                self._state = _NULL_ARGUMENTS
            else:
                self._state = _VALUE
        else:
            self._skip = ValueEnd()
            self._state = _SKIP

    def _string_arguments(self, pieces: list[str], ended: bool, out: list[Event]) -> bool:
        """Arguments given as a JSON string: False once its contents show they are not an
        object; True (and the call may commit) once they show they are, or end empty."""
        self._string_head += "".join(pieces)
        head = self._string_head.lstrip()
        if not head and not ended:
            return True  # undecided: more text tells
        if head and head[0] != "{":
            return False
        self._arguments_ok = True
        self._string_head = ""
        self._commit_if_call(out)
        return True

    def _commit_if_call(self, out: list[Event], ended: bool = False) -> None:
        """Commit once the name and the start of the arguments are known, or at the end
        (``ended``) of an object with a name and, unless needed, no arguments."""
        if self._committed or self._name is None:
            return
        if self._arguments_seen:
            if not self._arguments_ok:
                return
        elif self._needs_arguments or not ended:
            return
        self._committed = True
        if self._state is _ARGUMENTS:
            self.streaming = self._arguments
        self._raw = []
        out.append(CallStart(self._name))
        if self._deferred:
            out.append(CallArgs("".join(self._deferred)))
            self._deferred = []

    def _forward(self, pieces: list[str], out: list[Event]) -> None:
        if not pieces:
            return
        if self._committed:
            out.append(CallArgs("".join(pieces)))
        else:
            self._deferred.extend(pieces)

    def _close(self, end: int, out: list[Event]) -> int:
        self._commit_if_call(out, ended=True)
        if self._committed:
            self.status = CALL
            out.append(CALL_END)
        else:
            self.status = NOT_CALL
        return end

    def _fail(self, at: int, out: list[Event]) -> int:
        if self._committed:
            self.status = CALL
            out.append(CALL_END)
        else:
            self.status = NOT_CALL
        return at
