"""``AnthropicMiddleware``: the Anthropic Messages API in front of an OpenAI-compatible ASGI app.

``POST /v1/messages`` (``?beta=true`` too) is validated and translated into a ``POST
/v1/chat/completions`` that goes to the wrapped app directly, in-process (``core.pipeline``).
Its answer (SSE or JSON, whichever it sends) is translated back, streaming as it arrives
(``core.responder`` with this front's ``AnthropicStream``). ``POST /v1/messages/count_tokens``
is answered locally (``core.tokens``). Everything else goes to the wrapped app untouched, so
``AnthropicMiddleware(ToolCallMiddleware(app))`` serves both APIs.
"""

from __future__ import annotations

import logging
from typing import Any

from ...asgi import ASGIApp, Receive, Scope, Send
from ...metrics import Metrics
from ...sse import encode_event
from ..core.failures import UpstreamFailure
from ..core.middleware import FrontMiddleware
from ..core.pipeline import (
    REQUEST_HEADERS,
    ClientGone,
    Reply,
    header,
    json_reply,
    send_reply,
)
from ..core.translator import EventStream
from ..core.wire import LARGE_STRING
from .errors import AnthropicError, from_failure, invalid_request
from .message import MessageAssembler
from .options import AnthropicOptions
from .request import ChatRequest, translate_request
from .stream import StreamTranslator

logger = logging.getLogger("toolcall_middleware.anthropic")

# Request headers that describe the Anthropic request, not the upstream one.
_DROP_HEADERS = REQUEST_HEADERS | {
    b"anthropic-version",
    b"anthropic-beta",
    b"anthropic-dangerous-direct-browser-access",
}
PING = encode_event(b'{"type": "ping"}', (b"event: ping",))


class AnthropicMiddleware(FrontMiddleware):
    """Serve the Anthropic Messages API from an app that speaks OpenAI Chat Completions.

    Options (keyword, else ``TOOLCALL_ANTHROPIC_<NAME>`` environment variables):
    ``model_map`` (Anthropic model name or ``fnmatch`` pattern -> upstream model; JSON in the
    environment), ``default_model``, ``ping_interval`` (seconds of silence before a ``ping``;
    0 disables), ``thinking_history`` (``reasoning_content`` or ``drop``: what our thinking
    blocks become when sent back), ``buffer_tool_input`` (send each call's arguments whole, as
    valid JSON), ``upstream_fields`` (fields set on every upstream request, such as
    ``{"skip_special_tokens": False}``; a JSON object in the environment), ``mid_system``,
    ``messages_path``, ``upstream_path``, ``max_body_bytes``, ``max_upstream_bytes``.
    """

    api = "anthropic"
    error = AnthropicError
    drop_headers = _DROP_HEADERS

    def __init__(
        self,
        app: ASGIApp,
        options: AnthropicOptions | None = None,
        *,
        metrics: Metrics | None = None,
        **keywords: Any,
    ) -> None:
        """``metrics``: where what only the front sees is counted (``toolcall serve`` gives
        its own; none by default)."""
        if options is not None and keywords:
            raise TypeError("pass either an AnthropicOptions or keyword options, not both")
        self.options = options or AnthropicOptions.build(**keywords)
        super().__init__(app, metrics, self.options)
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
        options = self.options
        try:
            chat, upstream_body = await self._translate(receive, count_only)
        except ClientGone:
            return  # nothing to answer, and nothing goes upstream
        except AnthropicError as exc:
            await send_reply(send, json_reply(exc.status, exc.body()))
            return
        if count_only:
            await send_reply(send, json_reply(200, {"input_tokens": chat.input_tokens}))
            return
        user_agent = header(scope.get("headers", ()), b"user-agent") or b""
        front = AnthropicStream(chat, options, options.buffers_tool_input(user_agent))
        await self.respond(
            scope,
            receive,
            send,
            front,
            upstream_body,
            own_fields=options.upstream_fields,
            keepalive=PING,
            keepalive_interval=options.ping_interval or 0.0,
        )

    def refuse(
        self, message: str, *, status: int = 400, code: str | None = None, param: str | None = None
    ) -> Exception:
        if code == "request_too_large":
            return AnthropicError(message, code, status)
        return invalid_request(message)

    async def _translate(self, receive: Receive, count_only: bool) -> tuple[ChatRequest, bytes]:
        doc = await self.read_json(receive)
        request = self.options.request
        return self.translate(
            lambda: translate_request(doc, request, count_only=count_only), lambda chat: chat.body
        )


class AnthropicStream(EventStream):
    """One Messages response (``core.responder.FrontStream``): Anthropic events as SSE when
    the client streams, else collected and assembled into one message."""

    translator: StreamTranslator

    def __init__(
        self, chat: ChatRequest, options: AnthropicOptions, buffer_tool_input: bool
    ) -> None:
        translator = StreamTranslator(
            chat.model,
            input_tokens=chat.input_tokens,
            stop_sequences=chat.stop_sequences,
            buffer_tool_input=buffer_tool_input,
            max_arguments_bytes=options.max_arguments_bytes,
            # Not streaming, the whole message is held until it is assembled.
            max_answer_bytes=None if chat.stream else options.max_upstream_bytes,
        )
        super().__init__(translator, chat.stream)
        #: Not streaming: the message, assembled from every event (its start included) as
        #: they come.
        self.message = MessageAssembler()
        if not chat.stream:
            self.message.add(translator.start())

    def keep(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        self.message.add(events)

    def failed(self, failure: UpstreamFailure) -> list[tuple[str, dict[str, Any]]]:
        return self.translator.fail(from_failure(failure))

    def result(self) -> Reply:
        try:
            message = self.message.result()
        except AnthropicError as exc:
            return _error_reply(exc)
        large = self.translator.reader.answer_size >= LARGE_STRING
        return json_reply(200, message, large=large)

    def error(self, failure: UpstreamFailure) -> Reply:
        return _error_reply(from_failure(failure), failure.retry_after)


def _error_reply(error: AnthropicError, retry_after: bytes | None = None) -> Reply:
    extra = [(b"retry-after", retry_after)] if retry_after else []
    return json_reply(error.status, error.body(), extra)


__all__ = ["AnthropicMiddleware", "AnthropicStream"]
