"""``FrontResponder``: one translated response, between the wrapped app and the client.

It runs the wrapped app in process, decides once at ``http.response.start`` what the upstream
sent (non-2xx, compressed, SSE, JSON), and writes what the front's ``FrontStream`` (sans-I/O)
makes of it: a stream as it arrives, or one whole reply. An SSE event, a JSON body and the kept
part of an error body each have a cap; past it the response fails with the front's own error.
"""

from __future__ import annotations

import logging
import time

import anyio

from ... import handoff
from ...asgi import ASGIApp, Message, Receive, Scope, Send
from ...handoff import KEY as HANDED
from ...metrics import Metrics
from ...sse import SSEDecoder, SSEEvent, one_data_line
from .failures import UpstreamFailure, bad_upstream, from_response
from .fast_path import FastEvent, handed_chunk
from .pipeline import Reply, send_reply
from .translator import FrontStream
from .undecoded import decode_body, decode_chunk, report_replaced
from .wire import SSE_HEADERS, Headers, Output

logger = logging.getLogger("toolcall_middleware.fronts")

ERROR_BODY_LIMIT = 64 * 1024
#: Default cap on one upstream SSE event and on an upstream JSON body.
MAX_UPSTREAM_BYTES = 8 * 1024 * 1024


class FrontResponder:
    def __init__(
        self,
        send: Send,
        front: FrontStream,
        *,
        keepalive: bytes | None = None,
        keepalive_interval: float = 0.0,
        max_upstream_bytes: int = MAX_UPSTREAM_BYTES,
        stream_headers: Headers = SSE_HEADERS,
        metrics: Metrics | None = None,
        api: str = "",
    ) -> None:
        """``metrics`` counts, for ``api`` (the front's name), what only the front sees."""
        self.metrics = metrics
        self.api = api
        #: Bytes of a whole JSON body that were not UTF-8 (the front's reader counts the rest).
        self.replaced_bytes = 0
        self.client_send = send
        self.front = front
        self.keepalive = keepalive if keepalive_interval > 0 else None
        self.keepalive_interval = keepalive_interval
        self.max_upstream_bytes = max_upstream_bytes
        #: The streamed response's headers (an API may stream something other than SSE).
        self.stream_headers = stream_headers
        self.state = "waiting"  # -> "sse" | "json" | "error", then "done"
        self.status = 0
        self.retry_after: bytes | None = None
        self.failure: UpstreamFailure | None = None  # our own verdict on the upstream response
        self.parts: list[bytes] = []
        self.size = 0
        self.decoder = SSEDecoder()
        self.streaming = False  # the client has our 200 and the stream's head
        self.client_gone = False
        self.finished = False  # the client has the whole response
        self.ping: anyio.Event | None = None  # a keep-alive being sent
        self.last_write = time.monotonic()
        #: The front's fast path (``FrontStream.fast_event``), and where it learns.
        self._fast_event: FastEvent | None = front.fast_event
        self._learn = front.learn if self._fast_event is not None else None
        #: ``_fast_event`` while the hot path may take it (``_arm``), else None.
        self._hot: FastEvent | None = None

    async def run(self, app: ASGIApp, scope: Scope, receive: Receive) -> None:
        if self._fast_event is not None:  # a chat path in this process may hand its readings
            scope = handoff.offer(scope)
        try:
            if not (self.front.stream and self.keepalive is not None):
                await self._run_app(app, scope, receive)  # nothing runs beside the app
                return
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._keep_alive, tg.cancel_scope)
                try:
                    await self._run_app(app, scope, receive)
                finally:
                    tg.cancel_scope.cancel()
        finally:
            replaced = self.replaced_bytes + self.front.replaced_bytes
            if replaced:
                report_replaced(replaced, self.metrics, self.api)

    async def _run_app(self, app: ASGIApp, scope: Scope, receive: Receive) -> None:
        try:
            try:
                await app(scope, receive, self.upstream_send)
            except Exception as exc:
                if self.client_gone:
                    return  # the app failed because our client went away: nothing to tell
                logger.exception("upstream app failed")
                await self._fail(UpstreamFailure("server", f"upstream failed: {exc!r}"))
            else:
                await self._end_of_body()
        except Exception as exc:
            if not self.client_gone:
                await self._broken(exc)

    # --- the wrapped app's side -------------------------------------------------------------

    async def upstream_send(self, message: Message) -> None:
        # (An exception while translating never reaches the app: see ``_broken``.)
        try:
            hot = self._hot
            if hot is not None and (
                (handed := message.get(HANDED)) is not None or message.get("more_body")
            ):
                # The hot path: one whole usual event per body message, read and written by the
                # fast path while nothing else needs checking (``_arm``).
                body = message["body"]
                data = hot(body, handed)
                if data is None:
                    await self._one_event(body, message)
                elif data:
                    await self._send(
                        {"type": "http.response.body", "body": data, "more_body": True}
                    )
                return
            if self.state == "sse" and message.get("more_body") and not self.decoder.buffered:
                await self._one_event(message["body"], message)
                return
            await self._read(message)
        except Exception as exc:
            if self.client_gone:
                raise  # the app stops: nobody reads what it sends
            await self._broken(exc)

    async def _one_event(self, body: bytes, message: Message) -> None:
        """A body message of an SSE stream with nothing held in the decoder, not taken by the
        fast path: decoded here when it is one whole ``data: {...}`` event (``one_data_line``),
        else by the decoder; not at all when the chat path handed its reading."""
        handed = message.get(HANDED)
        if handed is not None:
            front = self.front
            await self._body(front.chunk(handed_chunk(handed)))
            if front.done:
                await self._done()
            return
        if not one_data_line(body) or body[6:7] != b"{":
            await self._read(message)
            return
        chunk = decode_chunk(body[6:-2])
        if type(chunk) is not dict:
            return
        if self._learn is not None:
            self._learn(body[6:-2], chunk)
        front = self.front
        await self._body(front.chunk(chunk))
        if front.done:
            await self._done()

    def _arm(self) -> None:
        """``_hot`` is the fast path's hook while nothing else needs checking: the upstream
        streams SSE, the decoder holds nothing, the client has the head and no keep-alive is
        in flight. Called wherever one of these may change."""
        self._hot = (
            self._fast_event
            if self.state == "sse"
            and self.streaming
            and not self.client_gone
            and self.ping is None
            and not self.decoder.buffered
            else None
        )

    def _client_lost(self) -> None:
        self.client_gone = True
        self._hot = None

    async def _read(self, message: Message) -> None:
        """Any message but the hot path's."""
        if self.state == "done":
            return  # the response is over (a limit, a failure): the rest is dropped
        kind = message["type"]
        if kind == "http.response.start":
            await self._response_start(message)
        elif kind == "http.response.body" and self.state != "done":
            body = message.get("body", b"")
            if self.state == "sse":
                events = self.decoder.feed(body)
                await self._sse(events)
                if self.state == "sse" and self.decoder.buffered > self.max_upstream_bytes:
                    await self._too_large("SSE event")
            elif self.state == "json":
                self._hold(body)
                if self.size > self.max_upstream_bytes:
                    await self._too_large("JSON body")
            elif self.size < ERROR_BODY_LIMIT:
                self._hold(body[: ERROR_BODY_LIMIT - self.size])
            if not message.get("more_body", False):
                await self._end_of_body()
        self._arm()

    def _hold(self, body: bytes) -> None:
        self.parts.append(body)  # (an empty body adds nothing to the join)
        self.size += len(body)

    async def _response_start(self, message: Message) -> None:
        self.status = status = message["status"]
        headers = {k.lower(): v for k, v in message.get("headers", ())}
        ctype = headers.get(b"content-type", b"").lower()
        encoding = headers.get(b"content-encoding", b"identity").lower()
        if not 200 <= status < 300:
            self.state = "error"
            self.retry_after = headers.get(b"retry-after")
        elif encoding != b"identity":
            self._bad_upstream(f"compressed response (content-encoding: {encoding.decode()})")
        elif ctype.startswith(b"text/event-stream"):
            self.state = "sse"
        elif ctype.startswith(b"application/json"):
            self.state = "json"
        else:
            self._bad_upstream(f"unexpected content-type {ctype.decode() or 'none'!r}")
        if self.state != "error" and self.front.stream:
            await self._start_stream()

    def _bad_upstream(self, problem: str) -> None:
        self.state = "error"
        self.failure = bad_upstream(problem)

    async def _too_large(self, what: str) -> None:
        self.parts, self.size = [], 0
        self.decoder = SSEDecoder()
        limit = self.max_upstream_bytes
        await self._fail(UpstreamFailure("server", f"upstream sent a {what} over {limit} bytes"))

    async def _start_stream(self) -> None:
        self.streaming = True
        start = {"type": "http.response.start", "status": 200, "headers": self.stream_headers}
        await self._write(start)
        await self._body(self.front.head())

    async def _sse(self, sse_events: list[SSEEvent]) -> None:
        front = self.front
        fast, learn = self._fast_event, self._learn
        out: list[bytes] = []
        for event in sse_events:
            data = event.data
            if data is None:
                continue  # comments and keep-alives
            last = data[:1] != b"{" and data.strip() == b"[DONE]"
            sent: Output
            if last:
                sent = front.end()
            else:
                if fast is not None:  # several events in one read: each may be the usual one
                    fast_sent = fast(event.raw, None)
                    if fast_sent is not None:
                        out.append(fast_sent)
                        continue
                chunk = decode_chunk(data)
                if not isinstance(chunk, dict):
                    continue
                if learn is not None:
                    learn(data, chunk)
                sent = front.chunk(chunk)
            if isinstance(sent, bytes):
                out.append(sent)
            else:  # pieces written as they are sent: what came before goes first
                await self._body(b"".join(out))
                out = []
                await self._body(sent)
            if last or front.done:
                break
        await self._body(b"".join(out))
        if front.done:
            await self._done()

    async def _end_of_body(self) -> None:
        if self.state == "done":
            return
        if self.state == "waiting":
            self.state = "error"
            self.failure = UpstreamFailure(
                "server", "the upstream app sent no response", gateway=True
            )
        if self.state == "sse":
            await self._sse(self.decoder.close())
            if self.state != "done":
                await self._body(self.front.end())
                await self._done()
        elif self.state == "json":
            await self._json_body()
        elif self.state == "error":
            failure = self.failure or from_response(
                self.status, b"".join(self.parts), self.retry_after
            )
            await self._fail(failure)

    async def _json_body(self) -> None:
        body = b"".join(self.parts)
        self.parts = []
        doc, self.replaced_bytes = decode_body(body) if body.strip() else (None, 0)
        del body
        if not isinstance(doc, dict):
            problem = "invalid JSON" if doc is None else "an unexpected JSON body"
            await self._fail(UpstreamFailure("server", f"upstream sent {problem}"))
            return
        out = self.front.completion(doc)
        del doc
        await self._body(out)
        await self._body(self.front.end())
        await self._done()

    async def _fail(self, failure: UpstreamFailure) -> None:
        if self.state == "done":
            return
        if self.streaming:
            await self._body(self.front.fail(failure))
            await self._done()
        else:
            self.state = "done"
            await self._reply(self.front.error(failure))

    # --- the client's side ------------------------------------------------------------------

    async def _body(self, data: Output) -> None:
        if not self.streaming:
            return
        if isinstance(data, bytes):
            if data:
                await self._write_more(data)
            return
        for piece in data:  # each made as it is sent: one large event held at a time
            if piece:
                await self._write_more(piece)

    async def _write_more(self, data: bytes) -> None:
        """A piece of the stream (a body message that is not the last)."""
        await self._send({"type": "http.response.body", "body": data, "more_body": True})

    async def _done(self) -> None:
        if self.state == "done":
            return
        self.state = "done"  # nothing more is read from the upstream meanwhile
        self._hot = None
        await self._body(await self.front.settle())
        if self.streaming:
            self.state = "done"
            self._hot = None
            await self._write({"type": "http.response.body", "body": b"", "more_body": False})
        else:
            # Built before anything is sent: a reply that cannot be built is the API's error.
            await self._reply(self.front.result())

    async def _broken(self, exc: Exception) -> None:
        """Translating the answer failed (an answer no front can write, or a bug): the client
        gets its API's error, never a stream that ends as if it were whole or a bare 500; the
        rest of the upstream is dropped. Called where ``exc`` was caught."""
        logger.exception("could not translate the upstream's answer")
        self._hot = None
        if self.finished or self.client_gone:
            return
        failure = UpstreamFailure(
            "server", f"the proxy could not translate the upstream's answer ({exc!r})"
        )
        if not self.streaming:
            try:
                reply = self.front.error(failure)
            except Exception:
                logger.exception("could not write the error reply")
                reply = Reply(500, b"the proxy could not translate the upstream's answer")
            await self._reply(reply)
            return
        try:
            data = self.front.fail(failure)
        except Exception:
            logger.exception("could not write the error event")
            data = b""  # (the stream still ends: a client that reads it whole sees it cut short)
        self.state = "done"
        try:
            await self._body(data)
        except Exception:
            if self.client_gone:
                raise
            logger.exception("could not write the error event")
        await self._write({"type": "http.response.body", "body": b"", "more_body": False})

    async def _reply(self, reply: Reply) -> None:
        self.state = "done"
        self._hot = None
        await send_reply(self._write, reply)

    async def _write(self, message: Message) -> None:
        await self._send(message)
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            self.finished = True

    async def _send(self, message: Message) -> None:
        if self.client_gone:
            raise OSError("client disconnected")
        if self.ping is not None:  # one send at a time: let the keep-alive in flight finish
            await self.ping.wait()
        try:
            await self.client_send(message)
        except Exception:
            self._client_lost()
            raise
        if self.keepalive is not None:
            self.last_write = time.monotonic()

    async def _write_keepalive(self, message: Message) -> None:
        """A keep-alive, unless the response is over; ``_write`` waits while it is sent."""
        if self.finished or self.front.done or self.client_gone:
            return
        self.ping = anyio.Event()
        self._hot = None
        try:
            await self.client_send(message)
        except Exception:
            self._client_lost()
            raise
        finally:
            self.ping.set()
            self.ping = None
            self._arm()
        self.last_write = time.monotonic()

    async def _keep_alive(self, scope: anyio.CancelScope) -> None:
        """``keepalive`` bytes after ``keepalive_interval`` seconds without a write (reasoning
        models go quiet, and buffered tool calls send nothing), so clients and proxies keep the
        stream open."""
        assert self.keepalive is not None
        message = {"type": "http.response.body", "body": self.keepalive, "more_body": True}
        while True:
            wait = self.last_write + self.keepalive_interval - time.monotonic()
            if wait > 0:
                await anyio.sleep(wait)
                continue
            if self.streaming and not self.front.done:
                try:
                    await self._write_keepalive(message)
                except Exception:
                    scope.cancel()  # the client is gone: stop the upstream too
                    return
            else:
                await anyio.sleep(self.keepalive_interval)
