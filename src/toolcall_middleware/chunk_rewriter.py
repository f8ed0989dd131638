"""Rewriting one response's ``chat.completion.chunk`` dicts: chunks in, the chunks to send out.

Each choice has its own ``ChoiceRewriter`` (``choice_rewriter.py``); this module spreads their
output over chunks with the upstream's metadata. What each rewrite gives back is its output:
the chunks to send in the chunk's place, or ``None``, the chunk as it came. Where the stream
stands after it (``state``) is the SSE layer's to read: how far its text lags, whether it is
idle, whether the output only moved text, whether a cap was passed (``stream_state.py``).

A chunk whose choices the rewrite cannot read (a choice that is not an object, an ``index``
that is not a number) goes as it came and is counted (the ``passed-unread`` fallback); the
chunks after it are rewritten as if it had not come.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .calls import IdFactory
from .choice_rewriter import ChoiceRewriter, ChoiceSettings
from .deltas import Choice, Chunk, Delta, Piece, spread_choices
from .limits import MAX_BUFFERED, MAX_HELD, Budget, LimitExceeded
from .metrics import NULL_REPORT, Report
from .parsers import Tool, ToolCallParser
from .stream_state import StreamState
from .think import ThinkConfig

ParserFactory = Callable[[], ToolCallParser]
#: What ``ChunkRewriter.text`` makes of a chunk: the one delta that replaces its delta (a
#: ``Piece`` of arguments is left unbuilt), the chunks to send in its place (none: nothing), or
#: ``None``: the chunk as it came.
TextOutput = Delta | Piece | list[Chunk] | None


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
        self._report = report
        self._budget = Budget(max_buffered_bytes)  # shared by the choices: a per-stream cap
        self._settings = ChoiceSettings(
            new_id, mode == "buffered", self._budget, max_held_bytes, report, tools, think
        )
        self._choices: dict[int, ChoiceRewriter] = {}
        self._last: Chunk = {}  # the latest chunk: its metadata goes on chunks we make
        # Where a stream of several choices, or none yet, stands (idle without a choice unless
        # a reasoning split must see the content first).
        self._idle_unseen = think is None
        self._several = StreamState(idle=self._idle_unseen)
        #: Where the stream stands after its last rewrite: its one choice's state, while it
        #: has one (nearly every stream), else that of all its choices.
        self.state = self._several
        # The stream's choice while it has only one.
        self._one: ChoiceRewriter | None = None
        #: The index of the stream's choice while it has exactly one, else ``None``.
        self.one_index: int | None = None
        # What the chunks ``text`` reads are besides their delta (``text_chunks``).
        self._text_meta: Chunk = {}
        self._text_choice: Choice = {}

    @property
    def tool_call_count(self) -> int:
        return sum(c.calls.count for c in self._choices.values())

    def chunk(self, chunk: Chunk) -> list[Chunk] | None:
        """What to send for ``chunk`` (``None``: it, as it came). May reuse ``chunk`` itself as
        the (only) output."""
        choices = chunk.get("choices")
        if type(choices) is not list or not choices:
            self._unchanged()
            return None
        if len(choices) == 1:  # n=1: nearly every stream
            choice = choices[0]
            index = _index(choice)
            if index is None:
                self._unread()
                return None
            self._last = chunk
            rewriter = self._choices.get(index) or self._choice(index)
            out = rewriter.rewrite(choice)
            if out is None:
                chunks = None
            elif len(out) == 1:
                chunk["choices"] = out
                chunks = [chunk]
            else:
                chunks = self._spread(chunk, out) if out or "usage" in chunk else []
            if rewriter is not self._one:
                self._stands(rewriter.state.text_only, rewriter.state.exceeded)
            return chunks
        read: list[tuple[Choice, int]] = []
        for choice in choices:
            index = _index(choice)
            if index is None:
                self._unread()
                return None
            read.append((choice, index))
        self._last = chunk
        outputs: list[Choice] = []
        changed = False
        text_only = True
        exceeded = None
        for choice, index in read:
            rewriter = self._choice(index)
            out = rewriter.rewrite(choice)
            text_only = text_only and rewriter.state.text_only
            exceeded = exceeded or rewriter.state.exceeded
            changed = changed or out is not None
            outputs.extend([choice] if out is None else out)
        self._stands(text_only, exceeded)
        return self._spread(chunk, outputs) if changed else None

    def text_chunks(self, meta: Chunk, choice: Choice) -> None:
        """The chunks ``text`` is given from now on: these keys besides ``choices``, and one
        choice of these keys besides ``delta`` (see ``fast_path.py``)."""
        self._text_meta, self._text_choice = meta, choice

    def text(self, index: int, fields: tuple[str, ...], text: str) -> TextOutput:
        """``chunk`` for a chunk as ``text_chunks`` says, without decoding it: its choice
        ``index``, the stream's one choice (``one_index``), has a delta of this one text, in
        the fields ``fields`` (as ``text_fields.only_text`` names them)."""
        rewriter = self._one
        if rewriter is None or index != self.one_index:
            raise ValueError(f"choice {index} is not the stream's one choice")
        self._last = self._text_meta
        deltas = rewriter.text(fields, text)
        if not isinstance(deltas, list):  # one piece of arguments, one delta, or unchanged
            return deltas
        if len(deltas) == 1:
            return deltas[0]
        if not deltas:  # nothing to send (such a chunk has no usage for it to keep)
            return deltas
        return self._spread(self._text_meta, spread_choices(self._text_choice, deltas, None))

    def finish(self) -> list[Chunk]:
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
        if self._one is None:
            self._stands(text_only, None)
        return chunks

    def _unchanged(self) -> None:
        """A chunk no choice has anything in: it goes as it came, the stream where it was."""
        self.state.text_only = True
        self.state.exceeded = None

    def _unread(self) -> None:
        """A chunk whose choices cannot be read: as it came, counted."""
        self._report.fallback("passed-unread")
        self._unchanged()

    def _stands(self, text_only: bool, exceeded: LimitExceeded | None) -> None:
        """Where a stream of several choices (or none) stands after a rewrite of its choices
        (its lag only says whether any choice lags)."""
        state = self._several
        state.text_only, state.exceeded = text_only, exceeded
        choices = self._choices.values()
        state.lag = any(c.state.lag for c in choices)
        state.idle = all(c.state.idle for c in choices) if choices else self._idle_unseen

    def _choice(self, index: int) -> ChoiceRewriter:
        rewriter = self._choices.get(index)
        if rewriter is None:
            rewriter = self._choices[index] = ChoiceRewriter(self._new_parser(), self._settings)
            if len(self._choices) == 1:
                self._one, self.one_index, self.state = rewriter, index, rewriter.state
            else:
                self._one = self.one_index = None
                self.state = self._several
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


def _index(choice: Any) -> int | None:
    """The index of a choice the rewrite can read (a missing or null index is 0's); ``None``
    when it cannot (not an object, or an index that is not a number)."""
    if type(choice) is not dict:
        return None
    index = choice.get("index", 0)
    if type(index) is int:
        return index
    return 0 if index is None else None
