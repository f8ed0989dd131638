"""Kimi K3 channel markup (``provider="kimi_k3"``).

    <|open|>response<|sep|>Let me look.<|close|>response<|sep|>
    <|open|>tools<|sep|>
    <|open|>call tool="bash" index="1"<|sep|>
    <|open|>argument key="command" type="string"<|sep|>ls -la<|close|>argument<|sep|>
    <|close|>call<|sep|>
    <|close|>tools<|sep|><|close|>message<|sep|>

A turn is made of channels, each opened by ``<|open|>NAME<|sep|>`` and closed by
``<|close|>NAME<|sep|>`` (three special tokens and the name between them). The ``response``
channel is the reply: its text is content, its wrappers and the turn's closing
``<|close|>message<|sep|>`` are framing. The ``tools`` channel holds calls; a call's ``index``
counts from 1 in each message and is not an id, so calls get ids of the usual form. An
``argument``'s ``type`` says what its value is: ``string`` values are the raw text, streamed as it
arrives; any other type is JSON, held until the argument closes (text that is not JSON stays a
string); without a ``type``, the tool's schema decides. Attribute values are XML-escaped.

The ``think`` channel is reasoning (``Reasoning`` events, which go to the reasoning fields). K3
thinks by default and its chat template opens that channel, so the text starts inside it and only
its close appears, unless the request turned thinking off (``ParserContext.thinking_opened``)
or the upstream splits reasoning into its own fields; the response or the tools channel opening
ends it too.

Markers are read token by token: an ``<|open|>`` or ``<|close|>`` whose header does not turn out to
be a channel's (``<|open|>call, then``) loses the token, which is never text, and its text is the
model's again; one cut off by the end of the stream was markup, and is dropped.
"""

from __future__ import annotations

import enum
import html
import json
import re
from collections.abc import Sequence

from ..events import CALL_END, CallArgs, CallStart, Event, Reasoning, Text
from .base import ParserContext
from .descriptor import KIMI, KIMI_LINE, Format, NameRule, register
from .driver import StreamParser, marker_tables
from .jsonscan import DelimitedArguments
from .schema import STRING, json_type
from .xmlargs import ArgumentsWriter

OPEN = "<|open|>"
CLOSE = "<|close|>"
SEP = "<|sep|>"
THINK_OPEN = "<|open|>think<|sep|>"
THINK_CLOSE = "<|close|>think<|sep|>"
RESPONSE_OPEN = "<|open|>response<|sep|>"
RESPONSE_CLOSE = "<|close|>response<|sep|>"
TOOLS_OPEN = "<|open|>tools<|sep|>"
TOOLS_CLOSE = "<|close|>tools<|sep|>"
MESSAGE_CLOSE = "<|close|>message<|sep|>"
CALL_OPEN = "<|open|>call"
CALL_CLOSE = "<|close|>call<|sep|>"
ARGUMENT_OPEN = "<|open|>argument"
ARGUMENT_CLOSE = "<|close|>argument<|sep|>"

#: Channel names, and those whose header carries attributes.
_CHANNELS = ("think", "response", "tools", "message", "call", "argument", "json")
_WITH_ATTRIBUTES = frozenset({"call", "argument", "json"})
_NAME = re.compile(r"\s*([a-z]*)")
_ATTRIBUTES = re.compile(r'(?:\s+[\w-]+="[^"]*")*\s*')
_ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')


def _prefix_pattern() -> re.Pattern[str]:
    """What a header may be while it is still cut short: a channel name or a part of one, or
    a name whose attributes, the last perhaps in part, follow it."""
    parts = sorted({c[:i] for c in _CHANNELS for i in range(len(c))}, key=len, reverse=True)
    bare = "|".join(c for c in _CHANNELS if c not in _WITH_ATTRIBUTES)
    attributed = "|".join(sorted(_WITH_ATTRIBUTES))
    return re.compile(
        rf"\s*(?:(?:{bare})\s*|(?:{attributed})"
        r'(?:\s+[\w-]+="[^"]*")*(?:\s+(?:[\w-]+(?:=(?:"[^"]*)?)?)?)?\s*'
        rf"|(?:{'|'.join(parts)}))"
    )


_PREFIX = _prefix_pattern()


class _State(enum.IntEnum):
    TEXT = 0  # plain text, or the response channel's
    THINK = enum.auto()  # the think channel: reasoning
    TOOLS = enum.auto()  # in the tools channel, between calls: framing
    CALL = enum.auto()  # in a call, between arguments: framing
    VALUE = enum.auto()  # an argument's value
    JSON = enum.auto()  # a call's arguments as one JSON object
    HEADER = enum.auto()  # after <|open|> or <|close|>: the name and attributes, up to <|sep|>


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _THINK, _TOOLS, _CALL, _VALUE, _JSON, _HEADER = _State

# Every state looks for the three tokens; <|sep|> outside a header is a stray.
_SEARCH, _STRAYS = marker_tables(
    _State,
    {state: (OPEN, CLOSE, SEP) if state is _HEADER else (OPEN, CLOSE) for state in _State},
    strays={state: (SEP,) for state in _State if state is not _HEADER},
)


def header_so_far(header: str) -> tuple[str, dict[str, str]] | None:
    """A header read whole: ``(name, attributes)``, or ``None`` when it is not a channel's."""
    name = _NAME.match(header)
    assert name is not None  # (it matches the empty string)
    channel = name.group(1)
    if channel not in _CHANNELS:
        return None
    rest = header[name.end() :]
    if channel not in _WITH_ATTRIBUTES:
        return (channel, {}) if not rest.strip() else None
    if _ATTRIBUTES.fullmatch(rest) is None:
        return None
    return channel, {k: html.unescape(v) for k, v in _ATTRIBUTE.findall(rest)}


def may_be_header(header: str) -> bool:
    """Whether ``header`` may still grow into a channel's header."""
    return _PREFIX.fullmatch(header) is not None


def argument_kind(declared: str | None) -> str | None:
    """The JSON type an argument's ``type`` attribute names (``None``: the schema decides).
    Any type but ``string`` is JSON; a name outside JSON Schema's reads as JSON of any kind."""
    if declared is None:
        return None
    kind = json_type(declared)
    return kind if kind != STRING or declared == STRING else "object"


class KimiK3Parser(StreamParser):
    TRIGGERS = "<"
    _searches = _SEARCH
    _strays = _STRAYS
    _SHORTCUT_STATES = (_VALUE, _THINK)

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _THINK if context.thinking_opened else _TEXT
        self._header = ""
        self._opening = True  # the header follows <|open|> (else <|close|>)
        self._after: enum.IntEnum = _TEXT  # the state the header was found in
        self._in_tools = False  # a call ends back in the tools channel (else in text)
        self._arguments = ArgumentsWriter(None)
        self._json: DelimitedArguments | None = None

    def _held_markup(self) -> int:
        return len(self._header) if self._state is _HEADER else 0

    def upstream_reasoning(self) -> None:
        """The upstream splits reasoning into its own fields (see ``ToolCallParser``): the
        think channel the template opened is its business, and its text passes as it is."""
        if self._state is _THINK:
            self._state = _TEXT

    @property
    def held_arguments(self) -> int:
        return self._arguments.held

    def _shortcut(self, text: str) -> list[Event] | None:
        # A piece of reasoning or of an argument's value: what ``_segment`` does with it,
        # without the loop.
        if self._state is _THINK:
            return [Reasoning(text)]
        out: list[Event] = []
        self._arguments.value(text, out)
        return out

    def _segment(self, segment: str, out: list[Event]) -> None:
        state = self._state
        if state is _VALUE:
            self._arguments.value(segment, out)
        elif state is _HEADER:
            self._header += segment
            if not may_be_header(self._header):
                self._not_a_header(out)
        elif state is _THINK:
            out.append(Reasoning(segment))
        elif state is _JSON:
            assert self._json is not None
            pieces: list[str] = []
            self._json.feed(segment, pieces)
            if pieces:
                out.append(CallArgs("".join(pieces)))
        # TOOLS, CALL: framing between the elements.

    def _marker(self, marker: str, out: list[Event]) -> None:
        state = self._state
        if state is _HEADER:
            if marker == SEP:
                self._state = self._after
                self._header_read(out)
                return
            self._not_a_header(out)  # another token before <|sep|>: this header was none
            state = self._state
        self._opening = marker == OPEN
        self._after = state
        self._header = ""
        self._state = _HEADER

    def _not_a_header(self, out: list[Event]) -> None:
        """The token's header turned out not to be one: the token (never text) is dropped,
        and the text after it is the state's again."""
        header, self._header = self._header, ""
        self._dropped += 1
        self._state = self._after
        if not header:
            return
        if self._state is _TEXT:
            out.append(Text(header))
        else:
            self._segment(header, out)

    def _header_read(self, out: list[Event]) -> None:
        header = header_so_far(self._header)
        if header is None:
            self._not_a_header(out)
            return
        self._header = ""
        name, attributes = header
        if self._opening:
            self._open(name, attributes, out)
        else:
            self._close_channel(name, out)

    def _open(self, name: str, attributes: dict[str, str], out: list[Event]) -> None:
        state = self._state
        if name == "argument" or name == "json":
            if state is _VALUE or state is _JSON:
                self._end_value(out)
            elif state is not _CALL:  # outside a call: a stray
                self._dropped += 1
                return
            if name == "json":
                self._json = DelimitedArguments()
                self._state = _JSON
            else:
                kind = argument_kind(attributes.get("type"))
                self._arguments.open(attributes.get("key", ""), out, kind, verbatim=True)
                self._state = _VALUE
        elif name == "call":
            if state is _THINK:
                self._state = _TEXT
            elif state is not _TEXT and state is not _TOOLS:  # the call before never closed
                self._end_call(out)
            self._in_tools = self._state is _TOOLS
            tool = attributes.get("tool", "")
            out.append(CallStart(tool))
            self._arguments = ArgumentsWriter(self._context.tool(tool))
            self._state = _CALL
        else:
            self._leave_tools(out)
            if name == "tools":
                self._state = _TOOLS
            elif name == "think":
                self._state = _THINK
            # response: its wrapper is framing.

    def _close_channel(self, name: str, out: list[Event]) -> None:
        state = self._state
        if name == "argument" or name == "json":
            if state is _VALUE or state is _JSON:
                self._end_value(out)
                self._state = _CALL
            else:
                self._dropped += 1
        elif name == "call":
            if state is _CALL or state is _VALUE or state is _JSON:
                self._end_call(out)
            else:
                self._dropped += 1
        elif name == "think":
            if state is _THINK:
                self._state = _TEXT
            else:  # the close of a channel that is not open
                self._dropped += 1
        elif name == "tools":
            if state is _TEXT or state is _THINK:
                self._dropped += 1
            self._leave_tools(out)
        else:
            self._leave_tools(out)
            # response, message: framing.

    def _leave_tools(self, out: list[Event]) -> None:
        """Back to text: a call still open ends, the tools (or think) channel with it."""
        if self._state not in (_TEXT, _THINK, _TOOLS):
            self._end_call(out)
        self._state = _TEXT
        self._in_tools = False

    def _end_value(self, out: list[Event]) -> None:
        if self._json is not None:
            pieces: list[str] = []
            self._json.finish(pieces)
            if pieces:
                out.append(CallArgs("".join(pieces)))
            self._json = None
        else:
            self._arguments.close(out)

    def _end_call(self, out: list[Event]) -> None:
        self._end_value(out)
        self._arguments.end(out)
        out.append(CALL_END)
        self._state = _TOOLS if self._in_tools else _TEXT

    def _close(self, out: list[Event]) -> None:
        if self._state is _HEADER:
            # Cut off before its <|sep|>: markup, unless it has shown it is not.
            self._dropped += 1
            self._header = ""
            self._state = self._after
        if self._state not in (_TEXT, _THINK, _TOOLS):
            self._end_call(out)  # cut off: keep what arrived
        self._state = _TEXT
        self._in_tools = False


def _attribute(value: str) -> str:
    return html.escape(value, quote=True)


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    """Calls in one tools channel, each argument typed as K3 types it."""
    body = []
    for index, (name, arguments) in enumerate(calls, 1):
        body.append(f'{CALL_OPEN} tool="{_attribute(name)}" index="{index}"{SEP}')
        for key, value in json.loads(arguments).items():
            kind = "string" if isinstance(value, str) else _k3_type(value)
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            body.append(f'{ARGUMENT_OPEN} key="{_attribute(key)}" type="{kind}"{SEP}')
            body.append(f"{text}{ARGUMENT_CLOSE}")
        body.append(CALL_CLOSE)
    return TOOLS_OPEN + "".join(body) + TOOLS_CLOSE


def _k3_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "array" if isinstance(value, list) else "object"


FORMAT = register(
    Format(
        "kimi_k3",
        KimiK3Parser,
        family="kimi",
        model_names=(
            NameRule(("kimi*k3", "moonshot*k3"), KIMI_LINE),
            NameRule(("k3",), KIMI),
        ),
        # Every channel token names K3; a lone <|sep|> is a stray wherever it is.
        sniff_markers=(OPEN, CLOSE),
        stray_tokens=(TOOLS_CLOSE, CALL_CLOSE, ARGUMENT_CLOSE, MESSAGE_CLOSE, RESPONSE_OPEN),
        # K3 thinks by default, and its chat template opens the think channel.
        thinking_opened=("k3",),
        reads_reasoning=True,
        write_calls=write_calls,
        markup_pieces=(
            OPEN,
            CLOSE,
            SEP,
            "think",
            "response",
            "tools",
            "message",
            'call tool="bash" index="1"',
            'argument key="command" type="string"',
            'argument key="days" type="number"',
            'json type="object"',
            "call",
            "argument",
            "&amp;",
            '{"a": 1}',
        ),
    )
)
