"""Time to first token under load: what `toolcall serve` adds before each API's first delta.

Two processes on 127.0.0.1: a stand-in upstream (uvicorn) whose chat stream sends its first
text delta at once and a few more after it, and `toolcall serve` in front of it. For each
API (chat completions, Responses, Anthropic Messages, Gemini) ``--streams`` requests start
together; each client notes when its first text delta arrives. The same number of streams
straight to the upstream gives the baseline; the difference of the medians (and 90th
percentiles) is what the proxy and the API's front add before the first token. Rounds
alternate direct and proxied runs, so both see the same background load.

    python benchmarks/ttft_load.py                  # 10 and 100 streams, 5 rounds
    python benchmarks/ttft_load.py --streams 100 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import orjson

TOOL_SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}}
#: Each API's request for the same streamed answer (one offered tool, so the repair is on),
#: and the bytes that mark its first text delta.
APIS: dict[str, tuple[str, dict[str, Any], bytes]] = {
    "chat": (
        "/v1/chat/completions",
        {
            "model": "kimi-k2",
            "stream": True,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [
                {"type": "function", "function": {"name": "bash", "parameters": TOOL_SCHEMA}}
            ],
        },
        b'"content":"',
    ),
    "responses": (
        "/v1/responses",
        {
            "model": "kimi-k2",
            "stream": True,
            "input": "hi",
            "tools": [{"type": "function", "name": "bash", "parameters": TOOL_SCHEMA}],
        },
        b"response.output_text.delta",
    ),
    "anthropic": (
        "/v1/messages",
        {
            "model": "kimi-k2",
            "stream": True,
            "max_tokens": 256,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"name": "bash", "input_schema": TOOL_SCHEMA}],
        },
        b"text_delta",
    ),
    "gemini": (
        "/v1beta/models/kimi-k2:streamGenerateContent?alt=sse",
        {
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "tools": [{"functionDeclarations": [{"name": "bash", "parameters": TOOL_SCHEMA}]}],
        },
        b'"text":"',
    ),
}
EVENTS_AFTER_FIRST = 5
PACE = 0.02  # seconds between the upstream's later events


def upstream_app() -> Any:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        doc = {
            "id": "c",
            "object": "chat.completion.chunk",
            "model": "kimi-k2",
            "choices": [choice],
        }
        return b"data: " + orjson.dumps(doc) + b"\n\n"

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        body = chunk({"role": "assistant", "content": "Hello"})
        await send({"type": "http.response.body", "body": body, "more_body": True})
        for n in range(EVENTS_AFTER_FIRST):
            await asyncio.sleep(PACE)
            body = chunk({"content": f" word{n}"})
            await send({"type": "http.response.body", "body": body, "more_body": True})
        tail = chunk({}, "stop") + b"data: [DONE]\n\n"
        await send({"type": "http.response.body", "body": tail, "more_body": False})

    return app


def serve_upstream(port: int) -> None:
    import uvicorn

    uvicorn.run(upstream_app(), host="127.0.0.1", port=port, log_level="warning", lifespan="off")


async def first_token(
    client: httpx.AsyncClient, path: str, body: bytes, marker: bytes, start: asyncio.Event
) -> float:
    """Seconds from this stream's request to its first text delta (the whole body read)."""
    await start.wait()
    began = time.perf_counter()
    seen = 0.0
    buffer = b""
    headers = {"content-type": "application/json", "authorization": "Bearer k"}
    async with client.stream("POST", path, content=body, headers=headers) as response:
        async for piece in response.aiter_bytes():
            if not seen:
                buffer += piece
                if marker in buffer:
                    seen = time.perf_counter() - began
    assert seen, f"{path}: no text delta ({response.status_code})"
    return seen


async def phase(url: str, api: str, streams: int) -> list[float]:
    path, doc, marker = APIS[api]
    body = orjson.dumps(doc)
    limits = httpx.Limits(max_connections=streams + 10, max_keepalive_connections=streams + 10)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        # Warm the connections (and the proxy's first-request work) before the timed start.
        start = asyncio.Event()
        start.set()
        await asyncio.gather(*(first_token(client, path, body, marker, start) for _ in range(5)))
        start = asyncio.Event()
        tasks = [
            asyncio.create_task(first_token(client, path, body, marker, start))
            for _ in range(streams)
        ]
        await asyncio.sleep(0.05)
        start.set()
        return list(await asyncio.gather(*tasks))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{proc.args!r} exited with {proc.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit(f"{url} not ready")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", default="10,100", help="concurrent streams (10,100)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per size (5)")
    parser.add_argument("--apis", default=",".join(APIS))
    parser.add_argument(
        "--store", default="", help="the Responses store (default: SQLite in a temporary file)"
    )
    parser.add_argument("--serve-upstream", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_upstream:
        serve_upstream(args.serve_upstream)
        return 0
    up_port, proxy_port = free_port(), free_port()
    up_url, proxy_url = f"http://127.0.0.1:{up_port}", f"http://127.0.0.1:{proxy_port}"
    env = {
        **os.environ,
        "TOOLCALL_ACCESS_LOG": "false",
        "TOOLCALL_LOG_LEVEL": "warning",
        # The default store (SQLite), in a file of this run's own.
        "TOOLCALL_RESPONSES_STORE": args.store
        or f"sqlite:{tempfile.mkdtemp(prefix='ttft-')}/responses.db",
    }
    upstream = subprocess.Popen([sys.executable, __file__, "--serve-upstream", str(up_port)])
    command = ["serve", "--upstream", up_url, "--port", str(proxy_port)]
    proxy = subprocess.Popen([sys.executable, "-m", "toolcall_middleware.cli", *command], env=env)
    run: Callable[[Awaitable[list[float]]], list[float]] = asyncio.run
    try:
        wait_ready(up_url + "/", upstream)
        wait_ready(proxy_url + "/healthz", proxy)
        apis = [a for a in args.apis.split(",") if a]
        print("ms before the first text delta: median / p90, added = proxied - direct (medians)")
        for streams in (int(s) for s in args.streams.split(",")):
            direct: list[float] = []
            proxied: dict[str, list[float]] = {api: [] for api in apis}
            for _ in range(args.rounds):
                direct += run(phase(up_url, "chat", streams))
                for api in apis:
                    proxied[api] += run(phase(proxy_url, api, streams))
            base = statistics.median(direct)
            print(f"{streams} streams: direct {base * 1e3:6.1f} / {pct(direct, 0.9) * 1e3:6.1f}")
            for api in apis:
                values = proxied[api]
                median = statistics.median(values)
                print(
                    f"  {api:>10} {median * 1e3:6.1f} / {pct(values, 0.9) * 1e3:6.1f}"
                    f"   added {(median - base) * 1e3:6.1f}"
                )
    finally:
        for proc in (proxy, upstream):
            proc.terminate()
            proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
