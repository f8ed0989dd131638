"""InternLM2 / InternLM2.5 / InternLM3 tool calls (``provider="internlm"``).

    Let me check.<|action_start|><|plugin|>
    {"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>   (one line)

A call is a JSON object, as Hermes writes it (``parameters`` or ``arguments``), after the two
special tokens ``<|action_start|><|plugin|>`` and before ``<|action_end|>``. Arguments stream
as the model writes them. ``<|action_start|><|interpreter|>`` opens code for InternLM's code
interpreter, not a call: it is the model's text.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..events import Event
from .base import ParserContext
from .descriptor import VENDOR, Format, NameRule, register
from .driver import marker_tables
from .jsoncall import OPENED, TEXT, JsonCallParser, State

ACTION_START = "<|action_start|>"
PLUGIN = "<|plugin|>"
OPEN = ACTION_START + PLUGIN
CLOSE = "<|action_end|>"

# An <|action_end|> with no call before it is a stray.
_SEARCH, _STRAYS = marker_tables(State, {TEXT: (OPEN,)}, strays={TEXT: (CLOSE,)})


class InternLMParser(JsonCallParser):
    TRIGGERS = "<"
    REPEATED_CLOSE_IS_STRAY = True
    _searches = _SEARCH
    _strays = _STRAYS

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context, CLOSE)

    def _marker(self, marker: str, out: list[Event]) -> None:  # OPEN, in TEXT
        self._opening = marker
        self._state = OPENED


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return "".join(
        f'{OPEN}{{"name": "{name}", "parameters": {arguments}}}{CLOSE}' for name, arguments in calls
    )


FORMAT = register(
    Format(
        "internlm",
        InternLMParser,
        family="internlm",
        model_names=(NameRule(("internlm",), VENDOR),),
        sniff_markers=(OPEN,),
        stray_tokens=(CLOSE,),
        write_calls=write_calls,
        markup_pieces=(
            OPEN,
            CLOSE,
            ACTION_START,
            PLUGIN,
            "<|interpreter|>",
            '{"name": "bash"',
            ', "parameters": ',
            '{"a": [1, "}"]}',
            '"arguments": {}',
        ),
    )
)
