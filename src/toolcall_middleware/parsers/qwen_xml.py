"""Tool-named XML tags, as Qwen web chat writes them (``provider="qwen_xml"``).

    I'll read the file.

    <read>
    <filePath>/home/user/package.json</filePath>
    </read>

Only a tag named after a tool the request offered is a call; its child elements are the
arguments, typed by the schema (see ``xmlargs``). Such tags also occur in ordinary prose, so a
call is held until its closing tag: malformed or unfinished markup goes back as text unchanged.
Each character is still read once; only the events of the call in progress are held.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Sequence

from ..events import Event
from .base import MarkerSearch, ParserContext, held_size
from .descriptor import Format, raw_values, register
from .driver import search_table, skip_space
from .xmlargs import XmlCallParser

_TAG_STOP = re.compile(r"[>\s<]")
_ELEMENT_NAME = re.compile(r"[A-Za-z_][\w.\-:]*")


@functools.lru_cache(maxsize=256)
def _value_search(key: str, name: str) -> MarkerSearch:
    # A value ends at its closing tag; the call's closing tag first means the child never closed.
    return MarkerSearch((f"</{key}>", f"</{name}>"))


class _State(enum.IntEnum):
    TEXT = 0
    CALL = enum.auto()  # between child elements
    TAG = enum.auto()  # inside "<...>" within a call
    VALUE = enum.auto()


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _CALL, _TAG, _VALUE = _State


class QwenXmlParser(XmlCallParser):
    TRIGGERS = "<"

    def __init__(self, context: ParserContext) -> None:
        names = [tool.name for tool in context.tools if tool.name]
        # Without tools there is no call to find: all text is plain.
        tags = {_TEXT: MarkerSearch(f"<{name}>" for name in names)} if names else {}
        self._searches = search_table(_State, tags)  # VALUE's: set as each value opens
        super().__init__(context)
        self._state = _TEXT
        self._name = ""
        self._key = ""
        self._tag = ""
        self._raw: list[str] = []  # the call's text so far, for when it turns out not to be one
        self._events: list[Event] = []  # the call's events, held until it closes

    @property
    def held_arguments(self) -> int:
        """The whole call so far: it goes out only once its closing tag came."""
        return held_size(self._raw)

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        if self._state is _TAG:
            return self._read_tag(buf, pos, out)
        start = skip_space(buf, pos)  # CALL
        self._raw.append(buf[pos:start])
        if start == len(buf):
            return start
        if buf[start] != "<":
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
            self._end_call(self._events)
            out.extend(self._events)
            self._events = []
            self._raw = []
            self._state = _TEXT
        elif _ELEMENT_NAME.fullmatch(tag):
            self._key = tag
            searches = list(self._searches)
            searches[_VALUE] = _value_search(tag, self._name)
            self._searches = tuple(searches)
            self._arguments.open(tag, self._events)
            self._state = _VALUE
        else:
            return self._not_a_call(end + 1, out)
        return end + 1

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


# Only ever chosen explicitly: its tags are the request's tool names, which any model may use.
FORMAT = register(
    Format(
        "qwen_xml",
        QwenXmlParser,
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
