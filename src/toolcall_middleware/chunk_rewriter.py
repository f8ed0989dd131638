"""Rewriting one response's ``chat.completion.chunk`` dicts: chunks in, a ``Rewrite`` out.

Each choice has its own ``ChoiceRewriter`` (``choice_rewriter.py``); this module spreads their
output over chunks with the upstream's metadata, and says in each ``Rewrite`` what the SSE
layer needs to send it: the chunks (or that the chunk goes unchanged), whether they differ
from the input only in where text was cut, and where the stream stands after it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .calls import IdFactory
from .choice_rewriter import ChoiceRewriter, ChoiceSettings
from .deltas import Choice, spread_choices
from .limits import MAX_BUFFERED, MAX_HELD, Budget, LimitExceeded
from .metrics import NULL_REPORT, Report
from .parsers import Tool, ToolCallParser
from .rewrite_result import Chunk, Rewrite
from .think import ThinkConfig

if TYPE_CHECKING:
    from .chunk_template import ChunkTemplate

ParserFactory = Callable[[], ToolCallParser]


class ChunkRewriter:
    """Rewrites one response's ``chat.completion.chunk`` objects, choice by choice."""

    def __init__(
        self,
        new_parser: ParserFactory,
        new_id: IdFactory | None = None,
        *,
        mode: str = "stream",
        max_held_bytes: int = MAX_HELD,
        max_buffered_bytes: int = MAX_BUFFERED,
        report: Report = NULL_REPORT,
        tools: Sequence[Tool] = (),
        think: ThinkConfig | None = None,
    ) -> None:
        """``new_id``: how call ids are made; by default in the style each parser asks for.
        ``tools``: the request's (a call that names no function must fit one of them).
        ``think``: the reasoning split of the content (``None``: content kept as it is)."""
        self._new_parser = new_parser
        self._think = think
        self._budget = Budget(max_buffered_bytes)  # shared by the choices: a per-stream cap
        self._settings = ChoiceSettings(
            new_id, mode == "buffered", self._budget, max_held_bytes, report, tools, think
        )
        self._choices: dict[int, ChoiceRewriter] = {}
        self._last: Chunk = {}  # the latest chunk: its metadata goes on chunks we make
        self._rewrite = Rewrite(None, True, 0, think is None)  # (several choices, or none)
        # The stream's choice while it has only one (nearly every stream), and its index.
        self._one: ChoiceRewriter | None = None
        self._one_index = 0

    @property
    def one_index(self) -> int | None:
        """The index of the stream's choice while it has exactly one, else ``None``."""
        return self._one_index if self._one is not None else None

    @property
    def tool_call_count(self) -> int:
        return sum(c.calls.count for c in self._choices.values())

    def chunk(self, chunk: Chunk) -> Rewrite:
        """What to send for ``chunk``. May reuse ``chunk`` itself as the (only) output."""
        choices = chunk.get("choices")
        if type(choices) is not list or not choices:
            return self._result(None)
        self._last = chunk
        if len(choices) == 1:  # n=1: nearly every stream
            choice = choices[0]
            if type(choice) is not dict:
                return self._result(None)
            index = choice.get("index", 0)
            rewriter = self._choices.get(index) or self._choice(index)
            out = rewriter.rewrite(choice)
            if out is None:
                chunks = None
            elif len(out) == 1:
                chunk["choices"] = out
                chunks = [chunk]
            else:
                chunks = self._spread(chunk, out) if out or "usage" in chunk else []
            return self._result(chunks, rewriter)
        if any(type(choice) is not dict for choice in choices):
            return self._result(None)
        outputs: list[Choice] = []
        changed = False
        text_only = True
        exceeded = None
        for choice in choices:
            rewriter = self._choice(choice.get("index", 0))
            out = rewriter.rewrite(choice)
            text_only = text_only and rewriter.state.text_only
            exceeded = exceeded or rewriter.state.exceeded
            changed = changed or out is not None
            outputs.extend([choice] if out is None else out)
        return self._refill(
            self._spread(chunk, outputs) if changed else None, text_only, *self._state(), exceeded
        )

    def text(self, template: ChunkTemplate, fields: tuple[str, ...], text: str) -> Rewrite | None:
        """``chunk`` for a chunk that ``template`` reads without decoding it: one choice whose
        delta is this one text, no finish. ``None`` (nothing was done) unless the stream has
        that one choice: the chunk must then be decoded and go to ``chunk``.
        """
        rewriter = self._one
        if rewriter is None or template.index != self._one_index:
            return None
        self._last = template.meta
        deltas = rewriter.text(fields, text)
        rewrite = rewriter.state  # (where the one choice stands: the stream's state)
        if not isinstance(deltas, list):  # one piece of arguments, one delta, or unchanged
            rewrite.chunks, rewrite.delta = None, deltas
        elif not deltas:  # nothing to send (a template's chunk has no usage for it to keep)
            rewrite.chunks, rewrite.delta = deltas, None
        elif len(deltas) == 1:
            rewrite.chunks, rewrite.delta = None, deltas[0]
        else:
            rewrite.chunks = self._spread(
                template.meta, spread_choices(template.choice, deltas, None)
            )
            rewrite.delta = None
        return rewrite

    def finish(self) -> Rewrite:
        """End of the stream: chunks for whatever the parsers still hold."""
        meta = self._metadata()
        chunks: list[Chunk] = []
        text_only = True
        for index, rewriter in sorted(self._choices.items()):  # in index order, however made
            chunks.extend(
                {**meta, "choices": [{"index": index, "delta": delta, "finish_reason": None}]}
                for delta in rewriter.finish()
            )
            text_only = text_only and rewriter.state.text_only
        return self._refill(chunks, text_only, *self._state())

    def _result(
        self, chunks: list[Chunk] | None, rewriter: ChoiceRewriter | None = None
    ) -> Rewrite:
        """The ``Rewrite`` of a chunk that concerned ``rewriter``'s choice (none: no choice)."""
        if rewriter is None:
            return self._refill(chunks, True, *self._state())
        state = rewriter.state
        if rewriter is not self._one:
            return self._refill(chunks, state.text_only, *self._state(), state.exceeded)
        state.chunks, state.delta = chunks, None  # (the one choice's state: the stream's)
        return state

    def _refill(
        self,
        chunks: list[Chunk] | None,
        text_only: bool,
        lag: int,
        idle: bool,
        exceeded: LimitExceeded | None = None,
    ) -> Rewrite:
        rewrite = self._rewrite
        rewrite.chunks, rewrite.delta = chunks, None
        rewrite.text_only, rewrite.lag = text_only, lag
        rewrite.idle, rewrite.exceeded = idle, exceeded
        return rewrite

    def _state(self) -> tuple[int, bool]:
        """``(lag, idle)`` of the stream: of all its choices (see ``Rewrite``; the lag only
        says whether any lags)."""
        choices = self._choices.values()
        if not choices:
            return 0, self._think is None  # (a reasoning split must see the content first)
        return any(c.state.lag for c in choices), all(c.state.idle for c in choices)

    def _choice(self, index: Any) -> ChoiceRewriter:
        if type(index) is not int:
            index = 0
        rewriter = self._choices.get(index)
        if rewriter is None:
            rewriter = self._choices[index] = ChoiceRewriter(self._new_parser(), self._settings)
            self._one = rewriter if len(self._choices) == 1 else None
            self._one_index = index
        return rewriter

    def _spread(self, chunk: Chunk, outputs: list[Choice]) -> list[Chunk]:
        """One chunk per output choice, each with the upstream metadata; usage on the last."""
        meta = self._metadata()
        chunks = [{**meta, "choices": [c]} for c in outputs]
        if "usage" in chunk:
            if not chunks:
                chunks.append({**meta, "choices": []})
            chunks[-1]["usage"] = chunk["usage"]
        return chunks

    def _metadata(self) -> Chunk:
        return {k: v for k, v in self._last.items() if k not in ("choices", "usage")}
