"""DeepSeek V3.2 DSML tool calls (``provider="deepseek_v32"``).

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Hangzhou</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

The grammar, and the one reader of every DSML version, is ``dsml``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .descriptor import DEEPSEEK_LINE, THINKING, Format, NameRule, register
from .dsml import CLOSES, DSML, INVOKE_ENDS, MARKUP_PIECES, PARAMETER_ENDS, V32_BLOCK, DsmlParser
from .dsml import write_dsml as _write_dsml

OPEN = f"<{DSML}{V32_BLOCK}>"


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    return _write_dsml(calls, V32_BLOCK)


#: V3.2's names.
_NAMES = ("deepseek*v3.2", "deepseek*v3_2", "deepseek*v3p2", "deepseek*v32")

FORMAT = register(
    Format(
        "deepseek_v32",
        DsmlParser,
        family="deepseek",
        model_names=(NameRule(_NAMES, DEEPSEEK_LINE),),
        # Its template opens the block when the request turns thinking on.
        thinking_opened_when_asked=_NAMES,
        thinking_switch=THINKING,
        sniff_markers=(OPEN,),
        stray_tokens=(*CLOSES, *INVOKE_ENDS, *PARAMETER_ENDS),
        write_calls=write_calls,
        markup_pieces=MARKUP_PIECES,
    )
)
