"""Rewriting OpenAI chat completion chunks and messages: chunk dicts in, chunk dicts out.

Each choice has its own parser; the text channels (``reasoning``/``reasoning_content`` first,
then ``content``) go through it, and its events become text in the field the text came from or
``tool_calls`` entries. Native ``delta.tool_calls`` go through the normaliser; both sources meet
in one ``ToolCallAssembler`` per choice. A chunk whose rewrite changes nothing is reported as
unchanged so the caller can forward the original bytes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .calls import Budget, Entry, IdFactory, LimitExceeded, ToolCallAssembler, openai_call_id
from .events import CallArgs, CallEnd, CallStart, Event, Text
from .metrics import NULL_REPORT, Report
from .normalize import NativeToolCalls
from .parsers import ToolCallParser

Chunk = dict[str, Any]
ParserFactory = Callable[[], ToolCallParser]

REASONING_FIELDS = ("reasoning_content", "reasoning")
_CONTENT = ("content",)

#: Defaults of the ``max_held_bytes`` and ``max_buffered_bytes`` options.
MAX_HELD = 10 * 1024
MAX_BUFFERED = 1024 * 1024


class _DeltaBuilder:
    """Collects a choice's output deltas in order: text runs, call starts, argument runs."""

    def __init__(self, calls: ToolCallAssembler) -> None:
        self.calls = calls
        self.deltas: list[dict[str, Any]] = []
        self._text: dict[str, Any] | None = None  # the open text delta, if the last was text
        self._args: Entry | None = None  # the open arguments entry, if the last was arguments

    def add(self, events: list[Event], fields: tuple[str, ...]) -> None:
        calls = self.calls
        for event in events:
            if type(event) is Text:
                self._add_text(event.text, fields)
            elif type(event) is CallArgs:
                self.tool_calls(calls.arguments(event.fragment))
            elif type(event) is CallStart:
                self.tool_calls(calls.start(event.name, event.id), merge_header=False)
            elif type(event) is CallEnd:
                self.tool_calls(calls.end())
                self._args = None

    def tool_calls(self, entries: list[Entry], merge_header: bool = True) -> None:
        """Append entries; argument fragments join the open entry of the same call."""
        for entry in entries:
            open_entry = self._args
            if "id" not in entry and open_entry is not None \
                    and open_entry["index"] == entry["index"]:
                open_entry["function"]["arguments"] += entry["function"]["arguments"]
                continue
            self._text = None
            self.deltas.append({"tool_calls": [entry]})
            self._args = entry if merge_header or "id" not in entry else None

    def _open(self, text_delta: dict[str, Any] | None) -> None:
        self._text = text_delta
        self._args = None

    def _add_text(self, text: str, fields: tuple[str, ...]) -> None:
        delta = self._text
        if delta is None or any(f not in delta for f in fields):
            delta = dict.fromkeys(fields, "")
            self.deltas.append(delta)
            self._open(delta)
        for field in fields:
            delta[field] += text


class ChoiceRewriter:
    def __init__(
        self,
        parser: ToolCallParser,
        new_id: IdFactory,
        *,
        buffered: bool = False,
        budget: Budget | None = None,
        max_held: int = MAX_HELD,
        report: Report = NULL_REPORT,
    ) -> None:
        self.parser = parser
        self._budget = budget if budget is not None else Budget(MAX_BUFFERED)
        self.calls = ToolCallAssembler(new_id, buffered=buffered, budget=self._budget,
                                       report=report)
        self.native = NativeToolCalls(self.calls, report)
        self._max_held = max_held
        self._report = report
        self.finished = False
        #: Characters of model text the parser holds back (a possible marker prefix). While
        #: nothing but text has come out, lag 0 means the output text equals the input text.
        self.lag = 0
        #: The last rewrite changed nothing but where text was cut (no markup, no calls).
        self.text_only = True
        #: The parser gave back exactly the last text it was fed: it sits in plain text with
        #: nothing held (see ``ToolCallParser.TRIGGERS``).
        self.idle = True
        #: Tool-call markup or native entries were seen: the finish must be decoded, since
        #: it may have to close or release calls (sticky; see ``SSEStreamRewriter``).
        self.has_calls = False
        #: Held-back data passed a cap in the last rewrite (its output is still good to send).
        self.exceeded: LimitExceeded | None = None
        self._last_fields: tuple[str, ...] = _CONTENT

    def rewrite(self, choice: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The output choices for one input choice, or ``None`` when it is unchanged."""
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            delta = {}
        finish_reason = choice.get("finish_reason")
        builder = _DeltaBuilder(self.calls)
        unchanged = text_only = True
        for fields in _text_channels(delta):
            text = delta[fields[0]]
            events = self.parser.feed(text)
            self._last_fields = fields
            builder.add(events, fields)
            self.idle = _echoes(events, text)
            if not self.idle:
                unchanged = False
                text_only = self._count_text(text, events) and text_only
        native = delta.get("tool_calls")
        if native:
            builder.tool_calls(self.native.feed(native))
            unchanged = text_only = False
        if finish_reason is not None:
            self.finished = True
            events = self.parser.finish()
            if events:
                unchanged = False
                text_only = self._count_text("", events) and text_only
                builder.add(events, self._last_fields)
            if self._close(builder):
                unchanged = text_only = False
            if finish_reason == "stop" and self.calls.count:
                finish_reason = "tool_calls"
                unchanged = text_only = False
        self.text_only = text_only
        if unchanged:
            return None
        if not text_only:
            self.has_calls = True
        if not self.finished:
            self.exceeded = self._check_held()
        return _assemble(choice, delta, builder.deltas, finish_reason)

    def _close(self, builder: _DeltaBuilder) -> bool:
        """The end of the choice: native calls and (buffered) held calls leave; True if any."""
        entries = [*self.native.finish(), *self.calls.close()]
        builder.tool_calls(entries)
        for _ in range(getattr(self.parser, "text_fallbacks", 0)):
            self._report.fallback("passed-as-text")
        return bool(entries)

    def _check_held(self) -> LimitExceeded | None:
        """Bound memory: unresolved markup, and arguments held for a call until it can go."""
        held = getattr(self.parser, "held", 0) + self.native.held
        if held > self._max_held:
            return LimitExceeded("held-back tool-call markup", self._max_held)
        deferred = getattr(self.parser, "held_arguments", 0) + self.native.queued
        if deferred and deferred + self._budget.used > self._budget.limit:
            return LimitExceeded("buffered tool calls", self._budget.limit)
        return None

    def _count_text(self, text: str, events: list[Event]) -> bool:
        """Track the lag; False if the events are more than text."""
        self.lag += len(text)
        for event in events:
            if type(event) is not Text:
                return False
            self.lag -= len(event.text)
        return True

    def finish(self, index: int) -> list[dict[str, Any]]:
        """End of stream without a finish_reason for this choice: flush what is held."""
        if self.finished:
            return []
        self.finished = True
        events = self.parser.finish()
        self.text_only = self._count_text("", events)
        builder = _DeltaBuilder(self.calls)
        builder.add(events, self._last_fields)
        if self._close(builder):
            self.text_only = False
        return [{"index": index, "delta": d, "finish_reason": None} for d in builder.deltas]


_ONLY_CONTENT: list[tuple[str, ...]] = [_CONTENT]
_BOTH_REASONING: list[tuple[str, ...]] = [REASONING_FIELDS]


def _text_channels(delta: dict[str, Any]) -> list[tuple[str, ...]]:
    """The text fields to parse, reasoning first; identical reasoning fields are parsed once."""
    if len(delta) == 1:  # fast paths for the shapes nearly every delta has
        if isinstance(delta.get("content"), str):
            return _ONLY_CONTENT
    elif len(delta) == 2 and "content" not in delta:
        reasoning = delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning == delta.get("reasoning_content"):
            return _BOTH_REASONING
    channels: list[tuple[str, ...]] = []
    reasoning = [f for f in REASONING_FIELDS if isinstance(delta.get(f), str)]
    if len(reasoning) == 2 and delta[reasoning[0]] != delta[reasoning[1]]:
        channels.extend((f,) for f in reasoning)
    elif reasoning:
        channels.append(tuple(reasoning))
    if isinstance(delta.get("content"), str):
        channels.append(_CONTENT)
    return channels


def _echoes(events: list[Event], text: str) -> bool:
    if not events:
        return not text
    return len(events) == 1 and type(events[0]) is Text and events[0].text == text


_REWRITTEN_FIELDS = frozenset((*REASONING_FIELDS, "content", "tool_calls"))


def _assemble(
    choice: dict[str, Any],
    delta: dict[str, Any],
    deltas: list[dict[str, Any]],
    finish_reason: Any,
) -> list[dict[str, Any]]:
    """Spread the new deltas over output choices; upstream keys ride on the first and last."""
    # Native tool_calls were rewritten (or were null/empty, which says nothing).
    rest = (
        {k: v for k, v in delta.items() if k not in _REWRITTEN_FIELDS} if len(delta) > 1 else {}
    )
    if rest:
        if deltas and "tool_calls" not in deltas[0] and "tool_calls" not in rest:
            deltas[0] = {**rest, **deltas[0]}
        else:
            deltas.insert(0, rest)
    if not deltas:
        if finish_reason is None:
            return []
        deltas.append({})
    elif finish_reason is not None and "tool_calls" in deltas[-1]:
        # The SDK closes a call (``arguments.done``) on the next index or on a later finish
        # chunk: a finish_reason beside the last call's entry would leave it unclosed.
        deltas.append({})
    index = choice.get("index", 0)
    out = [{"index": index, "delta": d, "finish_reason": None} for d in deltas]
    if len(choice) > 3:
        out[0].update(
            {k: v for k, v in choice.items() if k not in ("index", "delta", "finish_reason")}
        )
    out[-1]["finish_reason"] = finish_reason
    return out


class StreamRewriter:
    """Rewrites one response's ``chat.completion.chunk`` objects, choice by choice."""

    def __init__(
        self,
        new_parser: ParserFactory,
        new_id: IdFactory = openai_call_id,
        *,
        mode: str = "stream",
        max_held_bytes: int = MAX_HELD,
        max_buffered_bytes: int = MAX_BUFFERED,
        report: Report = NULL_REPORT,
    ) -> None:
        self._new_parser = new_parser
        self._new_id = new_id
        self._buffered = mode == "buffered"
        self._max_held = max_held_bytes
        self.max_buffered = max_buffered_bytes
        self._budget = Budget(max_buffered_bytes)  # shared by the choices: a per-stream cap
        self._report = report
        self._choices: dict[int, ChoiceRewriter] = {}
        self._last: Chunk = {}  # the latest chunk: its metadata goes on chunks we make
        #: The last chunk's rewrite only moved text around (see ``ChoiceRewriter.lag``).
        self.text_only = True
        self.idle = True
        self.lagging = False
        self.has_calls = False
        #: A choice passed a memory cap: send this chunk's output, then end the stream.
        self.exceeded: LimitExceeded | None = None

    @property
    def tool_call_count(self) -> int:
        return sum(c.calls.count for c in self._choices.values())

    def _update_state(self) -> None:
        if len(self._choices) == 1:  # the usual n=1 stream, without generator overhead
            (only,) = self._choices.values()
            self.idle, self.lagging = only.idle, only.lag != 0
            self.has_calls = only.has_calls
            return
        choices = self._choices.values()
        #: Every choice's parser just echoed its text (see ``ChoiceRewriter.idle``).
        self.idle = all(c.idle for c in choices)
        #: Model text is held back: outputs so far differ from inputs by that text.
        self.lagging = any(c.lag for c in choices)
        self.has_calls = any(c.has_calls for c in choices)

    def _choice(self, index: int) -> ChoiceRewriter:
        rewriter = self._choices.get(index)
        if rewriter is None:
            rewriter = self._choices[index] = ChoiceRewriter(
                self._new_parser(), self._new_id, buffered=self._buffered, budget=self._budget,
                max_held=self._max_held, report=self._report)
        return rewriter

    def chunk(self, chunk: Chunk) -> list[Chunk] | None:
        """The chunks to send for ``chunk``: ``None`` means send it unchanged."""
        self.text_only = True
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices:
            return None
        rewritten: list[tuple[int, list[dict[str, Any]] | None]] = []
        for position, choice in enumerate(choices):
            if not isinstance(choice, dict):
                return None
            index = choice.get("index", 0)
            rewriter = self._choice(index if isinstance(index, int) else 0)
            rewritten.append((position, rewriter.rewrite(choice)))
            self.text_only = self.text_only and rewriter.text_only
            if rewriter.exceeded is not None:
                self.exceeded = rewriter.exceeded
        self._last = chunk
        self._update_state()
        if all(out is None for _, out in rewritten):
            return None
        outputs: list[dict[str, Any]] = []
        for position, out in rewritten:
            outputs.extend([choices[position]] if out is None else out)
        if len(outputs) == 1:  # the common case: reuse the upstream object as it is
            chunk["choices"] = outputs
            return [chunk]
        meta = self._metadata()
        chunks = [{**meta, "choices": [c]} for c in outputs]
        if "usage" in chunk:
            if not chunks:
                chunks.append({**meta, "choices": []})
            chunks[-1]["usage"] = chunk["usage"]
        return chunks

    def _metadata(self) -> Chunk:
        return {k: v for k, v in self._last.items() if k not in ("choices", "usage")}

    def finish(self) -> list[Chunk]:
        """End of the stream: chunks for whatever the parsers still hold."""
        meta = self._metadata()
        chunks: list[Chunk] = []
        self.text_only = True
        for index, rewriter in self._choices.items():
            chunks.extend({**meta, "choices": [choice]} for choice in rewriter.finish(index))
            self.text_only = self.text_only and rewriter.text_only
        self._update_state()
        return chunks


def rewrite_message(
    message: dict[str, Any],
    parser: ToolCallParser,
    new_id: IdFactory,
    *,
    buffered: bool = False,
    report: Report = NULL_REPORT,
) -> int:
    """Rewrite a non-streaming ``choices[].message`` in place; returns the calls it now has.

    Markup in the text channels and the native ``tool_calls`` go through the same assembler
    as in a stream (text calls first, as a stream would carry them), so the message gets the
    same ids, validation and numbering a streaming client would have seen.
    """
    assembler = ToolCallAssembler(new_id, buffered=buffered, budget=Budget(sys.maxsize),
                                  report=report)
    entries: list[Entry] = []
    for fields in _text_channels(message):
        builder = _DeltaBuilder(assembler)
        events = [*parser.feed(message[fields[0]]), *parser.finish()]
        builder.add(events, fields)
        text = "".join(d.get(fields[0], "") for d in builder.deltas if "tool_calls" not in d)
        for field in fields:
            message[field] = text
        entries.extend(e for d in builder.deltas for e in d.get("tool_calls", ()))
    native = NativeToolCalls(assembler, report)
    native_calls = message.get("tool_calls")
    if isinstance(native_calls, list) and native_calls:
        entries.extend(native.feed_message(native_calls))
    entries.extend(native.finish())
    entries.extend(assembler.close())
    calls = _whole_calls(entries)
    if calls:
        message["tool_calls"] = calls
        if message.get("content") == "":
            message["content"] = None
    elif isinstance(native_calls, list) and native_calls:
        del message["tool_calls"]  # every call was dropped (buffered mode)
    return len(calls)


def _whole_calls(entries: list[Entry]) -> list[Entry]:
    """Stream entries joined into message ``tool_calls`` (no ``index`` in a message)."""
    calls: dict[int, Entry] = {}
    for entry in entries:
        call = calls.get(entry["index"])
        if call is None:
            calls[entry["index"]] = {"id": entry["id"], "type": "function",
                                     "function": dict(entry["function"])}
        else:
            call["function"]["arguments"] += entry["function"]["arguments"]
    return [calls[i] for i in sorted(calls)]
