"""Per-event cost the API fronts add on top of the chat path they wrap (direct ASGI, no network).

The same synthetic Kimi K2 sessions as ``bench_stream.py`` (thinking, two calls per round in
reasoning markup, answer text) go through ``ToolCallMiddleware`` alone (the chat path) and
through ``ResponsesMiddleware`` / ``AnthropicMiddleware`` / ``GeminiMiddleware`` around it (Gemini
as gemini-cli asks: ``alt=sse``, thoughts included). For 1k, 10k and 100k upstream events it
prints µs per event of each, what the front adds (front - chat), and how that added cost at the
largest size compares with the smallest (flat: about 1.0). ``count_fronts.py`` gives the same
added cost in instructions, which a loaded machine does not blur.

    python benchmarks/bench_fronts.py [--sizes 1000,10000,100000] [--fronts responses,gemini]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_stream import MODEL, build_events, upstream

from toolcall_middleware import (
    AnthropicMiddleware,
    GeminiMiddleware,
    ResponsesMiddleware,
    ToolCallMiddleware,
)
from toolcall_middleware.asgi import Message

TOOLS = [
    {"name": n, "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}
    for n in ("bash", "read")
]
#: Per app: its path, query string and request.
REQUESTS: dict[str, tuple[str, bytes, dict[str, Any]]] = {
    "chat": (
        "/v1/chat/completions",
        b"",
        {
            "model": MODEL,
            "stream": True,
            "messages": [{"role": "user", "content": "go"}],
            "tools": [{"type": "function", "function": t} for t in TOOLS],
        },
    ),
    "responses": (
        "/v1/responses",
        b"",
        {
            "model": MODEL,
            "stream": True,
            "input": "go",
            "tools": [{"type": "function", **t} for t in TOOLS],
        },
    ),
    "anthropic": (
        "/v1/messages",
        b"",
        {
            "model": MODEL,
            "stream": True,
            "max_tokens": 1000,
            "messages": [{"role": "user", "content": "go"}],
            "tools": [{"name": t["name"], "input_schema": t["parameters"]} for t in TOOLS],
        },
    ),
    "gemini": (
        f"/v1beta/models/{MODEL}:streamGenerateContent",
        b"alt=sse",
        {
            "contents": [{"role": "user", "parts": [{"text": "go"}]}],
            "tools": [{"functionDeclarations": TOOLS}],
            "generationConfig": {"thinkingConfig": {"includeThoughts": True}},
        },
    ),
}
FRONTS = ("responses", "anthropic", "gemini")
#: The session ends as a model's does: a finish reason, then usage (without them a front ends
#: its stream with an error, which is not the path measured here).
END = [
    b"data: " + orjson.dumps(doc) + b"\n\n"
    for doc in (
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": MODEL,
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        },
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": MODEL,
            "choices": [],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        },
    )
]


async def drive(app: Callable[..., Any], path: str, query: bytes, body: bytes) -> int:
    scope = {"type": "http", "method": "POST", "path": path, "headers": [], "query_string": query}
    received = 0
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()
        raise AssertionError

    async def send(message: Message) -> None:
        nonlocal received
        received += len(message.get("body", b""))

    await app(scope, receive, send)
    return received


async def timed(app: Callable[..., Any], front: str) -> float:
    path, query, doc = REQUESTS[front]
    start = anyio.current_time()
    assert await drive(app, path, query, orjson.dumps(doc)) > 0
    return anyio.current_time() - start


def apps(deltas: int, fronts: tuple[str, ...] = FRONTS) -> dict[str, Callable[..., Any]]:
    """The chat path over a session of ``deltas`` events, and each front around it."""
    chat = ToolCallMiddleware(
        upstream(build_events(deltas) + END), provider="kimi_k2", metrics=False
    )
    made: dict[str, Callable[..., Any]] = {
        "chat": chat,
        # (the response store's cost is per request, measured by bench_store.py)
        "responses": ResponsesMiddleware(chat, keepalive_interval=0, store="off"),
        "anthropic": AnthropicMiddleware(chat, ping_interval=0),
        "gemini": GeminiMiddleware(chat),
    }
    return {name: app for name, app in made.items() if name == "chat" or name in fronts}


def measure(deltas: int, fronts: tuple[str, ...] = FRONTS) -> dict[str, float]:
    """Best time per event of each app, their runs interleaved (chat, then each front, then
    again), so that what the machine does meanwhile weighs on each alike: the added cost is a
    difference of two timings."""
    repeat = {1000: 30, 10_000: 8}.get(deltas, 3)
    running = apps(deltas, fronts)

    async def runs() -> dict[str, float]:
        best = dict.fromkeys(running, float("inf"))
        for _ in range(repeat):
            for name, app in running.items():
                best[name] = min(best[name], await timed(app, name))
        return best

    return {name: t / deltas * 1e6 for name, t in anyio.run(runs).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--fronts", default=",".join(FRONTS))
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    fronts = tuple(f for f in args.fronts.split(",") if f)
    print("µs per upstream event, best of several runs")
    print(f"{'events':>8} {'chat':>7}" + "".join(f" {f:>10} {'added':>7}" for f in fronts))
    added: dict[int, dict[str, float]] = {}
    for size in sizes:
        r = measure(size, fronts)
        added[size] = {f: r[f] - r["chat"] for f in fronts}
        print(
            f"{size:>8} {r['chat']:>7.2f}"
            + "".join(f" {r[f]:>10.2f} {added[size][f]:>7.2f}" for f in fronts)
        )
    if len(sizes) > 1:
        for front in fronts:
            ratio = added[sizes[-1]][front] / added[sizes[0]][front]
            print(f"{front}: added cost at {sizes[-1]} vs {sizes[0]} events: {ratio:.2f}x")


if __name__ == "__main__":
    main()
