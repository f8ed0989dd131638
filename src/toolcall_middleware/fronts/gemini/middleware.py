"""``GeminiMiddleware``: the Gemini API in front of an OpenAI-compatible ASGI app.

``POST /{ver}/models/{model}:generateContent`` and ``:streamGenerateContent`` (``alt=sse``, or
the JSON-array form without it) are validated and translated into a ``POST
/v1/chat/completions`` that goes to the wrapped app directly, in process (``core.pipeline``);
its answer is translated back as it arrives (``core.responder`` with this front's
``GeminiStream``). ``:countTokens`` and the model listing are answered locally. ``ver`` is
``v1beta`` (the JS SDK's and gemini-cli's), ``v1`` (the Python SDK's) or ``v1alpha``; the model
comes from the path and may hold slashes (``moonshotai/Kimi-K2-Instruct``).

``GET /v1/models`` is the OpenAI model list too: it is answered here only for a Gemini client
(an ``x-goog-api-key`` or ``x-goog-api-client`` header, or a ``key`` parameter), and goes to the
wrapped app otherwise. Every other path goes to the wrapped app untouched, so
``GeminiMiddleware(AnthropicMiddleware(ToolCallMiddleware(app)))`` serves all three APIs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

import anyio

from ...asgi import ASGIApp, Message, Receive, Scope, Send
from ...metrics import Metrics
from ..core.middleware import FrontMiddleware
from ..core.pipeline import (
    REQUEST_HEADERS,
    ClientGone,
    header,
    json_reply,
    send_reply,
)
from ..core.wire import SSE_HEADERS
from .errors import GeminiError, invalid_argument
from .models import model_doc, model_list
from .options import GeminiOptions
from .request import GeminiRequest, translate_request
from .stream import Framing, GeminiStream, error_reply

VERSIONS = ("v1beta", "v1", "v1alpha")
ACTIONS = ("generateContent", "streamGenerateContent", "countTokens")
API_KEY = b"x-goog-api-key"
# Request headers that describe the Gemini request, not the upstream one.
_DROP_HEADERS = REQUEST_HEADERS | {
    API_KEY,
    b"x-goog-api-client",
    b"x-goog-user-project",
    b"x-server-timeout",
    b"x-goog-request-params",
}
_ARRAY_HEADERS = [
    (b"content-type", b"application/json; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


def route(path: str) -> tuple[str, str] | None:
    """``(version, rest)`` for a path under ``/{ver}/models``; ``rest`` is what follows it
    (``""`` for the list, else ``/{model}`` or ``/{model}:{action}``)."""
    if not path.startswith("/v1"):
        return None
    version, sep, rest = path[1:].partition("/models")
    if not sep or version not in VERSIONS or (rest and not rest.startswith("/")):
        return None
    return version, rest.rstrip("/")


class GeminiMiddleware(FrontMiddleware):
    """Serve the Gemini API from an app that speaks OpenAI Chat Completions.

    Options (keyword, else ``TOOLCALL_GEMINI_<NAME>`` environment variables, see
    ``GeminiOptions``): ``model_map`` (Gemini model name or ``fnmatch`` pattern -> upstream
    model), ``default_model``, ``upstream_fields``, ``thinking_off``, ``thought_signatures``,
    ``context_scale``, ``api_key``, ``upstream_path``, ``max_body_bytes``,
    ``max_upstream_bytes``.
    """

    api = "gemini"
    error = GeminiError
    drop_headers = _DROP_HEADERS

    def __init__(
        self,
        app: ASGIApp,
        options: GeminiOptions | None = None,
        *,
        metrics: Metrics | None = None,
        **keywords: Any,
    ) -> None:
        """``metrics``: where what only the front sees is counted (``toolcall serve`` gives
        its own; none by default)."""
        if options is not None and keywords:
            raise TypeError("pass either a GeminiOptions or keyword options, not both")
        self.options = options or GeminiOptions.build(**keywords)
        super().__init__(app, metrics, self.options)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = route(scope["path"]) if scope["type"] == "http" else None
        if found is not None:
            version, rest = found
            method = scope.get("method")
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            if method == "POST" and ":" in rest:
                model, _, action = rest[1:].rpartition(":")
                await self._post(scope, receive, send, model, action, query)
                return
            if method == "GET" and (version != "v1" or _from_gemini(scope, query)):
                model = _bare(rest[1:])
                doc = model_doc(model, self.options) if model else model_list(self.options)
                await send_reply(send, json_reply(200, doc))
                return
        await self.app(scope, receive, send)

    async def _post(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        model: str,
        action: str,
        query: Mapping[str, list[str]],
    ) -> None:
        options = self.options
        if action not in ACTIONS:
            error = GeminiError(f"method {action!r} is not supported by this server", 404)
            await send_reply(send, error_reply(error))
            return
        model = _bare(model)
        stream = action == "streamGenerateContent"
        try:
            if not model:
                raise invalid_argument("model: missing from the path (models/{model}:action)")
            request, upstream_body = await self._translate(receive, model, action, stream)
        except ClientGone:
            return  # nothing to answer, and nothing goes upstream
        except GeminiError as exc:
            await send_reply(send, error_reply(exc))
            return
        if action == "countTokens":
            total = round(request.input_tokens * options.context_scale)
            await send_reply(send, json_reply(200, {"totalTokens": total}))
            return
        framing: Framing | None = None
        if stream:
            framing = "sse" if query.get("alt", [""])[-1] == "sse" else "array"
        front = GeminiStream(
            request,
            framing,
            signatures=options.thought_signatures,
            context_scale=options.context_scale,
            max_arguments_bytes=options.max_arguments_bytes,
            max_answer_bytes=options.max_upstream_bytes,
        )
        await self.respond(
            self._with_key(scope, query),
            receive,
            ErrorApart(send, front),
            front,
            upstream_body,
            own_fields=request.own_fields,
            stream_headers=SSE_HEADERS if framing == "sse" else _ARRAY_HEADERS,
            api_key_headers=(API_KEY,),
        )

    async def _translate(
        self, receive: Receive, model: str, action: str, stream: bool
    ) -> tuple[GeminiRequest, bytes]:
        doc = await self.read_json(receive, lambda body: body if body.strip() else b"{}")
        count_only = action == "countTokens"
        options = self.options.request
        return self.translate(
            lambda: translate_request(doc, model, options, stream=stream, count_only=count_only),
            lambda request: request.body,
        )

    def refuse(
        self, message: str, *, status: int = 400, code: str | None = None, param: str | None = None
    ) -> Exception:
        if code == "request_too_large":  # as Google words it, a 400
            limit = self.options.max_body_bytes
            message = f"Request payload size exceeds the limit: {limit} bytes."
        return invalid_argument(message)

    def _with_key(self, scope: Scope, query: Mapping[str, list[str]]) -> Scope:
        """The scope whose ``x-goog-api-key`` is the configured upstream key, or the one the
        client gave as ``?key=``; the client's own header otherwise."""
        key = self.options.api_key or (query.get("key") or [""])[-1]
        if not key:
            return scope
        dropped = (API_KEY, b"authorization") if self.options.api_key else (API_KEY,)
        headers = [(k, v) for k, v in scope.get("headers", ()) if k.lower() not in dropped]
        return {**scope, "headers": [*headers, (API_KEY, key.encode("latin-1"))]}


class ErrorApart:
    """The client's ``send``, with a stream's closing error object sent on its own.

    The JS SDK (and so gemini-cli) looks for an error object in each read it makes, and parses
    the rest as ``data:`` events; an error that arrives in one read with the events before it
    is never recognised, and the stream ends with "Incomplete JSON segment at the end". So the
    error goes in a write of its own, ``ERROR_PAUSE`` seconds after what came before it (which
    the client has read by then). Only a failing stream pays for the pause."""

    ERROR_PAUSE = 0.1

    __slots__ = ("front", "send", "sent_body")

    def __init__(self, send: Send, front: GeminiStream) -> None:
        self.send = send
        self.front = front
        self.sent_body = False

    async def __call__(self, message: Message) -> None:
        error = self.front.failure_bytes
        if error is None or message["type"] != "http.response.body":
            if message.get("body"):
                self.sent_body = True
            await self.send(message)
            return
        body: bytes = message.get("body", b"")
        if not body.endswith(error):
            await self.send(message)
            return
        head = body[: -len(error)]
        if head:
            await self.send({"type": "http.response.body", "body": head, "more_body": True})
        if head or self.sent_body:
            await anyio.sleep(self.ERROR_PAUSE)
        await self.send({**message, "body": error})


def _bare(model: str) -> str:
    """The model id without the ``models/`` an SDK may put before it."""
    return model.removeprefix("models/")


def _from_gemini(scope: Scope, query: Mapping[str, list[str]]) -> bool:
    headers = scope.get("headers", ())
    return (
        "key" in query
        or header(headers, API_KEY) is not None
        or header(headers, b"x-goog-api-client") is not None
    )


__all__ = ["ErrorApart", "GeminiMiddleware", "route"]
