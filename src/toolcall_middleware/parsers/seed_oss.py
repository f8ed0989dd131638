"""ByteDance Seed-OSS tool calls (``provider="seed_oss"``).

    <seed:think>The user wants the weather…</seed:think>
    <seed:tool_call>
    <function=get_weather>
    <parameter=location>Barcelona, Spain</parameter>
    </function>
    </seed:tool_call>

Qwen3-Coder's XML (``qwen3_coder``: values typed by the schema, strings streamed) inside Seed's
own ``<seed:tool_call>`` tags. ``<seed:think>…</seed:think>`` is reasoning, budget notes
(``<seed:cot_budget_reflect>``) and all: markup quoted in it is not a call. The whitespace right
after either think tag is framing. Seed's tags are special tokens: a closing one with nothing
open is a stray.
"""

from __future__ import annotations

from collections.abc import Sequence

from .descriptor import VENDOR, Format, NameRule, raw_values, register
from .qwen3_coder import (
    FUNCTION,
    FUNCTION_END,
    PARAMETER,
    PARAMETER_END,
    Qwen3CoderParser,
    State,
    search_tables,
)

OPEN = "<seed:tool_call>"
CLOSE = "</seed:tool_call>"
THINK_OPEN = "<seed:think>"
THINK_CLOSE = "</seed:think>"

_SEARCH, _STRAYS = search_tables(
    OPEN,
    CLOSE,
    think=(THINK_OPEN, THINK_CLOSE),
    strays={State.TEXT: (CLOSE, THINK_CLOSE), State.BODY: (THINK_OPEN, THINK_CLOSE)},
)


class SeedOssParser(Qwen3CoderParser):
    _searches = _SEARCH
    _strays = _STRAYS
    OPEN, CLOSE = OPEN, CLOSE
    THINK_OPEN, THINK_CLOSE = THINK_OPEN, THINK_CLOSE


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return "\n".join(
        f"{OPEN}\n{FUNCTION}{name}>\n"
        + "".join(
            f"{PARAMETER}{key}>{value}{PARAMETER_END}\n" for key, value in raw_values(arguments)
        )
        + f"{FUNCTION_END}\n{CLOSE}"
        for name, arguments in calls
    )


FORMAT = register(
    Format(
        "seed_oss",
        SeedOssParser,
        family="seed",
        model_names=(NameRule(("seed-oss", "seed_oss"), VENDOR),),
        sniff_markers=(OPEN, THINK_OPEN),
        stray_tokens=(CLOSE, THINK_CLOSE),
        write_calls=write_calls,
        markup_pieces=(
            OPEN,
            CLOSE,
            THINK_OPEN,
            THINK_CLOSE,
            "<seed:cot_budget_reflect>",
            "<function=bash>",
            FUNCTION,
            FUNCTION_END,
            "<parameter=command>",
            "<parameter=days>",
            PARAMETER_END,
        ),
    )
)
