"""Salesforce xLAM tool calls: a bare JSON list of calls (``provider="xlam"``).

    [{"name": "get_weather", "arguments": {"city": "Dallas"}}, {"name": "get_time",
    "arguments": {}}]

xLAM's chat template asks for the calls as one JSON list and nothing else. The models also
wrap it the ways the peers accept: in a Markdown fence (```` ```json ````), after
``[TOOL_CALLS]`` or in ``<tool_call>`` … ``</tool_call>`` (a single call object there too).

A bare ``[`` has no marker to say it holds calls, so a list in prose is one only when its first
object names an offered tool and has arguments (``[{"name": "Alice", "age": 3}]`` is text);
``[TOOL_CALLS]`` and ``<tool_call>`` take any name. The fence is framing of a list of calls,
and text around it otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..events import Event
from .base import ParserContext
from .descriptor import FINE_TUNE, Format, NameRule, register
from .driver import literal_at, marker_tables
from .jsonlist import TEXT, WORD, JsonListParser, State

LIST_OPEN = "["
TOOL_CALLS = "[TOOL_CALLS]"
TOOL_CALL = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
FENCE = "```"

_SEARCH, _STRAYS = marker_tables(State, {TEXT: (LIST_OPEN, TOOL_CALL, FENCE)})
# What the words after "[" and after a fence may be.
_AFTER_BRACKET = (TOOL_CALLS[1:],)
_FENCE_LANGUAGE = ("json",)


class XlamParser(JsonListParser):
    TRIGGERS = "<[`"
    NEEDS_ARGUMENTS = True  # (the peers drop an entry without them)
    _searches = _SEARCH
    _strays = _STRAYS

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._word = ""  # the marker whose words follow (WORD)

    def _marker(self, marker: str, out: list[Event]) -> None:  # in TEXT
        if marker == TOOL_CALL:
            self._open(marker, tagged=True, closing=(TOOL_CALL_END,), single=True)
        else:  # "[" (a list, or [TOOL_CALLS]) or a fence: the words after it tell
            self._word = marker
            self._state = WORD

    def _read_word(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        marker = self._word
        words = _AFTER_BRACKET if marker == LIST_OPEN else _FENCE_LANGUAGE
        word = literal_at(buf, pos, words, final)
        if word is None:  # more text tells
            return None
        if marker == FENCE:
            self._open(marker + word, tagged=False, closing=(FENCE,))
        elif word:
            self._open(TOOL_CALLS, tagged=True, single=True)
        else:
            self._open(marker, tagged=False, bracketed=True)
        return pos + len(word)

    def _held_markup(self) -> int:
        return len(self._word) if self._state is WORD else super()._held_markup()

    def _close(self, out: list[Event]) -> None:
        if self._state is WORD:
            self._give_back(self._word, out)
            self._state = TEXT
        super()._close(out)


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    entries = ", ".join(
        f'{{"name": {json.dumps(name)}, "arguments": {arguments}}}' for name, arguments in calls
    )
    return f"[{entries}]"


FORMAT = register(
    Format(
        "xlam",
        XlamParser,
        family="xlam",
        # Before Llama and Qwen: xLAM-2 fine-tunes them (Llama-xLAM-2-8b-fc-r).
        model_names=(NameRule(("xlam",), FINE_TUNE),),
        write_calls=write_calls,
        markup_pieces=(
            LIST_OPEN,
            TOOL_CALLS,
            TOOL_CALL,
            TOOL_CALL_END,
            FENCE,
            "```json\n",
            '{"name": "bash"',
            ', "arguments": ',
            '{"a": [1, "]"]}',
            '"arguments": "{}"',
            '{"name": "Alice"}',
            "]",
            ", ",
        ),
    )
)
