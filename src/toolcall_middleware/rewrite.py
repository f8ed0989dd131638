"""Rewriting OpenAI chat completion chunks and messages: chunk dicts in, chunk dicts out.

Each choice has its own parser; the text channels (``reasoning``/``reasoning_content`` first,
then ``content``) go through it, and its events become text in the field the text came from or
``tool_calls`` entries. A chunk whose rewrite changes nothing is reported as unchanged so the
caller can forward the original bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .calls import Entry, IdFactory, ToolCallAssembler, call_ids_for
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
                entry = self.calls.end()  # the "{}" of a call without arguments, if needed
                if entry is not None:
                    self._open(None)
                    self.deltas.append({"tool_calls": [entry]})
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
    def __init__(self, parser: ToolCallParser, new_id: IdFactory | None = None) -> None:
        self.parser = parser
        self.calls = ToolCallAssembler(new_id or call_ids_for(parser))
        self.finished = False
        #: Characters of model text the parser holds back (a possible marker prefix), counted
        #: while nothing but text comes out; -1 (unknown) once markup was parsed, until the
        #: parser echoes its text again. Lag 0: the output text equals the input text.
        self.lag = 0
        #: The last rewrite changed nothing but where text was cut (no markup, no calls).
        self.text_only = True
        #: The parser gave back exactly the last text it was fed: it sits in plain text with
        #: nothing held (see ``ToolCallParser.TRIGGERS``).
        self.idle = True
        self._last_fields: tuple[str, ...] = _CONTENT

    def rewrite(self, choice: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The output choices for one input choice, or ``None`` when it is unchanged.

        May reuse ``choice`` itself (with a new delta) as the output.
        """
        delta = choice.get("delta")
        if type(delta) is not dict:
            delta = {}
        finish_reason = choice.get("finish_reason")
        fields, text = _only_text(delta) if finish_reason is None else _NO_TEXT
        if text is not None:
            # The hot path: one text (one field, or both reasoning fields alike), no finish.
            # Most deltas are plain text (echoed) or one piece of arguments.
            events = self.parser.feed(text)
            self._last_fields = fields
            if not events and text:  # all of it was markup, or is held back: nothing to send
                self.idle = False
                self.text_only = self._count_text(text, events)
                return []
            if len(events) == 1:
                event = events[0]
                if type(event) is Text and event.text == text:
                    # Echoing, the parser holds nothing: text it held and never gave back
                    # (lag > 0) was markup it dropped, so held events must not go out as sent.
                    self.idle = True
                    self.text_only = self.lag <= 0
                    self.lag = 0
                    return None
                if type(event) is CallArgs:
                    self.idle = self.text_only = False
                    self.lag = -1
                    choice["delta"] = {"tool_calls": [self.calls.arguments(event.fragment)]}
                    return [choice]
            return self._rewrite_events(choice, delta, [(fields, text, events)], None)
        return self._rewrite_events(
            choice,
            delta,
            [(f, delta[f[0]], self.parser.feed(delta[f[0]])) for f in _text_channels(delta)],
            finish_reason,
        )

    def _rewrite_events(
        self,
        choice: dict[str, Any],
        delta: dict[str, Any],
        fed: list[tuple[tuple[str, ...], str, list[Event]]],
        finish_reason: Any,
    ) -> list[dict[str, Any]] | None:
        builder = _DeltaBuilder(self.calls)
        unchanged = text_only = True
        for fields, text, events in fed:
            self._last_fields = fields
            builder.add(events, fields)
            self.idle = _echoes(events, text)
            if self.idle:
                text_only = text_only and self.lag <= 0  # see the hot path above
                self.lag = 0
            else:
                unchanged = False
                text_only = self._count_text(text, events) and text_only
        if finish_reason is not None:
            events = self.parser.finish()
            self.finished = True
            if events:
                unchanged = False
                text_only = self._count_text("", events) and text_only
                builder.add(events, self._last_fields)
            text_only = text_only and self.lag <= 0  # all flushed: text still missing was dropped
            if finish_reason == "stop" and self.calls.count:
                finish_reason = "tool_calls"
                unchanged = text_only = False
        self.text_only = text_only
        if unchanged:
            return None
        return _assemble(choice, delta, builder.deltas, finish_reason)

    def _count_text(self, text: str, events: list[Event]) -> bool:
        """Track the lag; False if the events are more than text."""
        if self.lag < 0:
            return False
        lag = self.lag + len(text)
        for event in events:
            if type(event) is not Text:
                self.lag = -1
                return False
            lag -= len(event.text)
        self.lag = lag
        return True

    def finish(self, index: int) -> list[dict[str, Any]]:
        """End of stream without a finish_reason for this choice: flush what the parser holds."""
        if self.finished:
            return []
        self.finished = True
        events = self.parser.finish()
        self.text_only = self._count_text("", events) and self.lag <= 0
        builder = _DeltaBuilder(self.calls)
        builder.add(events, self._last_fields)
        return [{"index": index, "delta": d, "finish_reason": None} for d in builder.deltas]


_NO_TEXT: tuple[tuple[str, ...], None] = ((), None)
_SINGLE_FIELDS = ((("content",)), ("reasoning_content",), ("reasoning",))


def _only_text(delta: dict[str, Any]) -> tuple[tuple[str, ...], str | None]:
    """The delta's fields and text when it is nothing but one text (one field, or both
    reasoning fields carrying the same text); else no text."""
    size = len(delta)
    if size == 1:
        for fields in _SINGLE_FIELDS:
            text = delta.get(fields[0])
            if text is not None:
                return (fields, text) if type(text) is str else _NO_TEXT
    elif size == 2:
        text = delta.get("reasoning")
        if type(text) is str and text == delta.get("reasoning_content"):
            return REASONING_FIELDS, text
    return _NO_TEXT


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


_TEXT_FIELDS = frozenset((*REASONING_FIELDS, "content"))


def _assemble(
    choice: dict[str, Any],
    delta: dict[str, Any],
    deltas: list[dict[str, Any]],
    finish_reason: Any,
) -> list[dict[str, Any]]:
    """Spread the new deltas over output choices; upstream keys ride on the first and last."""
    rest = {k: v for k, v in delta.items() if k not in _TEXT_FIELDS} if len(delta) > 1 else {}
    if rest:
        if deltas and "tool_calls" not in deltas[0] and "tool_calls" not in rest:
            deltas[0] = {**rest, **deltas[0]}
        else:
            deltas.insert(0, rest)
    if not deltas:
        if finish_reason is None:
            return []
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

    def __init__(self, new_parser: ParserFactory, new_id: IdFactory | None = None) -> None:
        """``new_id``: how call ids are made; by default in the style each parser asks for."""
        self._new_parser = new_parser
        self._new_id = new_id
        self._choices: dict[int, ChoiceRewriter] = {}
        self._last: Chunk = {}  # the latest chunk: its metadata goes on chunks we make
        #: The last chunk's rewrite only moved text around (see ``ChoiceRewriter.lag``).
        self.text_only = True
        self.idle = True
        self.lagging = False
        self.has_calls = False

    @property
    def tool_call_count(self) -> int:
        return sum(c.calls.count for c in self._choices.values())

    def _update_state(self) -> None:
        choices = self._choices.values()
        #: Every choice's parser just echoed its text (see ``ChoiceRewriter.idle``).
        self.idle = all(c.idle for c in choices)
        #: Model text is held back: outputs so far differ from inputs by that text.
        self.lagging = any(c.lag for c in choices)
        self.has_calls = any(c.calls.count for c in choices)

    def _choice(self, index: Any) -> ChoiceRewriter:
        if type(index) is not int:
            index = 0
        rewriter = self._choices.get(index)
        if rewriter is None:
            rewriter = self._choices[index] = ChoiceRewriter(self._new_parser(), self._new_id)
        return rewriter

    def chunk(self, chunk: Chunk) -> list[Chunk] | None:
        """The chunks to send for ``chunk``: ``None`` means send it unchanged.

        May reuse ``chunk`` itself as the (only) output.
        """
        choices = chunk.get("choices")
        if type(choices) is not list or not choices:
            self.text_only = True
            return None
        self._last = chunk
        if len(choices) == 1:  # n=1: nearly every stream
            choice = choices[0]
            if type(choice) is not dict:
                return None
            rewriter = self._choices.get(choice.get("index", 0)) or self._choice(
                choice.get("index", 0)
            )
            out = rewriter.rewrite(choice)
            self.text_only = rewriter.text_only
            if len(self._choices) == 1:
                self.idle, self.lagging = rewriter.idle, rewriter.lag != 0
                self.has_calls = rewriter.calls.count != 0
            else:
                self._update_state()
            if out is None:
                return None
            if len(out) == 1:
                chunk["choices"] = out
                return [chunk]
            return self._spread(chunk, out) if out or "usage" in chunk else []
        outputs: list[dict[str, Any]] = []
        changed = False
        self.text_only = True
        for choice in choices:
            if type(choice) is not dict:
                return None
            rewriter = self._choice(choice.get("index", 0))
            out = rewriter.rewrite(choice)
            self.text_only = self.text_only and rewriter.text_only
            changed = changed or out is not None
            outputs.extend([choice] if out is None else out)
        self._update_state()
        return self._spread(chunk, outputs) if changed else None

    def _spread(self, chunk: Chunk, outputs: list[dict[str, Any]]) -> list[Chunk]:
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
    message: dict[str, Any], parser: ToolCallParser, new_id: IdFactory | None = None
) -> int:
    """Rewrite a non-streaming ``choices[].message`` in place; returns the calls found."""
    calls: list[Entry] = []
    current: Entry | None = None
    assembler = ToolCallAssembler(new_id or call_ids_for(parser))
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
