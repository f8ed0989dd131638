"""``GET /readyz``: readiness, which asks the upstream, beside ``/healthz`` (liveness).

``/healthz`` says the proxy's process serves; a load balancer or Kubernetes readiness probe
wants to know whether a request sent here now can be answered, which needs the model server.
``/readyz`` asks the upstream ``GET ready_path`` (``/health`` by default: vLLM, SGLang and
llama.cpp answer it) on a client of its own, so probes neither count as upstream failures in
``/metrics`` nor fill the log while the upstream is down. Any answer below 500 means the
upstream is up (a hosted API without ``/health`` answers 404 or 401, and still answers); no
answer within the probe timeout, or a 5xx, is 503. A draining process is 503 too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import orjson

from ..asgi import ASGIApp, Receive, Scope, Send
from .drain import Drain

#: Seconds the upstream has to answer a probe (probes come every few seconds).
PROBE_TIMEOUT = 5.0


class UpstreamProbe:
    """Asks ``url`` once per readiness request; ``aclose`` at shutdown."""

    def __init__(self, url: str, connect_timeout: float) -> None:
        self.url = url
        timeout = httpx.Timeout(PROBE_TIMEOUT, connect=min(connect_timeout, PROBE_TIMEOUT))
        self._client = httpx.AsyncClient(timeout=timeout, follow_redirects=False)

    async def check(self) -> tuple[bool, dict[str, Any]]:
        try:
            response = await self._client.get(self.url)
        except httpx.HTTPError as exc:
            return False, {"url": self.url, "error": f"{type(exc).__name__}: {exc}".strip()}
        return response.status_code < 500, {"url": self.url, "status": response.status_code}

    async def aclose(self) -> None:
        await self._client.aclose()


async def bundled_replay() -> tuple[bool, dict[str, Any]]:
    """The bundled replay runs in this process: ready whenever the proxy is."""
    return True, {"url": "bundled replay"}


def readyz_app(
    drain: Drain, check: Callable[[], Awaitable[tuple[bool, dict[str, Any]]]]
) -> ASGIApp:
    """200 ``{"status": "ready", "upstream": {...}}``, else 503 with what failed."""

    async def readyz(scope: Scope, receive: Receive, send: Send) -> None:
        doc: dict[str, Any]
        if drain.draining:
            status, doc = 503, {"status": "draining"}
        else:
            ok, upstream = await check()
            status = 200 if ok else 503
            doc = {"status": "ready" if ok else "unavailable", "upstream": upstream}
        body = orjson.dumps(doc)
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        body = b"" if scope.get("method") == "HEAD" else body
        await send({"type": "http.response.body", "body": body, "more_body": False})

    return readyz
