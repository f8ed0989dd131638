"""The SSE path: response body bytes in, repaired body bytes out (sans-I/O).

Each event is decoded, its chunk rewritten (``chunk_rewriter.py``) and the result encoded;
events the rewrite leaves alone, comments, keep-alives and ``data: [DONE]`` go out as the exact
bytes that came in. Most events never reach the decoder: the fast path (``fast_path.py``) gives
for them exactly what this general path would. When a parser holds back a possible marker's
start (a ``<`` at the end of a delta) that then turns out to be plain text, the events involved
are held and sent as their original bytes, so a stream without tool-call markup leaves
byte-for-byte as it came.

An event whose bytes are not all UTF-8 is read with each such byte kept (``lenient_json.
loads_keeping_bytes``), so its text and arguments reach the rewrite, and whatever the rewrite
sends of them is written back as the same bytes; from then on the stream is decoded event by
event. Before ``[DONE]`` (or at the end of the body) whatever the parsers still hold is flushed; an
upstream error event (``data: {"error": ...}``) ends the stream instead, as its last event. If the
rewrite itself fails, the rest of the stream is forwarded untouched: a bug here must never take
a client's stream down. If held-back data passes a configured cap, the client gets an OpenAI
error event and ``data: [DONE]``, and the rest of the upstream body is discarded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import orjson

from . import lenient_json
from .chunk_rewriter import ChunkRewriter
from .deltas import Chunk
from .fast_path import FastPath
from .handoff import Reading
from .limits import LimitExceeded
from .metrics import NULL_REPORT, Report
from .sse import DONE, SSEDecoder, SSEEvent, encode_chunks, encode_event, one_data_line

logger = logging.getLogger("toolcall_middleware")

JSON_SPACE = b" \t\r\n"
_loads = orjson.loads
#: Events held at most while held-back text is unresolved; past it the rewritten form is sent.
MAX_TENTATIVE_EVENTS = 64

#: ``capture(raw event data, chunks sent for it)`` for events that involved tool calls.
Capture = Callable[[bytes, list[Chunk]], None]


class SSERewriter:
    """``triggers``: the parser's ``TRIGGERS``, which lets events pass without decoding.

    ``max_event_bytes`` caps an unterminated SSE event (the decoder's buffer); ``report``
    counts fallbacks; ``capture`` (debug) sees every event that involved tool calls;
    ``fast_path=False`` decodes every event.
    """

    def __init__(
        self,
        rewriter: ChunkRewriter,
        triggers: str | None = None,
        *,
        max_event_bytes: int | None = None,
        report: Report = NULL_REPORT,
        capture: Capture | None = None,
        fast_path: bool = True,
        hand: bool = False,
    ) -> None:
        self.rewriter = rewriter
        # Debug capture records the chunks of every event with calls: no templates then.
        self._fast = (
            FastPath(rewriter, triggers, templates=capture is None, hand=hand)
            if fast_path
            else None
        )
        #: An in-process front takes what the fast path read (``handoff.py``):
        #: ``reading.handed``, for the body ``feed`` just gave back, when that is the one event
        #: it read (set or cleared by every ``feed`` that does not end the stream). It is the
        #: fast path's own, so no ``feed`` moves it.
        self.reading: Reading = self._fast if self._fast is not None else Reading()
        self._decoder = SSEDecoder()
        self._max_event = max_event_bytes
        self._report = report
        self._capture = capture
        # How chunks orjson cannot write are written (bytes that are not UTF-8 kept, once read).
        self._dumps = lenient_json.dumps
        self._failed = False
        self._done = False
        #: The stream was ended early (a limit): the response is complete, discard the rest.
        self.ended = False
        #: Some bytes sent differ from the upstream's (counted once, as a rewritten response).
        self.changed = False
        #: Events held while held-back text is unresolved, as (original bytes, rewritten
        #: bytes): their rewrite only moved that text. A pause releases them (``release``).
        self.held: list[tuple[bytes, bytes]] = []

    def feed(self, body: bytes) -> bytes:
        decoder = self._decoder
        fast = self._fast  # (None once the stream failed or ended)
        # The fast path reads events through a template, or passes them while the stream idles.
        if fast is not None and decoder.at_boundary:
            state = self.rewriter.state  # where the stream stands before this body
            lag, held = state.lag, self.held
            try:  # events as servers send them, one or more per body: the fast path may take them
                rewritten = fast.rewrite(body, state.idle and not held)
            except LimitExceeded as exc:
                return self._limit(exc)
            except Exception:
                return self._fail(body)
            if rewritten is not None:
                if rewritten is body and not held:  # unchanged, and nothing waits before it
                    return body
                out = self._send(body, rewritten, lag)
                if out is not rewritten:  # held, or sent with held events
                    fast.handed = None
                return out
        self.reading.handed = None  # (what goes out now was not read through the template)
        if self._failed:
            return body
        if self.ended:
            return b""
        if decoder.at_boundary and one_data_line(body):
            # One "data:" line, as servers send events: what the decoder would make of it.
            return self._data(body, body[6:-2], ())
        events = decoder.feed(body)
        if len(events) == 1:
            out = self._event(events[0])
        else:
            out = b"".join([self._event(e) for e in events]) if events else b""
        if (
            self._max_event is not None
            and decoder.buffered > self._max_event
            and not self._failed
            and not self.ended
        ):
            out += self._limit(LimitExceeded("an unterminated SSE event", self._max_event))
        return out

    def close(self) -> bytes:
        """End of the response body: the unterminated tail and anything still held."""
        if self._failed or self.ended:
            return b""
        out = [self._event(e) for e in self._decoder.close()]
        if not self._done and not self._failed:
            out.append(self._finish())
        out.append(self._release(original=True))
        return b"".join(out)

    def release(self) -> bytes:
        """The upstream paused (a keep-alive, or silence): events held while held-back text
        was unresolved go out now, without that text. What the parsers hold may still start a
        marker (a server may split even a special token over deltas): it waits for the next
        delta or the end of the stream."""
        if self._failed or self.ended:
            return b""
        return self._release(original=False)

    def _event(self, event: SSEEvent) -> bytes:
        raw = event.raw
        if self._failed:
            return raw
        if self.ended:
            return b""
        fast = self._fast
        if fast is not None and not self.held and self.rewriter.state.idle and fast.unchanging(raw):
            return raw
        return self._data(raw, event.data, event.fields)

    def _data(self, raw: bytes, data: bytes | None, fields: tuple[bytes, ...]) -> bytes:
        """The general path: what goes out now for one event (``raw``) whose data is ``data``."""
        if not data:  # a comment, or no data to dispatch: a keep-alive, forwarded at once
            return self.release() + raw
        if data[:1] != b"{":
            if data.startswith(DONE):  # as clients test it
                self._done = True
                return self._finish() + raw
            # What clients decode may start with JSON whitespace ("data:  {", "data:\t{").
            data = data.lstrip(JSON_SPACE)
            if data[:1] != b"{":
                return self._settle(raw, raw)
        try:
            chunk = _loads(data)
        except orjson.JSONDecodeError:
            try:  # what clients accept and orjson refuses (see lenient_json): this one event
                chunk = lenient_json.loads(data)
            except UnicodeDecodeError:
                chunk = self._not_utf8(data)
                if chunk is None:
                    return self._settle(raw, raw)
            except ValueError:
                return self._settle(raw, raw)
        else:
            if self._fast is not None and type(chunk) is dict and self._decoder.newline == b"\n":
                self._fast.learn(data, chunk)
        if type(chunk) is not dict:
            return self._settle(raw, raw)
        if "error" in chunk and not chunk.get("choices"):
            return self._upstream_error(raw)
        rewriter = self.rewriter
        lag = rewriter.state.lag
        try:
            chunks = rewriter.chunk(chunk)
        except LimitExceeded as exc:
            return self._limit(exc)
        except Exception:
            return self._fail(raw)
        if self._capture is not None and not rewriter.state.text_only:
            self._capture(data, chunks or [])
        if chunks is None:
            return self._send(raw, raw, lag)
        rewritten = encode_chunks(chunks, fields, self._decoder.newline, self._dumps)
        return self._send(raw, rewritten, lag)

    def _not_utf8(self, data: bytes) -> Any:
        """The chunk of an event that is not all UTF-8, each such byte kept; ``None`` when it
        is not JSON either. The stream's chunks are then written with those bytes, and its
        events decoded: the fast path writes only what orjson writes."""
        try:
            chunk = lenient_json.loads_keeping_bytes(data)
        except ValueError:
            return None
        self._dumps = lenient_json.dumps_keeping_bytes
        self._fast = self.reading.handed = None
        return chunk

    def _send(self, raw: bytes, rewritten: bytes, lag: int) -> bytes:
        """What goes out now for the event ``raw`` rewritten as ``rewritten`` (``lag``: the
        stream's before it): it, events held before it, or nothing yet (held while held-back
        text is unresolved)."""
        held = self.held
        state = self.rewriter.state
        exceeded = state.exceeded
        if (
            exceeded is None
            and not held
            and (rewritten is raw or (self.changed and not state.text_only))
        ):
            return rewritten  # nothing held back and nothing new to count: it goes now
        if exceeded is not None:  # what came before the held data still goes
            return self._release(original=False) + rewritten + self._limit(exceeded)
        # Text held back since an event that went out rewritten: this one cannot go as it came.
        if state.text_only and not (lag and not held):
            return self._settle(raw, rewritten)
        if not self.changed:
            self._first_change()
        return self._release(original=False) + rewritten if held else rewritten

    def _settle(self, original: bytes, rewritten: bytes) -> bytes:
        """Send, hold or release an event whose rewrite only moved text: originals when the
        held-back text turned out to be just text."""
        held = self.held
        if not held and original is rewritten:
            return original
        held.append((original, rewritten))
        if not self.rewriter.state.lag:
            return self._release(original=True)
        if len(held) > MAX_TENTATIVE_EVENTS:
            return self._release(original=False)
        return b""

    def _release(self, original: bool) -> bytes:
        held, self.held = self.held, []
        if held and not original and not self.changed:
            self._first_change()
        return b"".join([o if original else r for o, r in held])

    def _finish(self) -> bytes:
        rewriter = self.rewriter
        try:
            chunks = rewriter.finish()
        except LimitExceeded as exc:
            return self._limit(exc)
        except Exception:
            return self._fail(b"")
        state = rewriter.state
        if state.text_only and not state.lag and self.held:
            return self._release(original=True)
        if chunks:
            if not self.changed:
                self._first_change()
            if self._capture is not None and not state.text_only:
                self._capture(b"", chunks)
        return self._release(original=False) + encode_chunks(
            chunks, (), self._decoder.newline, self._dumps
        )

    def _first_change(self) -> None:
        self.changed = True
        self._report.rewritten()

    def _fail(self, raw: bytes) -> bytes:
        # Once per stream: from here on every byte is forwarded as it came.
        logger.exception("tool-call rewrite failed; forwarding the rest of the stream as is")
        self._report.fallback("rewrite-error")
        self._failed = True
        self._fast = self.reading.handed = None
        return self._release(original=True) + raw

    def _upstream_error(self, raw: bytes) -> bytes:
        """An upstream error event ends the stream and goes out last: after text held only for a
        possible marker, never followed by markup a parser held for a call that did not end."""
        self.ended = True
        self._fast = None
        return self._release(original=False) + raw

    def _limit(self, exc: LimitExceeded) -> bytes:
        """End the stream cleanly: an OpenAI error event, then ``[DONE]``; drop the rest."""
        logger.warning("ending a stream: %s", exc)
        self._report.fallback("limit-exceeded")
        self.ended = True
        self._fast = None
        if not self.changed:
            self._first_change()
        newline = self._decoder.newline
        self._decoder = SSEDecoder()  # free whatever partial event it held
        error = {
            "error": {
                "message": f"toolcall-middleware: {exc}",
                "type": "server_error",
                "code": "tool_call_limit_exceeded",
            }
        }
        # What was held only for a possible marker prefix is sent as rewritten (without it).
        return (
            self._release(original=False)
            + encode_event(orjson.dumps(error), (), newline)
            + encode_event(DONE, (), newline)
        )
