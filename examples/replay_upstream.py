"""A Starlette app that replays sse_logs/ recordings as an upstream model server would,
wrapped in ToolCallMiddleware. No model server needed:

    uvicorn examples.replay_upstream:app --port 8080
    curl -N localhost:8080/v1/chat/completions -H 'content-type: application/json' \\
         -d '{"model": "kimi_k2-reasoning-two-calls", "stream": true, "messages": [],
              "tools": [{"type": "function", "function": {"name": "bash"}}]}'

The request's ``model`` picks the recording (any other name gets the default one);
``TOOLCALL_REPLAY_PACE`` sets the seconds between events (default 0.02).
"""

from __future__ import annotations

import os

from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.replay import replay_app

app = ToolCallMiddleware(replay_app(pace=float(os.environ.get("TOOLCALL_REPLAY_PACE", "0.02"))))
