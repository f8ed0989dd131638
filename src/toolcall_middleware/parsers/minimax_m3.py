"""MiniMax M3 tool calls (``provider="minimax_m3"``).

    ]<]minimax[>[<tool_call>
    ]<]minimax[>[<invoke name="create_order">]<]minimax[>[<user_id>42]<]minimax[>[</user_id>
    ]<]minimax[>[<shipping>]<]minimax[>[<city>Singapore]<]minimax[>[</city>]<]minimax[>[</shipping>
    ]<]minimax[>[</invoke>
    ]<]minimax[>[</tool_call>

MiniMax M2's XML, with every tag after the namespace token ``]<]minimax[>[`` and parameters as
elements named after their key. A value that starts with a tag is nested (``nested``: objects,
``<item>`` arrays, typed by the schema at every level) and goes out whole when it closes; any
other value is raw text typed by the schema, a string streaming as it arrives. Several invokes
in a block are parallel calls. ``<mm:think>…</mm:think>`` is reasoning; a ``</mm:think>`` with
no block open (M3 writes one after earlier turns) is a stray.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Sequence
from typing import Any

from ..events import Event, Reasoning, Text
from .base import ParserContext, Tool
from .descriptor import VENDOR_LINE, Format, NameRule, register
from .driver import literal_at, marker_tables, skip_space
from .minimax_m2 import attribute_name
from .nested import Piece, build
from .schema import parameter_schema
from .xmlargs import ArgumentsWriter, XmlCallParser

#: The namespace token every M3 tag stands after.
NS = "]<]minimax[>["
BLOCK = "tool_call"
INVOKE = "invoke"
OPEN = f"{NS}<{BLOCK}>"
CLOSE = f"{NS}</{BLOCK}>"
THINK_OPEN = "<mm:think>"
THINK_CLOSE = "</mm:think>"

# A tag: whitespace may stand between the namespace token and "<"; no "<" or newline inside.
_TAG_SHAPE = re.compile(r"\s*<[^<>\n]*>")


class _State(enum.IntEnum):
    TEXT = 0
    THINK = enum.auto()  # <mm:think> ... </mm:think>: reasoning
    THOUGHT = enum.auto()  # after </mm:think>: whitespace is framing
    TAG = enum.auto()  # after the namespace token: a tag, up to ">"
    BLOCK = enum.auto()  # between invokes
    INVOKE = enum.auto()  # between parameters
    VALUE_START = enum.auto()  # after a parameter's tag: a nested value, or raw text
    VALUE = enum.auto()  # raw text
    NESTED = enum.auto()  # child elements, held until the parameter closes


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _THINK, _THOUGHT, _TAG, _BLOCK, _INVOKE, _VALUE_START, _VALUE, _NESTED = _State

_SEARCH, _STRAYS = marker_tables(
    _State,
    {
        _TEXT: (NS, THINK_OPEN),
        _THINK: (THINK_CLOSE,),
        _TAG: (">",),
        _BLOCK: (NS,),
        _INVOKE: (NS,),
        _VALUE: (NS,),
        _NESTED: (NS,),
    },
    # The think tags are special tokens: between a block's tags they are strays. (Not searched
    # in values: a search for them there would cost every piece of a value with a "<" in it.)
    strays={
        _TEXT: (THINK_CLOSE,),
        **dict.fromkeys((_BLOCK, _INVOKE), (THINK_OPEN, THINK_CLOSE)),
    },
)


class MinimaxM3Parser(XmlCallParser):
    TRIGGERS = "<]"
    _searches = _SEARCH
    _strays = _STRAYS

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._tag_state: enum.IntEnum = _TEXT  # the state a tag was found in
        self._tag = ""
        self._fresh = False  # a think block just opened: its leading whitespace is framing
        self._key = ""
        self._lead = ""  # a value's leading whitespace, until it shows whether it nests
        self._pieces: list[Piece] = []
        self._depth = 0
        self._nested_size = 0

    def _writer(self, tool: Tool | None) -> ArgumentsWriter:
        return ArgumentsWriter(tool, newline_framing=False)  # values stand between tags

    @property
    def held_arguments(self) -> int:
        return super().held_arguments + self._nested_size

    def _held_markup(self) -> int:
        state = self._state
        if state is _TAG:
            return len(self._tag)
        return len(self._lead) if state is _VALUE_START else 0

    def _segment(self, segment: str, out: list[Event]) -> None:
        state = self._state
        if state is _VALUE:
            self._arguments.value(segment, out)
        elif state is _TAG:
            self._tag += segment
        elif state is _THINK:
            if self._fresh:
                segment = segment.lstrip()
                if not segment:
                    return
                self._fresh = False
            out.append(Reasoning(segment))
        elif state is _NESTED:
            self._pieces.append(("text", segment))
            self._nested_size += len(segment)
        elif state is _BLOCK and not segment.isspace():
            # Prose where an invoke should stand: the block is over (its leading space was
            # framing).
            out.append(Text(segment.lstrip()))
            self._state = _TEXT
        # INVOKE: what stands between parameters is framing.

    def _marker(self, marker: str, out: list[Event]) -> None:
        if marker == ">":  # a tag's end
            self._tag += marker
            if _TAG_SHAPE.fullmatch(self._tag) is None or NS in self._tag:
                self._not_a_tag(out)
            else:
                self._take_tag(out)
        elif marker == NS:
            self._tag_state = self._state
            self._tag = ""
            self._state = _TAG
        elif marker == THINK_OPEN:
            self._fresh = True
            self._state = _THINK
        else:  # THINK_CLOSE
            self._state = _THOUGHT

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        if self._state is _THOUGHT:
            start = skip_space(buf, pos)
            if start < len(buf):
                self._state = _TEXT
            return start
        return self._value_start(buf, pos, out, final)

    def _not_a_tag(self, out: list[Event]) -> None:
        """The namespace token and what followed are not a tag: text where text may stand."""
        text = NS + self._tag
        context = self._tag_state
        self._state = context
        if context is _TEXT:
            self._give_back(text, out)
        elif context is _VALUE:
            self._arguments.value(text, out)
        elif context is _NESTED:
            self._pieces.append(("text", text))
            self._nested_size += len(text)
        else:  # between tags of a call: markup gone wrong
            self._dropped += 1

    def _take_tag(self, out: list[Event]) -> None:
        tag = self._tag.lstrip()
        closing = tag.startswith("</")
        name, _, attributes = tag[2 if closing else 1 : -1].strip().partition(" ")
        context = self._tag_state
        if context is _TEXT:
            if not closing and name == BLOCK:
                self._state = _BLOCK
            else:
                self._not_a_tag(out)
            return
        if name == BLOCK and closing:  # the block ends, and whatever was open in it
            self._end_open(out)
            self._state = _TEXT
        elif name == INVOKE and not closing and "=" in attributes:
            self._end_open(out)
            self._start_call(attribute_name(attributes), out)
            self._state = _INVOKE
        elif context is _BLOCK or name == BLOCK:  # nothing else has a place here
            self._dropped += 1
            self._state = context
        elif name == INVOKE and closing:
            self._end_open(out)
            self._state = _BLOCK
        elif context is _NESTED and (not closing or self._depth):
            self._pieces.append(("close" if closing else "open", name))
            self._depth += -1 if closing else 1
            self._state = _NESTED
        elif closing:  # the parameter's end (in INVOKE: a stray)
            if context is _INVOKE:
                self._dropped += 1
            else:
                self._end_value(out)
            self._state = _INVOKE
        else:  # a parameter starts (closing the one a missing tag left open)
            self._end_value(out)
            self._key = name
            self._lead = ""
            self._state = _VALUE_START

    def _value_start(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        start = skip_space(buf, pos)
        self._lead += buf[pos:start]
        if start == len(buf):
            return start
        namespace = literal_at(buf, start, (NS,), final)
        if namespace is None:  # more text decides
            return None if start == pos else start
        if namespace:  # a nested value: the whitespace before its first tag is framing
            self._pieces = []
            self._depth = self._nested_size = 0
            self._lead = ""
            self._tag_state = _NESTED
            self._tag = ""
            self._state = _TAG
            return start + len(NS)
        self._open_raw_value(out)
        return start

    def _open_raw_value(self, out: list[Event]) -> None:
        self._arguments.open(self._key, out)
        self._arguments.value(self._lead, out)
        self._lead = ""
        self._state = _VALUE

    def _end_value(self, out: list[Event]) -> None:
        """The parameter open now, if any, ends."""
        state, context = self._state, self._tag_state
        if state is _VALUE_START:
            self._open_raw_value(out)
        if state is _NESTED or (state is _TAG and context is _NESTED):
            tool = self._arguments.tool
            value = build(self._pieces, parameter_schema(tool, self._key))
            self._pieces = []
            self._nested_size = 0
            self._arguments.member(self._key, value, out)
        else:
            self._arguments.close(out)

    def _end_open(self, out: list[Event]) -> None:
        """The call open now, if any, ends (its parameter too)."""
        state = self._state if self._state is not _TAG else self._tag_state
        if state in (_INVOKE, _VALUE_START, _VALUE, _NESTED):
            self._state = state
            self._end_value(out)
            self._end_call(out)

    def _close(self, out: list[Event]) -> None:
        if self._state is _TAG and self._tag_state is _TEXT:
            self._give_back(NS + self._tag, out)
        else:
            self._end_open(out)  # cut off: keep what arrived
        self._state = _TEXT


def _stringify(value: Any) -> str:
    """A value as M3 writes it: objects and arrays as elements, strings raw."""
    if isinstance(value, dict):
        return "".join(f"{NS}<{k}>{_stringify(v)}{NS}</{k}>" for k, v in value.items())
    if isinstance(value, list):
        return "".join(f"{NS}<item>{_stringify(v)}{NS}</item>" for v in value)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    invokes = "".join(
        f'{NS}<{INVOKE} name="{name}">{_stringify(json.loads(arguments))}{NS}</{INVOKE}>\n'
        for name, arguments in calls
    )
    return f"{OPEN}\n{invokes}{CLOSE}"


FORMAT = register(
    Format(
        "minimax_m3",
        MinimaxM3Parser,
        family="minimax",
        model_names=(NameRule(("minimax*m3",), VENDOR_LINE),),
        sniff_markers=(OPEN,),
        stray_tokens=(THINK_CLOSE,),
        write_calls=write_calls,
        markup_pieces=(
            NS,
            OPEN,
            CLOSE,
            f'{NS}<invoke name="bash">',
            f"{NS}</invoke>",
            f"{NS}<command>",
            f"{NS}</command>",
            f"{NS}<days>",
            f"{NS}</days>",
            f"{NS}<item>",
            f"{NS}</item>",
            f"{NS} <x>",
            THINK_OPEN,
            THINK_CLOSE,
            "]<]mini",
        ),
    )
)
