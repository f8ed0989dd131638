"""Gemma 4's call arguments, turned into JSON as they arrive.

Gemma writes arguments in a syntax of its own: bare keys (``location:``), strings between two
``<|"|>`` special tokens (so quotes, commas and braces inside need no escaping), bare numbers,
``true``/``false``/``null``, ``{k:v}`` objects and ``[a,b]`` arrays; a key may also be quoted
(``{<|"|>3<|"|>:…}``). ``GemmaArguments`` is fed the text between the string tokens
(``structure``) and each string's contents (``string``) and writes JSON fragments: a string value
streams as escaped pieces, a bare value goes out when it ends. Whatever the model writes, the
fragments of one call concatenate to one JSON object (a bare word is a string, a value missing
before a comma or a close is ``""``, containers still open at the end are closed).
"""

from __future__ import annotations

import math
import re

from .base import held_size
from .schema import escape_piece, json_string

STRING_QUOTE = '<|"|>'

_TOKEN = re.compile(r"[{}\[\],:]|[^{}\[\],:]+")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = frozenset({"true", "false", "null"})

# What a container expects next.
_KEY = 0  # a key, or its close
_VALUE = 1  # the value of the key just written, or an array's next element (or its close)
_AFTER = 2  # a comma, or the close

# What the string being read is.
_NONE = -1  # no string is open
_STREAM = 0  # a value: streamed
_HOLD = 1  # a key, or part of a bare value: held
_SKIP = 2  # junk where nothing may stand: dropped


def bare_value(text: str) -> str:
    """A bare value as JSON: a JSON literal or number as it is, another number (``108.``,
    ``+5``) as JSON writes it, anything else a string."""
    text = text.strip()
    if text in _LITERALS:
        return text
    if _JSON_NUMBER.fullmatch(text):  # (a double must hold it: 1e999 is no number to a client)
        return text if math.isfinite(float(text)) else json_string(text)
    try:
        return str(int(text))
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return json_string(text)
    return repr(number) if math.isfinite(number) else json_string(text)


class GemmaArguments:
    """One call's arguments, from just after its opening ``{``."""

    __slots__ = ("_closers", "_firsts", "_held", "_quoted_key", "_states", "_string", "done")

    def __init__(self) -> None:
        self._closers = ["}"]  # the close each open container gets, innermost last
        self._states = [_KEY]
        self._firsts = [True]  # nothing written in the container yet
        self._held: list[str] = []  # a key or a bare value so far
        self._quoted_key = False  # the held key came as a string
        self._string = _NONE
        #: The arguments' object has closed: what follows is no longer arguments.
        self.done = False

    @property
    def held(self) -> int:
        """Characters of a key or a bare value held until it ends."""
        return held_size(self._held)

    def start(self) -> str:
        return "{"

    def structure(self, text: str, pos: int, end: int, out: list[str]) -> int:
        """Read ``text[pos:end]`` (no string in it); return where the object closed, or
        ``end``."""
        for match in _TOKEN.finditer(text, pos, end):
            token = match.group()
            if len(token) == 1 and token in "{}[],:":
                self._punctuation(token, out)
                if self.done:
                    return match.end()
            else:
                self._word(token)
        return end

    def string_start(self, out: list[str]) -> None:
        state = self._states[-1]
        if self._held and not self._quoted_key:  # in the middle of a bare word: part of it
            self._string = _HOLD
        elif state == _KEY:
            self._string = _HOLD
            self._quoted_key = True
        elif state == _VALUE:
            self._value_starts(out)
            out.append('"')
            self._string = _STREAM
        else:
            self._string = _SKIP

    def string(self, text: str) -> str | None:
        """A piece of a string's contents: the fragment it makes (``None``: none)."""
        string = self._string
        if string == _STREAM:
            return escape_piece(text)
        if string == _HOLD:
            self._held.append(text)
        return None

    def string_end(self, out: list[str]) -> None:
        if self._string == _STREAM:
            out.append('"')
            self._states[-1] = _AFTER
        self._string = _NONE

    def finish(self, out: list[str]) -> None:
        """The call ended: an open string, a held value and every open container close."""
        if self._string != _NONE:
            self.string_end(out)
        while not self.done:
            self._close(out)

    def _word(self, token: str) -> None:
        state = self._states[-1]
        # (AFTER: junk between a value and its comma, dropped.)
        if state != _AFTER and (self._held or not token.isspace()):
            self._held.append(token)

    def _punctuation(self, char: str, out: list[str]) -> None:
        state = self._states[-1]
        if char == ":":
            if state == _KEY and self._held:
                self._key(out)
            elif state == _VALUE and self._held:
                self._held.append(char)  # inside a bare value: 12:30
        elif char == ",":
            if state == _VALUE:
                if self._held or self._closers[-1] == "}":
                    self._bare(out)  # an object's key with no value: ""
            elif state == _KEY and self._held:
                self._key(out)  # a key with no colon: its value is ""
                self._bare(out)
            self._states[-1] = _KEY if self._closers[-1] == "}" else _VALUE
        elif char == "{" or char == "[":
            if state == _VALUE and not self._held:
                self._value_starts(out)
                out.append(char)
                self._states[-1] = _AFTER
                self._closers.append("}" if char == "{" else "]")
                self._states.append(_KEY if char == "{" else _VALUE)
                self._firsts.append(True)
            # elsewhere: junk, dropped
        else:  # a close: of the innermost container, whichever it is
            self._close(out)

    def _close(self, out: list[str]) -> None:
        state = self._states[-1]
        if state == _VALUE and (self._held or self._closers[-1] == "}"):
            self._bare(out)
        elif state == _KEY and self._held:
            self._key(out)
            self._bare(out)
        out.append(self._closers.pop())
        self._states.pop()
        self._firsts.pop()
        self._held = []
        if not self._closers:
            self.done = True

    def _key(self, out: list[str]) -> None:
        key = "".join(self._held)
        self._held = []
        if not self._quoted_key:
            key = key.strip()
        self._quoted_key = False
        out.append(("" if self._firsts[-1] else ", ") + json_string(key) + ": ")
        self._firsts[-1] = False
        self._states[-1] = _VALUE

    def _bare(self, out: list[str]) -> None:
        text = "".join(self._held)
        self._held = []
        self._value_starts(out)
        out.append(bare_value(text))
        self._states[-1] = _AFTER

    def _value_starts(self, out: list[str]) -> None:
        """An array's element goes after a comma unless it is the first."""
        if self._closers[-1] == "]":
            if not self._firsts[-1]:
                out.append(", ")
            self._firsts[-1] = False
