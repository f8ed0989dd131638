"""The policy for calls to tools the request did not offer, applied to any parser's events.

``forward`` (the default) passes them on like any call; ``drop`` removes them; ``text`` turns
each into model text, rendered as ``{"name": ..., "arguments": ...}`` (the original markup is
gone by then) and streamed as its arguments arrive. A request without tools has nothing to
compare names against, so every call is forwarded.

Native ``tool_calls`` get the same policy (``NativeUnknown``, which ``native_calls`` applies):
a parser wrapped here says what it is (``native_unknown``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..events import CallArgs, CallEnd, CallStart, Event, Text
from .base import ParserContext, ToolCallParser, UnknownTools
from .names import is_function_name
from .schema import json_string


class _Call(enum.Enum):
    NONE = enum.auto()  # outside a call, or inside one that passes
    DROPPED = enum.auto()
    AS_TEXT = enum.auto()


@dataclass(frozen=True, slots=True)
class NativeUnknown:
    """The policy for native calls: the names the request offered, and what becomes of a call
    to another (``drop`` or ``text``)."""

    known: frozenset[str]
    policy: UnknownTools


def call_as_text(name: str) -> str:
    """The text a call to ``name`` starts as under ``text`` (its arguments, then ``}``, or
    ``{}}`` for a call without arguments, follow)."""
    return '{"name": ' + json_string(name) + ', "arguments": '


def native_unknown(parser: object) -> NativeUnknown | None:
    """The policy for native calls of a parser that ``apply_unknown_tools`` wrapped (``None``:
    every native call is forwarded)."""
    return parser.native if isinstance(parser, UnknownToolsFilter) else None


class UnknownToolsFilter(ToolCallParser):
    """Wraps a parser and applies an unknown-tools policy to its events."""

    def __init__(
        self, parser: ToolCallParser, context: ParserContext, policy: UnknownTools | None = None
    ) -> None:
        self._parser = parser
        self._policy = policy if policy is not None else context.unknown_tools
        self._known = frozenset(tool.name for tool in context.tools)
        self._call = _Call.NONE
        self._has_arguments = False
        #: The same policy for the choice's native calls.
        self.native = (
            None
            if self._policy == "forward" or not self._known
            else NativeUnknown(self._known, self._policy)
        )

    # What the rewriter asks of a parser is the wrapped parser's.
    @property
    def id_style(self) -> str | None:
        return self._parser.id_style

    @property
    def held(self) -> int:
        return self._parser.held

    @property
    def held_arguments(self) -> int:
        return self._parser.held_arguments

    @property
    def text_fallbacks(self) -> int:
        return self._parser.text_fallbacks

    @property
    def strays(self) -> int:
        return self._parser.strays

    @property
    def detected(self) -> str | None:
        return self._parser.detected

    def upstream_reasoning(self) -> None:
        self._parser.upstream_reasoning()

    def feed(self, text: str) -> list[Event]:
        return self._filter(self._parser.feed(text))

    def finish(self) -> list[Event]:
        return self._filter(self._parser.finish())

    def _filter(self, events: list[Event]) -> list[Event]:
        if self._policy == "forward" or not self._known:
            return events
        out: list[Event] = []
        for event in events:
            if isinstance(event, CallStart):
                self._start(event, out)
            elif self._call is _Call.NONE:
                out.append(event)
            elif self._call is _Call.AS_TEXT:
                self._as_text(event, out)
            elif isinstance(event, CallEnd):
                self._call = _Call.NONE
        return out

    def _start(self, event: CallStart, out: list[Event]) -> None:
        # A call that names no function goes on: the rewriter resolves it against the tools.
        if event.name in self._known or not is_function_name(event.name):
            self._call = _Call.NONE
            out.append(event)
        elif self._policy == "drop":
            self._call = _Call.DROPPED
        else:
            self._call = _Call.AS_TEXT
            self._has_arguments = False
            out.append(Text(call_as_text(event.name)))

    def _as_text(self, event: Event, out: list[Event]) -> None:
        if isinstance(event, CallArgs):
            self._has_arguments = True
            out.append(Text(event.fragment))
        elif isinstance(event, CallEnd):
            out.append(Text("}" if self._has_arguments else "{}}"))
            self._call = _Call.NONE
        else:  # parsers never put text inside a call; keep it anyway
            out.append(event)


def apply_unknown_tools(parser: ToolCallParser, context: ParserContext) -> ToolCallParser:
    """``parser`` with the context's unknown-tools policy applied (itself for ``forward``)."""
    if context.unknown_tools == "forward" or not context.tools:
        return parser
    return UnknownToolsFilter(parser, context)
