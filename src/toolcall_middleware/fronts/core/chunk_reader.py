"""``ChunkReader``: the (already repaired) Chat Completions answer, decoded, as typed events
(sans-I/O).

Chunk dicts go in one by one (``feed``), or a whole ``chat.completion`` (``feed_completion``);
``finish`` marks the end of the upstream's answer. Native ``tool_calls`` go through the same
normaliser as the chat path (``NativeToolCalls`` into a ``ToolCallAssembler``), so every quirk
it knows (index-less continuations, Kilo's shorthand, parsed-object arguments, interleaved
parallel calls, late ids) is handled once, and calls come out one after another.

Memory is bounded: the arguments text of the open call, and text the normaliser holds for
calls waiting their turn, each stay under ``max_arguments_bytes``; past it the answer ends with
an ``UpstreamError``. The fronts use ``reader.ChatReader``, which reads the usual chunk from
its event's bytes too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...calls import IdFactory, ToolCallAssembler, arguments_object, piece_entries
from ...limits import Budget, LimitExceeded
from ...native_calls import NativeToolCalls
from ...text_fields import reasoning_text
from .events import (
    ArgsDelta,
    CallClosed,
    CallOpened,
    Event,
    Finish,
    ReasoningDelta,
    TextDelta,
    UpstreamError,
)
from .failures import UpstreamFailure, from_stream_error
from .finish import failure, outcome
from .undecoded import HeldBytes, UndecodedChoices, decoded_chunks

#: The index of the choice a front reads: 0, or none (``null`` or missing: some servers send
#: their one choice so, and the chat path passes it on as it came).
_FIRST = (0, None)

#: Default cap on one call's arguments text (and on the text held for queued calls).
MAX_ARGUMENTS_BYTES = 8 * 1024 * 1024


class _Counts:
    """A metrics ``Report`` that counts what the normaliser dropped."""

    __slots__ = ("dropped_calls", "dropped_fragments")

    def __init__(self) -> None:
        self.dropped_calls = 0
        self.dropped_fragments = 0

    def tool_call(self, native: bool) -> None:
        pass

    def malformed(self, reason: str) -> None:
        if reason == "missing_name":
            self.dropped_calls += 1
        elif reason == "after_end":
            self.dropped_fragments += 1

    def fallback(self, action: str) -> None:
        pass

    def rewritten(self) -> None:
        pass


class _OpenCall:
    __slots__ = ("id", "index", "name", "parts", "size", "upstream_id")

    def __init__(self, index: int, call_id: str, name: str, upstream_id: bool) -> None:
        self.index = index
        self.id = call_id
        self.name = name
        self.upstream_id = upstream_id
        self.parts: list[str] = []
        self.size = 0


class ChunkReader:
    """One upstream answer (choice 0) in, ``events.Event``s out, from decoded chunks."""

    def __init__(
        self,
        new_id: IdFactory,
        *,
        max_arguments_bytes: int = MAX_ARGUMENTS_BYTES,
        max_answer_bytes: int | None = None,
    ) -> None:
        self._new_id = new_id
        #: Characters of text and arguments the whole answer may have (None: no cap). A front
        #: that holds the answer (a non-streaming reply, the Responses API's final output)
        #: sets it, so an upstream that never stops cannot grow it without bound.
        self.max_answer_bytes = max_answer_bytes
        self._answer_size = 0
        self._generated: set[str] = set()
        self._counts = _Counts()
        self.max_arguments_bytes = max_arguments_bytes
        # (``_end`` reads each call's arguments: the assembler need not read them too.)
        self._calls = ToolCallAssembler(
            self._make_id,
            budget=Budget(max_arguments_bytes),
            report=self._counts,
            check_arguments=False,
        )
        self._native = NativeToolCalls(self._calls, self._counts)
        self._open: _OpenCall | None = None
        self._finish_reason: str | None = None
        self._matched_stop: str | None = None
        self._usage: Mapping[str, Any] | None = None
        self._tool_calls = False
        self._calls_closed = True  # no call is open
        #: The answer is over (``Finish`` or ``UpstreamError`` was emitted).
        self.done = False
        #: Text the upstream sent in bytes that are not UTF-8 (``undecoded.py``), and whether
        #: a channel holds a character cut short: then every chunk is read through it.
        self._bytes = HeldBytes()
        self.holds_bytes = False

    @property
    def answer_size(self) -> int:
        """Characters of text and arguments read so far."""
        return self._answer_size

    @property
    def open_call_index(self) -> int | None:
        """The index of the call whose arguments are streaming, if one is."""
        return None if self._open is None else self._open.index

    @property
    def replaced_bytes(self) -> int:
        """Bytes of text that were not UTF-8, each sent on as U+FFFD."""
        return self._bytes.replaced

    @property
    def dropped_calls(self) -> int:
        """Calls that never named themselves (nothing to call)."""
        return self._counts.dropped_calls

    @property
    def dropped_fragments(self) -> int:
        """Argument text that came for a call already over (a gateway resending it, say)."""
        return self._counts.dropped_fragments

    # --- input ------------------------------------------------------------------------------

    def feed(self, chunk: Mapping[str, Any]) -> list[Event]:
        """One ``chat.completion.chunk``."""
        if self.done:
            return []
        if self.holds_bytes:
            return self._feed_decoded(chunk)
        choices = chunk.get("choices")
        if "error" in chunk and not choices:
            return self._fail(from_stream_error(chunk))
        usage = chunk.get("usage")
        if usage is not None and isinstance(usage, Mapping):
            self._usage = usage
        out: list[Event] = []
        if type(choices) is not list:
            if type(choices) is UndecodedChoices:
                return self._feed_decoded(chunk)
            return out
        if len(choices) == 1:
            # The usual chunks, quickly: one choice without a finish, whose delta is text, or
            # one more piece of the open call's arguments, or another one ``tool_calls`` entry.
            choice = choices[0]
            if (
                type(choice) is dict
                and choice.get("finish_reason") is None
                and choice.get("index") in _FIRST
            ):
                delta = choice.get("delta")
                if type(delta) is dict:
                    entries = delta.get("tool_calls")
                    if entries is None:
                        try:  # (text after calls ends them: their held arguments count)
                            self._texts(delta, out)
                            self._check_answer_size()
                        except LimitExceeded as exc:
                            out += self._fail(_limit_failure(exc))
                        return out
                    if len(delta) == 1 and type(entries) is list and len(entries) == 1:
                        entry = entries[0]
                        # (``continuation`` takes no entry with an id: a call's header is not
                        # offered to it.)
                        header = type(entry) is dict and "id" in entry
                        index = None if header else self._native.continuation(entry)
                        if index is not None:
                            piece = piece_entries(index, entry["function"]["arguments"])
                            try:
                                self._entries(piece, out)
                            except LimitExceeded as exc:
                                out += self._fail(_limit_failure(exc))
                            return out
                        # Another entry, a call's first most often: what the loop below
                        # does for a delta without text.
                        try:
                            self._check_answer_size()
                            self._calls_closed = False
                            found = self._native.next_call(entry)
                            if found is None:
                                found = self._native.feed(entries)
                            self._native_entries(found, out)
                        except LimitExceeded as exc:
                            out += self._fail(_limit_failure(exc))
                        return out
        try:
            for choice in choices:
                # The fronts never ask for more than one choice.
                if self.done:
                    break
                if not isinstance(choice, Mapping) or choice.get("index") not in _FIRST:
                    continue
                delta = choice.get("delta")
                if isinstance(delta, Mapping):
                    self._delta(delta, out, whole=False)
                self._finish(choice, out)
        except LimitExceeded as exc:
            out += self._fail(_limit_failure(exc))
        return out

    def _feed_decoded(self, chunk: Mapping[str, Any]) -> list[Event]:
        """A chunk whose text may hold bytes that are not UTF-8, or any chunk while a channel
        holds a character cut short: read as the plain chunks of its decoded text."""
        parts = decoded_chunks(self._bytes, dict(chunk))
        self.holds_bytes = False  # (so that ``feed`` reads each part as it is)
        out: list[Event] = []
        for part in parts:
            out += self.feed(part)
        self.holds_bytes = self._bytes.channel is not None and not self.done
        return out

    def feed_completion(self, completion: Mapping[str, Any]) -> list[Event]:
        """A whole ``chat.completion`` (call ``finish`` after it)."""
        if self.done:
            return []
        if "error" in completion and not completion.get("choices"):
            return self._fail(from_stream_error(completion))
        choices = completion.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            return self._fail(UpstreamFailure("server", "upstream response has no choices"))
        usage = completion.get("usage")
        if isinstance(usage, Mapping):
            self._usage = usage
        choice = choices[0]
        out: list[Event] = []
        message = choice.get("message")
        try:
            if isinstance(message, Mapping):
                self._delta(message, out, whole=True)
            self._finish({**choice, "finish_reason": choice.get("finish_reason") or "stop"}, out)
        except LimitExceeded as exc:
            out += self._fail(_limit_failure(exc))
        return out

    def finish(self) -> list[Event]:
        """The upstream's answer ended (``[DONE]``, the end of the body)."""
        if self.done:
            return []
        if self._finish_reason is None:
            message = "upstream stream ended before the response was complete"
            return self._fail(UpstreamFailure("server", message))
        out: list[Event] = []
        try:  # the calls end: arguments held for a queued call count now
            self._close_calls(out, final=True)
        except LimitExceeded as exc:
            return out + self._fail(_limit_failure(exc))
        self.done = True
        out.append(Finish(self._finish_reason, self._usage, self._matched_stop, self._tool_calls))
        return out

    def fail(self, failure: UpstreamFailure) -> list[Event]:
        """End the answer with a failure found outside the chunks (a transport error, say)."""
        return self._fail(failure)

    # --- internals --------------------------------------------------------------------------

    def _fail(self, failure: UpstreamFailure) -> list[Event]:
        if self.done:
            return []
        self.done = True
        return [UpstreamError(failure)]

    def _texts(self, delta: Mapping[str, Any], out: list[Event]) -> None:
        """A delta's text channels, in order; text after a call ends it first."""
        reasoning = reasoning_text(delta)
        if reasoning is not None:
            if not self._calls_closed:
                self._close_calls(out)
            self._answer_size += len(reasoning)
            out.append(ReasoningDelta(reasoning))
        content = delta.get("content")
        if content and type(content) is str:
            if not self._calls_closed:
                self._close_calls(out)
            self._answer_size += len(content)
            out.append(TextDelta(content))
        refusal = delta.get("refusal")
        if refusal and type(refusal) is str:
            if not self._calls_closed:
                self._close_calls(out)
            self._answer_size += len(refusal)
            out.append(TextDelta(refusal, "refusal"))

    def _delta(self, delta: Mapping[str, Any], out: list[Event], whole: bool) -> None:
        self._texts(delta, out)
        self._check_answer_size()
        entries = delta.get("tool_calls")
        if isinstance(entries, list) and entries:
            self._calls_closed = False
            if whole:
                self._native_entries(self._native.feed_message(entries), out)
            else:
                self._native_entries(self._native.feed(entries), out)

    def _check_answer_size(self) -> None:
        if self.max_answer_bytes is not None and self._answer_size > self.max_answer_bytes:
            raise LimitExceeded("the upstream answer", self.max_answer_bytes)

    def _native_entries(self, entries: list[dict[str, Any]], out: list[Event]) -> None:
        """What the normaliser gave for a delta's ``tool_calls``, and its limit on text held."""
        self._entries(entries, out)
        if self._native.held + self._native.queued > self.max_arguments_bytes:
            raise LimitExceeded("tool-call arguments held", self.max_arguments_bytes)

    def _finish(self, choice: Mapping[str, Any], out: list[Event]) -> None:
        finish = choice.get("finish_reason")
        if isinstance(finish, str) and finish:
            if outcome(finish) == "failed":
                # The server failed: the answer ends with its failure, and a call still open
                # is never finished, so that no client runs what may be half its arguments.
                out += self._fail(failure(finish))
                return
            self._finish_reason = finish
            matched = choice.get("stop_reason")  # vLLM: the stop string that matched
            if isinstance(matched, str):
                self._matched_stop = matched
            self._close_calls(out, final=True)

    def _close_calls(self, out: list[Event], final: bool = False) -> None:
        """End every call: text follows them, or the choice is over."""
        if self._calls_closed and not final:
            return
        native = self._native
        entries = native.finish() + self._calls.close() if final else native.end_calls()
        if entries:
            self._entries(entries, out)
        if self._open is not None:
            out.append(self._end(self._open))
            self._open = None
        self._calls_closed = True

    def _entries(self, entries: list[dict[str, Any]], out: list[Event]) -> None:
        for entry in entries:
            function = entry["function"]
            if "id" in entry:  # a call's first entry: the one before it is over
                if self._open is not None:
                    out.append(self._end(self._open))
                call_id = entry["id"]
                upstream_id = call_id not in self._generated
                self._open = _OpenCall(entry["index"], call_id, function["name"], upstream_id)
                self._tool_calls = True
                out.append(CallOpened(entry["index"], call_id, function["name"], upstream_id))
            fragment = function["arguments"]
            call = self._open
            if fragment and call is not None:
                call.size += len(fragment)
                if call.size > self.max_arguments_bytes:
                    raise LimitExceeded("tool-call arguments", self.max_arguments_bytes)
                self._answer_size += len(fragment)
                if self.max_answer_bytes is not None and self._answer_size > self.max_answer_bytes:
                    raise LimitExceeded("the upstream answer", self.max_answer_bytes)
                call.parts.append(fragment)
                out.append(ArgsDelta(call.index, fragment))

    def _end(self, call: _OpenCall) -> CallClosed:
        raw = "".join(call.parts) or "{}"
        call.parts = []
        arguments, text, problem = arguments_object(raw)
        return CallClosed(call.index, call.id, call.name, raw, arguments, text, problem)

    def _make_id(self) -> str:
        call_id = self._new_id()
        self._generated.add(call_id)
        return call_id


def _limit_failure(exc: LimitExceeded) -> UpstreamFailure:
    return UpstreamFailure("server", f"upstream answer: {exc}")
