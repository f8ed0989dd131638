"""The reasoning split: a ``<think>`` block a model wrote in ``content`` goes to reasoning.

A server without a reasoning parser leaves a thinking model's ``<think>…</think>`` in the
content. ``ThinkSplit`` (one per choice, sans-I/O) reads the events the tool-call parser made of
the content and turns the text inside a block into ``Reasoning`` events; the tags and the
whitespace right after them are framing. Cut anywhere, the same content gives the same events.

- ``think_tags="auto"`` (the default) splits the block the content starts with: a thinking
  model thinks first. A model whose chat template opens the block (declared in the format
  descriptors: DeepSeek R1, QwQ, the Qwen3 Thinking models) writes only ``</think>``: its
  content starts inside the block (unless the request turned thinking off). A tag later in
  an answer is text the model wrote. ``split`` splits every block, wherever it is; ``keep``
  none. A response that starts inside the block is read even when its request offers no
  tools (``starts_in_reasoning``). A format whose parser reads its own reasoning block (Kimi
  K3's think channel) is left to it, opened or not.
- A tool call that opens inside an unclosed block ends the reasoning there (Kimi K2 writes its
  tool section inside its thinking); the block's ``</think>`` after it, or a tag with no
  place, is a stray: dropped and counted.
- Reasoning that already came in the reasoning fields before any content means the upstream
  splits it itself: then the content is left alone.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .events import CallStart, Event, Reasoning, Text
from .parsers.base import MarkerSearch
from .parsers.descriptor import reads_reasoning, thinking_opened
from .parsers.driver import literal_at, skip_space

OPEN = "<think>"
CLOSE = "</think>"
#: The tags in every spelling: Tencent Hy3's tokenizer appends its suffix to them.
OPENS = (OPEN, "<think:opensource>")
CLOSES = (CLOSE, "</think:opensource>")
THINK_TAGS = ("auto", "split", "keep")

_SEARCH = MarkerSearch((*OPENS, *CLOSES))


@dataclass(frozen=True, slots=True)
class ThinkConfig:
    """How a response's choices split: ``every`` block (``split``) or the one the content
    starts with (``auto``); ``opened``: the content starts inside that block."""

    every: bool
    opened: bool = False


def think_config(
    think_tags: str, model: str, thinking_off: bool = False, asked: frozenset[str] = frozenset()
) -> ThinkConfig | None:
    """The split for a response from ``model``, or ``None`` when its content is kept as is.
    ``thinking_off``: the request turned thinking off, so no template opened a block;
    ``asked``: the switches by which it asked for reasoning (a template that thinks only when
    asked by its switch opened one, ``Format.thinking_switch``)."""
    if think_tags == "keep":
        return None
    opened = template_opens_think(model, thinking_off, asked) and not reads_reasoning(model)
    return ThinkConfig(every=think_tags == "split", opened=opened)


def starts_in_reasoning(
    think_tags: str, model: str, thinking_off: bool = False, asked: frozenset[str] = frozenset()
) -> bool:
    """Whether a response from ``model`` starts inside the reasoning block its template
    opened, and the split would move it: such a response is read even when the request offers
    no tools, since passing it on untouched hands the client the model's thoughts, and the
    block's end tag, as its answer (a client that asked for JSON cannot parse it)."""
    return think_tags != "keep" and template_opens_think(model, thinking_off, asked)


def template_opens_think(
    model: str, thinking_off: bool, asked: frozenset[str] = frozenset()
) -> bool:
    """Whether the chat template opened ``model``'s reasoning block for this request (a
    format's own block, or ``<think>``): its text starts inside it."""
    return not thinking_off and thinking_opened(model, asked)


class _State(enum.Enum):
    START = enum.auto()  # the content's first characters decide
    CONTENT = enum.auto()
    THINK = enum.auto()
    ENDING = enum.auto()  # the one block, ended by a call: its </think> may still come
    KEEP = enum.auto()  # no split: events pass untouched


# Module names for the members: looking a member up on its enum class runs Python code.
_START, _CONTENT, _THINK, _ENDING, _KEEP = _State


class ThinkSplit:
    """Splits one choice's content events (see the module docstring)."""

    __slots__ = ("_fresh", "_once", "_pending", "_seen_content", "_state", "_trim", "strays")

    def __init__(self, config: ThinkConfig) -> None:
        if config.opened:
            self._state = _THINK
        else:
            self._state = _CONTENT if config.every else _START
        self._pending = ""  # a possible tag's start; at START, the content's leading space
        self._trim = config.opened  # whitespace after a tag is framing
        self._fresh = config.opened  # nothing written in the block yet: a <think> is its own
        self._once = not config.every  # the block the content starts with, and no other
        self._seen_content = False
        #: Tags dropped where they had no place.
        self.strays = 0

    @property
    def inert(self) -> bool:
        """The content is left alone from here on: the split may be forgotten."""
        return self._state is _KEEP

    @property
    def quiet(self) -> bool:
        """Content without a ``<`` would pass unchanged and change nothing: in content (or
        after a call ended the block), nothing held, no framing to trim, content seen."""
        return (
            (self._state is _CONTENT or self._state is _ENDING)
            and not self._pending
            and not self._trim
            and self._seen_content
        )

    @property
    def held(self) -> int:
        return len(self._pending)

    def upstream_reasoning(self) -> None:
        """Reasoning came in the reasoning fields before any content: the upstream splits."""
        if not self._seen_content:
            self._state = _KEEP

    def route(self, events: list[Event]) -> list[Event]:
        """The events of a piece of content, with the text of think blocks as ``Reasoning``."""
        if not self._pending and not self._trim:  # the common cases: no tag can be in them
            state = self._state
            if state is _THINK and len(events) == 1:
                event = events[0]
                if type(event) is Text and "<" not in event.text:
                    self._fresh = False
                    self._seen_content = True
                    return [Reasoning(event.text)]
            elif state is _CONTENT:
                for event in events:
                    if type(event) is Text and "<" in event.text:
                        break
                else:
                    self._seen_content = self._seen_content or bool(events)
                    return events
        out: list[Event] = []
        for event in events:
            if type(event) is Text:
                self._text(event.text, out)
                continue
            self._flush(out)
            if type(event) is CallStart and self._state is _THINK:
                # A call opened inside the block: the reasoning ends there.
                self._state = _ENDING if self._once else _CONTENT
                self._trim = False
            out.append(event)
        return out

    def finish(self) -> list[Event]:
        """The end of the content: what is held is text of the block or the content."""
        out: list[Event] = []
        self._flush(out)
        return out

    def _flush(self, out: list[Event]) -> None:
        pending, self._pending = self._pending, ""
        if self._state is _START:
            self._state = _KEEP
        if pending:
            self._emit(pending, out)

    def _emit(self, text: str, out: list[Event]) -> None:
        if self._state is _THINK:
            out.append(Reasoning(text))
            self._fresh = False
        else:
            out.append(Text(text))

    def _text(self, text: str, out: list[Event]) -> None:
        if self._state is _KEEP:
            out.append(Text(text))
            return
        if text:
            self._seen_content = True
        buf = self._pending + text if self._pending else text
        self._pending = ""
        pos, end = 0, len(buf)
        while pos < end:
            if self._state is _START:
                start = skip_space(buf, pos)
                opening = literal_at(buf, start, OPENS, False) if start < end else None
                if opening is None:  # only space, or the start of <think>, so far
                    self._pending = buf[pos:]
                    return
                if not opening:
                    self._state = _KEEP
                    out.append(Text(buf[pos:]))
                    return
                self._open()
                pos = start + len(opening)
                continue
            if self._trim:
                pos = skip_space(buf, pos)
                if pos == end:
                    return
                self._trim = False
                if self._once and self._state is _CONTENT:  # the one block is over
                    self._state = _KEEP
                    out.append(Text(buf[pos:]))
                    return
            match = _SEARCH.find(buf, pos)
            stop = len(buf) - _SEARCH.held_suffix(buf, pos) if match is None else match.start()
            if stop > pos:
                self._emit(buf[pos:stop], out)
            if match is None:
                self._pending = buf[stop:]
                return
            pos = match.end()
            if self._tag(match.group()):
                self._emit(match.group(), out)
                if self._state is _KEEP:
                    out.append(Text(buf[pos:]))
                    return

    def _open(self) -> None:
        self._state = _THINK
        self._trim = self._fresh = True

    def _tag(self, tag: str) -> bool:
        """Act on a tag; True when it is text after all (after the one block)."""
        state = self._state
        if state is _THINK:
            if tag in CLOSES:
                self._state = _CONTENT
                self._trim = True
            elif self._fresh:  # a model that writes the <think> its template wrote
                self._trim = True
            else:
                self.strays += 1
        elif state is _ENDING:
            if tag in OPENS:  # a tag the model writes as text: nothing of the block is left
                self._state = _KEEP
                return True
            self.strays += 1  # the block's own </think>, after the call that ended it
            self._state = _CONTENT
            self._trim = True
        elif tag in OPENS:
            self._open()
        else:
            self.strays += 1
        return False
