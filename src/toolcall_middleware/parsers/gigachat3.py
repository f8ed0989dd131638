"""GigaChat 3 and 3.1 tool calls (``provider="gigachat3"``).

    GigaChat 3:   text<|message_sep|>\\n\\nfunction call<|role_sep|>\\n{"name": "f", …}
    GigaChat 3.1: text<|function_call|>{"name": "f", "arguments": {"a": 1}}

A JSON call object after the function-call header, which GigaChat 3 writes as a message of its
own (a message separator, then the role ``function call``). The arguments stream as written;
the end-of-sequence ``</s>`` straight after a call is framing. Anywhere else it is text: it
spells HTML's strikethrough tag too.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..events import Event
from .base import ParserContext
from .descriptor import VENDOR, Format, NameRule, register
from .driver import marker_tables
from .jsoncall import OPENED, TEXT, JsonCallParser, State

MESSAGE_SEP = "<|message_sep|>\n\n"
ROLE_SEP = "<|role_sep|>\n"
#: GigaChat 3's header: a new message whose role is "function call".
V3_HEADER = f"{MESSAGE_SEP}function call{ROLE_SEP}"
#: GigaChat 3.1's header, one special token.
V31_HEADER = "<|function_call|>"
EOS = "</s>"

_SEARCH, _STRAYS = marker_tables(State, {TEXT: (V3_HEADER, V31_HEADER)})


class GigaChat3Parser(JsonCallParser):
    TRIGGERS = "<"
    _searches = _SEARCH
    _strays = _STRAYS

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context, EOS)

    def _marker(self, marker: str, out: list[Event]) -> None:  # a header, in TEXT
        self._opening = marker
        self._state = OPENED


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    """Calls as GigaChat 3.1 writes them."""
    return "".join(
        f'{V31_HEADER}{{"name": "{name}", "arguments": {arguments}}}' for name, arguments in calls
    )


FORMAT = register(
    Format(
        "gigachat3",
        GigaChat3Parser,
        family="gigachat",
        model_names=(NameRule(("gigachat3", "gigachat-3"), VENDOR),),
        sniff_markers=(V3_HEADER, V31_HEADER),
        write_calls=write_calls,
        markup_pieces=(
            V3_HEADER,
            V31_HEADER,
            MESSAGE_SEP,
            EOS,
            '{"name": "bash"',
            ', "arguments": ',
            '{"a": "x"}',
            '"{\\"b\\": 1}"',
            "function call",
        ),
    )
)
