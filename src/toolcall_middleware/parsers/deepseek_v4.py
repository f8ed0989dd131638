"""DeepSeek V4 and V4.1 DSML tool calls (``provider="deepseek_v4"``).

    V4:   <｜DSML｜tool_calls>
          <｜DSML｜invoke name="get_weather">
          <｜DSML｜parameter name="city" string="true">Hangzhou</｜DSML｜parameter>
          </｜DSML｜invoke>
          </｜DSML｜tool_calls>
    V4.1: <｜DSML｜ calls> <｜DSML｜ invoke name="..."> <｜DSML｜ parameter name="..." ...>

V3.2's grammar in a block renamed ``tool_calls`` (V4.1: `` calls``, and spaced tag names). The
reader is V3.2's (``dsml``), which takes every block name: a V3.2 block under a V4 name is
still read.
"""

from __future__ import annotations

from collections.abc import Sequence

from .descriptor import DEEPSEEK_LINE, Format, NameRule, register
from .dsml import (
    CLOSES,
    DSML,
    INVOKE_ENDS,
    MARKUP_PIECES,
    PARAMETER_ENDS,
    V4_BLOCK,
    V41_BLOCK,
    DsmlParser,
)
from .dsml import write_dsml as _write_dsml

OPEN = f"<{DSML}{V4_BLOCK}>"
V41_OPEN = f"<{DSML}{V41_BLOCK}>"


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return _write_dsml(calls, V4_BLOCK)


def write_v41_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    """Calls as V4.1 writes them (spaced tag names)."""
    return _write_dsml(calls, V41_BLOCK, spaced=True)


FORMAT = register(
    Format(
        "deepseek_v4",
        DsmlParser,
        family="deepseek",
        model_names=(NameRule(("deepseek*v4",), DEEPSEEK_LINE),),
        sniff_markers=(OPEN, V41_OPEN),
        stray_tokens=(*CLOSES, *INVOKE_ENDS, *PARAMETER_ENDS),
        write_calls=write_calls,
        markup_pieces=MARKUP_PIECES,
    )
)
