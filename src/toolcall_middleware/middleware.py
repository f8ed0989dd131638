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
from .calls import IdFactory, mistral_call_id, openai_call_id
from .config import Options
from .detect import resolve_provider
from .parsers import create_parser, parser_triggers
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
        if not request.tools and not self.options.rewrite_without_tools:
            await self.app(scope, receive, send)
            return
        provider = resolve_provider(
            self.options.provider, request.model, self.options.provider_overrides
        )
        responder = Responder(
            send,
            lambda: SSEStreamRewriter(
                StreamRewriter(self._parser_factory(provider, request), _id_factory(provider)),
                parser_triggers(provider),
            ),
            lambda message: self._rewrite_completion(message, provider, request),
        )
        await self.app(scope, receive, responder.send)

    def _parser_factory(self, provider: str, request: ChatRequest) -> Callable[[], Any]:
        context = request.parser_context()
        return lambda: create_parser(provider, context)

    def _rewrite_completion(self, completion: Any, provider: str, request: ChatRequest) -> bool:
        """Rewrite a non-streaming ``chat.completion`` in place; True if anything changed."""
        choices = completion.get("choices") if isinstance(completion, dict) else None
        if not isinstance(choices, list):
            return False
        found = 0
        context = request.parser_context()
        for choice in choices:
            message = choice.get("message") if isinstance(choice, dict) else None
            if not isinstance(message, dict):
                continue
            calls = rewrite_message(message, create_parser(provider, context),
                                    _id_factory(provider))
            if calls and choice.get("finish_reason") == "stop":
                choice["finish_reason"] = "tool_calls"
            found += calls
        return found > 0


def _id_factory(provider: str) -> IdFactory:
    return mistral_call_id if provider == "mistral" else openai_call_id


class Responder:
    """Wraps one response's ``send``: decides per response whether and how to rewrite it."""

    def __init__(
        self,
        send: Send,
        new_stream: Callable[[], SSEStreamRewriter],
        rewrite_completion: Callable[[Any], bool],
    ) -> None:
        self._send = send
        self._new_stream = new_stream
        self._rewrite_completion = rewrite_completion
        self._mode = "pass"
        self._stream: SSEStreamRewriter | None = None
        self._start: Message | None = None
        self._json_parts: list[bytes] = []

    async def send(self, message: Message) -> None:
        kind = message["type"]
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
        body = message.get("body", b"")
        more = message.get("more_body", False)
        if self._mode == "json":
            self._json_parts.append(body)
            if not more:
                await self._send_json()
            return
        assert self._stream is not None
        out = self._stream.feed(body)
        if not more:
            out += self._stream.close()
        if out or not more:
            await self._send({"type": "http.response.body", "body": out, "more_body": more})

    async def _send_json(self) -> None:
        assert self._start is not None
        body = b"".join(self._json_parts)
        start = self._start
        try:
            completion = orjson.loads(body)
            if self._rewrite_completion(completion):
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
