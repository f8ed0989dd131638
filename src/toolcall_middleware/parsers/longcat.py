"""LongCat tool calls (``provider="longcat"``): Hermes' JSON call objects in LongCat's tags.

    text <longcat_tool_call>{"name": "get_time", "arguments": {}}</longcat_tool_call>

Everything but the tags is ``hermes``: ``parameters`` for ``arguments``, arguments as an object
or a JSON string, streamed as written; a tag not followed by a call object is text.
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import MarkerSearch
from .descriptor import VENDOR, Format, NameRule, register
from .driver import search_table
from .hermes import FORMAT as HERMES
from .hermes import HermesParser
from .jsoncall import TEXT, State

OPEN = "<longcat_tool_call>"
CLOSE = "</longcat_tool_call>"

_SEARCH = search_table(State, {TEXT: MarkerSearch((OPEN,))})


class LongcatParser(HermesParser):
    _searches = _SEARCH
    CLOSE = CLOSE


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return "\n".join(
        f'{OPEN}{{"name": "{name}", "arguments": {arguments}}}{CLOSE}' for name, arguments in calls
    )


FORMAT = register(
    Format(
        "longcat",
        LongcatParser,
        family="longcat",
        model_names=(NameRule(("longcat",), VENDOR),),
        sniff_markers=(OPEN,),
        write_calls=write_calls,
        markup_pieces=(
            OPEN,
            CLOSE,
            "<longcat_",
            *(p for p in HERMES.markup_pieces if "tool_" not in p),
        ),
    )
)
