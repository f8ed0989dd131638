"""Tool-named XML tags, as Qwen web chat writes them (``provider="qwen_xml"``).

    I'll read the file.

    <read>
    <filePath>/home/user/package.json</filePath>
    </read>

Only a tag named after a tool the request offered is a call; its child elements are the
arguments, typed by the schema (see ``xmlargs``). Such tags also occur in ordinary prose, so a
call is held until its closing tag: malformed or unfinished markup goes back as text unchanged.
Each character is still read once; only the events of the call in progress are held.

This format follows the prompt (a client that asks for XML tool tags), not the model, so
``provider="auto"`` looks for it in every family, under a stricter rule (``tool_tag_rule``):
there, a model's XML or HTML in an ordinary answer must stay text.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Sequence

from ..events import Event
from .base import MarkerSearch, ParserContext, held_size
from .descriptor import EVERY_FAMILY, Format, raw_values, register
from .driver import search_table, skip_space
from .xmlargs import XmlCallParser

_TAG_STOP = re.compile(r"[>\s<]")
_ELEMENT_NAME = re.compile(r"[A-Za-z_][\w.\-:]*")


class _State(enum.IntEnum):
    TEXT = 0
    CALL = enum.auto()  # between child elements
    TAG = enum.auto()  # inside "<...>" within a call
    VALUE = enum.auto()


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _CALL, _TAG, _VALUE = _State


def tool_tags(context: ParserContext) -> tuple[str, ...]:
    """The opening tags of the request's tools, ``<NAME>``: the markers of this format."""
    return tuple(f"<{tool.name}>" for tool in context.tools if tool.name)


@functools.lru_cache(maxsize=64)  # a client sends the same tools with every request
def _tag_searches(tags: tuple[str, ...]) -> tuple[MarkerSearch | None, ...]:
    # Without tools there is no call to find: all text is plain.
    return search_table(_State, {_TEXT: MarkerSearch(tags)} if tags else {})


@functools.lru_cache(maxsize=256)
def _value_search(key: str, name: str) -> MarkerSearch:
    # A value ends at its closing tag; the call's closing tag first means the child never closed.
    return MarkerSearch((f"</{key}>", f"</{name}>"))


class QwenXmlParser(XmlCallParser):
    """``tool_tag_rule``: a tag is a call only as ``provider="auto"`` takes one (see
    docs/formats.md, Detection): a line break straight after the opening tag (spaces aside);
    then only child elements, each named after a parameter the tool's schema declares, none
    twice; then the closing tag, with every required parameter given. ``provider="qwen_xml"``
    takes any child elements, anywhere."""

    TRIGGERS = "<"

    def __init__(self, context: ParserContext, *, tool_tag_rule: bool = False) -> None:
        self._searches = _tag_searches(tool_tags(context))  # VALUE's: set as each value opens
        super().__init__(context)
        self._rule = tool_tag_rule
        self._state = _TEXT
        self._name = ""
        self._key = ""
        self._tag = ""
        self._raw: list[str] = []  # the call's text so far, for when it turns out not to be one
        self._events: list[Event] = []  # the call's events, held until it closes
        # With the rule: the children so far, and whether the opening tag ended its line.
        self._children: set[str] = set()
        self._line_ended = False

    @property
    def held_arguments(self) -> int:
        """The whole call so far: it goes out only once its closing tag came."""
        return held_size(self._raw)

    @property
    def in_call(self) -> bool:
        """Inside a tool's tag: what follows decides whether it is a call."""
        return self._state is not _TEXT

    def open_call(self, tag: str) -> None:
        """Start reading at a tool's opening tag ``<NAME>`` that another parser found."""
        self._marker(tag, [])

    def read_call(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        """Read ``buf`` from ``pos`` on in the call ``open_call`` opened, until the call ends (its
        events go to ``out``) or turns out to be text (given back to ``out``): where it got to,
        or ``None`` when the text from ``pos`` must be held for more to come."""
        start, end = pos, len(buf)
        while self._state is not _TEXT and pos < end:
            after = self._step(buf, pos, out, final)
            if after is None:
                return None if pos == start else pos
            pos = after
        return pos

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        if self._state is _TAG:
            return self._read_tag(buf, pos, out)
        start = skip_space(buf, pos)  # CALL
        self._raw.append(buf[pos:start])
        if self._rule and not self._line_ended:
            self._line_ended = "\n" in buf[pos:start]
        if start == len(buf):
            return start
        if buf[start] != "<" or (self._rule and not self._line_ended):
            return self._not_a_call(start, out)
        self._raw.append("<")
        self._tag = ""
        self._state = _TAG
        return start + 1

    def _segment(self, segment: str, out: list[Event]) -> None:  # in VALUE
        self._raw.append(segment)
        self._arguments.value(segment, self._events)

    def _marker(self, marker: str, out: list[Event]) -> None:
        if self._state is _VALUE:  # the value's end tag, or the call's
            self._raw.append(marker)
            if marker == f"</{self._key}>":
                self._arguments.close(self._events)
                self._state = _CALL
            else:  # the call closed around an open child
                self._not_a_call(0, out)
            return
        self._name = marker[1:-1]  # a tool's tag, in TEXT
        self._raw = [marker]
        self._events = []
        self._children = set()
        self._line_ended = False
        self._start_call(self._name, self._events)
        self._state = _CALL

    def _read_tag(self, buf: str, pos: int, out: list[Event]) -> int:
        match = _TAG_STOP.search(buf, pos)
        end = len(buf) if match is None else match.start()
        self._tag += buf[pos:end]
        self._raw.append(buf[pos:end])
        if match is None:
            return end
        if match.group() != ">":
            return self._not_a_call(end, out)
        self._raw.append(">")
        tag = self._tag
        if tag == "/" + self._name:
            if self._rule and not self._has_required():
                return self._not_a_call(end + 1, out)
            self._end_call(self._events)
            out.extend(self._events)
            self._events = []
            self._raw = []
            self._state = _TEXT
        elif _ELEMENT_NAME.fullmatch(tag) and (not self._rule or self._new_parameter(tag)):
            self._key = tag
            searches = list(self._searches)
            searches[_VALUE] = _value_search(tag, self._name)
            self._searches = tuple(searches)
            self._arguments.open(tag, self._events)
            self._state = _VALUE
        else:
            return self._not_a_call(end + 1, out)
        return end + 1

    def _new_parameter(self, key: str) -> bool:
        """Under the rule: a child is a parameter the tool declares, given once."""
        tool = self._context.tool(self._name)
        if tool is None or key in self._children or key not in tool.property_names:
            return False
        self._children.add(key)
        return True

    def _has_required(self) -> bool:
        tool = self._context.tool(self._name)
        return tool is not None and tool.required_names <= self._children

    def _not_a_call(self, resume: int, out: list[Event]) -> int:
        self._give_back("".join(self._raw), out)
        self._raw = []
        self._events = []
        self._state = _TEXT
        return resume

    def _close(self, out: list[Event]) -> None:
        if self._state is not _TEXT:
            self._not_a_call(0, out)  # unfinished at the end of the stream: it was text


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return "\n".join(
        f"<{name}>\n"
        + "".join(f"<{key}>{value}</{key}>\n" for key, value in raw_values(arguments))
        + f"</{name}>"
        for name, arguments in calls
    )


# No model name picks it: a prompt does, whatever the model (see ``tool_tag_rule``).
FORMAT = register(
    Format(
        "qwen_xml",
        QwenXmlParser,
        family=EVERY_FAMILY,
        write_calls=write_calls,
        markup_pieces=(
            "<bash>",
            "</bash>",
            "<command>",
            "</command>",
            "<days>",
            "</days>",
            "<b>",
            "</b>",
            "<get_time>",
            "</get_time>",
            "/a/b",
        ),
    )
)
