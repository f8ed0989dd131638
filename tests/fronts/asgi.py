"""Driving a front with real ASGI messages: a request body in pieces, an optional disconnect."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import orjson

from toolcall_middleware.asgi import ASGIApp, Message, Receive, Scope, Send

COMPLETION = orjson.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
)


@dataclass
class RecordingApp:
    """An inner app that records whether it was called and what body it read."""

    calls: list[bytes] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = b""
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        self.calls.append(body)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": COMPLETION, "more_body": False})


def scope_for(path: str, headers: Sequence[tuple[bytes, bytes]] = ()) -> Scope:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "client": ("127.0.0.1", 1),
        "server": ("test", 80),
        "headers": [(b"host", b"test"), (b"content-type", b"application/json"), *headers],
    }


async def call(
    app: ASGIApp,
    path: str,
    pieces: Sequence[bytes],
    *,
    disconnect: bool = False,
    headers: Sequence[tuple[bytes, bytes]] = (),
    keep_tail: int | None = None,
) -> list[Message]:
    """POST ``pieces`` as body messages (``more_body`` on all but the last unless the client
    disconnects after them); return what the app sent (with ``keep_tail``, each long body cut
    to its first and last ``keep_tail`` bytes)."""
    incoming: list[Message] = [
        {"type": "http.request", "body": p, "more_body": disconnect or i < len(pieces) - 1}
        for i, p in enumerate(pieces)
    ]
    if disconnect:
        incoming.append({"type": "http.disconnect"})
    sent: list[Message] = []

    async def receive() -> Message:
        if incoming:
            return incoming.pop(0)
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def send(message: Message) -> None:
        if keep_tail is not None and len(message.get("body", b"")) > 2 * keep_tail:
            body = message["body"]
            message = {**message, "body": body[:keep_tail] + b"..." + body[-keep_tail:]}
        sent.append(message)

    with anyio.fail_after(5):
        await app(scope_for(path, headers), receive, send)
    return sent


def status_and_json(sent: list[Message]) -> tuple[int, Any]:
    assert sent[0]["type"] == "http.response.start"
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return sent[0]["status"], orjson.loads(body)
