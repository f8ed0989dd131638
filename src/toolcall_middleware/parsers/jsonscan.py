"""Incremental JSON scanning for argument text that arrives in pieces.

The JSON formats forward the model's own argument text; these helpers only find where a value
ends (tracking strings, escapes and depth) and decode a JSON string's contents, so a parser never
re-parses or re-serialises what it already forwarded. Each character is examined once: the
searches are C-level regex scans from the current position.
"""

from __future__ import annotations

import re

from .base import held_size

_STRUCTURE = re.compile(r'["{}\[\]]')
_STRING_STOP = re.compile(r'["\\]')
_SCALAR_STOP = re.compile(r"[\s,:}\]]")
NON_SPACE = re.compile(r"\S")

_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_HEX = frozenset("0123456789abcdefABCDEF")
_REPLACEMENT = "\ufffd"  # a lone surrogate cannot be encoded as UTF-8 downstream


class ValueEnd:
    """Finds where one JSON value ends; the first character scanned must be the value's first."""

    __slots__ = ("_depth", "_escaped", "_in_string", "_scalar", "_started")

    def __init__(self) -> None:
        self._depth = 0
        self._in_string = False
        self._escaped = False
        self._scalar = False
        self._started = False

    def take(self, text: str) -> bool:
        """Scan all of ``text`` if the value goes on past it: True. False when it ends in
        ``text`` (or has not begun): then nothing changed, and ``scan`` finds where.

        For a value that streams, where a piece that ends it is rare: a value ends once.
        """
        if not self._started or self._scalar:
            return False
        if self._in_string and not self._escaped and '"' not in text and "\\" not in text:
            return True  # the most common case, without a scan
        saved = self._depth, self._in_string, self._escaped
        if self.scan(text, 0) == -1:
            return True
        self._depth, self._in_string, self._escaped = saved
        return False

    def scan(self, text: str, pos: int) -> int:
        """Index just past the value's end in ``text[pos:]``, or -1 if it goes on past the text.

        A scalar (number, literal) ends before the first delimiter, which is not consumed.
        """
        n = len(text)
        if not self._started:
            if pos >= n:
                return -1
            self._started = True
            self._scalar = text[pos] not in '{["'
        if self._scalar:
            m = _SCALAR_STOP.search(text, pos)
            return -1 if m is None else m.start()
        i = pos
        while i < n:
            if self._in_string:
                if self._escaped:
                    self._escaped = False
                    i += 1
                    continue
                m = _STRING_STOP.search(text, i)
                if m is None:
                    return -1
                i = m.end()
                if m.group() == "\\":
                    self._escaped = True
                else:
                    self._in_string = False
                    if self._depth == 0:
                        return i
                continue
            m = _STRUCTURE.search(text, i)
            if m is None:
                return -1
            i = m.end()
            char = m.group()
            if char == '"':
                self._in_string = True
            elif char in "{[":
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth <= 0:
                    return i
        return -1


def _decode_escape(s: str, complete: bool) -> tuple[str, int] | None:
    """Decode the escape at the start of ``s`` (``s[0]`` is a backslash).

    Returns the decoded text and the number of characters used, or ``None`` when ``s`` ends
    before the escape does and more text may follow (``complete`` is False). Invalid escapes
    decode leniently to the escaped character; lone surrogates become U+FFFD.
    """
    if len(s) < 2:
        return None if not complete else ("", len(s))
    kind = s[1]
    if kind != "u":
        return _SIMPLE_ESCAPES.get(kind, kind), 2
    code = _hex4(s, 2)
    if code is None:
        if len(s) < 6 and not complete and all(c in _HEX for c in s[2:]):
            return None
        return "u", 2
    if 0xDC00 <= code <= 0xDFFF:
        return _REPLACEMENT, 6
    if not 0xD800 <= code <= 0xDBFF:
        return chr(code), 6
    # A high surrogate: the low half must follow as another \u escape.
    tail = s[6:12]
    if (
        len(tail) < 6
        and not complete
        and "\\u".startswith(tail[:2])
        and all(c in _HEX for c in tail[2:])
    ):
        return None
    low = _hex4(s, 8) if tail.startswith("\\u") else None
    if low is not None and 0xDC00 <= low <= 0xDFFF:
        return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), 12
    return _REPLACEMENT, 6


def _hex4(s: str, start: int) -> int | None:
    digits = s[start : start + 4]
    if len(digits) == 4 and all(c in _HEX for c in digits):
        return int(digits, 16)
    return None


class StringDecoder:
    """Decodes a JSON string's contents, from just after its opening quote, piece by piece."""

    __slots__ = ("carry",)

    def __init__(self) -> None:
        #: An escape sequence cut by the end of the text so far (none: text decodes as written).
        self.carry = ""

    def decode(self, text: str, pos: int, out: list[str]) -> int:
        """Append decoded pieces of ``text[pos:]`` to ``out``.

        Returns the index just past the closing quote, or -1 if the string goes on.
        """
        if self.carry:
            # Rare: re-run the cut escape with the new text behind it.
            carry, self.carry = self.carry, ""
            end = self._decode(carry + text[pos:], 0, out)
            return -1 if end == -1 else end - len(carry) + pos
        return self._decode(text, pos, out)

    def _decode(self, text: str, i: int, out: list[str], complete: bool = False) -> int:
        n = len(text)
        while i < n:
            m = _STRING_STOP.search(text, i)
            if m is None:
                out.append(text[i:])
                return -1
            start = m.start()
            if start > i:
                out.append(text[i:start])
            if m.group() == '"':
                return m.end()
            decoded = _decode_escape(text[start : start + 12], complete)
            if decoded is None:
                self.carry = text[start:]
                return -1
            piece, used = decoded
            if piece:
                out.append(piece)
            i = start + used
        return -1

    def finish(self, out: list[str]) -> None:
        """End of stream inside the string: decode what is left of a cut escape."""
        carry, self.carry = self.carry, ""
        self._decode(carry, 0, out, complete=True)


class ArgumentsValue:
    """Streams one JSON arguments value as it arrives.

    An object or array is forwarded as the model's raw text; a JSON string (``"arguments":
    "{\\"a\\": 1}"``) is decoded and its contents forwarded; ``null`` forwards nothing (the call
    has no arguments); another scalar is forwarded raw once it ends. Leading whitespace is skipped.
    """

    __slots__ = ("_end", "_kind", "_scalar", "_string")

    def __init__(self) -> None:
        self._kind = ""  # "" before the value starts, then "raw", "string" or "scalar"
        self._end = ValueEnd()
        self._string = StringDecoder()
        self._scalar: list[str] = []

    @property
    def started(self) -> bool:
        return bool(self._kind)

    @property
    def held(self) -> int:
        """Characters of a scalar value held until it ends."""
        return held_size(self._scalar)

    def take(self, text: str) -> bool:
        """Take ``text`` if all of it is value text that goes out as written: True, and
        ``feed`` would have made ``text`` of it. False: nothing changed, ``feed`` reads it.
        (What a format's shortcut rests on: see ``driver.StreamParser._shortcut``.)"""
        kind = self._kind
        if kind == "raw":
            end = self._end
            # ValueEnd.take's most common case, here: one call less on nearly every piece.
            # (A raw value has started and is not a scalar.)
            if end._in_string and not end._escaped and '"' not in text and "\\" not in text:
                return True
            return end.take(text)
        if kind == "string":  # decodes to itself, and does not end
            return not self._string.carry and '"' not in text and "\\" not in text
        return False

    def feed(self, text: str, pos: int, out: list[str]) -> int:
        """Append argument pieces of ``text[pos:]`` to ``out``; index past the value, or -1."""
        if not self._kind:
            m = NON_SPACE.search(text, pos)
            if m is None:
                return -1
            pos = m.start()
            first = text[pos]
            if first == '"':
                self._kind = "string"
                pos += 1
            else:
                self._kind = "raw" if first in "{[" else "scalar"
        if self._kind == "string":
            return self._string.decode(text, pos, out)
        end = self._end.scan(text, pos)
        piece = text[pos:] if end == -1 else text[pos:end]
        if self._kind == "raw":
            if piece:
                out.append(piece)
        else:
            self._scalar.append(piece)
            if end != -1:
                self._flush_scalar(out)
        return end

    def finish(self, out: list[str]) -> None:
        """End of stream: the value ends here, complete or not."""
        if self._kind == "string":
            self._string.finish(out)
        elif self._kind == "scalar":
            self._flush_scalar(out)

    def _flush_scalar(self, out: list[str]) -> None:
        scalar = "".join(self._scalar)
        self._scalar = []
        if scalar and scalar != "null":
            out.append(scalar)


class DelimitedArguments:
    """Arguments that run until a closing marker (the special-token formats).

    Leading whitespace and a Markdown fence line (DeepSeek V3's `` ```json ``) are framing. An
    object or array is forwarded up to its end (what follows, like the closing fence, is
    framing); anything else is forwarded as written, less trailing whitespace.
    """

    __slots__ = ("_end", "_fenced", "_lead", "_mode", "_space")

    def __init__(self) -> None:
        self._mode = ""  # "" until the value starts, then "json", "raw" or "done"
        self._lead = ""  # a possible fence line, held until its newline
        self._fenced = False
        self._end = ValueEnd()
        self._space = ""  # trailing whitespace of raw arguments, held

    @property
    def held(self) -> int:
        """Characters held back: a possible fence line, or trailing whitespace."""
        return 0 if self._mode == "done" else len(self._lead) + len(self._space)

    def take(self, text: str) -> bool:
        """Take ``text`` if all of it is arguments that go out as written: True, and ``feed``
        would have made ``text`` of it. False: nothing changed, ``feed`` reads it. (What a
        format's shortcut rests on: see ``driver.StreamParser._shortcut``.)"""
        mode = self._mode
        if mode == "json":
            return self._end.take(text)
        if mode == "raw":  # no whitespace to hold, before or at the end
            return not self._space and not text[-1:].isspace()
        return False

    def feed(self, segment: str, out: list[str]) -> None:
        mode = self._mode
        if mode == "json":
            self._json(segment, 0, out)
        elif mode == "raw":
            self._raw(segment, out)
        elif not mode:
            self._start(segment, out)

    def finish(self, out: list[str]) -> None:
        """The closing marker (or the end of the stream) came."""
        if self._lead:  # a backtick line that never ended: it was the arguments
            lead, self._lead = self._lead, ""
            self._mode = "raw"
            self._raw(lead, out)
        self._mode = "done"

    def _start(self, segment: str, out: list[str]) -> None:
        text = self._lead + segment if self._lead else segment
        self._lead = ""
        i = skip_space(text, 0)
        if i < len(text) and text[i] == "`" and not self._fenced:
            newline = text.find("\n", i)
            if newline == -1:
                self._lead = text[i:]
                return
            self._fenced = True
            i = skip_space(text, newline + 1)
        if i == len(text):
            return
        if text[i] in "{[":
            self._mode = "json"
            self._json(text, i, out)
        else:
            self._mode = "raw"
            self._raw(text[i:], out)

    def _json(self, text: str, i: int, out: list[str]) -> None:
        end = self._end.scan(text, i)
        piece = text[i:] if end == -1 else text[i:end]
        if piece:
            out.append(piece)
        if end != -1:
            self._mode = "done"

    def _raw(self, text: str, out: list[str]) -> None:
        text = self._space + text
        body = text.rstrip()
        self._space = text[len(body) :]
        if body:
            out.append(body)


def skip_space(text: str, pos: int) -> int:
    """Index of the first non-whitespace character at or after ``pos`` (``len(text)`` if
    none)."""
    match = NON_SPACE.search(text, pos)
    return len(text) if match is None else match.start()


def object_keys(text: str) -> list[str] | None:
    """The keys of the JSON object that is all of ``text``; ``None`` when it is not one.

    Read without recursion, so values nested any depth cost no stack: each value is only
    skipped, with ``ValueEnd``. Only the object's own structure is checked, not its values'.
    """
    i = skip_space(text, 0)
    if text[i : i + 1] != "{":
        return None
    keys: list[str] = []
    i = skip_space(text, i + 1)
    if text[i : i + 1] == "}":
        return keys if skip_space(text, i + 1) == len(text) else None
    while text[i : i + 1] == '"':
        parts: list[str] = []
        decoder = StringDecoder()
        end = decoder.decode(text, i + 1, parts)
        if end == -1:
            return None
        keys.append("".join(parts))
        i = skip_space(text, end)
        if text[i : i + 1] != ":":
            return None
        i = skip_space(text, i + 1)
        end = ValueEnd().scan(text, i)
        if end == -1 or end == i:  # cut short, or no value at all
            return None
        i = skip_space(text, end)
        if text[i : i + 1] == "}":
            return keys if skip_space(text, i + 1) == len(text) else None
        if text[i : i + 1] != ",":
            return None
        i = skip_space(text, i + 1)
    return None
