"""LFM2 tool calls: pythonic calls between special tokens (``provider="lfm2"``).

    Checking.<|tool_call_start|>[get_weather(city="Paris"), get_time()]<|tool_call_end|>

Liquid AI's LFM2 and LFM2.5 write a Python list of calls with literal keyword arguments,
read as ``pythonic`` reads Llama 4's, between ``<|tool_call_start|>`` and ``<|tool_call_end|>``
(special tokens: the server must keep them). The tokens say the list holds calls, so any name
is one. Asked for JSON in its system prompt, LFM2 writes a JSON list of call objects between the
same tokens instead: that list is not read as calls (it stays the model's text; the tokens
are dropped and counted).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..events import Event
from .descriptor import VENDOR, Format, NameRule, register
from .driver import marker_tables
from .pythonic import TEXT, PythonicParser, State, python_value

TOOL_CALL_START = "<|tool_call_start|>"
TOOL_CALL_END = "<|tool_call_end|>"

_SEARCH, _STRAYS = marker_tables(State, {TEXT: (TOOL_CALL_START,)}, strays={TEXT: (TOOL_CALL_END,)})
_OPENED = State.OPENED


class Lfm2Parser(PythonicParser):
    TRIGGERS = "<"
    _searches = _SEARCH
    _strays = _STRAYS
    AFTER_CLOSE = TOOL_CALL_END
    START_TOKEN = TOOL_CALL_START

    def _marker(self, marker: str, out: list[Event]) -> None:  # <|tool_call_start|>, in TEXT
        self._open_list(marker, tagged=True)
        self._state = _OPENED


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    body = ", ".join(
        f"{name}("
        + ", ".join(f"{k}={python_value(v)}" for k, v in json.loads(arguments).items())
        + ")"
        for name, arguments in calls
    )
    return f"{TOOL_CALL_START}[{body}]{TOOL_CALL_END}"


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
            "days=3",
            "x=b'z'",
            ")",
            "True",
        ),
    )
)
