"""A scripted OpenAI-compatible upstream (pure ASGI) that records what it saw.

Chat completions answer with a bundled ``sse_logs/`` recording (the ``x-recording`` request header
names it) exactly as the model server sent it, Kimi K2 markup and all, which the proxy's
middleware must repair. It also answers the non-tool endpoints and offers the misbehaviours the
proxy must survive: a slow start, an endless stream, an error status with its own headers.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
import orjson
from starlette.types import Receive, Scope, Send

from toolcall_middleware.replay import Recording, find_recording, send_recording

MODEL = "moonshotai/Kimi-K2-Instruct"
DEFAULT_RECORDING = "kimi_k2-reasoning-two-calls"


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + orjson.dumps(body) + b"\n\n"


async def answer_lifespan(receive: Receive, send: Send) -> None:
    """Complete the server's lifespan startup and shutdown, as an app with nothing to start."""
    while True:
        message = await receive()
        kind = message["type"].rsplit(".", 1)[-1]
        await send({"type": f"lifespan.{kind}.complete"})
        if kind == "shutdown":
            return


@dataclass
class Seen:
    """What the upstream observed, shared with the test thread."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    disconnected: threading.Event = field(default_factory=threading.Event)
    disconnected_at: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


class FakeUpstream:
    def __init__(self, *, pace: float = 0.0, slow_seconds: float = 5.0) -> None:
        self.seen = Seen()
        self.url = ""  # set by whoever serves it
        self.pace = pace
        self.slow_seconds = slow_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await answer_lifespan(receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        record = {
            "method": scope["method"],
            "path": scope["path"],
            "query": scope["query_string"].decode(),
            "headers": [[k.decode(), v.decode()] for k, v in scope["headers"]],
            "body": body.decode(),
        }
        with self.seen.lock:
            self.seen.requests.append(record)
        path = scope["path"]
        if path.endswith("/chat/completions"):
            await self._chat(scope, send)
        elif path == "/v1/models":
            await self._json(
                send,
                200,
                {"object": "list", "data": [{"id": MODEL, "object": "model"}]},
                [(b"x-upstream", b"models")],
            )
        elif path == "/health":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b""})
        elif path == "/echo":
            await self._json(send, 200, record)
        elif path == "/slow":
            with anyio.move_on_after(self.slow_seconds):
                while (await receive())["type"] != "http.disconnect":
                    pass
                self.seen.disconnected_at = time.monotonic()
                self.seen.disconnected.set()
                return  # the proxy gave up: nothing to answer
            await self._json(send, 200, {"slow": True})
        elif path == "/rate-limited":
            headers = [
                (b"retry-after", b"7"),
                (b"x-request-id", b"req-42"),
                (b"set-cookie", b"a=1"),
                (b"set-cookie", b"b=2"),
            ]
            error = {
                "error": {
                    "message": "slow down",
                    "type": "rate_limit_error",
                    "code": "rate_limited",
                }
            }
            await self._json(send, 429, error, headers)
        elif path == "/endless":
            await self._endless(receive, send)
        else:
            await self._json(
                send,
                404,
                {
                    "error": {
                        "message": "no such path",
                        "type": "invalid_request_error",
                        "code": None,
                    }
                },
            )

    async def _json(
        self, send: Send, status: int, obj: Any, extra: list[tuple[bytes, bytes]] | None = None
    ) -> None:
        data = orjson.dumps(obj)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
            *(extra or []),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": data})

    async def _chat(self, scope: Scope, send: Send) -> None:
        name = dict(scope["headers"]).get(b"x-recording", DEFAULT_RECORDING.encode()).decode()
        await send_recording(send, Recording.load(find_recording(name)), self.pace)

    async def _endless(self, receive: Receive, send: Send) -> None:
        """Stream until the client (the proxy) goes away, and note when that was seen."""
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )

        async def produce() -> None:
            n = 0
            while True:
                await send(
                    {
                        "type": "http.response.body",
                        "more_body": True,
                        "body": chunk({"content": f"token {n} "}),
                    }
                )
                n += 1
                await anyio.sleep(0.02)

        async with anyio.create_task_group() as tg:
            tg.start_soon(produce)
            while (await receive())["type"] != "http.disconnect":
                pass
            self.seen.disconnected_at = time.monotonic()
            self.seen.disconnected.set()
            tg.cancel_scope.cancel()
