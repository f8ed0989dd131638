"""Per-event cost the Gemini front adds on top of the chat path it wraps (direct ASGI, no network).

The same synthetic Kimi K2 sessions as ``bench_stream.py`` (thinking, two calls per round in
reasoning markup, answer text) go through ``ToolCallMiddleware`` alone (the chat path) and
through ``GeminiMiddleware`` around it, as gemini-cli asks: ``streamGenerateContent?alt=sse``
with thoughts included and two function declarations. For 1k, 10k and 100k upstream events it
prints µs per event of each, what the front adds (gemini - chat), and how that added cost at the
largest size compares with the smallest (flat: about 1.0).

Then the same, sans-I/O, for what the front adds: the chat path's chunks (decoded once, up
front) read by the core's ``ChatReader`` alone, and by ``GeminiStream`` (the reader plus the
Gemini encoding), per upstream event: the difference is the Gemini front's own work.

    python benchmarks/bench_gemini.py [--sizes 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_fronts import END  # the session ends as a model's does: a finish, then usage
from bench_stream import MODEL, REQUEST, build_events, upstream

from toolcall_middleware import GeminiMiddleware, ToolCallMiddleware
from toolcall_middleware.asgi import Message
from toolcall_middleware.fronts.core.reader import ChatReader
from toolcall_middleware.fronts.gemini import GeminiStream, translate_request
from toolcall_middleware.fronts.gemini.response import new_call_id
from toolcall_middleware.sse import SSEDecoder

PARAMETERS = {"type": "object", "properties": {"command": {"type": "string"}}}
GEMINI = orjson.dumps(
    {
        "contents": [{"role": "user", "parts": [{"text": "go"}]}],
        "tools": [
            {
                "functionDeclarations": [
                    {"name": n, "parametersJsonSchema": PARAMETERS} for n in ("bash", "read")
                ]
            }
        ],
        "generationConfig": {"thinkingConfig": {"includeThoughts": True}},
    }
)
PATHS = {
    "chat": ("/v1/chat/completions", b"", REQUEST),
    "gemini": (f"/v1beta/models/{MODEL}:streamGenerateContent", b"alt=sse", GEMINI),
}


async def drive(
    app: Callable[..., Any], path: str, query: bytes, body: bytes, sink: list[bytes] | None = None
) -> bytes:
    """One request; the last body bytes sent (and all of them in ``sink``)."""
    scope = {"type": "http", "method": "POST", "path": path, "headers": [], "query_string": query}
    last = b""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()
        raise AssertionError

    async def send(message: Message) -> None:
        nonlocal last
        last = message.get("body", b"") or last
        if sink is not None:
            sink.append(message.get("body", b""))

    await app(scope, receive, send)
    return last


def best_time(app: Callable[..., Any], name: str, repeat: int) -> float:
    path, query, body = PATHS[name]

    async def runs() -> float:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            last = await drive(app, path, query, body)
            assert b'"finishReason":"STOP"' in last or last == b"data: [DONE]\n\n", last
            best = min(best, time.perf_counter() - start)
        return best

    return anyio.run(runs)


def measure(deltas: int) -> dict[str, float]:
    events = build_events(deltas) + END
    repeat = {1000: 20, 10_000: 8}.get(deltas, 3)
    chat = ToolCallMiddleware(upstream(events), provider="kimi_k2", metrics=False)
    apps = {"chat": chat, "gemini": GeminiMiddleware(chat)}
    return {name: best_time(app, name, repeat) / deltas * 1e6 for name, app in apps.items()}


def measure_encoding(deltas: int) -> dict[str, float]:
    """Sans-I/O: µs per upstream event of the reader alone and of reader + Gemini encoding."""
    events = build_events(deltas) + END
    chat = ToolCallMiddleware(upstream(events), provider="kimi_k2", metrics=False)
    sink: list[bytes] = []
    path, query, body = PATHS["chat"]
    anyio.run(drive, chat, path, query, body, sink)
    decoder = SSEDecoder()
    chunks = [
        orjson.loads(e.data)
        for piece in sink
        for e in decoder.feed(piece)
        if e.data and e.data != b"[DONE]"
    ]
    request = translate_request(orjson.loads(GEMINI), MODEL, stream=True)

    def reader() -> None:
        read = ChatReader(new_call_id)
        for chunk in chunks:
            read.feed(chunk)
        read.finish()

    def gemini() -> None:
        front = GeminiStream(request, "sse")
        for chunk in chunks:
            front.chunk(chunk)
        assert b'"finishReason":"STOP"' in front.end()

    repeat = {1000: 20, 10_000: 8}.get(deltas, 3)
    out = {}
    for name, run in (("reader", reader), ("gemini", gemini)):
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        out[name] = best / deltas * 1e6
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print("µs per upstream event, best of several runs")
    print(f"{'events':>8} {'chat':>7} {'gemini':>8} {'added':>7}")
    added: dict[int, float] = {}
    for size in sizes:
        r = measure(size)
        added[size] = r["gemini"] - r["chat"]
        print(f"{size:>8} {r['chat']:>7.2f} {r['gemini']:>8.2f} {added[size]:>7.2f}")
    if len(sizes) > 1:
        print(
            f"added cost at {sizes[-1]} vs {sizes[0]} events: "
            f"{added[sizes[-1]] / added[sizes[0]]:.2f}x"
        )
    print("\nsans-I/O, µs per upstream event")
    print(f"{'events':>8} {'reader':>7} {'reader+gemini':>14} {'encoding':>9}")
    encoding: dict[int, float] = {}
    for size in sizes:
        r = measure_encoding(size)
        encoding[size] = r["gemini"] - r["reader"]
        print(f"{size:>8} {r['reader']:>7.2f} {r['gemini']:>14.2f} {encoding[size]:>9.2f}")
    if len(sizes) > 1:
        print(
            f"encoding cost at {sizes[-1]} vs {sizes[0]} events: "
            f"{encoding[sizes[-1]] / encoding[sizes[0]]:.2f}x"
        )


if __name__ == "__main__":
    main()
