"""A Starlette app that replays sse_logs/ recordings as an upstream model server would,
wrapped in ToolCallMiddleware. No model server needed; from the checkout, after
``.venv/bin/pip install -e '.[examples]'``:

    TOOLCALL_ADMIN_KEY=secret .venv/bin/uvicorn examples.replay_upstream:app --port 8080
    curl -N localhost:8080/v1/chat/completions -H 'content-type: application/json' \\
         -d '{"model": "kimi_k2-reasoning-two-calls", "stream": true, "messages": [],
              "tools": [{"type": "function", "function": {"name": "bash"}}]}'
    curl localhost:8080/metrics
    curl -H 'X-Admin-Key: secret' 'localhost:8080/debug/tool-calls?limit=5'

The request's ``model`` picks the recording (``GET /v1/models`` lists them; any other name is
a 404 that lists them too), and ``stream`` whether it comes as a stream or one JSON body;
``TOOLCALL_REPLAY_PACE`` sets the seconds between events (default 0.02). ``GET /metrics``
serves the Prometheus counters (``prometheus-client``, in the ``examples`` extra); the
middleware itself answers ``GET /debug/tool-calls`` when ``TOOLCALL_ADMIN_KEY`` is set (404
otherwise).
"""

from __future__ import annotations

import os

from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.asgi import Receive, Scope, Send
from toolcall_middleware.metrics import metrics_app
from toolcall_middleware.replay import replay_app

middleware = ToolCallMiddleware(
    replay_app(pace=float(os.environ.get("TOOLCALL_REPLAY_PACE", "0.02")))
)
metrics = metrics_app()


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "http" and scope["path"] == "/metrics":
        await metrics(scope, receive, send)
    else:
        await middleware(scope, receive, send)
