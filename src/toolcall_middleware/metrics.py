"""Prometheus counters (optional ``metrics`` extra) and the ``GET /metrics`` endpoint.

The rewrite reports what happened through a ``Report`` bound to one response (provider and
stage): calls emitted, malformed calls, fallbacks. Reports happen per call or per incident,
never per delta. Without ``prometheus-client`` installed everything here is a no-op and the
endpoint answers 501, so the package works without it.

Counters (all ``_total``):
- ``toolcall_tool_calls_total{provider, source}``: calls emitted; source ``parsed`` (found
  in model text) or ``native`` (upstream ``tool_calls``).
- ``toolcall_tool_calls_malformed_total{provider, stage, reason}``: reason ``invalid_json``,
  ``not_object``, ``missing_name``, ``missing_arguments``, ``invalid_entry``.
- ``toolcall_fallbacks_total{provider, stage, action}``: action ``wrapped``, ``dropped``,
  ``passed-as-text``, ``stray-dropped`` (a special token out of place, removed),
  ``passed-unread`` (a streamed event whose choices cannot be read, forwarded as it came),
  ``limit-exceeded``, ``rewrite-error``.
- ``toolcall_responses_rewritten_total{provider, stage}``: responses whose bytes we changed.
- ``toolcall_upstream_failures_total{code}`` (``toolcall serve`` only): upstream requests that
  failed, by the code the client got: ``upstream_unreachable``, ``upstream_connection_error``,
  ``upstream_timeout``, ``upstream_stream_error``, ``proxy_error``.
- ``toolcall_invalid_utf8_bytes_total{api}`` (the API fronts): bytes of upstream text that
  were not UTF-8, each sent to the client as U+FFFD; ``api`` is ``anthropic``, ``responses``
  or ``gemini``.
- ``toolcall_responses_store_failures_total{backend, operation}``: the Responses front's store
  failed (``sqlite``, ``redis``; ``write``: a response went unstored, ``read``: a request that
  needed it got a 503, ``delete``).

``stage`` is ``stream`` (SSE) or ``json`` (a non-streaming response).

Several processes (``toolcall serve --workers N``) count in prometheus-client's multiprocess
mode: with ``PROMETHEUS_MULTIPROC_DIR`` set before the client is imported, each process writes
its counters to files there, and the endpoint sums every process's files.
"""

from __future__ import annotations

import os
import weakref
from typing import Any, Protocol

from .asgi import Receive, Scope, Send
from .extras import install_hint

try:
    import prometheus_client
except ImportError:  # the optional extra is not installed
    prometheus_client = None  # type: ignore[assignment]


def available() -> bool:
    """Whether ``prometheus-client`` (the ``metrics`` extra) is installed."""
    return prometheus_client is not None


class Report(Protocol):
    """What the rewrite of one response tells the metrics."""

    def tool_call(self, native: bool) -> None: ...

    def malformed(self, reason: str) -> None: ...

    def fallback(self, action: str) -> None: ...

    def rewritten(self) -> None: ...


class _NullReport:
    def tool_call(self, native: bool) -> None:
        pass

    def malformed(self, reason: str) -> None:
        pass

    def fallback(self, action: str) -> None:
        pass

    def rewritten(self) -> None:
        pass


NULL_REPORT: Report = _NullReport()


def report_fallbacks(report: Report, text_fallbacks: int, strays: int) -> None:
    """What a choice's text ended with, counted once: markup a parser gave back as text and
    stray tokens a parser or the reasoning split dropped."""
    for _ in range(text_fallbacks):
        report.fallback("passed-as-text")
    for _ in range(strays):
        report.fallback("stray-dropped")


class Metrics:
    """The counters, registered on ``registry`` (the default Prometheus registry if None)."""

    def __init__(self, registry: Any = None) -> None:
        if prometheus_client is None:
            raise RuntimeError(f"metrics need prometheus-client: {install_hint('metrics')}")
        if registry is None:
            registry = prometheus_client.REGISTRY
        self.registry = registry
        counter = prometheus_client.Counter
        self.tool_calls = counter(
            "toolcall_tool_calls",
            "Tool calls emitted to clients",
            ["provider", "source"],
            registry=registry,
        )
        self.malformed = counter(
            "toolcall_tool_calls_malformed",
            "Malformed tool calls seen, by stage and reason",
            ["provider", "stage", "reason"],
            registry=registry,
        )
        self.fallbacks = counter(
            "toolcall_fallbacks",
            "Fallbacks taken instead of a clean rewrite, by action",
            ["provider", "stage", "action"],
            registry=registry,
        )
        self.rewritten = counter(
            "toolcall_responses_rewritten",
            "Responses whose body the middleware changed",
            ["provider", "stage"],
            registry=registry,
        )
        self.upstream_failures = counter(
            "toolcall_upstream_failures",
            "Upstream requests toolcall serve could not complete, by the code the client got",
            ["code"],
            registry=registry,
        )
        self.invalid_utf8 = counter(
            "toolcall_invalid_utf8_bytes",
            "Bytes of upstream text that were not UTF-8, sent to clients as U+FFFD, by API",
            ["api"],
            registry=registry,
        )
        self.store_failures = counter(
            "toolcall_responses_store_failures",
            "Responses store operations that failed, by backend and operation",
            ["backend", "operation"],
            registry=registry,
        )
        self._children: dict[tuple[Any, tuple[str, ...]], Any] = {}

    def upstream_failure(self, code: str) -> None:
        self.child(self.upstream_failures, code).inc()

    def invalid_utf8_bytes(self, api: str, count: int) -> None:
        self.child(self.invalid_utf8, api).inc(count)

    def store_failure(self, backend: str, operation: str) -> None:
        self.child(self.store_failures, backend, operation).inc()

    def report(self, provider: str, stage: str) -> Report:
        return _Report(self, provider, stage)

    def child(self, counter: Any, *labels: str) -> Any:
        """A labelled counter, looked up once (``labels()`` takes a lock and builds a key)."""
        key = (counter, labels)
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = counter.labels(*labels)
        return found


class _Report:
    __slots__ = ("_metrics", "_provider", "_stage")

    def __init__(self, metrics: Metrics, provider: str, stage: str) -> None:
        self._metrics = metrics
        self._provider = provider
        self._stage = stage

    def tool_call(self, native: bool) -> None:
        metrics = self._metrics
        source = "native" if native else "parsed"
        metrics.child(metrics.tool_calls, self._provider, source).inc()

    def malformed(self, reason: str) -> None:
        metrics = self._metrics
        metrics.child(metrics.malformed, self._provider, self._stage, reason).inc()

    def fallback(self, action: str) -> None:
        metrics = self._metrics
        metrics.child(metrics.fallbacks, self._provider, self._stage, action).inc()

    def rewritten(self) -> None:
        metrics = self._metrics
        metrics.child(metrics.rewritten, self._provider, self._stage).inc()


_BY_REGISTRY: weakref.WeakKeyDictionary[Any, Metrics] = weakref.WeakKeyDictionary()


def metrics_for(registry: Any = None) -> Metrics | None:
    """The one ``Metrics`` of a registry (counters can be registered only once per registry);
    ``None`` when prometheus-client is not installed."""
    if prometheus_client is None:
        return None
    if registry is None:
        registry = prometheus_client.REGISTRY
    metrics = _BY_REGISTRY.get(registry)
    if metrics is None:
        metrics = _BY_REGISTRY[registry] = Metrics(registry)
    return metrics


MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def multiprocess() -> bool:
    """Whether counters are kept in prometheus-client's multiprocess files."""
    return prometheus_client is not None and bool(os.environ.get(MULTIPROC_ENV))


def metrics_app(registry: Any = None) -> Any:
    """An ASGI app answering ``GET`` (at whatever path it is mounted) with the registry in
    the Prometheus text format; by default, in multiprocess mode, every process's counters
    summed."""
    if registry is None and multiprocess():
        from prometheus_client import multiprocess as multiproc

        registry = prometheus_client.CollectorRegistry()
        multiproc.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope.get("method") != "GET":
            await _respond(
                send,
                405,
                b"method not allowed\n",
                b"text/plain; charset=utf-8",
                [(b"allow", b"GET")],
            )
            return
        if prometheus_client is None:
            await _respond(
                send,
                501,
                f"metrics need prometheus-client: {install_hint('metrics')}\n".encode(),
                b"text/plain; charset=utf-8",
            )
            return
        reg = prometheus_client.REGISTRY if registry is None else registry
        body = prometheus_client.generate_latest(reg)
        await _respond(send, 200, body, prometheus_client.CONTENT_TYPE_LATEST.encode())

    return app


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    content_type: bytes,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    headers = [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
