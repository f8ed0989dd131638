"""Load test for `toolcall serve`: N concurrent streaming clients through the proxy.

Three processes, all on 127.0.0.1: a fake upstream (uvicorn) streaming Kimi K2 sessions whose
events carry their send time, the proxy (`python -m toolcall_middleware.cli serve`, a
subprocess so its memory can be read from /proc), and this script's clients. Each round runs
the same load straight against the upstream, then through the proxy; the difference of the
per-event latency percentiles is the latency the proxy adds. Bounded in count (clients x
(2 x rounds + 1) streams) and time (--timeout per phase); it stops by itself and cleans up its
subprocesses. Linux only (/proc).

    python benchmarks/load_proxy.py                # 200 clients, 60 events each, 3 rounds
    python benchmarks/load_proxy.py --clients 50 --events 20 --rounds 1
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]
STAMP = re.compile(rb"t=(\d+) ")
SECTION = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0"
    '<|tool_call_argument_begin|>{"command": "ls -la"}<|tool_call_end|><|tool_calls_section_end|>'
)


# --- the fake upstream (runs in its own process) ---------------------------------------------


def upstream_app(events: int, pace: float) -> Any:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {
            "id": "chatcmpl-load",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": "moonshotai/Kimi-K2-Instruct",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        return b"data: " + orjson.dumps(body) + b"\n\n"

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await send(
            {
                "type": "http.response.body",
                "body": chunk({"role": "assistant", "content": ""}),
                "more_body": True,
            }
        )
        for _ in range(events):
            await asyncio.sleep(pace)
            text = f"t={time.monotonic_ns()} "  # CLOCK_MONOTONIC: comparable across processes
            await send(
                {"type": "http.response.body", "body": chunk({"content": text}), "more_body": True}
            )
        tail = chunk({"content": SECTION}) + chunk({}, "stop") + b"data: [DONE]\n\n"
        await send({"type": "http.response.body", "body": tail, "more_body": False})

    return app


def serve_upstream(port: int, events: int, pace: float) -> None:
    import uvicorn

    uvicorn.run(
        upstream_app(events, pace),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        backlog=4096,
    )


# --- clients ---------------------------------------------------------------------------------


@dataclass
class Phase:
    name: str
    latencies_ms: list[float] = field(default_factory=list)
    events: int = 0
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    open_streams: int = 0
    peak_streams: int = 0  # most streams open at the same time
    cpu: float = 0.0  # CPU seconds the proxy used during the phase

    def pct(self, q: float) -> float:
        data = sorted(self.latencies_ms)
        return data[min(len(data) - 1, int(q * len(data)))] if data else float("nan")


async def one_stream(
    client: httpx.AsyncClient, url: str, delay: float, phase: Phase, check_repair: bool
) -> None:
    # Starts spread over the ramp: real streams are not phase-locked, and 200 connection
    # set-ups in one instant would measure the client's own backlog, not the proxy.
    await asyncio.sleep(delay)
    body = {
        "model": "moonshotai/Kimi-K2-Instruct",
        "stream": True,
        "tools": TOOLS,
        "messages": [{"role": "user", "content": "list files"}],
    }
    tail = b""
    try:
        async with client.stream("POST", url + "/v1/chat/completions", json=body) as response:
            phase.open_streams += 1
            phase.peak_streams = max(phase.peak_streams, phase.open_streams)
            if response.status_code != 200:
                phase.errors.append(f"status {response.status_code}")
                return
            async for data in response.aiter_raw():
                now = time.monotonic_ns()
                for match in STAMP.finditer(data):
                    phase.latencies_ms.append((now - int(match.group(1))) / 1e6)
                    phase.events += 1
                tail = (tail + data)[-4096:]
    except Exception as exc:  # counted, not raised: one failure must not hide the figures
        phase.errors.append(f"{type(exc).__name__}: {exc}")
        return
    finally:
        phase.open_streams -= 1 if phase.open_streams else 0
    if not tail.rstrip().endswith(b"data: [DONE]"):
        phase.errors.append("stream ended without [DONE]")
    elif check_repair and (b'"tool_calls"' not in tail or b"<|tool_call" in tail):
        phase.errors.append("tool call not repaired")


async def run_phase(
    name: str, url: str, clients: int, ramp: float, timeout: float, check_repair: bool
) -> Phase:
    phase = Phase(name)
    limits = httpx.Limits(max_connections=clients + 10, max_keepalive_connections=clients + 10)
    async with httpx.AsyncClient(
        limits=limits,
        timeout=httpx.Timeout(30.0),
        trust_env=False,
        headers={"accept-encoding": "identity"},
    ) as client:
        started = time.monotonic()
        tasks = [
            one_stream(client, url, ramp * i / clients, phase, check_repair) for i in range(clients)
        ]
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), timeout)
        except asyncio.TimeoutError:
            phase.errors.append(f"phase did not finish within {timeout} s")
        phase.seconds = time.monotonic() - started
    return phase


# --- orchestration ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc (clock ticks)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_ready(url: str, proc: subprocess.Popen[bytes], deadline: float) -> None:
    while True:
        try:
            httpx.get(url, timeout=1, trust_env=False)
            return
        except httpx.TransportError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not come up") from None
            time.sleep(0.05)


async def sample_rss(pid: int, peak: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], rss_mib(pid))
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.1)


def report(directs: list[Phase], proxied: list[Phase]) -> None:
    def row(p: Phase) -> str:
        return (
            f"{p.name:<14} {p.peak_streams:>4} open {p.events:>6} events {p.seconds:5.2f} s "
            f"{p.events / p.seconds if p.seconds else 0:8.0f} ev/s  "
            f"p50 {p.pct(0.50):6.2f} ms  p99 {p.pct(0.99):6.2f} ms  errors {len(p.errors)}"
            + (
                f"  proxy CPU {p.cpu:.2f} s ({p.cpu / p.events * 1e6:.0f} us/event)"
                if p.cpu and p.events
                else ""
            )
        )

    for direct, p in zip(directs, proxied, strict=True):
        print(row(direct))
        print(row(p))
    for direct, p in zip(directs, proxied, strict=True):
        print(
            f"added latency per event ({p.name}): p50 {p.pct(0.50) - direct.pct(0.50):+.2f} ms"
            f", p99 {p.pct(0.99) - direct.pct(0.99):+.2f} ms"
        )
    for p in (*directs, *proxied):
        for error in sorted(set(p.errors))[:5]:
            print(f"  {p.name} error: {error} (x{p.errors.count(error)})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200, help="concurrent streams (200)")
    parser.add_argument("--events", type=int, default=60, help="timed events per stream (60)")
    parser.add_argument("--pace", type=float, default=0.05, help="seconds between events (0.05)")
    parser.add_argument(
        "--ramp",
        type=float,
        default=1.0,
        help="seconds over which the stream starts are spread (1.0)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="direct+proxy round pairs (3)")
    parser.add_argument(
        "--settle", type=float, default=5.0, help="idle seconds before reading memory (5)"
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per phase (120)")
    parser.add_argument("--serve-upstream", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_upstream:
        serve_upstream(args.serve_upstream, args.events, args.pace)
        return 0

    up_port, proxy_port = free_port(), free_port()
    up_url, proxy_url = f"http://127.0.0.1:{up_port}", f"http://127.0.0.1:{proxy_port}"
    env = {**os.environ, "TOOLCALL_ACCESS_LOG": "false", "TOOLCALL_LOG_LEVEL": "warning"}
    upstream = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--serve-upstream",
            str(up_port),
            "--events",
            str(args.events),
            "--pace",
            str(args.pace),
        ]
    )
    proxy = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolcall_middleware.cli",
            "serve",
            "--upstream",
            up_url,
            "--port",
            str(proxy_port),
        ],
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        wait_ready(up_url + "/", upstream, deadline)
        wait_ready(proxy_url + "/healthz", proxy, deadline)
        print(
            f"{args.clients} clients x {args.events} events every {args.pace * 1000:.0f} ms; "
            f"proxy pid {proxy.pid}",
            flush=True,
        )
        idle = rss_mib(proxy.pid)
        # Warm-up at full concurrency: the allocator reaches the high-water mark that 200
        # streams need (CPython keeps those arenas); a leak shows as growth past it afterwards.
        warm = asyncio.run(
            run_phase("warm-up", proxy_url, args.clients, args.ramp, args.timeout, True)
        )
        time.sleep(args.settle)
        baseline = rss_mib(proxy.pid)
        directs: list[Phase] = []
        rounds: list[Phase] = []
        memory: list[tuple[float, float]] = []
        for n in range(args.rounds):
            # Each proxy round is paired with a direct round just before it, so that both see
            # the same background load on a shared machine.
            directs.append(
                asyncio.run(
                    run_phase(
                        f"direct {n + 1}", up_url, args.clients, args.ramp, args.timeout, False
                    )
                )
            )
            peak = [0.0]

            async def measured(n: int = n, peak: list[float] = peak) -> Phase:
                stop = asyncio.Event()
                sampler = asyncio.create_task(sample_rss(proxy.pid, peak, stop))
                phase = await run_phase(
                    f"proxy round {n + 1}", proxy_url, args.clients, args.ramp, args.timeout, True
                )
                stop.set()
                await sampler
                return phase

            cpu = cpu_seconds(proxy.pid)
            rounds.append(asyncio.run(measured()))
            rounds[-1].cpu = cpu_seconds(proxy.pid) - cpu
            print(f"  {rounds[-1].name} done", flush=True)
            time.sleep(args.settle)  # idle pooled connections expire, finished streams go
            memory.append((peak[0], rss_mib(proxy.pid)))
        report(directs, rounds)
        print(f"proxy RSS: idle {idle:.1f} MiB, after warm-up (baseline) {baseline:.1f}", end="")
        for n, (peak_mib, after) in enumerate(memory, 1):
            print(
                f"; round {n} peak {peak_mib:.1f}, after {after:.1f} ({after - baseline:+.1f})",
                end="",
            )
        print(" MiB")
        errors = sum(len(p.errors) for p in (warm, *directs, *rounds))
        return 1 if errors else 0
    finally:
        for proc in (proxy, upstream):
            proc.terminate()
        for proc in (proxy, upstream):
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    sys.exit(main())
