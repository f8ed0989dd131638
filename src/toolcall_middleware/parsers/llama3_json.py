"""Llama 3.x JSON tool calls (``provider="llama3_json"``).

    <|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "f",
    "arguments": {}}

A JSON object (optionally after ``<|python_tag|>``) with a ``name`` and ``parameters`` or
``arguments`` is a call; several are separated by ``;``. Any other object is the model's text:
it is held until it is known not to be a call (it ends, or shows it is not JSON), then delivered
unchanged. Arguments stream as the model writes them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..events import Event, Text
from .base import ParserContext
from .descriptor import BASE, Format, NameRule, register
from .driver import marker_tables
from .jsoncall import OPENED, TEXT, JsonCallParser, State

PYTHON_TAG = "<|python_tag|>"
SEPARATOR = ";"
#: The ends of a turn: Llama 3.1 ends a <|python_tag|> call with <|eom_id|>.
END_TOKENS = ("<|eom_id|>", "<|eot_id|>")

_SEARCH, _STRAYS = marker_tables(State, {TEXT: (PYTHON_TAG, "{")}, strays={TEXT: END_TOKENS})


class Llama3JsonParser(JsonCallParser):
    TRIGGERS = "<{"
    NEEDS_ARGUMENTS = True
    _searches = _SEARCH
    _strays = _STRAYS

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context, SEPARATOR)

    def _marker(self, marker: str, out: list[Event]) -> None:  # in TEXT
        if marker == PYTHON_TAG:
            self._opening = marker
            self._state = OPENED
        else:  # "{": maybe a call object, which the brace begins
            self._start_object("")
            self._object.feed(marker, 0, out)

    def _closed(self, closing: str) -> None:
        if closing == SEPARATOR:  # another call object may follow
            self._opening = SEPARATOR
            self._state = OPENED
        else:
            self._state = TEXT

    def _not_a_call(self, out: list[Event]) -> None:
        if self._opening:  # after <|python_tag|> or ";": markup
            super()._not_a_call(out)
        else:  # an object in the model's prose
            out.append(Text(self._object.raw))


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return PYTHON_TAG + "; ".join(
        f'{{"name": "{name}", "parameters": {arguments}}}' for name, arguments in calls
    )


FORMAT = register(
    Format(
        "llama3_json",
        Llama3JsonParser,
        family="llama",
        model_names=(NameRule(("llama",), BASE),),
        sniff_markers=(PYTHON_TAG,),
        stray_tokens=END_TOKENS,
        write_calls=write_calls,
        markup_pieces=(
            PYTHON_TAG,
            '{"name": "bash"',
            ', "parameters": ',
            '{"a": [1, "]"]}',
            '"arguments": "{}"',
            '{"name": "get_time", "arguments": {}}',
            *END_TOKENS,
        ),
    )
)
