"""One choice of a streamed response: its deltas in, the deltas a client is sent out.

The text channels (``reasoning``/``reasoning_content`` first, then ``content``) go through the
choice's parser, and its events become text in the field the text came from or ``tool_calls``
entries (``deltas.py``). Native ``delta.tool_calls`` go through ``NativeToolCalls``; both
sources meet in one ``ToolCallAssembler``, so they share one numbering of calls.

Besides its output, a rewrite leaves the choice in a state the SSE layer reads (``state``, a
``stream_state.StreamState``): how far its output text lags its input text (``lag``), whether
it sits in plain text with nothing pending (``idle``), whether the last rewrite only moved text
around (``text_only``), and whether a cap was passed (``exceeded``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .calls import Entry, IdFactory, ToolCallAssembler, call_ids_for
from .deltas import Choice, Delta, DeltaBuilder, Piece, finish_reason, piece_delta, spread_choices
from .events import CallArgs, CallEnd, CallStart, Event, Reasoning, Text
from .limits import CHECK_EVERY, MAX_HELD, Budget, LimitExceeded
from .metrics import NULL_REPORT, Report, report_fallbacks
from .native_calls import AS_TEXT, NativeToolCalls
from .parsers import Tool, ToolCallParser
from .parsers.unknown_tools import native_unknown
from .stream_state import StreamState
from .text_fields import CONTENT, DEFAULT_REASONING, REASONING_FIELDS, only_text, text_channels
from .think import ThinkConfig, ThinkSplit

#: A text fed to the parser: its fields, the text, and the events it gave.
Fed = tuple[tuple[str, ...], str, list[Event]]

#: The delta keys the rewrite replaces; others (``role``, ``refusal``) ride on the output.
_REWRITTEN_FIELDS = frozenset((*REASONING_FIELDS, "content", "tool_calls"))


@dataclass(frozen=True, slots=True)
class ChoiceSettings:
    """How one response's choices are rewritten (see ``ChunkRewriter``): shared by them all."""

    #: How call ids are made (``None``: in the style each parser asks for).
    new_id: IdFactory | None = None
    buffered: bool = False
    #: The response's buffered-mode argument bytes, against ``max_buffered_bytes``.
    budget: Budget = field(default_factory=Budget)
    max_held: int = MAX_HELD
    report: Report = NULL_REPORT
    #: The request's tools (a call that names no function must fit one of them).
    tools: Sequence[Tool] = ()
    #: The reasoning split of the content (``None``: content kept as it is).
    think: ThinkConfig | None = None


class ChoiceRewriter:
    def __init__(self, parser: ToolCallParser, settings: ChoiceSettings) -> None:
        self.parser = parser
        think = settings.think
        report = settings.report
        self._budget = settings.budget
        self.calls = ToolCallAssembler(
            settings.new_id or call_ids_for(parser),
            buffered=settings.buffered,
            budget=self._budget,
            report=report,
            tools=settings.tools,
        )
        # (Calls to tools the request did not offer: the parser's policy, ``unknown_tools``.)
        self.native = NativeToolCalls(self.calls, report, native_unknown(parser))
        self._max_held = settings.max_held
        self._report = report
        self._unchecked = 0  # text fed since the held-back data was last measured
        self.finished = False
        #: The reasoning split of the content (``think.py``), while it may still act.
        self._think = None if think is None else ThinkSplit(think)
        #: Where ``Reasoning`` goes: the stream's reasoning fields (``None``: think_tags keep,
        #: with the text it came in). Set from the first delta that names one.
        self._reasoning_fields: tuple[str, ...] | None = (
            None if think is None else DEFAULT_REASONING
        )
        self._fields_known = False
        #: Where the choice stands after its last rewrite (``StreamState``): ``idle`` here
        #: means the parser gave back exactly the last text it was fed (see
        #: ``ToolCallParser.TRIGGERS``) and nothing else is pending (``_nothing_pending``).
        self.state = StreamState(idle=self._think is None)
        #: Tool-call markup or native entries were seen (sticky): a finish_reason
        #: "tool_calls" with every call dropped becomes "stop".
        self.has_calls = False
        self._last_fields: tuple[str, ...] = CONTENT
        #: The parser's ``upstream_reasoning`` (see ``ToolCallParser``), until the first text
        #: shows whether the upstream splits reasoning into its own fields.
        self._first_text: Callable[[], None] | None = parser.upstream_reasoning

    def text(self, fields: tuple[str, ...], text: str) -> Delta | Piece | list[Delta] | None:
        """The hot path: a delta that is one text (one field, or both reasoning fields alike)
        and no finish. Most deltas are plain text (echoed) or one piece of arguments.

        The one delta that replaces it (a dict, or a ``Piece`` of arguments: no list is made
        for the usual cases), the deltas that replace it (a list; none: nothing to send), or
        ``None`` when it is unchanged.
        """
        if self._first_text is not None and text:
            self._text_begins(fields)
        events = self.parser.feed(text)
        state = self.state
        if self._think is not None:
            events = self._route(fields, text, events)
        self._last_fields = fields
        if len(events) == 1:
            event = events[0]
            if type(event) is Text:
                if event.text == text:
                    if state.lag:
                        state.text_only = self._echoed()
                    else:  # it held nothing before, so it holds nothing now
                        state.text_only = True
                        if not state.idle:
                            state.idle = self._nothing_pending()
                    return None
                # Text around markup, or held text given back: text in the same fields.
                state.idle = False
                state.text_only = self._count_text(text, events)
                if not state.text_only:
                    self.has_calls = True
                self._count_fed(text)
                return dict.fromkeys(fields, event.text)
            # One call event: its entry replaces the text (none when buffered).
            out: Delta | Piece | list[Delta]
            if type(event) is CallArgs:  # a piece of arguments: the delta, unbuilt (``Piece``)
                index = self.calls.piece(event.fragment)
                out = [] if index < 0 else (index, event.fragment)
            elif type(event) is CallEnd:
                entries = self.calls.end()  # "{}" for a call that had no arguments
                out = {"tool_calls": entries} if entries else []
            elif type(event) is CallStart and not self.native.active and not self.calls.is_open():
                entries = self.calls.start(event.name, event.id)
                out = {"tool_calls": entries} if entries else []
            elif type(event) is Reasoning:  # a piece of a think block, or gpt-oss analysis
                state.idle = state.text_only = False
                state.lag = -1
                self._count_fed(text)
                return dict.fromkeys(self._reasoning_fields or fields, event.text)
            else:
                return self._deltas({}, [(fields, text, events)], None)[0]
            state.idle = state.text_only = False
            self.has_calls = True
            state.lag = -1
            self._unchecked += len(text)  # _count_fed, inline on the path most deltas take
            if self._unchecked >= CHECK_EVERY:
                state.exceeded = self._check_held()
            return out
        if not events and text:  # all of it was markup, or is held back: nothing to send
            state.idle = False
            lag = state.lag  # (``_count_text`` and ``_count_fed``, inline: a marker per event)
            if lag < 0:
                state.text_only = False
            else:
                state.lag, state.text_only = lag + len(text), True
            self._unchecked += len(text)
            if self._unchecked >= CHECK_EVERY:
                state.exceeded = self._check_held()
            return []
        return self._deltas({}, [(fields, text, events)], None)[0]

    def rewrite(self, choice: Choice) -> list[Choice] | None:
        """The output choices for one input choice, or ``None`` when it is unchanged.

        May reuse ``choice`` itself (with a new delta) as the output.
        """
        delta = choice.get("delta")
        if type(delta) is not dict:
            delta = {}
        finish = choice.get("finish_reason")
        if finish is None:
            fields, text = only_text(delta)
            if text is not None:
                deltas = self.text(fields, text)
                if deltas is None:
                    return None
                if isinstance(deltas, tuple):
                    choice["delta"] = piece_delta(deltas)
                    return [choice]
                if isinstance(deltas, dict):  # spread_choices' first case, inline: most deltas
                    choice["delta"] = deltas
                    return [choice]
                return spread_choices(choice, deltas, None)
            if len(delta) == 1:
                native = delta.get("tool_calls")
                if type(native) is list and len(native) == 1:
                    # The native hot path: more arguments for the call streaming now.
                    entry = native[0]
                    index = self.native.continuation(entry)
                    if index is not None:
                        self.state.text_only = self.state.idle = False
                        self.has_calls = True
                        if index >= 0 and index == entry["index"]:
                            return None  # already what a client needs: the upstream's own bytes
                        if index < 0:
                            return spread_choices(choice, [], None)
                        piece = (index, entry["function"]["arguments"])
                        return spread_choices(choice, [piece_delta(piece)], None)
        channels = text_channels(delta)
        if self._first_text is not None:
            first = next((f for f in channels if delta[f[0]]), None)
            if first is not None:
                self._text_begins(first)
        texts: list[Fed] = [(f, delta[f[0]], self.parser.feed(delta[f[0]])) for f in channels]
        if self._reasoning_fields is not None:
            self._follow_reasoning_fields(delta)
            if self._think is not None:
                texts = [(f, t, self._route(f, t, e)) for f, t, e in texts]
        deltas, finish = self._deltas(delta, texts, finish)
        return None if deltas is None else spread_choices(choice, deltas, finish)

    def finish(self) -> list[Delta]:
        """End of stream without a finish_reason for this choice: flush what is held."""
        if self.finished:
            self.state.text_only = True
            return []
        self.finished = True
        builder = DeltaBuilder(self.calls, self._reasoning_fields)
        self._flush(builder)
        self.state.text_only = self.state.text_only and self.state.lag <= 0
        if self._close(builder):
            self.state.text_only = False
        return builder.deltas

    def _deltas(
        self, delta: dict[str, Any], fed: list[Fed], finish: Any
    ) -> tuple[list[Delta] | None, Any]:
        """The deltas (``None``: unchanged) and finish for texts already fed to the parser and
        the rest of ``delta`` (native calls, other keys)."""
        builder = DeltaBuilder(self.calls, self._reasoning_fields)
        unchanged = text_only = True
        for fields, text, events in fed:
            self._last_fields = fields
            if self.native.active and any(type(e) is CallStart for e in events):
                native_entries(builder, self.native.finish())  # earlier native calls first
            builder.add(events, fields)
            if _echoes(events, text):
                if text:  # (an empty text tells nothing about what the parsers hold)
                    text_only = self._echoed() and text_only
            else:
                self._unchecked += len(text)  # (echoed text leaves nothing held)
                self.state.idle = unchanged = False
                text_only = self._count_text(text, events) and text_only
        native = delta.get("tool_calls")
        if native:
            native_entries(builder, self.native.feed(native))
            self.state.idle = unchanged = text_only = False
            self._unchecked = CHECK_EVERY  # native entries: measure now (cheap counters)
        if finish is not None:
            self.finished = True
            if self._flush(builder):
                unchanged = False
                text_only = self.state.text_only and text_only
            text_only = (
                text_only and self.state.lag <= 0
            )  # all flushed: text still missing was dropped
            if self._close(builder):
                unchanged = text_only = False
            upstream, finish = finish, finish_reason(finish, self.calls.count, self.has_calls)
            if finish != upstream:
                unchanged = text_only = False
        self.state.text_only = text_only
        if unchanged:
            return None, finish
        if not text_only:
            self.has_calls = True
        if not self.finished and self._unchecked >= CHECK_EVERY:
            self.state.exceeded = self._check_held()
        deltas = builder.deltas
        # Other keys (``role``) ride on the first text delta, or go before calls on their own.
        rest = {k: v for k, v in delta.items() if k not in _REWRITTEN_FIELDS} if delta else None
        if rest:
            if deltas and "tool_calls" not in deltas[0] and "tool_calls" not in rest:
                deltas[0] = {**rest, **deltas[0]}
            else:
                deltas.insert(0, rest)
        return deltas, finish

    def _route(self, fields: tuple[str, ...], text: str, events: list[Event]) -> list[Event]:
        """The reasoning split of a text's events: content goes through it; reasoning in the
        reasoning fields before any content means the upstream splits, and it stops."""
        think = self._think
        if think is None:  # an earlier text of the same delta left the content alone
            return events
        if fields[0] == "content":
            events = think.route(events)
        elif text:
            think.upstream_reasoning()
            if not self._fields_known:
                self._reasoning_fields, self._fields_known = fields, True
        if think.inert:
            self._think = None
        return events

    def _text_begins(self, fields: tuple[str, ...]) -> None:
        """The choice's first text (not empty): in a reasoning field, the upstream splits
        reasoning."""
        hook, self._first_text = self._first_text, None
        if hook is not None and fields[0] != "content":
            hook()

    def _follow_reasoning_fields(self, delta: dict[str, Any]) -> None:
        """Reasoning split out goes to the field(s) the stream already uses, once it used any."""
        if not self._fields_known:
            named = tuple(f for f in delta if f in REASONING_FIELDS)
            if named:
                self._reasoning_fields = named
                self._fields_known = True

    def _count_fed(self, text: str) -> None:
        self._unchecked += len(text)
        if self._unchecked >= CHECK_EVERY:  # a parser may hold some of it
            self.state.exceeded = self._check_held()

    def _flush(self, builder: DeltaBuilder) -> bool:
        """The end of the choice's text: what the parser and the reasoning split still hold
        goes to ``builder``; True if anything did (``text_only`` says whether only text)."""
        events = self.parser.finish()
        think = self._think
        if think is not None and self._last_fields[0] == "content":
            events = think.route(events)
        builder.add(events, self._last_fields)
        if think is not None:
            tail = think.finish()
            builder.add(tail, CONTENT)
            events = [*events, *tail]
        self.state.text_only = self._count_text("", events)
        return bool(events)

    def _close(self, builder: DeltaBuilder) -> bool:
        """The end of the choice: native calls and (buffered) held calls leave; True if any."""
        entries = [*self.native.finish(), *self.calls.close()]
        native_entries(builder, entries)
        strays = self.parser.strays + (0 if self._think is None else self._think.strays)
        report_fallbacks(self._report, self.parser.text_fallbacks, strays)
        return bool(entries)

    def _echoed(self) -> bool:
        """The parser gave back exactly the text it was fed: track idle and lag, and say
        whether the rewrite stayed only text."""
        if self.state.lag and (self.parser.held or (self._think and self._think.held)):
            # Not idle: it gave back what it held before and holds as much of the new text.
            self.state.idle = False
            return self.state.lag > 0
        # It holds nothing: text it held and never gave back (lag > 0) was markup it dropped,
        # so events held meanwhile must not go out as they came.
        self.state.idle = self._nothing_pending()
        text_only = self.state.lag <= 0
        self.state.lag = 0
        return text_only

    def _nothing_pending(self) -> bool:
        """Besides a parser in plain text, nothing that plain text could act on: no native
        call open and no call held whole (what the end of the choice would send), and no
        reasoning split still learning the stream's reasoning field or outside plain content.
        """
        think = self._think
        return (
            not self.native.active
            and not self.calls.holding
            and (think is None or (self._fields_known and think.quiet))
        )

    def _check_held(self) -> LimitExceeded | None:
        """Bound memory: unresolved markup, and arguments held for a call until it can go."""
        self._unchecked = 0
        held = self.parser.held + self.native.held
        if held > self._max_held:
            return LimitExceeded("held-back tool-call markup", self._max_held)
        deferred = self.parser.held_arguments + self.native.queued
        if deferred and deferred + self._budget.used > self._budget.limit:
            return LimitExceeded("buffered tool calls", self._budget.limit)
        return None

    def _count_text(self, text: str, events: list[Event]) -> bool:
        """Track the lag; False if the events are more than text."""
        if self.state.lag < 0:
            return False
        lag = self.state.lag + len(text)
        for event in events:
            if type(event) is not Text:
                self.state.lag = -1
                return False
            lag -= len(event.text)
        self.state.lag = lag
        return True


def native_entries(builder: DeltaBuilder, entries: list[Entry]) -> None:
    """Native calls' entries into ``builder``: calls, and the content text of calls to tools
    the request did not offer (``native_calls.AS_TEXT``, under ``unknown_tools="text"``)."""
    if not any(AS_TEXT in entry for entry in entries):
        builder.tool_calls(entries)
        return
    for entry in entries:
        text = entry.get(AS_TEXT)
        if text is None:
            builder.tool_calls([entry])
        else:
            builder.add([Text(text)], CONTENT)


def _echoes(events: list[Event], text: str) -> bool:
    if not events:
        return not text
    return len(events) == 1 and type(events[0]) is Text and events[0].text == text
