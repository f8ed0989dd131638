"""Per-event cost the API fronts add on top of the chat path they wrap (direct ASGI, no network).

The same synthetic Kimi K2 sessions as ``bench_stream.py`` (thinking, two calls per round in
reasoning markup, answer text) go through ``ToolCallMiddleware`` alone (the chat path) and
through ``ResponsesMiddleware`` / ``AnthropicMiddleware`` around it. For 1k, 10k and 100k upstream
events it prints µs per event of each, what the front adds (front - chat), and how that added
cost at the largest size compares with the smallest (flat: about 1.0).

    python benchmarks/bench_fronts.py [--sizes 1000,10000,100000]
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

from toolcall_middleware import AnthropicMiddleware, ResponsesMiddleware, ToolCallMiddleware
from toolcall_middleware.asgi import Message

TOOLS = [
    {"name": n, "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}
    for n in ("bash", "read")
]
REQUESTS = {
    "chat": (
        "/v1/chat/completions",
        {
            "model": MODEL,
            "stream": True,
            "messages": [{"role": "user", "content": "go"}],
            "tools": [{"type": "function", "function": t} for t in TOOLS],
        },
    ),
    "responses": (
        "/v1/responses",
        {
            "model": MODEL,
            "stream": True,
            "input": "go",
            "tools": [{"type": "function", **t} for t in TOOLS],
        },
    ),
    "anthropic": (
        "/v1/messages",
        {
            "model": MODEL,
            "stream": True,
            "max_tokens": 1000,
            "messages": [{"role": "user", "content": "go"}],
            "tools": [{"name": t["name"], "input_schema": t["parameters"]} for t in TOOLS],
        },
    ),
}


async def drive(app: Callable[..., Any], path: str, body: bytes) -> int:
    scope = {"type": "http", "method": "POST", "path": path, "headers": []}
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
    path, doc = REQUESTS[front]
    start = anyio.current_time()
    assert await drive(app, path, orjson.dumps(doc)) > 0
    return anyio.current_time() - start


def measure(deltas: int) -> dict[str, float]:
    """Best time per event of each app, their runs interleaved (chat, Responses, Anthropic,
    then again), so that what the machine does meanwhile weighs on each alike: the added
    cost is a difference of two timings."""
    events = build_events(deltas)
    repeat = {1000: 30, 10_000: 8}.get(deltas, 3)
    chat = ToolCallMiddleware(upstream(events), provider="kimi_k2", metrics=False)
    apps: dict[str, Callable[..., Any]] = {
        "chat": chat,
        # (the response store's cost is per request, measured by bench_store.py)
        "responses": ResponsesMiddleware(chat, keepalive_interval=0, store="off"),
        "anthropic": AnthropicMiddleware(chat, ping_interval=0),
    }

    async def runs() -> dict[str, float]:
        best = dict.fromkeys(apps, float("inf"))
        for _ in range(repeat):
            for name, app in apps.items():
                best[name] = min(best[name], await timed(app, name))
        return best

    return {name: t / deltas * 1e6 for name, t in anyio.run(runs).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print("µs per upstream event, best of several runs")
    print(
        f"{'events':>8} {'chat':>7} {'responses':>10} {'added':>7} {'anthropic':>10} {'added':>7}"
    )
    added: dict[int, dict[str, float]] = {}
    for size in sizes:
        r = measure(size)
        added[size] = {f: r[f] - r["chat"] for f in ("responses", "anthropic")}
        print(
            f"{size:>8} {r['chat']:>7.2f} {r['responses']:>10.2f} "
            f"{added[size]['responses']:>7.2f} {r['anthropic']:>10.2f} "
            f"{added[size]['anthropic']:>7.2f}"
        )
    if len(sizes) > 1:
        for front in ("responses", "anthropic"):
            ratio = added[sizes[-1]][front] / added[sizes[0]][front]
            print(f"{front}: added cost at {sizes[-1]} vs {sizes[0]} events: {ratio:.2f}x")


if __name__ == "__main__":
    main()
