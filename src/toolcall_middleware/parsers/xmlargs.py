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

    Exactly one leading and one trailing newline of a value are template framing. A string value
    that is the literal ``null`` is null: it is held while it could still be that word. A value
    opened ``verbatim`` (a format that writes each value exactly and says its type) has neither
    rule: a string is the text as it is, from its first character.
    """

    __slots__ = (
        "_count",
        "_held",
        "_kind",
        "_newline",
        "_open",
        "_quoted",
        "_seen",
        "_tool",
        "_verbatim",
    )

    def __init__(self, tool: Tool | None) -> None:
        self._tool = tool
        self._count = 0
        self._open = False
        self._kind = STRING
        self._seen = False  # the value's first character has arrived
        self._newline = False  # a trailing newline held back: framing if the value ends here
        self._quoted = False  # the opening quote of a string value went out
        self._held: list[str] = []  # string: a possible "null"; other types: the whole value
        self._verbatim = False

    @property
    def parameter_open(self) -> bool:
        return self._open

    @property
    def held(self) -> int:
        """Characters of the open value held back: a possible ``null``, a non-string value, a
        trailing newline."""
        return held_size(self._held) + self._newline if self._open else 0

    def open(
        self, key: str, out: list[Event], kind: str | None = None, verbatim: bool = False
    ) -> None:
        """A parameter begins; ``kind``: its JSON type when the markup says it (else the
        schema's); ``verbatim``: its value is exact (see the class)."""
        if self._open:
            self.close(out)
        head = ("{" if self._count == 0 else ", ") + json_string(key) + ": "
        self._count += 1
        self._open = True
        self._kind = parameter_type(self._tool, key) if kind is None else kind
        self._newline = False
        self._held = []
        self._verbatim = verbatim
        # A verbatim string is open from its first character: its quote goes out now, and its
        # pieces take the streaming branch of ``value`` (no newline there is framing).
        self._seen = self._quoted = verbatim and self._kind == STRING
        out.append(CallArgs(head + '"' if self._quoted else head))

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
            if text[0] == "\n":
                text = text[1:]
        if self._newline:
            text = "\n" + text
        self._newline = text.endswith("\n")
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
            if not _NULL.startswith(so_far):
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
            out.append(CallArgs(convert_value(held, self._kind)))
        elif self._quoted:
            out.append(CallArgs('"'))
        else:
            out.append(CallArgs(_NULL if held == _NULL else json_string(held)))

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
        self._arguments = ArgumentsWriter(self._context.tool(name))

    def _end_call(self, out: list[Event]) -> None:
        self._arguments.end(out)
        out.append(CALL_END)
