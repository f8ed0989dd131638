"""Pythonic tool calls: a Python list of calls (``provider="pythonic"``).

    [get_weather(city="Paris", days=3), get_time()]
    <|python_start|>[get_weather(city='LA', metric='C')]<|python_end|>

Llama 4 writes its calls this way (``<|python_start|>`` … ``<|python_end|>`` around them, the end
sometimes missing), and so do Llama 3.2 and Granite under their pythonic chat templates. There
are no markers but the optional ones, so a list is read as calls only by its shape, and only
when the model name picks this format: ``[`` then ``NAME(``, where NAME is an offered tool (any
name after ``<|python_start|>``). Anything else is the model's text, unchanged.

Each call is read whole, up to its closing parenthesis, then converted: keyword arguments with
Python literal values (strings, ``True``/``False``/``None``, numbers, lists, tuples, dicts) make a
JSON object. A call that does not convert (a positional argument, bytes, ``1e999``, an
expression) is the model's text, as is every element of a list that holds no call at all;
brackets and commas around calls are framing.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Sequence

from ..events import CALL_END, CallArgs, CallStart, Event, Text
from .base import ParserContext, held_size
from .descriptor import LLAMA_LINE, CallWriter, Format, NameRule, register
from .driver import OptionalClose, StreamParser, marker_tables, skip_space
from .pycall import call_arguments

PYTHON_START = "<|python_start|>"
PYTHON_END = "<|python_end|>"
LIST_OPEN = "["

_NAME = re.compile(r"[A-Za-z_][\w.]*")
# In a call: what changes the depth or starts a string.
_CALL_STOP = re.compile(r"""[()\[\]{}'"]""")
# In a string: its quote's character, or an escape.
_STRING_STOP = {"'": re.compile(r"['\\]"), '"': re.compile(r'["\\]')}


class State(enum.IntEnum):
    TEXT = 0
    OPENED = enum.auto()  # after <|python_start|>: the list's "["
    ELEMENT = enum.auto()  # in a list: an element's NAME( , or "]"
    CALL = enum.auto()  # a call's text, up to its closing parenthesis
    BETWEEN = enum.auto()  # after a call: "," or "]"
    AFTER = enum.auto()  # after "]": whitespace, then maybe <|python_end|>


# Module names for the members: looking a member up on its enum class runs Python code.
TEXT, _OPENED, ELEMENT, _CALL, _BETWEEN, _AFTER = State
_TEXT, _ELEMENT = TEXT, ELEMENT

_SEARCH, _STRAYS = marker_tables(
    State, {_TEXT: (PYTHON_START, LIST_OPEN)}, strays={_TEXT: (PYTHON_END,)}
)


class PythonicParser(StreamParser):
    TRIGGERS = "<["
    _searches = _SEARCH
    _strays = _STRAYS
    _SHORTCUT_STATES = (_CALL,)
    #: The special token that may open the list (then any name is a call): never text.
    START_TOKEN = PYTHON_START
    #: What closes the list of calls, and what may follow that as framing.
    LIST_CLOSE = "]"
    AFTER_CLOSE: str | None = PYTHON_END
    #: Whether calls may follow each other with only space between them (no comma).
    SPACE_SEPARATES = False
    #: Whether ``null``, ``true`` and ``false`` are values too (JSON's literals).
    JSON_LITERALS = False
    #: A special token that a tagged list's string stops at (``_token_in_string`` decides what
    #: it means there), and what a string's reader looks for: its quote, an escape, the
    #: token's first character. Empty: no token ends a string.
    STRING_TOKEN = ""
    _string_stops = _STRING_STOP

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._names = frozenset(tool.name for tool in context.tools)
        self._tagged = False  # the list follows <|python_start|>: any name is a call
        #: The list so far, while none of its calls went out: (text, is it an element).
        self._held: list[tuple[str, bool]] = []
        self._committed = False  # a call of this list went out
        self._unconverted: list[str] = []  # elements that were no calls, since the last call
        self._source: list[str] = []  # the call being read
        self._depth = 0
        self._quote = ""  # the quote of the string the call is in ("" outside one)
        self._escaped = False
        self._after = OptionalClose(PYTHON_END)  # after the list: its framing, or not

    def _shortcut(self, text: str) -> list[Event] | None:
        # A piece of a call that neither ends a string nor changes the depth: the call's text
        # so far, as ``_read_call`` would keep it.
        quote = self._quote
        if quote:
            if self._escaped or quote[0] in text or "\\" in text:
                return None
        elif _CALL_STOP.search(text) is not None:
            return None
        self._source.append(text)
        return []

    def _held_markup(self) -> int:
        held = sum(len(text) for text, _ in self._held) + held_size(self._unconverted)
        return held + self._after.held if self._state is _AFTER else held

    @property
    def held_arguments(self) -> int:
        return held_size(self._source)

    def _marker(self, marker: str, out: list[Event]) -> None:  # in TEXT
        self._open_list(marker, tagged=marker == self.START_TOKEN)
        if self._tagged:
            self._state = _OPENED

    def _open_list(self, opening: str, tagged: bool) -> None:
        """A list may begin with ``opening``; ``tagged``: its markup says it holds calls, so
        any name is one."""
        self._held = [(opening, False)]
        self._unconverted = []
        self._committed = False
        self._tagged = tagged
        self._state = _ELEMENT

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        state = self._state
        if state is _CALL:
            return self._read_call(buf, pos, out, final)
        if state is _AFTER:
            after, closing = self._after.step(buf, pos, out, final)
            if closing is not None:
                self._end_list(out)
            return after
        start = skip_space(buf, pos)
        if start > pos:
            self._keep(buf[pos:start])
        if start == len(buf):
            if final:
                self._end_list(out)
            return start
        char = buf[start]
        if state is _OPENED:
            if char == LIST_OPEN:
                self._keep(char)
                self._state = _ELEMENT
                return start + 1
            self._dropped += 1  # <|python_start|> before code that is no call list
            self._held = []
            self._state = _TEXT
            return start
        if state is _BETWEEN or self._committed:
            close = self.LIST_CLOSE
            closing = close if buf.startswith(close, start) else ""
            if not closing and not final and close.startswith(buf[start : start + len(close)]):
                return None if start == pos else start  # the close may be coming
            if closing:
                self._list_closed(out)
                return start + len(closing)
        if state is _BETWEEN:
            if char == "," or (self.SPACE_SEPARATES and _NAME.match(char)):
                self._state = _ELEMENT
                if char != ",":
                    return start
                self._keep(char)
                return start + 1
            self._end_list(out)  # not a list of calls from here: text again
            return start
        element = self._element(buf, start, out, final)  # ELEMENT
        return start if element is None and start > pos else element

    def _list_closed(self, out: list[Event]) -> None:
        if not self._committed:  # a list of no calls: text (and its end token a stray)
            self._keep(self.LIST_CLOSE)
            self._end_list(out)
            return
        if self._unconverted:  # elements that were no calls: the model's text
            self._give_back("".join(self._unconverted), out)
            self._unconverted = []
        if self.AFTER_CLOSE is None:
            self._end_list(out)
            return
        self._after = OptionalClose(self.AFTER_CLOSE)
        self._state = _AFTER

    def _element(self, buf: str, start: int, out: list[Event], final: bool) -> int | None:
        name = _NAME.match(buf, start)
        paren = len(buf) if name is None else skip_space(buf, name.end())
        if name is not None and paren == len(buf) and not final:
            return None  # the name, or the space after it, may go on
        if name is None or paren == len(buf) or buf[paren] != "(":
            self._end_list(out)
            return start
        if not (self._tagged or self._accepts(name.group())):
            self._end_list(out)
            return start
        self._begin_call(buf[start : paren + 1])
        return paren + 1

    def _accepts(self, name: str) -> bool:
        """Whether a list without the start token may hold a call to ``name``."""
        return name in self._names

    def _begin_call(self, opening: str) -> None:
        """An element's text starts with ``opening``, one bracket deep."""
        self._source = [opening]
        self._depth = 1
        self._quote = ""
        self._escaped = False
        self._state = _CALL

    def _read_call(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        """Read the call's text; at its closing parenthesis, the call (``_call_read``)."""
        i = pos
        n = len(buf)
        while i < n:
            if self._quote:
                i = self._in_string(buf, i, final)
                if i < 0:  # the start of the string's end, or of a token: wait (or the token)
                    at = -i - 1
                    self._source.append(buf[pos:at])
                    if self.STRING_TOKEN and buf.startswith(self.STRING_TOKEN, at):
                        return self._token_in_string(at, out)
                    return None if at == pos else at
                continue
            match = _CALL_STOP.search(buf, i)
            if match is None:
                i = n
                break
            char = match.group()
            at = match.start()
            if char in "([{":
                self._depth += 1
            elif char in ")]}":
                self._depth -= 1
                if self._depth == 0:
                    self._source.append(buf[pos : at + 1])
                    self._call_read(out)
                    return at + 1
            else:  # a string opens: one quote, or three
                quote = buf[at : at + 3]
                if len(quote) < 3 and not final and quote == char * len(quote):
                    self._source.append(buf[pos:at])  # it may still be three: wait
                    return None if at == pos else at
                self._quote = quote if quote == char * 3 else char
                i = at + len(self._quote)
                continue
            i = at + 1
        self._source.append(buf[pos:i])
        return i

    def _in_string(self, buf: str, i: int, final: bool) -> int:
        """Past the string's end, ``len(buf)`` while it goes on, or ``-(at + 1)`` when what
        is left from ``at`` may be the start of its end (a triple quote cut short) or is, or
        may be, the ``STRING_TOKEN`` of a tagged list."""
        quote = self._quote
        if self._escaped:
            self._escaped = False
            i += 1
        stop = self._string_stops[quote[0]]
        n = len(buf)
        while i < n:
            match = stop.search(buf, i)
            if match is None:
                return n
            at = match.start()
            char = match.group()
            if char == "\\":
                if at + 1 == n:
                    self._escaped = True
                    return n
                i = at + 2
            elif buf.startswith(quote, at):
                self._quote = ""
                return at + len(quote)
            elif (not final and quote.startswith(buf[at:])) or (
                char != quote[0] and self._tagged and self._token_at(buf, at, final)
            ):  # a triple quote cut short, or a token
                return -(at + 1)
            else:
                i = at + 1
        return n

    def _token_at(self, buf: str, at: int, final: bool) -> bool:
        """Whether the ``STRING_TOKEN`` is at ``at``, or may be (cut short at the end)."""
        token = self.STRING_TOKEN
        if not token or buf.startswith(token, at):
            return bool(token)
        return not final and len(buf) - at < len(token) and token.startswith(buf[at:])

    # A format with a STRING_TOKEN says what it means there (lfm2).
    def _token_in_string(self, at: int, out: list[Event]) -> int:
        """The ``STRING_TOKEN`` is at ``at`` in a string of the call (whose text up to it is
        ``_source``): where reading goes on."""
        raise NotImplementedError

    def _call_read(self, out: list[Event]) -> None:
        """A call's text is whole: the call, or text if it does not convert."""
        source = "".join(self._source)
        self._source = []
        self._state = _BETWEEN
        self._emit_call(source, self._convert(source), out)

    def _convert(self, source: str) -> tuple[str, str] | None:
        """An element's whole text as ``(name, JSON arguments)``, or ``None``: text."""
        return call_arguments(source, self.JSON_LITERALS)

    def _emit_call(self, source: str, converted: tuple[str, str] | None, out: list[Event]) -> None:
        if converted is None:
            if self._committed:
                self._unconverted.append(source)
            else:
                self._held.append((source, True))
            return
        self._commit(out)
        name, arguments = converted
        out.append(CallStart(name))
        if arguments != "{}":
            out.append(CallArgs(arguments))
        out.append(CALL_END)

    def _commit(self, out: list[Event]) -> None:
        """The list holds calls: elements before that were no calls are text, its framing not."""
        before = self._unconverted or [text for text, element in self._held if element]
        if before:
            self._give_back("".join(before), out)
        self._unconverted = []
        self._held = []
        self._committed = True

    def _keep(self, text: str) -> None:
        """Framing of the list: text again if the list holds no call."""
        if not self._committed:
            self._held.append((text, False))

    def _end_list(self, out: list[Event]) -> None:
        """The list ends here (after "]", or where text that no list of calls has begins):
        what it held is the model's text, less its framing once a call went out."""
        if self._committed:
            if self._unconverted:
                self._give_back("".join(self._unconverted), out)
        else:
            pieces = [text for text, _ in self._held]
            if pieces and pieces[0] == self.START_TOKEN:  # a special token: never text
                self._dropped += 1
                pieces = pieces[1:]
            if any(element for _, element in self._held):
                self._given_back += 1  # calls that did not convert
            if pieces:
                out.append(Text("".join(pieces)))
        self._held = []
        self._unconverted = []
        self._committed = False
        self._state = _TEXT

    def _close(self, out: list[Event]) -> None:
        if self._state is _CALL:  # cut off inside a call: it converts as far as it came
            source = "".join(self._source)
            self._source = []
            closed = None if self._quote else self._convert(source + ")" * self._depth)
            self._emit_call(source, closed, out)
        if self._state is _AFTER:
            self._after.flush(out)  # (what the list held went out at its "]")
        elif self._state is not _TEXT:
            self._end_list(out)
        self._state = _TEXT


def python_value(value: object) -> str:
    """A JSON value as a Python literal (for ``write_calls``)."""
    if isinstance(value, dict):
        items = ", ".join(f"{python_value(k)}: {python_value(v)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, list):
        return "[" + ", ".join(python_value(v) for v in value) + "]"
    return repr(value)


def python_call(name: str, arguments: str) -> str:
    """``name(k=v, ...)``: a call written as Python, its JSON ``arguments`` as keywords."""
    keywords = ", ".join(f"{k}={python_value(v)}" for k, v in json.loads(arguments).items())
    return f"{name}({keywords})"


def list_writer(opening: str, closing: str) -> CallWriter:
    """The ``write_calls`` of a format whose calls are a Python list between ``opening`` and
    ``closing``."""

    def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
        body = ", ".join(python_call(name, arguments) for name, arguments in calls)
        return f"{opening}[{body}]{closing}"

    return write_calls


write_calls = list_writer(PYTHON_START, PYTHON_END)


FORMAT = register(
    Format(
        "pythonic",
        PythonicParser,
        family="llama",
        model_names=(NameRule(("llama-4", "llama4", "llama_4"), LLAMA_LINE),),
        stray_tokens=(PYTHON_END,),
        write_calls=write_calls,
        markup_pieces=(
            PYTHON_START,
            PYTHON_END,
            "[",
            "]",
            "bash(",
            "get_time()",
            "command='ls -la'",
            'command="a\\"b"',
            ", ",
            "days=3",
            "x=b'z'",
            "f(x)",
            ")",
            "'''",
            "True",
        ),
    )
)
