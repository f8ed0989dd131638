"""The proxy's own front door: lifespan, ``/healthz``, operational routes and the access log.

While the worker drains (``drain.py``), ``/healthz`` answers 503 and every response closes its
connection, so a load balancer stops sending here.

Everything that is not the proxy's own goes to the wrapped app (``ToolCallMiddleware`` around
the upstream proxy or the replay app). Each request gets one structured access-log line; the
middleware fills in what only it knows (model, provider, tool-call count) through
``scope["toolcall"]``, a dict the front puts there (see ``RequestInfo``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..asgi import ASGIApp, Message, Receive, Scope, Send
from ..config import Options
from .drain import Drain
from .logs import REQUEST

access_log = logging.getLogger("toolcall_middleware.access")

#: The scope key of the per-request info dict (keys: ``model``, ``provider``, ``tool_calls``).
INFO_KEY = "toolcall"

HEALTH_BODY = b'{"status":"ok"}'
DRAINING_BODY = b'{"status":"draining"}'
CLOSE = (b"connection", b"close")


def healthz_app(drain: Drain) -> ASGIApp:
    """Liveness of the proxy itself (it does not call the upstream, which has its own /health):
    200, or 503 once the worker drains."""

    async def healthz(scope: Scope, receive: Receive, send: Send) -> None:
        status, body = (503, DRAINING_BODY) if drain.draining else (200, HEALTH_BODY)
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        body = b"" if scope.get("method") == "HEAD" else body
        await send({"type": "http.response.body", "body": body, "more_body": False})

    return healthz


def closing(send: Send) -> Send:
    """``send`` with ``Connection: close`` on the response: the worker is draining."""

    async def send_closing(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), CLOSE]}
        await send(message)

    return send_closing


def operational_routes(options: Options) -> dict[str, ASGIApp]:
    """The proxy's own endpoints besides /healthz, by exact path.

    ``GET /metrics`` when metrics are on and the ``metrics`` extra is installed; otherwise the
    path goes to the upstream, so an upstream's own /metrics (vLLM has one) stays reachable.
    The debug endpoint needs no route: the middleware answers it itself when a key is set.
    """
    from .. import metrics

    if options.metrics and metrics.available():
        return {"/metrics": metrics.metrics_app()}
    return {}


class ProxyFront:
    def __init__(
        self,
        app: ASGIApp,
        *,
        routes: Mapping[str, ASGIApp] | None = None,
        on_shutdown: list[Callable[[], Awaitable[None]]] | None = None,
        log_access: bool = True,
        drain: Drain | None = None,
    ) -> None:
        self.app = app
        self.drain = drain or Drain()
        self.routes: dict[str, ASGIApp] = {"/healthz": healthz_app(self.drain), **(routes or {})}
        self.on_shutdown = list(on_shutdown or [])
        self.log_access = log_access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        drain = self.drain
        if drain.draining:
            send = closing(send)
        drain.active += 1
        try:
            await self._http(scope, receive, send)
        finally:
            drain.active -= 1

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        target = self.routes.get(scope["path"], self.app)
        # Every line logged while this request is served names it (``logs.JsonFormatter``).
        REQUEST.set((scope["method"], scope["path"]))
        if not self.log_access:
            await target(scope, receive, send)
            return
        info: dict[str, Any] = {}
        scope = {**scope, INFO_KEY: info}
        status = 0
        started = time.perf_counter()

        async def send_logged(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await target(scope, receive, send_logged)
        except BaseException:
            status = status or 500
            raise
        finally:
            record = {
                "method": scope["method"],
                "path": scope["path"],
                "status": status or None,  # None: the client left before any response
                "model": info.get("model"),
                "provider": info.get("provider"),
                "tool_calls": info.get("tool_calls"),
                "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            }
            access_log.info("request", extra={"fields": record})

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                for close in self.on_shutdown:
                    await close()
                await send({"type": "lifespan.shutdown.complete"})
                return
