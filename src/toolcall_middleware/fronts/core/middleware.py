"""``FrontMiddleware``: the request pipeline every API front shares.

A front (Anthropic, Responses, Gemini) routes its own paths and passes every other request to
the wrapped app. For its own: the client's body is read with a size limit and decoded
(``read_json``); the API's request is translated into a Chat Completions one, guarded against
documents no translation can handle (``translate``); and the answer is made by
``FrontResponder``, which calls the wrapped app in process with the translated body
(``respond``). What differs per API is given by the subclass: its name, the request headers
that stay with the client, and its errors (``refuse``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from ...asgi import ASGIApp, Receive, Scope, Send
from ...metrics import Metrics
from ...request import replay_receive
from .options import FrontOptions
from .pipeline import (
    BodyTooLarge,
    IntegerOutOfRange,
    Untranslatable,
    decode_request,
    encode_upstream,
    read_request,
    translated,
    upstream_scope,
)
from .responder import FrontResponder
from .translator import FrontStream
from .wire import SSE_HEADERS, Headers

T = TypeVar("T")


class FrontMiddleware:
    """The base of the API fronts' middleware (see the module's doc)."""

    #: The API's name, in metrics and logs (``anthropic``, ``responses``, ``gemini``).
    api: ClassVar[str]
    #: The API's error (raised by ``refuse``), which a request translation may raise itself.
    error: ClassVar[type[Exception]]
    #: Request headers that describe the client's request, not the upstream one.
    drop_headers: ClassVar[frozenset[bytes]]

    def __init__(self, app: ASGIApp, metrics: Metrics | None, options: FrontOptions) -> None:
        self.app = app
        self.metrics = metrics
        #: The options every front has (its own subclass's, as ``FrontOptions``).
        self.front_options = options

    def refuse(
        self, message: str, *, status: int = 400, code: str | None = None, param: str | None = None
    ) -> Exception:
        """The API's error for a request refused with ``message`` (``code``: what it is where
        the API has a code for it, ``request_too_large``; ``param``: the field it names)."""
        raise NotImplementedError

    async def read_json(
        self, receive: Receive, decode: Callable[[bytes], bytes] | None = None
    ) -> Any:
        """The request's JSON document (``decode``: the body as sent, decoded first); the
        API's error for a body too large or not JSON; ``ClientGone`` for a client that left."""
        try:
            body = await read_request(receive, self.front_options.max_body_bytes)
        except BodyTooLarge as exc:
            raise self.refuse(str(exc), status=413, code="request_too_large") from None
        if decode is not None:
            body = decode(body)
        try:
            return decode_request(body)
        except IntegerOutOfRange as exc:
            raise self.refuse(str(exc), param=exc.path) from None
        except ValueError as exc:
            raise self.refuse(f"request body is not valid JSON: {exc}") from None

    def translate(self, translate: Callable[[], T], body_of: Callable[[T], Any]) -> tuple[T, bytes]:
        """``translate()``'s request and the JSON of its upstream body (``body_of``), or the
        API's error: for what the translation refuses, and for a document nested too deeply
        to translate or to write (never an exception of the translation's own)."""
        try:
            request = translated(translate, self.error)
        except Untranslatable as exc:
            raise self.refuse(str(exc)) from None
        upstream_body = encode_upstream(body_of(request)) if request is not None else None
        if request is None or upstream_body is None:
            raise self.refuse("request body nests JSON too deeply to translate")
        return request, upstream_body

    async def respond(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        front: FrontStream,
        upstream_body: bytes,
        *,
        own_fields: Any,
        keepalive: bytes | None = None,
        keepalive_interval: float = 0.0,
        stream_headers: Headers = SSE_HEADERS,
        api_key_headers: tuple[bytes, ...] = (b"x-api-key",),
    ) -> None:
        """The wrapped app's answer to ``upstream_body``, written to the client by ``front``
        (``own_fields``: fields set on every upstream request; ``api_key_headers``: where the
        client may send its key, see ``upstream_scope``)."""
        responder = FrontResponder(
            send,
            front,
            keepalive=keepalive,
            keepalive_interval=keepalive_interval,
            max_upstream_bytes=self.front_options.max_upstream_bytes,
            stream_headers=stream_headers,
            metrics=self.metrics,
            api=self.api,
        )
        target = upstream_scope(
            scope,
            self.front_options.upstream_path,
            len(upstream_body),
            stream=front.stream,
            drop=self.drop_headers,
            api_key_headers=api_key_headers,
            own_fields=own_fields,
        )
        # The translated body, then the client's own receive (its disconnect, when it comes).
        await responder.run(self.app, target, replay_receive(upstream_body, None, receive))
