"""What hostile upstreams cost: a slow large event, and `toolcall serve` against misbehaviour.

1. A slow large event: one SSE event of 100 KiB and of 900 KiB arriving in 150-byte reads,
   through ToolCallMiddleware and through the proxy app (its upstream answering in 150-byte
   reads), by direct ASGI calls. CPU per KiB at each size and their ratio: linear work costs
   the same per KiB whatever the size (ratio ~1); work that re-scans what it holds grows with
   the size (~9x between these two).
2. `toolcall serve` (a subprocess, so its CPU and memory are read from /proc) in front of a
   hostile upstream on loopback (a thread of this script), one scenario per model name:
   - trickle-100k / trickle-900k: the large event written 150 bytes at a time;
   - endless-name: a Hermes call whose name never ends (cut at max_held_bytes);
   - endless-event: an SSE event that never ends (cut at max_buffered_bytes);
   - deep-arguments: Kimi arguments nested 10,000 deep, the tool chosen from their keys;
   - quiet: 'Let me check <' then 3 s of silence before the call (held text released).
   For each: what the client got, the seconds until its first and last byte, the proxy's CPU
   seconds and its peak memory (RSS) over the scenario.

    python benchmarks/bench_hostile.py [--skip-serve]

Linux only (/proc). Figures vary on a shared machine; ratios measured in one run are what
counts.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import httpx
import orjson
import uvicorn
from load_proxy import cpu_seconds, free_port, rss_mib  # this directory: run as a script

from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.config import load_serve_config
from toolcall_middleware.proxy.app import create_proxy_app
from toolcall_middleware.replay import run_app

READ = 150
SIZES = {"100k": 100 * 1024, "900k": 900 * 1024}
KIMI_CALL = "<|tool_call_begin|>call_9<|tool_call_argument_begin|>"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": n,
            "parameters": {"type": "object", "properties": {"path": {"type": "array"}}},
        },
    }
    for n in ("bash", "read")
]


def chunk(delta: dict[str, str], finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-h",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + orjson.dumps(body) + b"\n\n"


def large_event(size: int) -> bytes:
    return chunk({"content": "lorem ipsum " * (size // 12)}) + b"data: [DONE]\n\n"


def request(model: str) -> bytes:
    return orjson.dumps(
        {
            "model": model,
            "stream": True,
            "tools": TOOLS,
            "messages": [{"role": "user", "content": "hi"}],
        }
    )


# --- 1. a slow large event, by direct ASGI calls ---------------------------------------------


def trickling_app(body: bytes) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        for i in range(0, len(body), READ):
            await send(
                {"type": "http.response.body", "body": body[i : i + READ], "more_body": True}
            )
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


class Pieces(httpx.AsyncByteStream):
    def __init__(self, body: bytes) -> None:
        self._body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i in range(0, len(self._body), READ):
            yield self._body[i : i + READ]


def proxy_app() -> Any:
    async def handler(request: httpx.Request) -> httpx.Response:
        size = SIZES[orjson.loads(await request.aread())["model"]]
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=Pieces(large_event(size))
        )

    config = load_serve_config({"upstream": "http://upstream.test", "access_log": False}, env={})
    return create_proxy_app(config, transport=httpx.MockTransport(handler))


def cpu_of(run: Callable[[], Any], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        anyio.run(run)
        best = min(best, time.process_time() - started)
    return best


def slow_large_event() -> None:
    print("1. one large event in 150-byte reads (CPU, best of 3)")
    print(f"{'path':<12} {'size':>6} {'CPU ms':>8} {'us/KiB':>8}")
    app = proxy_app()
    for name, make in (("middleware", None), ("proxy app", app)):
        per_kib = {}
        for label, size in SIZES.items():
            body = request(label)
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(body)),
            ]
            target = (
                make
                if make is not None
                else ToolCallMiddleware(
                    trickling_app(large_event(size)),
                    "kimi_k2",
                    metrics=False,
                    max_buffered_bytes=2 * size,
                )
            )

            async def run(
                target: Any = target,
                body: bytes = body,
                headers: list[tuple[bytes, bytes]] = headers,
            ) -> None:
                await run_app(target, body, headers=headers)

            seconds = cpu_of(run)
            per_kib[label] = seconds / (size / 1024) * 1e6
            print(f"{name:<12} {label:>6} {seconds * 1000:>8.1f} {per_kib[label]:>8.2f}")
        print(f"{name:<12} per-KiB cost 900k / 100k: {per_kib['900k'] / per_kib['100k']:.2f}x")


# --- 2. `toolcall serve` in front of a hostile upstream -------------------------------------


async def hostile_upstream(scope: Any, receive: Any, send: Any) -> None:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    model = orjson.loads(body)["model"] if body else ""
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/event-stream")],
        }
    )

    async def out(data: bytes) -> None:
        await send({"type": "http.response.body", "body": data, "more_body": True})

    if model.startswith("trickle-"):
        event = large_event(SIZES[model.removeprefix("trickle-")])
        for i in range(0, len(event), READ):
            await out(event[i : i + READ])
            await anyio.sleep(0)
    elif model == "endless-name":
        await out(chunk({"content": 'Let me see. <tool_call>{"name": "'}))
        with anyio.move_on_after(30):
            while True:
                await out(chunk({"content": "x" * 100}))
                await anyio.sleep(0)
    elif model == "endless-event":
        await out(b'data: {"choices": [{"index": 0, "delta": {"content": "')
        with anyio.move_on_after(30):
            while True:
                await out(b"x" * 4096)
                await anyio.sleep(0)
    elif model == "deep-arguments":
        arguments = '{"path": ' + "[" * 10_000 + "]" * 10_000 + "}"
        for piece in (f"Hi {KIMI_CALL}", arguments, "<|tool_call_end|>"):
            await out(chunk({"content": piece}))
        await out(chunk({}, "stop") + b"data: [DONE]\n\n")
    elif model == "quiet":
        await out(chunk({"content": "Let me check <"}))
        await anyio.sleep(3)
        await out(chunk({"content": 'tool_call>{"name": "bash", "arguments": {}}</tool_call>'}))
        await out(chunk({}, "stop") + b"data: [DONE]\n\n")
    await send({"type": "http.response.body", "body": b"", "more_body": False})


SCENARIOS = {  # model: the provider it is served with (through provider_overrides)
    "trickle-100k": "hermes",
    "trickle-900k": "hermes",
    "endless-name": "hermes",
    "endless-event": "hermes",
    "deep-arguments": "kimi_k2",
    "quiet": "hermes",
}


async def one(proxy_url: str, model: str, pid: int) -> str:
    peak = [rss_mib(pid)]
    done = asyncio.Event()

    async def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss_mib(pid))
            await asyncio.sleep(0.02)

    sampler = asyncio.create_task(sample())
    cpu, started = cpu_seconds(pid), time.monotonic()
    first = 0.0
    received = bytearray()
    headers = {"content-type": "application/json"}
    async with (
        httpx.AsyncClient(timeout=60, trust_env=False) as client,
        client.stream(
            "POST", proxy_url + "/v1/chat/completions", content=request(model), headers=headers
        ) as response,
    ):
        async for piece in response.aiter_raw():
            if not first:
                first = time.monotonic() - started
            received += piece
    elapsed = time.monotonic() - started
    done.set()
    await sampler
    cpu = cpu_seconds(pid) - cpu
    return (
        f"{model:<15} {response.status_code:>4} {len(received) / 1024:>9.1f} {first:>7.2f} "
        f"{elapsed:>7.2f} {cpu:>6.2f} {peak[0]:>8.1f}   {outcome(bytes(received))}"
    )


def outcome(body: bytes) -> str:
    if b"tool_call_limit_exceeded" in body:
        return "ended with the limit error event"
    if b'"tool_calls"' in body:
        return "tool call delivered"
    return "text delivered"


def serve(app: Any, port: int) -> uvicorn.Server:
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning", lifespan="off"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server


def hostile_serve() -> None:
    up_port, proxy_port = free_port(), free_port()
    upstream = serve(hostile_upstream, up_port)
    env = {
        **os.environ,
        "TOOLCALL_ACCESS_LOG": "false",
        "TOOLCALL_LOG_LEVEL": "error",
        "TOOLCALL_PROVIDER_OVERRIDES": ",".join(f"{m}={p}" for m, p in SCENARIOS.items()),
    }
    proxy = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolcall_middleware.cli",
            "serve",
            "--upstream",
            f"http://127.0.0.1:{up_port}",
            "--port",
            str(proxy_port),
        ],
        env=env,
    )
    proxy_url = f"http://127.0.0.1:{proxy_port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(proxy_url + "/healthz", timeout=1, trust_env=False)
                break
            except httpx.TransportError:
                if proxy.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("toolcall serve did not start") from None
                time.sleep(0.05)
        print(
            "\n2. toolcall serve in front of a hostile upstream "
            f"(proxy pid {proxy.pid}, {rss_mib(proxy.pid):.1f} MiB idle)"
        )
        print(
            f"{'scenario':<15} {'code':>4} {'KiB out':>9} {'first s':>7} {'last s':>7} "
            f"{'CPU s':>6} {'peak MiB':>8}"
        )
        for model in SCENARIOS:
            print(asyncio.run(one(proxy_url, model, proxy.pid)), flush=True)
    finally:
        proxy.terminate()
        proxy.wait(10)
        upstream.should_exit = True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-serve", action="store_true", help="only part 1 (no servers)")
    args = parser.parse_args()
    slow_large_event()
    if not args.skip_serve:
        hostile_serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
