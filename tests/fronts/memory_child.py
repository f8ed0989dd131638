"""Run in a child process by ``test_memory.py``: the traced peak of one large answer through
each API, streamed and not, printed as JSON (``{"<api> <mode>": [peak, answer size]}``).

The upstream makes its events as it sends them and the client keeps nothing it receives, so the
peak is what the front holds. A fresh process: nothing else the tests did weighs on it."""

from __future__ import annotations

import json
import sys
import tracemalloc
from collections.abc import Iterator
from typing import Any

import anyio
import orjson

from toolcall_middleware import (
    AnthropicMiddleware,
    GeminiMiddleware,
    ResponsesMiddleware,
    ToolCallMiddleware,
)
from toolcall_middleware.asgi import Message, Receive, Scope, Send

REQUESTS: dict[str, tuple[str, dict[str, Any]]] = {
    "responses": ("/v1/responses", {"model": "m", "input": "hi"}),
    "anthropic": (
        "/v1/messages",
        {"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}]},
    ),
    "gemini": ("/v1beta/models/m:{}", {"contents": [{"parts": [{"text": "hi"}]}]}),
}
FRONTS = {
    "responses": ResponsesMiddleware,
    "anthropic": AnthropicMiddleware,
    "gemini": GeminiMiddleware,
}


def events(total: int) -> Iterator[bytes]:
    piece = orjson.dumps("é" * 512)  # 1 KiB of text per delta
    for _ in range(total // 1024):
        yield b'data: {"choices":[{"index":0,"delta":{"content":' + piece + b"}}]}\n\n"
    yield b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    yield b"data: [DONE]\n\n"


def upstream(total: int) -> Any:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for event in events(total):
            await send({"type": "http.response.body", "body": event, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


async def ask(api: str, stream: bool, total: int) -> int:
    app = FRONTS[api](ToolCallMiddleware(upstream(total), metrics=False))
    path, doc = REQUESTS[api]
    path = path.format("streamGenerateContent" if stream else "generateContent")
    body = orjson.dumps({**doc, "stream": stream})
    query = b"alt=sse" if stream else b""
    scope = {"type": "http", "method": "POST", "path": path, "headers": [], "query_string": query}
    pending = [{"type": "http.request", "body": body, "more_body": False}]
    received = 0

    async def receive() -> Message:
        if pending:
            return pending.pop()
        await anyio.sleep_forever()
        raise AssertionError

    async def send(message: Message) -> None:
        nonlocal received
        received += len(message.get("body", b""))

    await app(scope, receive, send)
    return received


def main() -> None:
    total = int(sys.argv[1])
    peaks: dict[str, list[int]] = {}
    for api in FRONTS:
        for stream in (True, False):
            anyio.run(ask, api, stream, 4096)  # warm-up
            tracemalloc.start()
            received = anyio.run(ask, api, stream, total)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            assert received > total, (api, stream, received)
            peaks[f"{api} {'stream' if stream else 'whole'}"] = [peak, total]
    print(json.dumps(peaks))


if __name__ == "__main__":
    main()
