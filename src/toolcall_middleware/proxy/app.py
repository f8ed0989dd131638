"""The ``toolcall serve`` app: the API fronts and the middleware around the upstream proxy."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from ..asgi import ASGIApp
from ..config import Options, ServeConfig
from ..fronts.anthropic import AnthropicMiddleware, AnthropicOptions
from ..fronts.gemini import GeminiMiddleware, GeminiOptions
from ..fronts.responses import ResponsesMiddleware, ResponsesOptions
from ..metrics import metrics_for
from ..middleware import ToolCallMiddleware
from .drain import Drain, DrainGuard
from .front import ProxyFront, operational_routes
from .upstream import UpstreamProxy


def create_proxy_app(
    config: ServeConfig, *, transport: httpx.AsyncBaseTransport | None = None
) -> ProxyFront:
    """The ``toolcall serve`` app: ``ProxyFront(GeminiMiddleware(ResponsesMiddleware(
    AnthropicMiddleware(ToolCallMiddleware(upstream proxy)))))``, so the OpenAI Chat
    Completions, Responses (``/v1/responses``), Anthropic (``/v1/messages``) and Gemini
    (``/v1beta/models/...``) APIs are served on one port.

    With no upstream configured, the bundled replay app stands in for a model server. Every
    request reaches it through a ``DrainGuard``, which ends the ones a drain outlasts.
    """
    s = config.settings
    closers: list[Callable[[], Awaitable[None]]] = []
    inner: ASGIApp
    if s.upstream is None:
        inner = bundled_upstream(s.replay_pace)
    else:
        upstream = UpstreamProxy(
            s.upstream,
            timeout=httpx.Timeout(
                connect=s.connect_timeout,
                read=s.read_timeout,
                write=s.write_timeout,
                pool=s.pool_timeout,
            ),
            limits=httpx.Limits(
                max_connections=s.max_connections,
                max_keepalive_connections=s.max_keepalive_connections,
                keepalive_expiry=s.keepalive_expiry,
            ),
            transport=transport,
            metrics=metrics_for() if config.options.metrics else None,
        )
        closers.append(upstream.aclose)
        inner = upstream
    drain = Drain()
    metrics = metrics_for() if config.options.metrics else None
    openai_api = ToolCallMiddleware(DrainGuard(inner, drain), **middleware_kwargs(config.options))
    anthropic_api = AnthropicMiddleware(
        openai_api, AnthropicOptions.build(file=config.front("anthropic")), metrics=metrics
    )
    responses_api = ResponsesMiddleware(
        anthropic_api, ResponsesOptions.build(file=config.front("responses")), metrics=metrics
    )
    gemini_api = GeminiMiddleware(
        responses_api, GeminiOptions.build(file=config.front("gemini")), metrics=metrics
    )
    return ProxyFront(
        gemini_api,
        routes=operational_routes(config.options),
        on_shutdown=closers,
        log_access=s.access_log,
        drain=drain,
    )


def middleware_kwargs(options: Options) -> dict[str, Any]:
    """Every option explicitly, so the middleware's own env lookup cannot reorder precedence."""
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}


def bundled_upstream(pace: float) -> ASGIApp:
    """The replay app of the bundled recordings, standing in for a model server."""
    from ..replay import replay_app

    app: ASGIApp = replay_app(pace=pace)
    return app
