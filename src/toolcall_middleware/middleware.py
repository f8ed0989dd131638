"""``ToolCallMiddleware``: a pure ASGI middleware that repairs tool calls in responses.

It reads a chat completions request body once (to learn the model and tools), replays it to the
app unchanged, and wraps ``send``: a 2xx ``text/event-stream`` response with identity encoding
is rewritten event by event as it streams; a 2xx ``application/json`` response is rewritten as a
whole; everything else passes through byte-for-byte.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import orjson

from .asgi import ASGIApp, Message, Receive, Scope, Send
from .config import Options
from .detect import resolve_provider
from .parsers import ParserContext, ToolCallParser, create_parser, parser_triggers
from .parsers.unknown_tools import apply_unknown_tools
from .request import ChatRequest, read_body, replay_receive
from .rewrite import StreamRewriter, rewrite_message
from .stream import SSEStreamRewriter

logger = logging.getLogger("toolcall_middleware")


class ToolCallMiddleware:
    """Wrap an ASGI app so its chat completion responses carry spec-exact ``tool_calls``.

    ``ToolCallMiddleware(app)`` takes every option from ``TOOLCALL_*`` environment variables;
    keyword arguments override them:
    ``app.add_middleware(ToolCallMiddleware, provider="kimi_k2")``.
    """

    def __init__(self, app: ASGIApp, provider: str | None = None, **options: Any) -> None:
        self.app = app
        self.options = Options.from_env(provider=provider, **options)
        self._paths = frozenset(self.options.paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or scope.get("path") not in self._paths
        ):
            await self.app(scope, receive, send)
            return
        body, early = await read_body(receive)
        receive = replay_receive(body, early, receive)
        request = ChatRequest.parse(body)
        info = scope.get("toolcall")  # a dict from `toolcall serve` (front.py): its access log
        if isinstance(info, dict):
            info["model"] = request.model
        if not request.tools and not self.options.rewrite_without_tools:
            await self.app(scope, receive, send)
            return
        provider = resolve_provider(
            self.options.provider, request.model, self.options.provider_overrides
        )
        if isinstance(info, dict):
            info["provider"] = provider
        responder = Responder(
            send,
            lambda: SSEStreamRewriter(
                StreamRewriter(self._parser_factory(provider, request)),
                parser_triggers(provider),
            ),
            lambda message: self._rewrite_completion(message, provider, request),
        )
        try:
            await self.app(scope, receive, responder.send)
        finally:
            if isinstance(info, dict):
                info["tool_calls"] = responder.tool_calls

    def _parser_factory(self, provider: str, request: ChatRequest) -> Callable[[], Any]:
        context = request.parser_context(self.options.unknown_tools)
        return lambda: self._new_parser(provider, context)

    @staticmethod
    def _new_parser(provider: str, context: ParserContext) -> ToolCallParser:
        return apply_unknown_tools(create_parser(provider, context), context)

    def _rewrite_completion(self, completion: Any, provider: str, request: ChatRequest) -> int:
        """Rewrite a non-streaming ``chat.completion`` in place; the number of calls found."""
        choices = completion.get("choices") if isinstance(completion, dict) else None
        if not isinstance(choices, list):
            return False
        found = 0
        context = request.parser_context(self.options.unknown_tools)
        for choice in choices:
            message = choice.get("message") if isinstance(choice, dict) else None
            if not isinstance(message, dict):
                continue
            calls = rewrite_message(message, self._new_parser(provider, context))
            if calls and choice.get("finish_reason") == "stop":
                choice["finish_reason"] = "tool_calls"
            found += calls
        return found


class Responder:
    """Wraps one response's ``send``: decides per response whether and how to rewrite it."""

    def __init__(
        self,
        send: Send,
        new_stream: Callable[[], SSEStreamRewriter],
        rewrite_completion: Callable[[Any], int],
    ) -> None:
        self._send = send
        self._new_stream = new_stream
        self._rewrite_completion = rewrite_completion
        self._mode = "pass"
        self._stream: SSEStreamRewriter | None = None
        self._start: Message | None = None
        self._json_parts: list[bytes] = []
        self._json_calls = 0

    @property
    def tool_calls(self) -> int:
        """Tool calls emitted so far in this response."""
        return self._stream.rewriter.tool_call_count if self._stream else self._json_calls

    async def send(self, message: Message) -> None:
        kind = message["type"]
        stream = self._stream
        if stream is not None and kind == "http.response.body":  # the SSE hot path, inline
            body = message.get("body", b"")
            more = message.get("more_body", False)
            out = stream.feed(body)
            if not more:
                out += stream.close()
            if out is body:
                await self._send(message)  # nothing changed: the upstream's own message
            elif out or not more:
                await self._send({"type": "http.response.body", "body": out, "more_body": more})
            return
        if kind == "http.response.start":
            await self._on_start(message)
        elif kind == "http.response.body" and self._mode != "pass":
            await self._on_body(message)
        else:
            await self._send(message)

    async def _on_start(self, message: Message) -> None:
        status = message.get("status", 200)
        headers = message.get("headers", [])
        content_type, encoding = b"", b"identity"
        for name, value in headers:
            lname = name.lower()
            if lname == b"content-type":
                content_type = value.split(b";", 1)[0].strip().lower()
            elif lname == b"content-encoding":
                encoding = value.strip().lower()
        if not 200 <= status < 300 or encoding != b"identity":
            self._mode = "pass"
        elif content_type == b"text/event-stream":
            self._mode = "sse"
            self._stream = self._new_stream()
            message = {**message, "headers": _without(headers, b"content-length")}
        elif content_type == b"application/json":
            self._mode = "json"
            self._start = message  # held until the body is complete and its length known
            return
        await self._send(message)

    async def _on_body(self, message: Message) -> None:
        """A JSON response body: collected, rewritten as a whole at its end."""
        self._json_parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            await self._send_json()

    async def _send_json(self) -> None:
        assert self._start is not None
        body = b"".join(self._json_parts)
        start = self._start
        try:
            completion = orjson.loads(body)
            self._json_calls = self._rewrite_completion(completion)
            if self._json_calls:
                body = orjson.dumps(completion)
                headers = _without(start.get("headers", []), b"content-length")
                headers.append((b"content-length", str(len(body)).encode()))
                start = {**start, "headers": headers}
        except orjson.JSONDecodeError:
            pass
        except Exception:
            logger.exception("tool-call rewrite of a JSON response failed; sending it as is")
            body, start = b"".join(self._json_parts), self._start
        await self._send(start)
        await self._send({"type": "http.response.body", "body": body, "more_body": False})


def _without(headers: Any, name: bytes) -> list[tuple[bytes, bytes]]:
    return [(k, v) for k, v in headers if k.lower() != name]
