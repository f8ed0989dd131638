"""The shapes every front's translation shares: a ``Translator`` reads the upstream's answer
through a ``ChatReader`` and turns the core's events into its API's ``(type, data)`` events,
one handler per kind of event (``on_text``, ``on_args``, ...: ``Translator._translate`` is the
one dispatch); an ``EventStream`` is the ``FrontStream`` the responder drives, encoding those
events for the client when it streams (``event:``-named SSE by default) and collecting them
when not.

An ``EventStream`` also takes the usual upstream event on the fast path (``fast_path.py``): the
reader reads its text undecoded, and the translator's ``fast_delta`` hook, when a front gives
one, renders its own event from byte templates.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Protocol

import orjson

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
from .failures import UpstreamFailure
from .fast_path import FastEvent, fast_events
from .pipeline import Reply
from .reader import ChatReader
from .wire import Output, event_head, large_events, named_events

WireEvent = tuple[str, dict[str, Any]]


class FrontStream(Protocol):
    """One response of a front, sans-I/O. Methods return the bytes to send when streaming
    (``pipeline.Output``: bytes, or pieces made as they are sent)."""

    #: The client asked for a stream.
    stream: bool

    @property
    def done(self) -> bool:
        """Nothing more will be written (the answer ended or failed)."""

    @property
    def replaced_bytes(self) -> int:
        """Bytes of the upstream's text that were not UTF-8, sent on as U+FFFD."""

    def head(self) -> Output:
        """The first bytes of the stream, once the upstream answered 2xx."""

    def chunk(self, chunk: Mapping[str, Any]) -> Output:
        """One upstream ``chat.completion.chunk``: decoded, or, when the chat path in this
        process handed a reading of it, only what a front reads of such a chunk (its one
        choice and delta, ``fast_path.handed_chunk``)."""

    def completion(self, completion: Mapping[str, Any]) -> Output:
        """A whole upstream ``chat.completion``."""

    def end(self) -> Output:
        """The upstream's answer ended."""

    def fail(self, failure: UpstreamFailure) -> Output:
        """End an open stream with a failure."""

    def result(self) -> Reply:
        """Not streaming: the whole reply, once the answer ended."""

    def error(self, failure: UpstreamFailure) -> Reply:
        """The reply for a failure before anything was streamed."""

    async def settle(self) -> Output:
        """Awaited once the answer is over (not after an ``error`` reply), before the response
        ends; the bytes it returns are the stream's last (the Responses front stores the
        response there; ``b""`` for the others)."""

    #: The fast path (``fast_path.UsualEvents.event``) while streaming, else ``None``.
    fast_event: FastEvent | None

    def learn(self, data: bytes, chunk: dict[str, Any]) -> None:
        """``data`` is the JSON of ``chunk``, about to be fed: the fast path may learn from it."""


class Translator:
    """Chunk dicts (or a whole completion) in, an API's wire events out; a subclass gives
    ``start``, ``fail`` and one handler per kind of the core's events (``on_reasoning``,
    ``on_text``, ``on_call_opened``, ``on_args``, ``on_call_closed``, ``on_finish``,
    ``on_error``), each appending the API's events for it to ``out``."""

    reader: ChatReader
    done: bool
    #: The events last returned may hold a string of ``LARGE_STRING`` or more (a whole item's
    #: text or arguments): set by the translator, read and cleared by whoever encodes them.
    large: bool = False

    def start(self) -> list[WireEvent]:
        raise NotImplementedError

    def feed(self, chunk: Mapping[str, Any]) -> list[WireEvent]:
        return self._translate(self.reader.feed(chunk))

    def feed_completion(self, completion: Mapping[str, Any]) -> list[WireEvent]:
        """A whole (non-streaming) ``chat.completion``; ``finish`` follows."""
        return self._translate(self.reader.feed_completion(completion))

    def finish(self) -> list[WireEvent]:
        """The upstream's answer ended (``[DONE]`` or the end of the body)."""
        return self._translate(self.reader.finish())

    def _translate(self, events: list[Event]) -> list[WireEvent]:
        """The core's events in the API's, each given to its handler in order, until the
        answer is over (``done``). (``type(event) is``, the most frequent kinds first: the
        event classes are never subclassed, and mypy narrows on it.)"""
        out: list[WireEvent] = []
        for event in events:
            if self.done:
                break
            if type(event) is ArgsDelta:
                self.on_args(event, out)
            elif type(event) is TextDelta:
                self.on_text(event, out)
            elif type(event) is ReasoningDelta:
                self.on_reasoning(event, out)
            elif type(event) is CallOpened:
                self.on_call_opened(event, out)
            elif type(event) is CallClosed:
                self.on_call_closed(event, out)
            elif type(event) is Finish:
                self.on_finish(event, out)
            elif type(event) is UpstreamError:
                self.on_error(event, out)
        return out

    # --- the handlers (``_translate``): each appends its event's wire events to ``out`` ------

    def on_reasoning(self, event: ReasoningDelta, out: list[WireEvent]) -> None:
        raise NotImplementedError

    def on_text(self, event: TextDelta, out: list[WireEvent]) -> None:
        raise NotImplementedError

    def on_call_opened(self, event: CallOpened, out: list[WireEvent]) -> None:
        raise NotImplementedError

    def on_args(self, event: ArgsDelta, out: list[WireEvent]) -> None:
        raise NotImplementedError

    def on_call_closed(self, event: CallClosed, out: list[WireEvent]) -> None:
        raise NotImplementedError

    def on_finish(self, event: Finish, out: list[WireEvent]) -> None:
        """The answer's last event: the handler sets ``done``."""
        raise NotImplementedError

    def on_error(self, event: UpstreamError, out: list[WireEvent]) -> None:
        """The upstream failed mid-answer: the handler ends the answer (``done``)."""
        raise NotImplementedError

    def rewind(self) -> None:
        """The events last made were not written (making or writing them failed, and the
        answer ends with a failure now): forget what they counted that the failure's events
        would count on (a sequence number, say)."""

    # --- the fast path (``fast_path.py``) -----------------------------------------------------

    def fast_delta(self, kind: int, text: str) -> bytes | None:
        """The hook a front gives to send the usual event without building it: the bytes the
        stream would send for the one core event the reader just read, a ``ReasoningDelta``,
        a content ``TextDelta`` or the open call's ``ArgsDelta`` (``kind``: ``reader``'s
        ``REASONING``, ``CONTENT``, ``ARGUMENTS``) with this ``text``, the translator moved
        on as its handler moves it; or ``None``, nothing changed, for the general path.
        Called only while streaming and not ``done``; a text of ``LARGE_STRING`` or more must
        be declined. A front writes the bytes from its ``templates.EventTemplate``."""
        return None


class EventStream:
    """A ``FrontStream`` over a ``Translator``; a subclass gives ``fail``, ``result`` and
    ``error`` (and ``encode`` for another framing)."""

    #: Not streaming, keep every event for ``result`` (a subclass whose translator keeps
    #: the result itself turns it off).
    keeps_events = True

    def __init__(self, translator: Translator, stream: bool) -> None:
        self.translator = translator
        self.stream = stream
        #: The answer's last bytes are built (the translator ended it, and ``out`` wrote it).
        self._ended = False
        #: The responder's hook for the usual event, while streaming (see ``_fast_events``).
        self.fast_event = self._fast_events() if stream else None
        #: Not streaming: every event, for ``result``.
        self.events: list[WireEvent] = []
        #: The events are ``event:``-named SSE (``encode`` is not overridden), which ``out``
        #: writes itself: one event at once, large ones in pieces (``_large``).
        self._named = type(self).encode is EventStream.encode

    def encode(self, events: Iterable[WireEvent], large: bool = False) -> bytes:
        """The bytes of ``events``: by default ``event:``-named SSE (``wire.named_events``)."""
        return named_events(events, large=large)

    @property
    def replaced_bytes(self) -> int:
        return self.translator.reader.replaced_bytes

    @property
    def done(self) -> bool:
        """The answer is over and its last bytes exist: a translator that ended it whose last
        events could not be written is not done (``fail`` still ends it)."""
        return self._ended

    # (Each way in: what it made and could not write is forgotten before the failure that
    # follows is made, ``Translator.rewind``.)

    def head(self) -> Output:
        try:
            return self.out(self.translator.start())
        except Exception:
            self.translator.rewind()
            raise

    def chunk(self, chunk: Mapping[str, Any]) -> Output:
        try:
            return self.out(self.translator.feed(chunk))
        except Exception:
            self.translator.rewind()
            raise

    def completion(self, completion: Mapping[str, Any]) -> Output:
        try:
            return self.out(self.translator.feed_completion(completion))
        except Exception:
            self.translator.rewind()
            raise

    def end(self) -> Output:
        try:
            return self.out(self.translator.finish())
        except Exception:
            self.translator.rewind()
            raise

    def keep(self, events: list[WireEvent]) -> None:
        """Not streaming: keep what the reply is made of (by default every event, in
        ``events``, unless ``keeps_events`` is off)."""
        if self.keeps_events:
            self.events += events

    def fail(self, failure: UpstreamFailure) -> Output:
        """End the answer with ``failure`` in the API's shape, unless its last bytes exist
        already: also when the translator ended it but its last events could not be written."""
        if self._ended:
            return b""
        return self.out(self.failed(failure))

    def failed(self, failure: UpstreamFailure) -> list[WireEvent]:
        """The translator's events that end the answer with ``failure`` (whether or not it
        thought the answer over)."""
        raise NotImplementedError

    def result(self) -> Reply:
        raise NotImplementedError

    def error(self, failure: UpstreamFailure) -> Reply:
        raise NotImplementedError

    def out(self, events: list[WireEvent]) -> Output:
        """The bytes to send for ``events`` (none when the client does not stream). The answer
        is ``done`` once the events that end it are written: built, not only made. Events that
        hold a large string are written one at a time as they are sent (``_large``)."""
        translator = self.translator
        if not events:  # (a piece of arguments the front holds, say: often)
            translator.large = False
            self._ended = translator.done
            return b""
        if not self.stream:
            self.keep(events)
            self._ended = translator.done
            return b""
        large, translator.large = translator.large, False
        named = self._named
        if large and named:
            return self._large(events)
        try:
            if len(events) == 1 and not large and named:
                kind, doc = events[0]  # most chunks: one event
                data = event_head(kind) + orjson.dumps(doc) + b"\n\n"
                self._ended = translator.done
                return data
            data = self.encode(events, large=large)
        except orjson.JSONEncodeError:
            # What orjson refuses to write (a value nested past its 255 levels) the standard
            # library writes, as ``pipeline.dumps`` does.
            data = self.encode(events, large=True)
        self._ended = translator.done
        return data

    def _large(self, events: list[WireEvent]) -> Iterator[bytes]:
        """``out`` for events that hold a large string: their pieces as they are written, the
        answer ``done`` once the last is (``pipeline.large_events``)."""
        try:
            yield from large_events(events)
        except Exception:
            self.translator.rewind()
            raise
        self._ended = self.translator.done

    # --- the fast path (``fast_path.py``): the responder's hooks -------------------------------

    def learn(self, data: bytes, chunk: dict[str, Any]) -> None:
        """``data`` is the JSON of ``chunk``, about to be fed: the reader may learn from it."""
        if self.fast_event is not None:
            self.translator.reader.learn(data, chunk)

    async def settle(self) -> Output:
        return b""

    def _fast_events(self) -> FastEvent | None:
        """``fast_event`` (see ``fast_path.fast_events``): this stream's translator renders."""
        translator = self.translator

        def general(kind: int, text: str) -> bytes:  # what the translator declined
            data = self.out(translator._translate([translator.reader.core_event(kind, text)]))
            return data if isinstance(data, bytes) else b"".join(data)

        return fast_events(translator.reader, translator.fast_delta, general, translator)
