"""Debug capture: recent raw tool-call chunks and what they became, behind an admin key.

``DebugCapture`` is a bounded ring buffer (``debug_max`` entries, ``TOOL_CALL_DEBUG_MAX``);
each entry is one upstream event that involved tool calls (markup or native ``tool_calls``)
with the chunks the middleware sent for it, or one non-streaming message before and after.
Long payloads are clipped so the buffer stays small. The middleware records only when it has
a capture, so without one this costs nothing.

``debug_app`` serves ``GET ...?limit=N&clear=true`` (ASGI, mount it at any path): 404 when no
key is configured, 401 without an ``X-Admin-Key`` header, 403 with a wrong one (compared in
constant time), else the newest ``limit`` entries (default 50, at most ``debug_max``), oldest
first; ``clear=true`` empties the buffer after reading. The capture is one process's: the
answer's ``worker_pid`` says which (with several workers, each has its own).
"""

from __future__ import annotations

import hmac
import os
import time
from collections import deque
from typing import Any
from urllib.parse import parse_qs

from . import lenient_json
from .asgi import ASGIApp, Receive, Scope, Send

DEFAULT_LIMIT = 50
#: Longest raw or output text kept per entry; longer ones are clipped (``truncated: true``).
MAX_PAYLOAD = 16 * 1024


class DebugCapture:
    def __init__(self, max_entries: int = 200) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._entries: deque[dict[str, Any]] = deque(maxlen=max_entries)
        self._seq = 0

    def __len__(self) -> int:
        return len(self._entries)

    def record(self, stage: str, provider: str, model: str, raw: bytes, output: Any) -> None:
        """One upstream event (``raw``; empty for the end of a stream) and what was sent."""
        self._seq += 1
        sent = lenient_json.dumps(output)
        self._entries.append(
            {
                "seq": self._seq,
                "time": time.time(),
                "stage": stage,
                "provider": provider,
                "model": model,
                "raw": _clip(raw),
                "output": _clip(sent),
            }
        )

    def recent(self, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` entries, oldest first; payloads as JSON where they parse."""
        entries = list(self._entries)[-limit:] if limit > 0 else []
        return [{**e, "raw": _loads(e["raw"]), "output": _loads(e["output"])} for e in entries]

    def clear(self) -> None:
        self._entries.clear()


def _clip(data: bytes) -> dict[str, Any]:
    if len(data) <= MAX_PAYLOAD:
        return {"text": data.decode("utf-8", "replace"), "truncated": False}
    return {
        "text": data[:MAX_PAYLOAD].decode("utf-8", "ignore"),
        "truncated": True,
        "size": len(data),
    }


def _loads(clipped: dict[str, Any]) -> Any:
    """JSON as JSON; a clipped payload as its clip; ``None`` for no raw (end of stream)."""
    if clipped["truncated"]:
        return clipped
    text = clipped["text"]
    try:
        return lenient_json.loads(text) if text else None
    except ValueError:
        return text


def debug_app(capture: DebugCapture | None, admin_key: str) -> ASGIApp:
    """The ``GET /debug/tool-calls`` endpoint over ``capture``; disabled when no key."""
    key = admin_key.encode()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if not key or capture is None:
            await _json(send, 404, _error("not found", "not_found_error"))
            return
        if scope.get("method") != "GET":
            await _json(send, 405, _error("method not allowed", "invalid_request_error"))
            return
        given = next((v for k, v in scope.get("headers", ()) if k.lower() == b"x-admin-key"), None)
        if given is None:
            await _json(send, 401, _error("X-Admin-Key header required", "authentication_error"))
            return
        if not hmac.compare_digest(given, key):
            await _json(send, 403, _error("wrong admin key", "permission_error"))
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        try:
            limit = int(query.get("limit", [DEFAULT_LIMIT])[-1])
        except ValueError:
            await _json(send, 400, _error("limit must be an integer", "invalid_request_error"))
            return
        limit = max(0, min(limit, capture.max_entries))
        clear = query.get("clear", ["false"])[-1].lower() in ("1", "true", "yes")
        total = len(capture)
        entries = capture.recent(limit)
        if clear:
            capture.clear()
        await _json(
            send,
            200,
            {
                "entries": entries,
                "count": len(entries),
                "total": total,
                "max": capture.max_entries,
                "cleared": clear,
                "worker_pid": os.getpid(),
            },
        )

    return app


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": None}}


async def _json(send: Send, status: int, payload: Any) -> None:
    body = lenient_json.dumps(payload)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})
