"""Liquid AI LFM2 tool calls: a pythonic list between special tokens (``provider="lfm2"``).

    <|tool_call_start|>[get_weather(location="Paris"), get_time()]<|tool_call_end|>
    The weather in Paris is sunny.

LFM2 and LFM2.5 write their calls as ``pythonic`` lists, read as that format reads them, between
``<|tool_call_start|>`` and ``<|tool_call_end|>`` (special tokens: a server that drops them
leaves the bare list, read by its shape when its first call names an offered tool). Two
differences: ``null``, ``true`` and ``false`` are values too (the template lists the tools in
JSON), and an element of the tagged list may be a JSON call object
(``{"name": …, "arguments": {…}}``), which the models also write.

The models sometimes write the block a second time after its end token, capped by another end
token: a bare list whose calls repeat, in order, the calls of the block just made is that echo,
dropped (counted as strays), whatever names it holds.

A call that does not convert as written is repaired when the mistake leaves no doubt what the
model meant (``pycall.repaired_arguments``: raw line breaks in a string, ``month=07``, a set for
a list, one string's unescaped quotes); anything else stays text, as under ``pythonic``.

The end token is a special token: a model never means it inside a string. A string its quotes
left open (``command='echo it's ok'``) would hold it and the rest of the stream, so in a tagged
block the end token met inside a string ends the block when the call's text before it ends in
``)]`` and a repair reads that call; otherwise the token is read as written, in the string. No
repair reads a call whose text holds the token (it would put the token in a value).
"""

from __future__ import annotations

import json
import re

from ..events import Event
from .base import ParserContext
from .descriptor import VENDOR, Format, NameRule, register
from .driver import marker_tables
from .pycall import repaired_arguments
from .pythonic import LIST_OPEN, TEXT, PythonicParser, State, list_writer

TOOL_CALL_START = "<|tool_call_start|>"
TOOL_CALL_END = "<|tool_call_end|>"

_SEARCH, _STRAYS = marker_tables(
    State, {TEXT: (TOOL_CALL_START, LIST_OPEN)}, strays={TEXT: (TOOL_CALL_END,)}
)
_OPENED = State.OPENED
# In a string of a call: its quote, an escape, or the end token's first character.
_STRING_STOPS = {quote: re.compile(f"[{quote}\\\\<]") for quote in "'\""}


def object_call(source: str) -> tuple[str, str] | None:
    """``(name, JSON arguments)`` of a JSON call object, or ``None`` when it is not one."""
    try:
        value = json.loads(source)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):  # arguments written as a JSON string
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(arguments, dict):
        return None
    return value["name"], json.dumps(arguments, ensure_ascii=False)


class Lfm2Parser(PythonicParser):
    TRIGGERS = "<["
    _searches = _SEARCH
    _strays = _STRAYS
    START_TOKEN = TOOL_CALL_START
    AFTER_CLOSE = TOOL_CALL_END
    JSON_LITERALS = True
    STRING_TOKEN = TOOL_CALL_END
    _string_stops = _STRING_STOPS

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._made: list[tuple[str, str]] = []  # the calls of the last tagged block
        self._echo = 0  # in a bare list: how many of them it repeated so far

    def _marker(self, marker: str, out: list[Event]) -> None:  # in TEXT
        tagged = marker == TOOL_CALL_START
        self._open_list(marker, tagged)
        if tagged:
            self._made = []
            self._state = _OPENED
        self._echo = 0

    def _shortcut(self, text: str) -> list[Event] | None:
        # Not in a string where the end token may start (``_token_at``).
        if self._quote and "<" in text:
            return None
        return super()._shortcut(text)

    def _token_in_string(self, at: int, out: list[Event]) -> int:
        # The end token in a call's string: the block ends here if the call's text, up to the
        # list's "]" before the token, is a call a repair reads (as written, the string is
        # still open). Otherwise the token is part of the string, as written.
        source = "".join(self._source)
        call = source.rstrip()
        if call[-1:] == "]":
            call = call[:-1].rstrip()
            converted = self._convert(call) if call[-1:] == ")" else None
            if converted is not None:
                self._source = []
                self._quote = ""
                self._emit_call(call, converted, out)
                self._list_closed(out)
                return at  # the end token, read after the list
        self._source = [source, TOOL_CALL_END]
        return at + len(TOOL_CALL_END)

    def _accepts(self, name: str) -> bool:
        made = self._made
        return name in self._names or (self._echo < len(made) and made[self._echo][0] == name)

    def _element(self, buf: str, start: int, out: list[Event], final: bool) -> int | None:
        if self._tagged and buf[start] == "{":  # a JSON call object
            self._begin_call("{")
            return start + 1
        return super()._element(buf, start, out, final)

    def _convert(self, source: str) -> tuple[str, str] | None:
        if source[:1] == "{":
            return object_call(source)
        converted = super()._convert(source)
        if converted is None and TOOL_CALL_END not in source:  # (never in a repaired value)
            return repaired_arguments(source)
        return converted

    def _emit_call(self, source: str, converted: tuple[str, str] | None, out: list[Event]) -> None:
        if converted is not None:
            made = self._made
            if self._tagged:
                made.append(converted)
            elif self._echo < len(made) and made[self._echo] == converted:
                self._echo += 1  # the block written again: its calls were made
                self._dropped += 1
                self._commit(out)
                return
            else:
                self._echo = len(made)  # no echo: what follows is the model's own
                if converted[0] not in self._names:
                    converted = None  # a bare list names offered tools only
        super()._emit_call(source, converted, out)


write_calls = list_writer(TOOL_CALL_START, TOOL_CALL_END)


FORMAT = register(
    Format(
        "lfm2",
        Lfm2Parser,
        family="lfm",
        model_names=(NameRule(("lfm2", "lfm-2", "lfm_2"), VENDOR),),
        sniff_markers=(TOOL_CALL_START,),
        stray_tokens=(TOOL_CALL_END,),
        write_calls=write_calls,
        markup_pieces=(
            TOOL_CALL_START,
            TOOL_CALL_END,
            "[",
            "]",
            "bash(",
            "get_time()",
            "command='ls -la'",
            'command="a\\"b"',
            ", ",
            "days=null",
            '{"name": "bash", "arguments": {"a": "]"}}',
            "x=b'z'",
            ")",
            "true",
        ),
    )
)
