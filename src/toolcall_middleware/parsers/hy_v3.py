"""Tencent Hy3 tool calls (``provider="hy_v3"``).

    <tool_calls>
    <tool_call>get_weather<tool_sep>
    <arg_key>city</arg_key>
    <arg_value>Beijing</arg_value>
    </tool_call>
    </tool_calls>

GLM-4.5's key/value markup (``glm45``: values are raw text typed by the request's schema,
strings streamed as they arrive) with ``<tool_sep>`` after the name, the calls of a turn in one
``<tool_calls>`` block. Hy3's chat template writes each value exactly between its tags: no
newline in a value is framing. A call without ``<tool_sep>`` (Hy4 writes none) is read too.

Hy3 Preview's tokenizer spells the tags as above; Hy3's appends its ``token_suffix``
(``<tool_calls:opensource>``, ``<arg_key:opensource>``…). Both spellings are read wherever they
stand. The suffixed tags are special tokens: one with no place in the text around the block is
a stray, and ``<tool_call:opensource>`` there opens a call whose block the model left out.

A ``<tool_calls>`` not followed by a call is text. After a call, whitespace then the next call
or ``</tool_calls>`` is framing; text instead ends the block (its whitespace is text). Inside a
call, ``</tool_calls>`` ends the call too, and a second ``<tool_calls>`` or a ``<tool_sep>`` out
of place is a stray.

Hy3 reasons in a ``<think>`` block (``<think:opensource>`` in Hy3's spelling) that its template
opens only when the request asks for reasoning (``reasoning_effort`` ``low`` or ``high``; the
default, ``no_think``, closes it): the reasoning split (``think.py``) reads both spellings.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..events import Event, Text
from .base import ParserContext, Tool
from .descriptor import VENDOR_LINE, Format, NameRule, raw_values, register
from .driver import literal_at, marker_tables, skip_space
from .glm45 import CLOSE, KEY, KEY_END, OPEN, VALUE, VALUE_END, Glm45Parser, State
from .xmlargs import ArgumentsWriter

#: The suffix Hy3's tokenizer (``token_suffix``) puts on every tag.
SUFFIX = ":opensource"
BLOCK_OPEN = "<tool_calls>"
BLOCK_CLOSE = "</tool_calls>"
SEP = "<tool_sep>"


def suffixed(tag: str) -> str:
    """``tag`` as Hy3's tokenizer spells it."""
    return tag[:-1] + SUFFIX + ">"


def spellings(*tags: str) -> tuple[str, ...]:
    """Each tag in both spellings."""
    return (*tags, *map(suffixed, tags))


_TAGS = (BLOCK_OPEN, BLOCK_CLOSE, OPEN, CLOSE, SEP, KEY, KEY_END, VALUE, VALUE_END)
#: Every tag as the GLM-4.5 parser and this one name it (the bare spelling).
_BARE = {suffixed(tag): tag for tag in _TAGS}
#: The special tokens with no place in the text around a block.
STRAY_TOKENS = tuple(suffixed(t) for t in _TAGS if t not in (BLOCK_OPEN, OPEN))

_TEXT, _NAME, _NAME_END, _BODY, _KEY, _KEY_DONE, _VALUE, _BLOCK = State

# Inside a call, a block tag or separator out of place is a stray, as the argument tags are.
_IN_CALL = spellings(BLOCK_OPEN, SEP)
_SEARCH, _STRAYS = marker_tables(
    State,
    {
        _TEXT: (*spellings(BLOCK_OPEN), suffixed(OPEN)),
        _BODY: spellings(KEY, CLOSE, BLOCK_CLOSE),
        _KEY: spellings(KEY_END, VALUE, CLOSE, BLOCK_CLOSE),
        _KEY_DONE: spellings(VALUE, KEY, CLOSE, BLOCK_CLOSE),
        _VALUE: spellings(VALUE_END, KEY, CLOSE, BLOCK_CLOSE),
    },
    strays={
        _TEXT: STRAY_TOKENS,
        _BODY: (*spellings(KEY_END, VALUE, VALUE_END), *_IN_CALL),
        _KEY: (*spellings(KEY, VALUE_END), *_IN_CALL),
        _KEY_DONE: (*spellings(KEY_END, VALUE_END), *_IN_CALL),
        _VALUE: (*spellings(VALUE, KEY_END), *_IN_CALL),
    },
)
#: What may follow the whitespace after a block's opening or a call in it.
_IN_BLOCK = spellings(OPEN, BLOCK_CLOSE, BLOCK_OPEN)


class Hy3Parser(Glm45Parser):
    _searches = _SEARCH
    _strays = _STRAYS
    NAME_ENDS = spellings(SEP, KEY, CLOSE)

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._opening = ""  # the block's opening tag, until a call follows it
        self._space = ""  # whitespace in the block, framing if a call or its end follows

    def _writer(self, tool: Tool | None) -> ArgumentsWriter:
        return ArgumentsWriter(tool, newline_framing=False)

    def _held_markup(self) -> int:
        if self._state is _BLOCK:
            return len(self._opening) + len(self._space)
        return super()._held_markup()

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        if self._state is not _BLOCK:
            return super()._read(buf, pos, out, final)
        start = skip_space(buf, pos)
        self._space += buf[pos:start]
        if start == len(buf):
            return start
        tag = literal_at(buf, start, _IN_BLOCK, final)
        if tag is None:
            return None if start == pos else start
        bare = _BARE.get(tag, tag)
        if bare == OPEN:
            # What came since the block opened is text again if this is not a call after all.
            self._header = self._opening + self._space + tag
            self._name = ""
            self._state = _NAME
        elif bare == BLOCK_OPEN:  # the block opened twice
            self._dropped += 1
            return start + len(tag)
        elif not tag:  # text: the block ended without its closing tag (or never opened)
            self._block_was_text(out)
        else:  # </tool_calls>: the opening and the whitespace were framing
            self._state = _TEXT
        self._opening = self._space = ""
        return start + len(tag)

    def _block_was_text(self, out: list[Event]) -> None:
        """No call, nor the block's end, follows: what the block held is text."""
        if self._opening:
            self._give_back(self._opening + self._space, out)
        elif self._space:
            out.append(Text(self._space))
        self._opening = self._space = ""
        self._state = _TEXT

    def _marker(self, marker: str, out: list[Event]) -> None:
        bare = _BARE.get(marker, marker)
        if self._state is _TEXT:
            if bare == BLOCK_OPEN:
                self._opening = marker
                self._state = _BLOCK
            else:  # <tool_call:opensource>: a call whose block the model left out
                self._header = marker
                self._name = ""
                self._state = _NAME
        elif bare == SEP:  # after the name (``_after_name`` started the call)
            self._state = _BODY
        elif bare == CLOSE:
            self._end_call(out)
            self._state = _BLOCK
        elif bare == BLOCK_CLOSE:  # the call ends with its block
            self._end_call(out)
            self._state = _TEXT
        else:
            super()._marker(bare, out)

    def _close(self, out: list[Event]) -> None:
        if self._state is _BLOCK:
            self._block_was_text(out)
        super()._close(out)


def write_calls(calls: Sequence[tuple[str, str]], start: int = 0) -> str:
    """Calls as Hy3's chat template writes them, in Hy3's spelling of the tags."""
    return (
        suffixed(BLOCK_OPEN)
        + "\n"
        + "".join(
            f"{suffixed(OPEN)}{name}{suffixed(SEP)}\n"
            + "".join(
                f"{suffixed(KEY)}{key}{suffixed(KEY_END)}\n"
                f"{suffixed(VALUE)}{value}{suffixed(VALUE_END)}\n"
                for key, value in raw_values(arguments)
            )
            + f"{suffixed(CLOSE)}\n"
            for name, arguments in calls
        )
        + suffixed(BLOCK_CLOSE)
    )


#: Hy3's names: the line, and vLLM's name for its format.
_NAMES = ("hy3", "hy_v3", "hy-v3")

FORMAT = register(
    Format(
        "hy_v3",
        Hy3Parser,
        family="hunyuan",
        model_names=(NameRule(_NAMES, VENDOR_LINE),),
        # The bare block tag alone is a word a model may write: with the call after it.
        sniff_markers=(
            suffixed(BLOCK_OPEN),
            suffixed(OPEN),
            BLOCK_OPEN + OPEN,
            BLOCK_OPEN + "\n" + OPEN,
        ),
        stray_tokens=STRAY_TOKENS,
        # Hy3's template closes the think block for it (reasoning_effort no_think, the
        # default) unless the request asks for reasoning.
        thinking_opened_when_asked=_NAMES,
        write_calls=write_calls,
        markup_pieces=(
            *spellings(*_TAGS),
            "bash",
            "command",
            "days",
            "<tool_",
            SUFFIX,
        ),
    )
)
