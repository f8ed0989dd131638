"""One call's JSON arguments built from XML parameters, and the base of the XML formats.

String values stream as escaped pieces while they arrive (a 50 KB file must not stall); other
values are typed from the schema when their parameter closes. The fragments of one call always
concatenate to the same valid JSON object, however the value text was cut.
"""

from __future__ import annotations

from ..events import CALL_END, CallArgs, CallStart, Event
from .base import ParserContext, Tool, held_size
from .driver import StreamParser
from .schema import STRING, convert_value, escape_piece, json_string, parameter_type

_NULL = "null"


class ArgumentsWriter:
    """Turns ``open(key)``, ``value(text)``…, ``close()`` per parameter into JSON fragments.

    Exactly one leading and one trailing newline of a value are template framing (unless
    ``newline_framing`` is off: formats that write values inline, between tags on one line). A
    string value that is the literal ``null`` is null (unless opened with ``null_word=False``):
    it is held while it could still be that word. A value opened ``verbatim`` (a format that
    writes each value exactly and says its type) has neither rule: a string is the text as it
    is, from its first character.
    """

    __slots__ = (
        "_count",
        "_framing",
        "_held",
        "_kind",
        "_newline",
        "_null_word",
        "_open",
        "_quoted",
        "_seen",
        "_tool",
        "_verbatim",
    )

    def __init__(self, tool: Tool | None, newline_framing: bool = True) -> None:
        self._tool = tool
        self._framing = newline_framing
        self._count = 0
        self._open = False
        self._kind = STRING
        self._null_word = True
        self._verbatim = False
        self._seen = False  # the value's first character has arrived
        self._newline = False  # a trailing newline held back: framing if the value ends here
        self._quoted = False  # the opening quote of a string value went out
        self._held: list[str] = []  # string: a possible "null"; other types: the whole value

    @property
    def tool(self) -> Tool | None:
        return self._tool

    @property
    def count(self) -> int:
        """Members of the object written so far (the parameter open now included)."""
        return self._count

    @property
    def parameter_open(self) -> bool:
        return self._open

    @property
    def held(self) -> int:
        """Characters of the open value held back: a possible ``null``, a non-string value, a
        trailing newline."""
        return held_size(self._held) + self._newline if self._open else 0

    def open(
        self,
        key: str,
        out: list[Event],
        kind: str | None = None,
        null_word: bool = True,
        verbatim: bool = False,
    ) -> None:
        """A parameter starts: typed by the schema, or as ``kind`` (see ``convert``);
        ``verbatim``: its value is exact (see the class)."""
        if self._open:
            self.close(out)
        head = ("{" if self._count == 0 else ", ") + json_string(key) + ": "
        self._count += 1
        self.hold(parameter_type(self._tool, key) if kind is None else kind, null_word)
        if verbatim:
            # A verbatim string is open from its first character: its quote goes out now, and
            # its pieces take the streaming branch of ``value`` (no newline there is framing).
            self._verbatim, self._null_word = True, False
            self._seen = self._quoted = self._kind == STRING
        out.append(CallArgs(head + '"' if self._quoted else head))

    def hold(self, kind: str, null_word: bool = True) -> None:
        """A value starts whose member the writer does not write yet (``close`` decides)."""
        self._open = True
        self._kind = kind
        self._null_word = null_word
        self._seen = self._newline = self._quoted = self._verbatim = False
        self._held = []

    def take(self) -> str:
        """Close the value open now without writing it: its text as it came (framing removed)."""
        self._open = False
        held = "".join(self._held)
        self._held = []
        return held

    def member(self, key: str, value: str, out: list[Event]) -> None:
        """A whole member: ``key`` and its JSON ``value``."""
        out.append(CallArgs(("{" if self._count == 0 else ", ") + json_string(key) + ": " + value))
        self._count += 1

    def value(self, text: str, out: list[Event]) -> None:
        if not text or not self._open:
            return
        if self._quoted and not self._newline and text[-1] != "\n":
            # The common case: more of a string value, streaming (a newline at its end may be
            # framing, so that takes the way below).
            out.append(CallArgs(escape_piece(text)))
            return
        if self._verbatim:  # all of it is the value, newlines too
            if self._quoted:
                out.append(CallArgs(escape_piece(text)))
            else:
                self._held.append(text)
            return
        if not self._seen:
            self._seen = True
            if text[0] == "\n" and self._framing:
                text = text[1:]
        if self._newline:
            text = "\n" + text
        self._newline = self._framing and text.endswith("\n")
        if self._newline:
            text = text[:-1]
        if not text:
            return
        if self._kind != STRING:
            self._held.append(text)
        elif self._quoted:
            out.append(CallArgs(escape_piece(text)))
        else:
            self._held.append(text)
            so_far = "".join(self._held)
            if not self._null_word or not _NULL.startswith(so_far):
                self._held = []
                self._quoted = True
                out.append(CallArgs('"' + escape_piece(so_far)))

    def close(self, out: list[Event]) -> None:
        """The parameter's value ended (its closing tag, or the next tag, or end of stream)."""
        if not self._open:
            return
        self._open = False
        held = "".join(self._held)
        self._held = []
        if self._kind != STRING:
            out.append(CallArgs(self.convert(held, self._kind)))
        elif self._quoted:
            out.append(CallArgs('"'))
        else:
            out.append(CallArgs(_NULL if self._null_word and held == _NULL else json_string(held)))

    def convert(self, value: str, kind: str) -> str:
        """The JSON text of a held value of ``kind`` (a schema type; formats with kinds of their
        own override this)."""
        return convert_value(value, kind)

    def end(self, out: list[Event]) -> None:
        """The call ended: close the object. A call with no parameters gets no fragment."""
        self.close(out)
        if self._count:
            out.append(CallArgs("}"))
        self._count = 0


class XmlCallParser(StreamParser):
    """Base of the XML formats: each call's parameters go through an ``ArgumentsWriter`` typed
    by the schema of the tool the call names."""

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._arguments = ArgumentsWriter(None)

    @property
    def held_arguments(self) -> int:
        return self._arguments.held

    def _start_call(self, name: str, out: list[Event]) -> None:
        out.append(CallStart(name))
        self._arguments = self._writer(self._context.tool(name))

    def _writer(self, tool: Tool | None) -> ArgumentsWriter:
        """The writer of one call's arguments (a format with value rules of its own has its
        own)."""
        return ArgumentsWriter(tool)

    def _end_call(self, out: list[Event]) -> None:
        self._arguments.end(out)
        out.append(CALL_END)
