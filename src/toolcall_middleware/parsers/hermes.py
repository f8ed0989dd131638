"""Hermes / Qwen2.5 / Qwen3 JSON-in-tags tool calls (``provider="hermes"``).

    text <tool_call>
    {"name": "get_weather", "arguments": {"city": "Tokyo"}}
    </tool_call>

``parameters`` is an alias of ``arguments``, which may also be a JSON string. The arguments
stream as the model writes them. ``</tool_call>`` may be missing (end of stream, or text
follows). A ``<tool_call>`` not followed by a call object is the model's text.
"""

from __future__ import annotations

from ..events import Event
from . import register
from .base import MarkerSearch, ParserContext
from .driver import search_table
from .jsoncall import OPENED, TEXT, JsonCallParser, State

OPEN = "<tool_call>"
CLOSE = "</tool_call>"

_SEARCH = search_table(State, {TEXT: MarkerSearch((OPEN,))})


@register("hermes")
class HermesParser(JsonCallParser):
    TRIGGERS = "<"
    _searches = _SEARCH

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context, CLOSE)

    def _marker(self, marker: str, out: list[Event]) -> None:  # <tool_call>, in TEXT
        self._opening = marker
        self._state = OPENED
