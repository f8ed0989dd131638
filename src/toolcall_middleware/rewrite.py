"""Rewriting OpenAI chat completion chunks and messages: chunk dicts in, chunk dicts out.

Each choice has its own parser; the text channels (``reasoning``/``reasoning_content`` first,
then ``content``) go through it, and its events become text in the field the text came from or
``tool_calls`` entries. A chunk whose rewrite changes nothing is reported as unchanged so the
caller can forward the original bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .calls import Entry, IdFactory, ToolCallAssembler, openai_call_id
from .events import CallArgs, CallEnd, CallStart, Event, Text
from .parsers import ToolCallParser

Chunk = dict[str, Any]
ParserFactory = Callable[[], ToolCallParser]

REASONING_FIELDS = ("reasoning_content", "reasoning")
_CONTENT = ("content",)


class _DeltaBuilder:
    """Collects a choice's output deltas in order: text runs, call starts, argument runs."""

    def __init__(self, calls: ToolCallAssembler) -> None:
        self.calls = calls
        self.deltas: list[dict[str, Any]] = []
        self._text: dict[str, Any] | None = None  # the open text delta, if the last was text
        self._args: Entry | None = None  # the open arguments entry, if the last was arguments

    def add(self, events: list[Event], fields: tuple[str, ...]) -> None:
        for event in events:
            if type(event) is Text:
                self._add_text(event.text, fields)
            elif type(event) is CallArgs:
                self._add_arguments(event.fragment)
            elif type(event) is CallStart:
                self._open(None)
                self.deltas.append({"tool_calls": [self.calls.start(event.name, event.id)]})
            elif type(event) is CallEnd:
                entry = self.calls.end()
                if entry is not None:
                    self._add_arguments(entry["function"]["arguments"])
                self._args = None

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

    def _add_arguments(self, fragment: str) -> None:
        if self._args is not None:
            self._args["function"]["arguments"] += fragment
            return
        entry = self.calls.arguments(fragment)
        self._open(None)
        self._args = entry
        self.deltas.append({"tool_calls": [entry]})


class ChoiceRewriter:
    def __init__(self, parser: ToolCallParser, new_id: IdFactory) -> None:
        self.parser = parser
        self.calls = ToolCallAssembler(new_id)
        self.finished = False
        #: Characters of model text the parser holds back (a possible marker prefix). While
        #: nothing but text has come out, lag 0 means the output text equals the input text.
        self.lag = 0
        #: The last rewrite changed nothing but where text was cut (no markup, no calls).
        self.text_only = True
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
            if not _echoes(events, text):
                unchanged = False
                text_only = self._count_text(text, events) and text_only
        if finish_reason is not None:
            events = self.parser.finish()
            self.finished = True
            if events:
                unchanged = False
                text_only = self._count_text("", events) and text_only
                builder.add(events, self._last_fields)
            if finish_reason == "stop" and self.calls.count:
                finish_reason = "tool_calls"
                unchanged = text_only = False
        self.text_only = text_only
        if unchanged:
            return None
        return _assemble(choice, delta, builder.deltas, finish_reason)

    def _count_text(self, text: str, events: list[Event]) -> bool:
        """Track the lag; False if the events are more than text."""
        self.lag += len(text)
        for event in events:
            if type(event) is not Text:
                return False
            self.lag -= len(event.text)
        return True

    def finish(self, index: int) -> list[dict[str, Any]]:
        """End of stream without a finish_reason for this choice: flush what the parser holds."""
        if self.finished:
            return []
        self.finished = True
        events = self.parser.finish()
        self.text_only = self._count_text("", events)
        builder = _DeltaBuilder(self.calls)
        builder.add(events, self._last_fields)
        return [{"index": index, "delta": d, "finish_reason": None} for d in builder.deltas]


def _text_channels(delta: dict[str, Any]) -> list[tuple[str, ...]]:
    """The text fields to parse, reasoning first; identical reasoning fields are parsed once."""
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


_TEXT_FIELDS = frozenset((*REASONING_FIELDS, "content"))


def _assemble(
    choice: dict[str, Any],
    delta: dict[str, Any],
    deltas: list[dict[str, Any]],
    finish_reason: Any,
) -> list[dict[str, Any]]:
    """Spread the new deltas over output choices; upstream keys ride on the first and last."""
    rest = {k: v for k, v in delta.items() if k not in _TEXT_FIELDS}
    if rest:
        if deltas and "tool_calls" not in deltas[0] and "tool_calls" not in rest:
            deltas[0] = {**rest, **deltas[0]}
        else:
            deltas.insert(0, rest)
    if not deltas:
        if finish_reason is None:
            return []
        deltas.append({})
    extra = {k: v for k, v in choice.items() if k not in ("index", "delta", "finish_reason")}
    index = choice.get("index", 0)
    out = [{"index": index, "delta": d, "finish_reason": None} for d in deltas]
    out[0].update(extra)
    out[-1]["finish_reason"] = finish_reason
    return out


class StreamRewriter:
    """Rewrites one response's ``chat.completion.chunk`` objects, choice by choice."""

    def __init__(self, new_parser: ParserFactory, new_id: IdFactory = openai_call_id) -> None:
        self._new_parser = new_parser
        self._new_id = new_id
        self._choices: dict[int, ChoiceRewriter] = {}
        self._last: Chunk = {}  # the latest chunk: its metadata goes on chunks we make
        #: The last chunk's rewrite only moved text around (see ``ChoiceRewriter.lag``).
        self.text_only = True

    @property
    def lagging(self) -> bool:
        """Some model text is held back: outputs so far differ from inputs by that text."""
        return any(c.lag for c in self._choices.values())

    @property
    def tool_call_count(self) -> int:
        return sum(c.calls.count for c in self._choices.values())

    def _choice(self, index: int) -> ChoiceRewriter:
        rewriter = self._choices.get(index)
        if rewriter is None:
            rewriter = self._choices[index] = ChoiceRewriter(self._new_parser(), self._new_id)
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
        self._last = chunk
        if all(out is None for _, out in rewritten):
            return None
        outputs: list[dict[str, Any]] = []
        for position, out in rewritten:
            outputs.extend([choices[position]] if out is None else out)
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
        return chunks


def rewrite_message(message: dict[str, Any], parser: ToolCallParser, new_id: IdFactory) -> int:
    """Rewrite a non-streaming ``choices[].message`` in place; returns the calls found."""
    calls: list[Entry] = []
    current: Entry | None = None
    assembler = ToolCallAssembler(new_id)
    for fields in _text_channels(message):
        builder = _DeltaBuilder(assembler)
        events = [*parser.feed(message[fields[0]]), *parser.finish()]
        builder.add(events, fields)
        text = "".join(d.get(fields[0], "") for d in builder.deltas if "tool_calls" not in d)
        for field in fields:
            message[field] = text
        for d in builder.deltas:
            for entry in d.get("tool_calls", ()):
                if "id" in entry:
                    current = {k: v for k, v in entry.items() if k != "index"}
                    current["function"] = dict(entry["function"])
                    calls.append(current)
                elif current is not None:
                    current["function"]["arguments"] += entry["function"]["arguments"]
    if calls:
        native = message.get("tool_calls")
        message["tool_calls"] = [*(native if isinstance(native, list) else ()), *calls]
        if message.get("content") == "":
            message["content"] = None
    return len(calls)
