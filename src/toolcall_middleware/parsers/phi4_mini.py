"""Phi-4-mini tool calls: a JSON list after the word ``functools`` (``provider="phi4_mini"``).

    functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, {"name": "get_time",
    "arguments": {}}]

The chat template tells the model to "prefix function calls with functools marker (no closing
marker required)": ``functools[`` opens a JSON list of call objects as ``hermes`` reads them
(``parameters`` for ``arguments``, arguments streamed as written), wherever it stands in the
reply. No Python code writes ``functools[`` (the module is not subscriptable), so the marker
is read anywhere, but only under a Phi-4-mini model name: its first character is ``f``, which
plain text holds often, so the format's ``TRIGGERS`` cost the stream's fast path on every delta
with an ``f`` in it, a cost only the streams the name sends here pay (see docs/formats.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..events import Event
from .base import MarkerSearch
from .descriptor import VENDOR, Format, NameRule, register
from .driver import search_table
from .jsonlist import TEXT, JsonListParser, State

OPEN = "functools["

_SEARCH = search_table(State, {TEXT: MarkerSearch((OPEN,))})


class Phi4MiniParser(JsonListParser):
    TRIGGERS = "f"
    _searches = _SEARCH

    def _marker(self, marker: str, out: list[Event]) -> None:  # functools[, in TEXT
        self._open(marker, tagged=True, bracketed=True)


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    entries = ", ".join(
        f'{{"name": {json.dumps(name)}, "arguments": {arguments}}}' for name, arguments in calls
    )
    return f"{OPEN}{entries}]"


FORMAT = register(
    Format(
        "phi4_mini",
        Phi4MiniParser,
        family="phi",
        model_names=(NameRule(("phi-4-mini", "phi4-mini", "phi-4-multimodal"), VENDOR),),
        write_calls=write_calls,
        markup_pieces=(
            OPEN,
            "functools",
            "func",
            '{"name": "bash"',
            ', "arguments": ',
            '{"a": [1, "]"]}',
            '"parameters": {}',
            '"junk"',
            "]",
            ", ",
        ),
    )
)
