"""``ResponsesMiddleware``: the OpenAI Responses API in front of an OpenAI-compatible ASGI app.

``POST /v1/responses`` is validated and translated into a ``POST /v1/chat/completions`` to the
wrapped app, in process (``core.pipeline``); the answer, SSE or JSON, is translated back as it
arrives (``core.responder`` with this front's ``ResponsesStream``). The response store
(``store/``) resolves ``previous_response_id`` and ``item_reference`` before the translation,
keeps each finished response with ``store`` on before its terminal event goes out, and serves
``GET``/``DELETE`` under ``/v1/responses/``. Everything else goes to the wrapped app, so
``ResponsesMiddleware(ToolCallMiddleware(app))`` serves both APIs.

Codex may zstd-compress request bodies (its ``features.enable_request_compression``); they are
decoded within the body limit. Other encodings get a 415.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from ...asgi import ASGIApp, Receive, Scope, Send
from ...metrics import Metrics
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
from ..core.wire import SSE_HEADERS, Output
from .errors import ResponsesError, from_failure, invalid
from .options import ResponsesOptions
from .request import RequestOptions, ResponsesRequest, translate_request
from .store import ResponseKeeper, ResponseStore, Saving, open_store, owner_of
from .store.conversation import for_own_items
from .store.routes import serve_stored
from .stream import ResponseTranslator

if sys.version_info >= (3, 14):
    from compression import zstd
else:  # the conditional ``backports.zstd`` dependency: compression.zstd before 3.14
    from backports import zstd

logger = logging.getLogger("toolcall_middleware.responses")

KEEPALIVE = b": keepalive\n\n"
#: The terminal events of a response the store keeps (a failed one is not kept).
_KEPT_ENDS = frozenset({"response.completed", "response.incomplete"})
_DROP_HEADERS = REQUEST_HEADERS | {b"openai-beta", b"session_id", b"originator"}


class ResponsesMiddleware(FrontMiddleware):
    """Serve the OpenAI Responses API from an app that speaks OpenAI Chat Completions.

    Options (keyword, else ``TOOLCALL_RESPONSES_<NAME>`` environment variables): ``model_map``,
    ``default_model``, ``upstream_fields``, ``mid_system``, ``reasoning_as``,
    ``keepalive_interval``, ``responses_path``, ``upstream_path``, ``max_body_bytes``,
    ``max_upstream_bytes``, ``store``, ``store_ttl``, ``store_max_bytes`` (see
    ``ResponsesOptions``).
    """

    api = "responses"
    error = ResponsesError
    drop_headers = _DROP_HEADERS

    def __init__(
        self,
        app: ASGIApp,
        options: ResponsesOptions | None = None,
        *,
        metrics: Metrics | None = None,
        response_store: ResponseStore | None = None,
        **keywords: Any,
    ) -> None:
        """``metrics``: where what only the front sees is counted (``toolcall serve`` gives
        its own; none by default). ``response_store``: a ``ResponseStore`` used in place of
        the one the ``store`` option names."""
        if options is not None and keywords:
            raise TypeError("pass either a ResponsesOptions or keyword options, not both")
        self.options = options or ResponsesOptions.build(**keywords)
        super().__init__(app, metrics, self.options)
        store = response_store or open_store(
            self.options.store, ttl=self.options.store_ttl, max_bytes=self.options.store_max_bytes
        )
        self.keeper = None if store is None else ResponseKeeper(store, metrics=metrics)
        self._path = self.options.responses_path.rstrip("/")
        self._request_options = RequestOptions(
            self.options.model_map,
            self.options.default_model,
            self.options.upstream_fields,
            self.options.mid_system,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = scope["path"].rstrip("/")
            if path == self._path:
                if scope.get("method") == "POST":
                    await self._handle(scope, receive, send)
                else:
                    error = ResponsesError(
                        "use POST to create a response", status=405, code="method_not_allowed"
                    )
                    await send_reply(send, json_reply(405, error.body(), [(b"allow", b"POST")]))
                return
            if path.startswith(self._path + "/"):
                await serve_stored(self.keeper, scope, send, path[len(self._path) + 1 :])
                return
        await self.app(scope, receive, send)

    async def aclose(self) -> None:
        """Close the store's connections (``toolcall serve`` calls it at shutdown)."""
        if self.keeper is not None:
            await self.keeper.aclose()

    async def _handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        options = self.options
        try:
            request, upstream_body, saving, previous_id = await self._translate(scope, receive)
        except ClientGone:
            return  # nothing to answer, and nothing goes upstream
        except ResponsesError as exc:
            await send_reply(send, json_reply(exc.status, exc.body()))
            return
        info = scope.get("toolcall")  # `toolcall serve`'s access log
        if isinstance(info, dict):
            info["model"] = request.body.get("model")
        front = ResponsesStream(request, options, saving, previous_response_id=previous_id)
        await self.respond(
            scope,
            receive,
            send,
            front,
            upstream_body,
            own_fields=options.upstream_fields,
            keepalive=KEEPALIVE,
            keepalive_interval=options.keepalive_interval or 0.0,
        )

    async def _translate(
        self, scope: Scope, receive: Receive
    ) -> tuple[ResponsesRequest, bytes, Saving | None, str | None]:
        """The request, its upstream body, what storing its response needs (None: it is not
        stored), and the response it continues."""
        doc = await self._read(scope, receive)
        keeper = self.keeper
        if keeper is None:
            request, upstream_body = self._chat_request(doc)
            request.echo["store"] = False  # nothing is stored here
            return request, upstream_body, None, None
        owner = owner_of(scope.get("headers", ()))
        conversation, response_id = await keeper.resolve(doc, owner)
        try:
            request, upstream_body = self._chat_request(conversation.doc)
        except ResponsesError as exc:
            raise for_own_items(exc, len(conversation.context)) from None
        request.echo["store"] = conversation.store
        saving = Saving(keeper, owner, response_id, conversation) if conversation.store else None
        return request, upstream_body, saving, conversation.previous_response_id

    def _chat_request(self, doc: Any) -> tuple[ResponsesRequest, bytes]:
        options = self._request_options
        return self.translate(lambda: translate_request(doc, options), lambda r: r.body)

    async def _read(self, scope: Scope, receive: Receive) -> Any:
        """The request's JSON document."""
        encoding = (header(scope.get("headers", ()), b"content-encoding") or b"identity").lower()
        return await self.read_json(receive, lambda body: self._decoded(body, encoding))

    def _decoded(self, body: bytes, encoding: bytes) -> bytes:
        if encoding == b"zstd":
            return _unzstd(body, self.options.max_body_bytes)
        if encoding not in (b"identity", b""):
            raise ResponsesError(
                f"request content-encoding {encoding.decode(errors='replace')!r} is not "
                "supported (send identity or zstd; in Codex, "
                "features.enable_request_compression = false turns compression off)",
                status=415,
                code="unsupported_content_encoding",
            )
        return body

    def refuse(
        self, message: str, *, status: int = 400, code: str | None = None, param: str | None = None
    ) -> Exception:
        if status != 400:
            return ResponsesError(message, status=status, code=code)
        return invalid(message, param)


def _unzstd(body: bytes, limit: int) -> bytes:
    """A zstd body, decoded to at most ``limit`` bytes (a small body may expand a lot)."""
    decompressor = zstd.ZstdDecompressor()
    try:
        out: bytes = decompressor.decompress(body, max_length=limit + 1)
    except zstd.ZstdError as exc:
        raise invalid(f"request body is not valid zstd: {exc}") from None
    if len(out) > limit:
        raise ResponsesError(
            f"request body is larger than {limit} bytes once decompressed",
            status=413,
            code="request_too_large",
        )
    if not decompressor.eof:
        raise invalid("request body is a truncated zstd frame")
    return out


class ResponsesStream(EventStream):
    """One response (``core.responder.FrontStream``): events as SSE when the client streams,
    else the final response object.

    With ``saving`` (the client asked to store it), a completed or incomplete response is
    stored in ``settle``, before the responder ends the response, and its terminal event waits
    until then: it says whether the response was stored (``"store": false`` when the store
    failed), and a client that goes on at once with ``previous_response_id`` finds it. A failed
    response is not stored and says so."""

    translator: ResponseTranslator
    keeps_events = False  # the result is the translator's response object

    def __init__(
        self,
        request: ResponsesRequest,
        options: ResponsesOptions,
        saving: Saving | None = None,
        *,
        previous_response_id: str | None = None,
    ) -> None:
        translator = ResponseTranslator(
            request,
            reasoning_as=options.reasoning_as,
            response_id=None if saving is None else saving.response_id,
            previous_response_id=previous_response_id,
            max_arguments_bytes=options.max_arguments_bytes,
            max_answer_bytes=options.max_upstream_bytes,
        )
        super().__init__(translator, request.stream)
        self.saving = saving
        #: The terminal event held back until the response is stored, and whether it is large.
        self._held: tuple[tuple[str, dict[str, Any]], bool] | None = None

    def out(self, events: list[tuple[str, dict[str, Any]]]) -> Output:
        response = self.translator.response
        if self.saving is None or not events or response is None:
            return super().out(events)
        kind = events[-1][0]
        if kind in _KEPT_ENDS:
            self._held = (events[-1], self.translator.large)
            return super().out(events[:-1])  # (``done`` all the same: the answer is over)
        if kind == "response.failed":
            response["store"] = False
        return super().out(events)

    async def settle(self) -> Output:
        """The responder's hook once the answer is over: store the response, then write the
        held terminal event (``store`` false if the store failed)."""
        held, self._held = self._held, None
        response, saving = self.translator.response, self.saving
        if saving is not None and response is not None and response["status"] != "failed":
            large = self.translator.large_output
            if not await saving.save(response, large=large):
                response["store"] = False
        if held is None or not self.stream:
            return b""
        event, self.translator.large = held
        return super().out([event])

    def failed(self, failure: UpstreamFailure) -> list[tuple[str, dict[str, Any]]]:
        return self.translator.fail(failure)

    def result(self) -> Reply:
        response = self.translator.response
        if response is None:
            return self.error(UpstreamFailure("server", "the upstream sent no response"))
        if response["status"] == "failed":
            failure = self.translator.failure
            assert failure is not None
            return self.error(failure)
        return json_reply(200, response, large=self.translator.large_output)

    def error(self, failure: UpstreamFailure) -> Reply:
        if failure.kind == "context_length" and self.stream:
            # Codex recognises a full context only inside response.failed.
            events = self.translator.start() + self.translator.fail(failure)
            if self.saving is not None and self.translator.response is not None:
                self.translator.response["store"] = False  # a failed response is not stored
            return Reply(200, self.encode(events), tuple(SSE_HEADERS))
        error = from_failure(failure)
        extra = [(b"retry-after", failure.retry_after)] if failure.retry_after else []
        return json_reply(error.status, error.body(), extra)


__all__ = ["ResponsesMiddleware", "ResponsesStream"]
