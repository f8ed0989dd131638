"""Peak memory of one large answer through each API: the chat path and every front.

The upstream streams a text answer of ``--mib`` MiB (ASCII, Latin-1 letters or CJK, in 1 KiB
deltas, made as they are sent), then its finish and usage; the client side counts the bytes it
gets and keeps none. Each API runs in a child process of its own, twice: once for the peak RSS
the request adds (``ru_maxrss``, after a warm-up request), once for the peak of traced Python
allocations (``tracemalloc``). Both are printed in MiB and as a multiple of the answer's size,
the largest single piece a front must hold (the Responses API's final output carries it).

    python benchmarks/memory_fronts.py [--mib 7] [--alphabet ascii,latin,cjk]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
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
    "chat": (
        "/v1/chat/completions",
        {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": []},
    ),
    "responses": ("/v1/responses", {"model": "m", "input": "hi"}),
    "anthropic": (
        "/v1/messages",
        {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]},
    ),
    "gemini": (
        "/v1beta/models/m:streamGenerateContent",
        {"contents": [{"parts": [{"text": "hi"}]}]},
    ),
}
LETTERS = {"ascii": "a", "latin": "é", "cjk": "日"}


def events(total: int, letter: str) -> Iterator[bytes]:
    piece = letter * (1024 // len(letter.encode()))
    for _ in range(total // len(piece.encode())):
        yield (
            b'data: {"choices":[{"index":0,"delta":{"content":' + orjson.dumps(piece) + b"}}]}\n\n"
        )
    yield b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    yield b'data: {"choices":[],"usage":' + orjson.dumps(usage) + b"}\n\n"
    yield b"data: [DONE]\n\n"


def upstream(total: int, letter: str) -> Any:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for event in events(total, letter):
            await send({"type": "http.response.body", "body": event, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


def app_for(api: str, total: int, letter: str) -> Any:
    chat = ToolCallMiddleware(upstream(total, letter), metrics=False)
    fronts = {
        "chat": lambda: chat,
        "responses": lambda: ResponsesMiddleware(chat, keepalive_interval=0),
        "anthropic": lambda: AnthropicMiddleware(chat, ping_interval=0),
        "gemini": lambda: GeminiMiddleware(chat),
    }
    return fronts[api]()


async def ask(app: Any, api: str, stream: bool) -> int:
    path, doc = REQUESTS[api]
    body = orjson.dumps({**doc, "stream": stream})
    if api == "gemini" and not stream:
        path = path.replace("streamGenerateContent", "generateContent")
    query = b"alt=sse" if stream else b""
    scope = {"type": "http", "method": "POST", "path": path, "headers": [], "query_string": query}
    sent = False
    received = 0

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


def child(api: str, total: int, alphabet: str, traced: bool, stream: bool) -> dict[str, float]:
    letter = LETTERS[alphabet]
    anyio.run(ask, app_for(api, 4096, letter), api, stream)  # warm-up: imports, caches
    app = app_for(api, total, letter)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if traced:
        tracemalloc.start()
    received = anyio.run(ask, app, api, stream)
    peak = tracemalloc.get_traced_memory()[1] if traced else 0
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"rss": (after - before) / 1024, "traced": peak / 2**20, "received": received}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=float, default=7)
    parser.add_argument("--alphabet", default="ascii,latin,cjk")
    parser.add_argument("--apis", default="chat,responses,anthropic,gemini")
    parser.add_argument("--modes", default="stream,whole")
    parser.add_argument("--child", nargs=4, metavar=("API", "ALPHABET", "TRACED", "MODE"))
    args = parser.parse_args()
    total = int(args.mib * 2**20)
    if args.child:
        api, alphabet, traced, mode = args.child
        print(json.dumps(child(api, total, alphabet, traced == "1", mode == "stream")))
        return
    print(f"a {args.mib:g} MiB answer: peak added RSS / traced allocations, MiB (x answer size)")
    print(f"{'api':>10} {'mode':>6} {'alphabet':>8} {'RSS':>14} {'traced':>14}")
    for alphabet in args.alphabet.split(","):
        for mode in args.modes.split(","):
            for api in args.apis.split(","):
                command = [sys.executable, __file__, "--mib", str(args.mib), "--child", api]
                runs = [
                    json.loads(
                        subprocess.run(
                            [*command, alphabet, traced, mode],
                            check=True,
                            capture_output=True,
                            text=True,
                        ).stdout
                    )
                    for traced in ("0", "1")
                ]
                rss, traced_peak = runs[0]["rss"], runs[1]["traced"]
                mib = args.mib
                print(
                    f"{api:>10} {mode:>6} {alphabet:>8} {rss:7.1f} ({rss / mib:4.1f}x) "
                    f"{traced_peak:7.1f} ({traced_peak / mib:4.1f}x)"
                )


if __name__ == "__main__":
    main()
