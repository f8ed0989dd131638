"""Olmo 3 tool calls: pythonic calls, one per line, in ``<function_calls>`` (``provider="olmo3"``).

    <function_calls>get_weather(city="Paris", units=null)
    get_time()</function_calls>

The calls are Python calls with literal keyword arguments, read as ``pythonic`` reads them, with
two differences: they stand one per line between ``<function_calls>`` and ``</function_calls>``
(no brackets, no commas needed), and ``null``, ``true`` and ``false`` are values too (Olmo's
system prompt describes the tools in JSON). The tag says it holds calls, so any name is one.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..events import Event
from .descriptor import VENDOR, Format, NameRule, register
from .driver import marker_tables
from .pythonic import TEXT, PythonicParser, State, python_call

FUNCTION_CALLS = "<function_calls>"
FUNCTION_CALLS_END = "</function_calls>"

_SEARCH, _STRAYS = marker_tables(State, {TEXT: (FUNCTION_CALLS,)})


class Olmo3Parser(PythonicParser):
    TRIGGERS = "<"
    _searches = _SEARCH
    _strays = _STRAYS
    LIST_CLOSE = FUNCTION_CALLS_END
    AFTER_CLOSE = None
    SPACE_SEPARATES = True
    JSON_LITERALS = True

    def _marker(self, marker: str, out: list[Event]) -> None:  # <function_calls>, in TEXT
        self._open_list(marker, tagged=True)


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    lines = "\n".join(python_call(name, arguments) for name, arguments in calls)
    return f"{FUNCTION_CALLS}{lines}{FUNCTION_CALLS_END}"


FORMAT = register(
    Format(
        "olmo3",
        Olmo3Parser,
        family="olmo",
        model_names=(NameRule(("olmo-3", "olmo3", "olmo_3"), VENDOR),),
        # The Think models' template opens the <think> block.
        thinking_opened=("olmo-3*think", "olmo3*think", "olmo_3*think"),
        write_calls=write_calls,
        markup_pieces=(
            FUNCTION_CALLS,
            FUNCTION_CALLS_END,
            "bash(",
            "get_time()",
            "command='ls -la'",
            "days=null",
            "\n",
            ", ",
            "x=b'z'",
            ")",
            "true",
        ),
    )
)
