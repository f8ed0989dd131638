"""Recognising a format from its own markers, within a model family or among every format.

Text passes through unchanged until a marker names the format (``family.Family``); from then on
the format's parser reads everything, starting with that marker. Only a possible marker prefix,
the few characters after ``<tool_call>`` that tell Hermes, Qwen3-Coder and GLM apart, or a tag
named after a tool until it shows whether it is a call, is held back.

``provider="auto"`` reads a stream this way over the family of the format the model name picks,
with that format as the default; ``provider="sniff"`` (and ``auto`` when the name matches no
rule) over every format, with none.
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
from .family import TOOL_CALL, TOOL_CALL_FORMATS, Family, clashes, family_of
from .qwen_xml import QwenXmlParser, tool_tags

__all__ = ["TOOL_CALL", "TOOL_CALL_FORMATS", "SniffingParser", "family_parser", "tool_call_flavour"]


class _State(enum.IntEnum):
    TEXT = 0
    TOOL_CALL = enum.auto()  # after <tool_call>: the next characters tell the format
    TOOL_TAG = enum.auto()  # inside a tool's tag: a call, or text after all
    FORMAT = enum.auto()  # recognised: the format's parser reads everything


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _TOOL_CALL, _TOOL_TAG, _FORMAT = _State

_Tables = tuple[tuple[MarkerSearch | None, ...], tuple[frozenset[str], ...]]


@functools.lru_cache(maxsize=256)  # a client sends the same tools with every request
def _tables(default: str | None, tags: tuple[str, ...]) -> _Tables:
    """The sniffer's search and stray tables for a family and the request's tool tags."""
    family = family_of(default)
    markers = [*([TOOL_CALL] if family.judges_tool_call else []), *family.targets]
    tags = tuple(t for t in tags if not clashes(t, markers)) if family.reads_tool_tags else ()
    markers += tags
    strays = [s for s in family.strays if not clashes(s, markers)]
    return marker_tables(_State, {_TEXT: markers}, strays={_TEXT: strays})


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


def family_parser(provider: str, context: ParserContext) -> ToolCallParser:
    """The parser of a stream whose model name picks format ``provider``, under ``auto``: its
    family's markers choose the format, ``provider`` the default. When there is nothing to
    choose (no other format in the family, no tool to find tags of), its parser does not tell
    what it looks for in plain text, or it starts inside a reasoning block, the format's
    parser."""
    family = family_of(provider)
    alone = family.alone and not (family.reads_tool_tags and context.tools)
    # A default that reads a reasoning block its template opened (Kimi K3's think channel)
    # reads the stream from its start: it begins inside that block, not in plain text.
    opened = context.thinking_opened and formats()[provider].reads_reasoning
    if alone or opened or not family.default_known:
        return create_parser(provider, context)
    return SniffingParser(context, family)


class SniffingParser(ToolCallParser):
    """Reads plain text until a marker names the format (``_Sniffer``); from there on, every
    delta goes straight to that format's parser."""

    # Every character any parser it may hand over to treats as a possible markup start: set
    # below, once every format is registered; a family's own are fewer.
    TRIGGERS = ""

    def __init__(self, context: ParserContext, family: Family | None = None) -> None:
        family = family or family_of(None)
        self.TRIGGERS = family.triggers
        self._sniffer = _Sniffer(context, family)
        self._format: ToolCallParser | None = None
        # The call ids of the format the name picks, before a marker decides.
        self._default_style = None if family.default is None else formats()[family.default].id_style

    @property
    def detected(self) -> str | None:
        """The provider recognised from the markers, once there is one."""
        return self._sniffer.recognised

    def feed(self, text: str) -> list[Event]:
        fmt = self._format
        if fmt is not None:
            return fmt.feed(text)
        events = self._sniffer.feed(text)
        self._format = self._sniffer.format
        return events

    def finish(self) -> list[Event]:
        return self._sniffer.finish()

    # Sizes and counts and the id style: the sniffer's, which are its format's
    # once there is one (see ``ToolCallParser``).
    @property
    def id_style(self) -> str | None:
        fmt = self._sniffer.format
        return fmt.id_style if fmt is not None else self._default_style

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


class _Sniffer(StreamParser):
    """Plain text up to the first marker that names a format (a stray special token of any
    member dropped); the format's parser reads everything from that marker on. A tool's tag
    is read as one call (or text) by a ``QwenXmlParser`` under the tool-tag rule."""

    def __init__(self, context: ParserContext, family: Family) -> None:
        self._family = family
        self.TRIGGERS = family.triggers
        self._searches, self._strays = _tables(
            family.default, tool_tags(context) if context.tools else ()
        )
        super().__init__(context)
        self._state = _TEXT
        #: The recognised format's parser.
        self.format: ToolCallParser | None = None
        self.recognised: str | None = None
        self._tags: QwenXmlParser | None = None  # made at the first tool's tag

    def _held_markup(self) -> int:
        state = self._state
        if state is _TOOL_CALL:
            return len(TOOL_CALL)  # and the lookahead after it, pending
        if state is _FORMAT:
            return 0 if self.format is None else self.format.held
        return 0

    @property
    def held_arguments(self) -> int:
        tags = 0 if self._tags is None else self._tags.held_arguments
        return tags + (0 if self.format is None else self.format.held_arguments)

    @property
    def text_fallbacks(self) -> int:
        tags = 0 if self._tags is None else self._tags.text_fallbacks
        return self._given_back + tags + (0 if self.format is None else self.format.text_fallbacks)

    def _more_strays(self) -> int:
        return 0 if self.format is None else self.format.strays

    def _marker(self, marker: str, out: list[Event]) -> None:  # in TEXT
        if marker == TOOL_CALL and self._family.judges_tool_call:
            self._state = _TOOL_CALL
            return
        provider = self._family.targets.get(marker)
        if provider is not None:
            self._recognised(provider, marker, out)
            return
        if self._tags is None:  # a tool's tag
            self._tags = QwenXmlParser(self._context, tool_tag_rule=True)
        self._tags.open_call(marker)
        self._state = _TOOL_TAG

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        state = self._state
        if state is _TOOL_TAG:
            assert self._tags is not None
            after = self._tags.read_call(buf, pos, out, final)
            if not self._tags.in_call:
                self._state = _TEXT
            return after
        if self.format is not None:  # FORMAT: the rest of the delta the marker came in
            out.extend(self.format.feed(buf[pos:]))
            return len(buf)
        provider = tool_call_flavour(buf, pos, final)  # TOOL_CALL
        if provider is None:  # more text decides
            return None
        if provider in self._family.members:
            self._recognised(provider, TOOL_CALL + buf[pos:], out)
            return len(buf)
        out.append(Text(TOOL_CALL))  # this <tool_call> is text; keep looking after it
        self._state = _TEXT
        return pos

    def _recognised(self, provider: str, markup: str, out: list[Event]) -> None:
        """The format is ``provider``: its parser reads everything from ``markup`` on."""
        self.recognised = provider
        self.format = create_parser(provider, self._context)
        self._state = _FORMAT
        out.extend(self.format.feed(markup))

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state is _TOOL_CALL:  # nothing after it: text
            out.append(Text(TOOL_CALL))
            self._state = _TEXT
        elif state is _TOOL_TAG:
            assert self._tags is not None
            out.extend(self._tags.finish())  # unfinished: text
            self._state = _TEXT
        if self.format is not None:
            out.extend(self.format.finish())


FORMAT = register(Format("sniff", SniffingParser))
SniffingParser.TRIGGERS = family_of(None).triggers
