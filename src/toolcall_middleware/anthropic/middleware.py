"""``AnthropicMiddleware``: the Anthropic Messages API in front of an OpenAI-compatible ASGI app.

``POST /v1/messages`` (``?beta=true`` too) is validated and translated into a ``POST
/v1/chat/completions`` that goes to the wrapped app directly, in-process: a new scope, the
translated body replayed through ``receive``, the app's ``send`` captured. Its answer (SSE or
JSON, whichever it sends) is translated back, streaming as it arrives. ``POST
/v1/messages/count_tokens`` is answered locally (see tokens.py). Everything else goes to the
wrapped app untouched, so ``AnthropicMiddleware(ToolCallMiddleware(app))`` serves both APIs.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import orjson

from ..asgi import ASGIApp, Message, Receive, Scope, Send
from ..request import replay_receive
from ..sse import SSEDecoder, SSEEvent, encode_event
from .errors import AnthropicError, from_upstream_response, invalid_request
from .message import assemble, completion_chunk
from .options import AnthropicOptions
from .request import ChatRequest, translate_request
from .stream import Event, StreamTranslator

logger = logging.getLogger("toolcall_middleware.anthropic")

# Request headers that describe the Anthropic request, not the upstream one.
_DROP_HEADERS = frozenset(
    {
        b"content-length",
        b"content-type",
        b"accept",
        b"accept-encoding",
        b"transfer-encoding",
        b"x-api-key",
        b"anthropic-version",
        b"anthropic-beta",
        b"anthropic-dangerous-direct-browser-access",
    }
)
_ERROR_BODY_LIMIT = 64 * 1024


class AnthropicMiddleware:
    """Serve the Anthropic Messages API from an app that speaks OpenAI Chat Completions.

    Options (keyword, else ``TOOLCALL_ANTHROPIC_<NAME>`` environment variables):
    ``model_map`` (Anthropic model name or ``fnmatch`` pattern -> upstream model; JSON in the
    environment), ``ping_interval`` (seconds of silence before a ``ping``; 0 disables),
    ``thinking_history`` (``reasoning_content`` or ``drop``: what our thinking blocks become when
    sent back), ``buffer_tool_input`` (send each call's arguments whole, as valid JSON),
    ``upstream_fields`` (fields set on every upstream request, such as
    ``{"skip_special_tokens": False}``; a JSON object in the environment),
    ``messages_path``, ``upstream_path``, ``max_body_bytes``.
    """

    def __init__(
        self, app: ASGIApp, options: AnthropicOptions | None = None, **keywords: Any
    ) -> None:
        self.app = app
        if options is not None and keywords:
            raise TypeError("pass either an AnthropicOptions or keyword options, not both")
        self.options = options or AnthropicOptions.build(**keywords)
        path = self.options.messages_path.rstrip("/")
        self._paths = {path: False, path + "/count_tokens": True}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "POST":
            count_only = self._paths.get(scope["path"].rstrip("/"))
            if count_only is not None:
                await self._handle(scope, receive, send, count_only)
                return
        await self.app(scope, receive, send)

    async def _handle(self, scope: Scope, receive: Receive, send: Send, count_only: bool) -> None:
        try:
            body = await _read_body(receive, self.options.max_body_bytes)
            try:
                doc = orjson.loads(body)
            except orjson.JSONDecodeError as exc:
                raise invalid_request(f"request body is not valid JSON: {exc}") from None
            chat = translate_request(doc, self.options.request, count_only=count_only)
        except AnthropicError as exc:
            await _send_json(send, exc.status, exc.body())
            return
        if count_only:
            await _send_json(send, 200, {"input_tokens": chat.input_tokens})
            return
        upstream_body = orjson.dumps(chat.body)
        # The translated body, then the client's own receive (its disconnect, when it comes).
        upstream_receive = replay_receive(upstream_body, None, receive)
        responder = _Responder(send, chat, self.options)
        upstream_scope = self._upstream_scope(scope, chat, len(upstream_body))
        await responder.run(self.app, upstream_scope, upstream_receive)

    def _upstream_scope(self, scope: Scope, chat: ChatRequest, length: int) -> Scope:
        headers = [(k, v) for k, v in scope.get("headers", ()) if k.lower() not in _DROP_HEADERS]
        names = {k.lower() for k, _ in headers}
        api_key = next((v for k, v in scope.get("headers", ()) if k.lower() == b"x-api-key"), None)
        if api_key and b"authorization" not in names:
            # Claude Code sends ANTHROPIC_API_KEY as x-api-key; OpenAI servers want a bearer.
            headers.append((b"authorization", b"Bearer " + api_key))
        headers += [
            (b"content-type", b"application/json"),
            (b"content-length", str(length).encode()),
            (b"accept", b"text/event-stream" if chat.stream else b"application/json"),
            (b"accept-encoding", b"identity"),
        ]
        path = scope.get("root_path", "") + self.options.upstream_path
        return {
            **scope,
            "method": "POST",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": headers,
        }


class _Responder:
    """One translated response: the wrapped app's ``send`` in, the client's ``send`` out."""

    def __init__(self, send: Send, chat: ChatRequest, options: AnthropicOptions) -> None:
        self.client_send = send
        self.chat = chat
        self.ping_interval = options.ping_interval or 0.0
        self.translator = StreamTranslator(
            chat.model,
            input_tokens=chat.input_tokens,
            stop_sequences=chat.stop_sequences,
            buffer_tool_input=options.buffer_tool_input,
        )
        self.state = "waiting"  # -> "sse" | "json" | "error", then "done"
        self.status = 0
        self.retry_after: bytes | None = None
        self.error: AnthropicError | None = None  # our own verdict on the upstream response
        self.buffer = bytearray()
        self.decoder = SSEDecoder()
        # Non-streaming: every event, assembled into one message at the end.
        self.events: list[Event] = [] if chat.stream else self.translator.start()
        self.streaming = False  # the client has our 200 and message_start
        self.client_gone = False
        self.finished = False  # the client has the whole response
        self.lock = anyio.Lock()
        self.last_write = anyio.current_time()

    async def run(self, app: ASGIApp, scope: Scope, receive: Receive) -> None:
        async with anyio.create_task_group() as tg:
            if self.chat.stream and self.ping_interval > 0:
                tg.start_soon(self._pinger, tg.cancel_scope)
            try:
                await self._run_app(app, scope, receive)
            finally:
                tg.cancel_scope.cancel()

    async def _run_app(self, app: ASGIApp, scope: Scope, receive: Receive) -> None:
        try:
            try:
                await app(scope, receive, self.upstream_send)
            except Exception as exc:
                if self.client_gone:
                    return  # the app failed because our client went away: nothing to tell
                logger.exception("upstream app failed")
                await self._fail(AnthropicError(f"upstream failed: {exc!r}", "api_error"))
            else:
                await self._end_of_body()
        except Exception:
            if not self.client_gone:
                raise

    async def upstream_send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            await self._response_start(message)
        elif kind == "http.response.body" and self.state != "done":
            body = message.get("body", b"")
            if self.state == "sse":
                await self._sse(self.decoder.feed(body))
            elif len(self.buffer) < _ERROR_BODY_LIMIT or self.state == "json":
                self.buffer += body
            if not message.get("more_body", False):
                await self._end_of_body()

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
        if self.state != "error" and self.chat.stream:
            await self._start_stream()

    def _bad_upstream(self, problem: str) -> None:
        self.state = "error"
        self.error = AnthropicError(f"upstream sent a {problem}", "api_error", 502)

    async def _start_stream(self) -> None:
        self.streaming = True
        start = {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"),
                (b"cache-control", b"no-cache"),
                (b"x-accel-buffering", b"no"),
            ],
        }
        await self._write(start)
        await self._emit(self.translator.start())

    async def _sse(self, sse_events: list[SSEEvent]) -> None:
        out: list[Event] = []
        for event in sse_events:
            data = event.data
            if data is None:
                continue  # comments and keep-alives
            if data.strip() == b"[DONE]":
                out += self.translator.finish()
                break
            try:
                chunk = orjson.loads(data)
            except orjson.JSONDecodeError:
                logger.warning("skipping a non-JSON upstream event: %r", data[:200])
                continue
            if isinstance(chunk, dict):
                out += self.translator.feed(chunk)
            if self.translator.done:
                break
        await self._emit(out)
        if self.translator.done:
            await self._done()

    async def _end_of_body(self) -> None:
        if self.state == "done":
            return
        if self.state == "waiting":
            self.state = "error"
            self.error = AnthropicError("the upstream app sent no response", "api_error", 502)
        if self.state == "sse":
            await self._sse(self.decoder.close())
            if self.state != "done":
                await self._emit(self.translator.finish())
                await self._done()
        elif self.state == "json":
            await self._json_body()
        elif self.state == "error":
            error = self.error or from_upstream_response(self.status, bytes(self.buffer))
            if self.streaming:
                await self._fail(error)
            else:
                await self._send_error(error)

    async def _json_body(self) -> None:
        try:
            doc = orjson.loads(self.buffer)
        except orjson.JSONDecodeError:
            await self._fail(AnthropicError("upstream sent invalid JSON", "api_error"))
            return
        if not isinstance(doc, dict):
            await self._fail(AnthropicError("upstream sent an unexpected JSON body", "api_error"))
            return
        events: list[Event] = []
        try:
            events += self.translator.feed(completion_chunk(doc))
        except AnthropicError as exc:
            events += self.translator.fail(exc)
        events += self.translator.finish()
        await self._emit(events)
        await self._done()

    async def _fail(self, error: AnthropicError) -> None:
        if self.state == "done":
            return
        if self.streaming:
            await self._emit(self.translator.fail(error))
            await self._done()
        else:
            await self._send_error(error)

    async def _emit(self, events: list[Event]) -> None:
        if not events:
            return
        if not self.streaming:
            self.events += events
            return
        payload = b"".join(
            encode_event(orjson.dumps(data), (b"event: " + kind.encode(),)) for kind, data in events
        )
        await self._write({"type": "http.response.body", "body": payload, "more_body": True})

    async def _done(self) -> None:
        if self.state == "done":
            return
        self.state = "done"
        if self.streaming:
            await self._write({"type": "http.response.body", "body": b"", "more_body": False})
            return
        try:
            message = assemble(self.events)
        except AnthropicError as exc:
            await self._send_error(exc)
            return
        await _send_json(self._write, 200, message)

    async def _send_error(self, error: AnthropicError) -> None:
        self.state = "done"
        extra = [(b"retry-after", self.retry_after)] if self.retry_after else []
        await _send_json(self._write, error.status, error.body(), extra)

    async def _write(self, message: Message, ping: bool = False) -> None:
        if self.client_gone:
            raise OSError("client disconnected")
        async with self.lock:
            if ping and (self.finished or self.translator.done):
                return  # lost the race with the message's last events
            try:
                await self.client_send(message)
            except Exception:
                self.client_gone = True
                raise
            self.last_write = anyio.current_time()
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                self.finished = True

    async def _pinger(self, scope: anyio.CancelScope) -> None:
        """``ping`` after ``ping_interval`` seconds without a write (reasoning models go quiet,
        and buffered tool calls send nothing), so clients and proxies keep the stream."""
        ping = encode_event(b'{"type": "ping"}', (b"event: ping",))
        while True:
            wait = self.last_write + self.ping_interval - anyio.current_time()
            if wait > 0:
                await anyio.sleep(wait)
                continue
            if self.streaming and not self.translator.done:
                try:
                    message = {"type": "http.response.body", "body": ping, "more_body": True}
                    await self._write(message, ping=True)
                except Exception:
                    scope.cancel()  # the client is gone: stop the upstream too
                    return
            else:
                await anyio.sleep(self.ping_interval)


async def _read_body(receive: Receive, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise AnthropicError("client disconnected", "invalid_request_error", 400)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise AnthropicError(
                f"request body is larger than {limit} bytes", "request_too_large", 413
            )
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _send_json(
    send: Send, status: int, doc: Any, extra_headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = orjson.dumps(doc)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(extra_headers or ()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


__all__ = ["AnthropicMiddleware"]
