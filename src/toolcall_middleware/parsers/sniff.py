"""Recognising a format from its own markers, for model names that say nothing.

Text passes through unchanged until a format's unambiguous markers appear; from then on the
format's parser reads everything, starting with those markers. Only a possible marker prefix
(or the few characters after ``<tool_call>`` that tell Hermes, Qwen3-Coder and GLM apart) is
held back. ``provider="sniff"``; ``provider="auto"`` uses it when the model name matches no rule.
"""

from __future__ import annotations

import enum
import functools
import re

from ..events import Event, Text
from . import create_parser
from .base import MarkerSearch, ParserContext, ToolCallParser
from .descriptor import Format, formats, register
from .driver import StreamParser, literal_at, marker_tables, skip_space

TOOL_CALL = "<tool_call>"
#: The formats a ``<tool_call>`` may open: the characters after it tell them apart.
TOOL_CALL_FORMATS = ("hermes", "qwen3_coder", "glm45")


@functools.cache
def format_markers() -> dict[str, str]:
    """Markers that name their format outright (the formats' ``sniff_markers``)."""
    return {marker: fmt.name for fmt in formats().values() for marker in fmt.sniff_markers}


@functools.cache
def stray_tokens() -> frozenset[str]:
    """Special tokens of any format that cannot open its markup: strays wherever they are.

    (Not those that begin a marker, like gpt-oss's ``<|start|>`` of ``<|start|>assistant``: a
    search cannot tell them apart before the rest of the text comes. Nor those a marker
    begins, like Kimi K3's ``<|close|>tools<|sep|>`` after its ``<|close|>``: the format's
    parser, which that marker names, reads them.)
    """
    markers = format_markers()
    return frozenset(
        token
        for fmt in formats().values()
        for token in fmt.stray_tokens
        if not any(marker.startswith(token) or token.startswith(marker) for marker in markers)
    )


class _State(enum.IntEnum):
    TEXT = 0
    TOOL_CALL = enum.auto()  # after <tool_call>: the next characters tell the format
    FORMAT = enum.auto()  # recognised: the format's parser reads everything


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _TOOL_CALL, _FORMAT = _State


@functools.cache
def _tables() -> tuple[tuple[MarkerSearch | None, ...], tuple[frozenset[str], ...]]:
    # Built on first use, once every format is registered.
    return marker_tables(
        _State, {_TEXT: (*format_markers(), TOOL_CALL)}, strays={_TEXT: stray_tokens()}
    )


_GLM_NAME = re.compile(r'[^\s<>{}"]+')
_GLM_AFTER_NAME = ("<arg_key>", "</tool_call>")
# Past this many characters after <tool_call> without a verdict, it was text.
_LOOKAHEAD = 256


def tool_call_flavour(text: str, start: int, final: bool) -> str | None:
    """Which format a ``<tool_call>`` ending at ``start`` opens: a provider, ``""`` for none,
    ``None`` while the text so far cannot tell."""
    # Judge only a fixed window, so the verdict cannot depend on where the text was cut.
    text = text[start : start + _LOOKAHEAD]
    final = final or len(text) == _LOOKAHEAD
    undecided = None if not final else ""
    i = skip_space(text, 0)
    if i == len(text):
        return undecided
    if text[i] == "{":
        return "hermes"
    if text[i] == "<":
        function = literal_at(text, i, ("<function=",), final)
        if function is None:
            return undecided
        return "qwen3_coder" if function else ""
    name = _GLM_NAME.match(text, i)
    if name is None:
        return ""
    after = skip_space(text, name.end())
    if after == len(text):
        return undecided
    marker = literal_at(text, after, _GLM_AFTER_NAME, final)
    if marker is None:
        return undecided
    return "glm45" if marker else ""


class SniffingParser:
    """Reads plain text until a marker names the format (``_Sniffer``); from there on, every
    delta goes straight to that format's parser."""

    # Every character any parser it may hand over to treats as a possible markup start (this
    # module is imported after every other format's).
    TRIGGERS = "".join(sorted({c for fmt in formats().values() for c in fmt.triggers or ""}))

    def __init__(self, context: ParserContext) -> None:
        self._sniffer = _Sniffer(context)
        self._format: ToolCallParser | None = None

    @property
    def detected(self) -> str | None:
        """The provider recognised from the markers, once there is one."""
        return self._sniffer.detected

    def feed(self, text: str) -> list[Event]:
        fmt = self._format
        if fmt is not None:
            return fmt.feed(text)
        events = self._sniffer.feed(text)
        self._format = self._sniffer.format
        return events

    def finish(self) -> list[Event]:
        return self._sniffer.finish()

    # Sizes and counts, ``release`` and the id style: the sniffer's, which are its format's
    # once there is one (see ``ToolCallParser``).
    @property
    def ID_STYLE(self) -> str | None:  # the attribute name the parsers share
        style = getattr(self._sniffer.format, "ID_STYLE", None)
        return style if isinstance(style, str) else None

    @property
    def held(self) -> int:
        return self._sniffer.held

    @property
    def held_arguments(self) -> int:
        return self._sniffer.held_arguments

    @property
    def text_fallbacks(self) -> int:
        return self._sniffer.text_fallbacks

    @property
    def strays(self) -> int:
        return self._sniffer.strays

    def release(self) -> list[Event]:
        return self._sniffer.release()


class _Sniffer(StreamParser):
    """Plain text up to the first marker that names a format (a stray special token of any
    format dropped); the format's parser reads everything from that marker on."""

    TRIGGERS = SniffingParser.TRIGGERS

    def __init__(self, context: ParserContext) -> None:
        self._searches, self._strays = _tables()
        super().__init__(context)
        self._state = _TEXT
        #: The recognised format's parser.
        self.format: ToolCallParser | None = None
        self.detected: str | None = None

    def _held_markup(self) -> int:
        state = self._state
        if state is _TOOL_CALL:
            return len(TOOL_CALL)  # and the lookahead after it, pending
        if state is _FORMAT:
            return int(getattr(self.format, "held", 0))
        return 0

    @property
    def held_arguments(self) -> int:
        return int(getattr(self.format, "held_arguments", 0))

    @property
    def text_fallbacks(self) -> int:
        return int(getattr(self.format, "text_fallbacks", 0))

    def _more_strays(self) -> int:
        return int(getattr(self.format, "strays", 0))

    def release(self) -> list[Event]:
        """The recognised format's ``release``; nothing before one is (markers of formats
        spelled over several tokens may be what is held)."""
        release = getattr(self.format, "release", None)
        return release() if release is not None else []

    def _marker(self, marker: str, out: list[Event]) -> None:  # in TEXT
        if marker == TOOL_CALL:
            self._state = _TOOL_CALL
        else:
            self._recognised(format_markers()[marker], marker, out)

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        if self.format is not None:  # FORMAT: the rest of the delta the marker came in
            out.extend(self.format.feed(buf[pos:]))
            return len(buf)
        provider = tool_call_flavour(buf, pos, final)  # TOOL_CALL
        if provider is None:  # more text decides
            return None
        if provider:
            self._recognised(provider, TOOL_CALL + buf[pos:], out)
            return len(buf)
        out.append(Text(TOOL_CALL))  # this <tool_call> is text; keep looking after it
        self._state = _TEXT
        return pos

    def _recognised(self, provider: str, markup: str, out: list[Event]) -> None:
        """The format is ``provider``: its parser reads everything from ``markup`` on."""
        self.detected = provider
        self.format = create_parser(provider, self._context)
        self._state = _FORMAT
        out.extend(self.format.feed(markup))

    def _close(self, out: list[Event]) -> None:
        if self._state is _TOOL_CALL:  # nothing after it: text
            out.append(Text(TOOL_CALL))
            self._state = _TEXT
        if self.format is not None:
            out.extend(self.format.finish())


FORMAT = register(Format("sniff", SniffingParser))
