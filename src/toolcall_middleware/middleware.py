"""``ToolCallMiddleware``: a pure ASGI middleware that repairs tool calls in responses.

It reads a chat completions request body once (to learn the model and tools), replays it to the
app (unchanged, unless ``upstream_fields`` are configured: ``upstream_fields.py``), and wraps
``send`` in a ``ToolCallResponder`` (``responder.py``): a 2xx ``text/event-stream`` response
with identity encoding is rewritten event by event as it streams; a 2xx ``application/json``
response is rewritten as a whole; everything else passes through byte-for-byte.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson

from . import lenient_json
from .asgi import ASGIApp, Receive, Scope, Send
from .config import Options
from .debug import DebugCapture, debug_app
from .detect import detect_provider
from .handoff import offered
from .hook import CompletionHook, call_hook
from .metrics import metrics_for
from .request import (
    BodyTooLarge,
    RequestFacts,
    read_body,
    replay_receive,
    set_upstream_fields,
)
from .responder import ToolCallResponder
from .rewriters import Rewriters
from .think import starts_in_reasoning
from .upstream_fields import UpstreamFields

logger = logging.getLogger("toolcall_middleware")


class ToolCallMiddleware:
    """Wrap an ASGI app so its chat completion responses carry spec-exact ``tool_calls``.

    ``ToolCallMiddleware(app)`` takes every option from ``TOOLCALL_*`` environment variables;
    keyword arguments override them:
    ``app.add_middleware(ToolCallMiddleware, provider="kimi_k2")``.

    Objects rather than settings: ``registry``, the Prometheus registry the counters go to
    (default: the global one, when ``prometheus-client`` is installed); ``debug``, a
    ``DebugCapture`` to record into (default: one of ``debug_max`` entries when ``admin_key``
    is set, served at ``debug_path``); ``on_complete(request, response)``, called with the
    request body and the assembled ``chat.completion`` after each chat response.
    """

    def __init__(
        self,
        app: ASGIApp,
        provider: str | None = None,
        *,
        registry: Any = None,
        debug: DebugCapture | None = None,
        on_complete: CompletionHook | None = None,
        **options: Any,
    ) -> None:
        self.app = app
        self.options = Options.from_env(provider=provider, **options)
        self._paths = frozenset(self.options.paths)
        self.metrics = metrics_for(registry) if self.options.metrics else None
        if debug is None and self.options.admin_key:
            debug = DebugCapture(self.options.debug_max)
        self.debug = debug
        self._debug_app = (
            debug_app(debug, self.options.admin_key) if self.options.admin_key else None
        )
        self.on_complete = on_complete
        self._fields = UpstreamFields(
            self.options.upstream_fields, self.options.upstream_fields_by_model
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or scope.get("path") not in self._paths
        ):
            if (
                self._debug_app is not None
                and scope["type"] == "http"
                and scope.get("path") == self.options.debug_path
            ):
                await self._debug_app(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
        try:
            body, early = await read_body(receive, self.options.max_body_bytes)
        except BodyTooLarge as exc:
            await _send_too_large(send, str(exc))
            return
        if early is not None:
            return  # the client left mid-upload: nothing of its partial body goes on
        if self._fields:
            scope, body, payload = set_upstream_fields(scope, body, self._fields)
            request = RequestFacts.of(payload)
        else:
            request = RequestFacts.parse(body)
        receive = replay_receive(body, None, receive)
        info = scope.get("toolcall")  # a dict from `toolcall serve` (proxy/front.py): access log
        if isinstance(info, dict):
            info["model"] = request.model
        rewrite = (
            bool(request.tools)
            or self.options.rewrite_without_tools
            or starts_in_reasoning(
                self.options.think_tags,
                request.model,
                request.thinking_off,
                request.thinking_asked,
            )
        )
        hook = self.on_complete
        if not rewrite and hook is None:
            await self.app(scope, receive, send)
            return
        provider = detect_provider(
            self.options.provider, request.model, self.options.provider_overrides
        )
        if isinstance(info, dict):
            info["provider"] = provider.name
        rewriters = Rewriters(
            self.options,
            provider,
            request,
            metrics=self.metrics,
            debug=self.debug,
            hand=offered(scope),
        )
        responder = ToolCallResponder(
            send,
            rewriters if rewrite else None,
            tap=hook is not None,
            max_json_bytes=self.options.max_buffered_bytes,
            json_report=rewriters.json_report,
            idle_release=self.options.idle_release,
        )
        try:
            await self.app(scope, receive, responder.send)
        finally:
            responder.stop()
            if isinstance(info, dict):
                info["tool_calls"] = responder.tool_calls
            if rewriters.log is not None:
                rewriters.log.done(responder.tool_calls)
            if hook is not None:
                completion = responder.completion()
                if completion is not None:
                    await call_hook(hook, _request_dict(body), completion)


async def _send_too_large(send: Send, message: str) -> None:
    """413 with the OpenAI error object, so SDKs raise a readable APIError."""
    error = {
        "message": message,
        "type": "invalid_request_error",
        "param": None,
        "code": "request_too_large",
    }
    body = orjson.dumps({"error": error})
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _request_dict(body: bytes) -> dict[str, Any]:
    try:
        payload = lenient_json.loads(body)
    except ValueError:
        return {}
    return payload if isinstance(payload, dict) else {}
