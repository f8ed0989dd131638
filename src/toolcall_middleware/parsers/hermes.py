"""Hermes / Qwen2.5 / Qwen3 JSON-in-tags tool calls (``provider="hermes"``).

    text <tool_call>
    {"name": "get_weather", "arguments": {"city": "Tokyo"}}
    </tool_call>

``parameters`` is an alias of ``arguments``, which may also be a JSON string. The arguments
stream as the model writes them. ``</tool_call>`` may be missing (end of stream, or text
follows). A ``<tool_call>`` not followed by a call object is the model's text.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..events import Event
from .base import MarkerSearch, ParserContext
from .descriptor import FINE_TUNE, QWEN, VENDOR, Format, NameRule, register
from .driver import search_table
from .jsoncall import OPENED, TEXT, JsonCallParser, State

OPEN = "<tool_call>"
CLOSE = "</tool_call>"

_SEARCH = search_table(State, {TEXT: MarkerSearch((OPEN,))})


class HermesParser(JsonCallParser):
    TRIGGERS = "<"
    REPEATED_CLOSE_IS_STRAY = True
    _searches = _SEARCH
    #: The closing tag (a format with tags of its own names its own).
    CLOSE = CLOSE

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context, self.CLOSE)

    def _marker(self, marker: str, out: list[Event]) -> None:  # <tool_call>, in TEXT
        self._opening = marker
        self._state = OPENED


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return "\n".join(
        f'{OPEN}\n{{"name": "{name}", "arguments": {arguments}}}\n{CLOSE}'
        for name, arguments in calls
    )


FORMAT = register(
    Format(
        "hermes",
        HermesParser,
        family="qwen",
        model_names=(
            NameRule(("hermes",), FINE_TUNE),
            NameRule(("qwen", "qwq"), QWEN),
            # IBM Granite 4 and Baidu ERNIE 4.5 write Hermes' calls (Granite 3 did not).
            NameRule(("granite-4", "granite4", "ernie-4.5", "ernie4.5", "ernie-4_5"), VENDOR),
        ),
        # Hybrid Qwen3 and Hermes 4 write <think> themselves; QwQ, the Qwen3 Thinking models,
        # DeepSeek's R1 distills of Qwen (a Qwen by name) and ERNIE 4.5 Thinking have it opened
        # by their template.
        thinking_opened=("qwq", "qwen3*thinking", "deepseek-r1", "ernie*thinking"),
        write_calls=write_calls,
        markup_pieces=(
            OPEN,
            CLOSE,
            "<tool_",
            '{"name": "bash"',
            ', "arguments": ',
            '{"a": "x\\"}"}',
            '"{\\"b\\": 1}"',
            '"parameters": {}',
            "\\u00e9",
            "\\ud83d",
        ),
    )
)
