"""Reverse proxy to an OpenAI-compatible server: every path and method, streamed both ways.

``UpstreamProxy`` is a pure ASGI app that forwards each HTTP request to the upstream with one
shared ``httpx.AsyncClient`` and streams the response back byte for byte. It knows nothing of
tool calls: ``create_proxy_app`` (``app.py``) wraps it in ``ToolCallMiddleware`` (which acts on
chat completions only) behind the proxy's own front (``front.py``: /healthz, access log,
lifespan).

Streaming rules that matter for model servers:
- the upstream is asked for ``Accept-Encoding: identity`` so SSE bytes arrive unencoded;
- hop-by-hop headers are dropped both ways, everything else (``Authorization`` too) is kept;
- uvicorn reports a client disconnect only through ``receive()``, so a watcher races the
  response stream against it and closes the upstream response at once: the model server sees
  its connection closed and stops generating;
- nothing is retried; unreachable upstream → 502, upstream timeout → 504, both with an
  OpenAI-shaped error body; a failure after the response started ends the stream instead.
"""

from __future__ import annotations

import itertools
import logging
import ssl
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any

import anyio
import certifi
import httpx
import orjson

from ..asgi import Receive, Scope, Send
from ..metrics import Metrics
from .checks import ambiguous_length, resolve_path
from .network import UpstreamTransport

log = logging.getLogger("toolcall_middleware.proxy")

# RFC 9110 §7.6.1 plus the legacy ones still seen in the wild. ``Proxy-Authorization`` is meant
# for this proxy, not the upstream; ``Authorization`` is end-to-end and passes.
HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"trailers",
        b"transfer-encoding",
        b"upgrade",
    }
)


DEFAULT_TIMEOUT = httpx.Timeout(connect=5.0, read=600.0, write=60.0, pool=30.0)
# Keep-alive expiry under uvicorn's (and so vLLM's) 5 s idle timeout: reusing a connection the
# upstream is closing at that moment fails the request, and it must not be retried.
DEFAULT_LIMITS = httpx.Limits(
    max_connections=1000, max_keepalive_connections=100, keepalive_expiry=4.0
)
POOL_SHARD_SIZE = 64
MAX_POOL_SHARDS = 16


def error_body(message: str, type_: str, code: str) -> bytes:
    """The OpenAI error object, so SDKs raise a readable APIError instead of a decode error."""
    return orjson.dumps({"error": {"message": message, "type": type_, "code": code}})


async def send_error(
    send: Send, status: int, message: str, type_: str, code: str, *, close: bool = False
) -> None:
    """An OpenAI error response; ``close``: the connection cannot be trusted after it."""
    body = error_body(message, type_, code)
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def strip_hop_by_hop(headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """Drop hop-by-hop headers and any header the ``Connection`` header names."""
    headers = [(k.lower(), v) for k, v in headers]
    named = {
        token.strip().lower() for k, v in headers if k == b"connection" for token in v.split(b",")
    }
    return [(k, v) for k, v in headers if k not in HOP_BY_HOP and k not in named]


class _ClientDisconnected(Exception):
    """The client went away while its request body was still being forwarded."""


class UpstreamProxy:
    """Forwards every HTTP request to ``url`` (whose path, if any, is a prefix).

    The read timeout applies per read: it bounds the silence between two chunks (time to first
    token included), not the length of a generation.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
        limits: httpx.Limits = DEFAULT_LIMITS,
        transport: httpx.AsyncBaseTransport | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        base = httpx.URL(url)
        self._metrics = metrics
        if base.scheme not in ("http", "https") or not base.host:
            raise ValueError(f"upstream must be an http(s) URL with a host, got {url!r}")
        self.url = url
        self._base = base
        self._prefix = base.raw_path.rstrip(b"/").split(b"?", 1)[0]
        # httpcore's pool does O(connections x queued requests) work, with a syscall per idle
        # connection, each time a request starts or ends: at a few hundred concurrent streams
        # that dominated the proxy's CPU. Several smaller pools, used round-robin, cut it by
        # the square of their number; the limits are split between them.
        shards = max(1, min(MAX_POOL_SHARDS, -(-(limits.max_connections or 1) // POOL_SHARD_SIZE)))
        if transport is not None:
            shards = 1  # a given transport is one pool already
        shard_limits = httpx.Limits(
            max_connections=_share(limits.max_connections, shards),
            max_keepalive_connections=_share(limits.max_keepalive_connections, shards),
            keepalive_expiry=limits.keepalive_expiry,
        )
        # One TLS context for all pools: each costs ~0.6 MiB and a CA bundle load.
        verify = ssl.create_default_context(cafile=certifi.where())
        # trust_env=False: a proxy in front of a local model server must not pick up
        # HTTP(S)_PROXY or .netrc from the environment it happens to run in.
        self.clients = [
            httpx.AsyncClient(
                timeout=timeout,
                limits=shard_limits,
                trust_env=False,
                verify=verify,
                follow_redirects=False,
                # Reads through network.py's leaner stream than httpcore's default one.
                transport=transport
                if transport is not None
                else UpstreamTransport(verify=verify, limits=shard_limits),
            )
            for _ in range(shards)
        ]
        self._next = itertools.cycle(self.clients).__next__

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()

    def _url(self, scope: Scope) -> httpx.URL | None:
        """The upstream URL, or ``None`` when the path would leave the prefix."""
        path = resolve_path(scope.get("raw_path") or scope["path"].encode("utf-8"))
        if path is None:
            return None
        query: bytes = scope.get("query_string", b"")
        raw = self._prefix + path + (b"?" + query if query else b"")
        return self._base.copy_with(raw_path=raw)

    def _request_headers(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        headers = [
            (k, v)
            for k, v in strip_hop_by_hop(scope["headers"])
            if k not in (b"host", b"accept-encoding")
        ]
        # Identity keeps SSE bytes parseable by the middleware and lets them flow unbuffered.
        headers.append((b"accept-encoding", b"identity"))
        client = scope.get("client")
        if client:
            prior = [v for k, v in headers if k == b"x-forwarded-for"]
            headers = [(k, v) for k, v in headers if k != b"x-forwarded-for"]
            hops = [*prior, str(client[0]).encode("latin-1")]
            headers.append((b"x-forwarded-for", b", ".join(hops)))
        # A proxy in front of this one already said what the client asked for: keep that.
        present = {k for k, _ in headers}
        host = next((v for k, v in scope["headers"] if k.lower() == b"host"), None)
        if host is not None and b"x-forwarded-host" not in present:
            headers.append((b"x-forwarded-host", host))
        if b"x-forwarded-proto" not in present:
            headers.append((b"x-forwarded-proto", scope.get("scheme", "http").encode("latin-1")))
        return headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            # Lifespan is the front app's job; websockets are not part of the OpenAI API.
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1003})
            return
        if ambiguous_length(scope["headers"]):
            await send_error(
                send,
                400,
                "a request may not carry both Transfer-Encoding and Content-Length",
                "invalid_request_error",
                "ambiguous_length",
                close=True,
            )
            return
        try:
            url = self._url(scope)
        except httpx.InvalidURL as exc:
            await send_error(
                send, 400, f"invalid request path: {exc}", "invalid_request_error", "invalid_path"
            )
            return
        if url is None:
            await send_error(
                send,
                400,
                "invalid request path: its '..' segments climb above the API's root",
                "invalid_request_error",
                "invalid_path",
            )
            return
        has_body = any(
            k.lower() in (b"content-length", b"transfer-encoding") for k, _ in scope["headers"]
        ) and not _zero_length(scope["headers"])
        body_done = anyio.Event()
        if not has_body:
            body_done.set()

        async def body() -> AsyncIterator[bytes]:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise _ClientDisconnected
                chunk = message.get("body", b"")
                if chunk:
                    yield chunk
                if not message.get("more_body", False):
                    break
            body_done.set()

        async with anyio.create_task_group() as tg:

            async def watch_disconnect() -> None:
                # receive() may only be awaited by one task: start after the body is read.
                await body_done.wait()
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        tg.cancel_scope.cancel()
                        return

            tg.start_soon(watch_disconnect)
            try:
                await self._exchange(scope, url, send, body() if has_body else None)
            finally:
                tg.cancel_scope.cancel()

    async def _exchange(
        self, scope: Scope, url: httpx.URL, send: Send, content: AsyncIterator[bytes] | None
    ) -> None:
        started = time.perf_counter()
        try:
            client = self._next()
            request = client.build_request(
                scope["method"], url, headers=self._request_headers(scope), content=content
            )
            response = await client.send(request, stream=True)
        except _ClientDisconnected:
            return
        except httpx.TimeoutException as exc:
            self._failed("upstream_timeout", scope, exc, started)
            await send_error(
                send,
                504,
                f"upstream timed out: {_describe(exc)}",
                "upstream_error",
                "upstream_timeout",
            )
            return
        except httpx.TransportError as exc:
            # Connected but dropped before answering (a crash, or a keep-alive connection the
            # upstream closed just then) is told apart from not reachable at all.
            if isinstance(exc, httpx.ConnectError):
                code, what = "upstream_unreachable", "upstream unreachable"
            else:
                code, what = "upstream_connection_error", "upstream closed the connection"
            self._failed(code, scope, exc, started)
            await send_error(send, 502, f"{what}: {_describe(exc)}", "upstream_error", code)
            return
        except Exception as exc:  # a bug of ours or of a library: an error, not a bare 500
            log.exception(
                "proxy_error",
                extra={
                    "fields": {
                        "event": "proxy_error",
                        "method": scope["method"],
                        "path": scope["path"],
                    }
                },
            )
            if self._metrics is not None:
                self._metrics.upstream_failure("proxy_error")
            await send_error(
                send,
                502,
                f"the proxy could not forward the request: {_describe(exc)}",
                "upstream_error",
                "proxy_error",
            )
            return
        try:
            await self._relay(scope, response, send, started)
        finally:
            # Shielded: on a client disconnect this runs inside a cancelled scope, and closing
            # the response (the upstream connection, mid-stream) is the whole point.
            with anyio.CancelScope(shield=True):
                await response.aclose()

    def _failed(self, code: str, scope: Scope, exc: BaseException, started: float) -> None:
        """An upstream failure: logged with the code the client got, and counted."""
        record: dict[str, Any] = {
            "event": code,
            "method": scope["method"],
            "path": scope["path"],
            "error": _describe(exc),
            "after_ms": round((time.perf_counter() - started) * 1000, 1),
        }
        log.warning(code, extra={"fields": record})
        if self._metrics is not None:
            self._metrics.upstream_failure(code)

    async def _relay(
        self, scope: Scope, response: httpx.Response, send: Send, started: float
    ) -> None:
        headers = strip_hop_by_hop(response.headers.raw)
        await send(
            {"type": "http.response.start", "status": response.status_code, "headers": headers}
        )
        try:
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except httpx.TransportError as exc:
            # Bytes are out: no retry and no status change. An SSE client gets the OpenAI
            # mid-stream error event; for anything else, abort the connection so the truncated
            # body cannot be taken for a complete one.
            kind = (
                "upstream_timeout"
                if isinstance(exc, httpx.TimeoutException)
                else ("upstream_stream_error")
            )
            self._failed(kind, scope, exc, started)
            if not _is_event_stream(headers) or any(k == b"content-length" for k, _ in headers):
                raise
            event = (
                b"data: "
                + error_body(
                    f"upstream failed mid-stream: {_describe(exc)}", "upstream_error", kind
                )
                + b"\n\n"
            )
            await send({"type": "http.response.body", "body": event, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def _share(total: int | None, parts: int) -> int | None:
    return None if total is None else -(-total // parts)


def _zero_length(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    return any(k.lower() == b"content-length" and v.strip() == b"0" for k, v in headers)


def _is_event_stream(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    return any(
        k == b"content-type" and v.lower().startswith(b"text/event-stream") for k, v in headers
    )


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = [
    "HOP_BY_HOP",
    "UpstreamProxy",
    "error_body",
    "send_error",
    "strip_hop_by_hop",
]
