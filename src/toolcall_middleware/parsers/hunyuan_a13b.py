"""Hunyuan-A13B and Jamba calls: a JSON list in ``<tool_calls>`` (``provider="hunyuan_a13b"``).

    I will call the tool now. <tool_calls>[{"name": "get_weather", "arguments": {"city":
    "Boston"}}]</tool_calls>

Tencent's Hunyuan-A13B and AI21's Jamba write the same markup: a JSON list of call objects (as
``phi4_mini`` reads its list; each needs ``arguments``) between ``<tool_calls>`` and
``</tool_calls>`` (special tokens in Jamba's vocabulary, text in Hunyuan's). Hunyuan-A13B
writes its reply as ``<think>…</think>`` then ``<answer>…</answer>``: the think block is
reasoning (``think.py``), and the answer tags, with the line break after ``<answer>``, are
framing of the reply, dropped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..events import Event
from .descriptor import VENDOR, Format, NameRule, register
from .driver import literal_at, marker_tables
from .jsonlist import TEXT, WORD, JsonListParser, State

OPEN = "<tool_calls>"
CLOSE = "</tool_calls>"
ANSWER = "<answer>"
ANSWER_END = "</answer>"

_SEARCH, _STRAYS = marker_tables(State, {TEXT: (OPEN, ANSWER, ANSWER_END)})
_NEWLINE = ("\n",)


class HunyuanA13BParser(JsonListParser):
    TRIGGERS = "<"
    NEEDS_ARGUMENTS = True  # (the peers drop an entry without them)
    _searches = _SEARCH
    _strays = _STRAYS

    def _marker(self, marker: str, out: list[Event]) -> None:  # in TEXT
        if marker == OPEN:
            self._open(marker, tagged=True, closing=(CLOSE,))
        elif marker == ANSWER:  # framing, and the line break after it
            self._state = WORD

    def _read_word(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        newline = literal_at(buf, pos, _NEWLINE, final)
        if newline is None:
            return None
        self._state = TEXT
        return pos + len(newline)


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    entries = ", ".join(
        f'{{"name": {json.dumps(name)}, "arguments": {arguments}}}' for name, arguments in calls
    )
    return f"{OPEN}[{entries}]{CLOSE}"


FORMAT = register(
    Format(
        "hunyuan_a13b",
        HunyuanA13BParser,
        family="hunyuan",
        model_names=(NameRule(("hunyuan", "jamba"), VENDOR),),
        # The list after the tag: a plain-text tag alone would be too common a word to sniff.
        sniff_markers=(OPEN + "[",),
        write_calls=write_calls,
        markup_pieces=(
            OPEN,
            CLOSE,
            ANSWER,
            ANSWER_END,
            "<tool_",
            "[",
            "]",
            '{"name": "bash"',
            ', "arguments": ',
            '{"a": [1, "]"]}',
            '"arguments": "{}"',
        ),
    )
)
