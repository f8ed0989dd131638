"""CPU per event of `toolcall serve`, side by side with a naive proxy and nginx, in one run.

Every proxy runs in its own process in front of one fake upstream (a uvicorn process sending
precomputed Chat Completions events); this script is the load (raw asyncio sockets, so that the
client costs little of the machine's CPU). Only the proxy's processes are measured: the CPU time
(user + system, from /proc, the process and its children) it used during a phase, divided by the
upstream events it relayed.

- paced: N concurrent streams, one event every `--pace` s each, for
  (a) `toolcall serve` with tool-call markup in the stream and tools in the request (Kimi K2
      special tokens, or Hermes `<tool_call>` with `--markup hermes`), repaired by the proxy;
  (b) `toolcall serve` with plain text and no tools;
  (c) `naive_proxy.py`, a 30-line uvicorn + httpx pass-through, on the stream of (a);
  (d) nginx (`proxy_buffering off`) on the same stream, when `nginx` is installed.
  Configurations alternate within each round, so that all see the same background load.
- saturation: unpaced streams (the upstream sends as fast as it can): events per second
  through `toolcall serve` with 1 worker and with 2 (when `serve` accepts `--workers`),
  the naive proxy and nginx.

Linux only (/proc). Defaults take about two minutes on two cores.

    python benchmarks/bench_proxy_cpu.py
    python benchmarks/bench_proxy_cpu.py --streams 50 --events 100 --rounds 1 --sat-events 200
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from load_proxy import TOOLS, free_port, wait_ready

HERE = Path(__file__).resolve().parent
MODELS = {"kimi": "moonshotai/Kimi-K2-Instruct", "hermes": "NousResearch/Hermes-3-Llama-3.1-8B"}
# A tool call as a model server streams it, one token per event (special tokens whole).
MARKUP = {
    "kimi": [
        "<|tool_calls_section_begin|>",
        "<|tool_call_begin|>",
        "functions",
        ".bash",
        ":0",
        "<|tool_call_argument_begin|>",
        '{"',
        "command",
        '":',
        ' "',
        "ls",
        " -la",
        '"}',
        "<|tool_call_end|>",
        "<|tool_calls_section_end|>",
    ],
    "hermes": [
        "<tool_call>",
        "\n",
        '{"',
        "name",
        '":',
        ' "',
        "bash",
        '",',
        ' "',
        "arguments",
        '":',
        ' {"',
        "command",
        '":',
        ' "',
        "ls",
        " -la",
        '"}}',
        "\n",
        "</tool_call>",
    ],
}
WORDS = (
    "The",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "the",
    "lazy",
    "dog,",
    "then",
    "lists",
    "the",
    "files",
    "here.",
)


# --- the fake upstream (its own process) -----------------------------------------------------


@functools.lru_cache(maxsize=16)
def script(model: str, markup: str | None, events: int) -> tuple[bytes, ...]:
    """The stream's `events` SSE events: a role event, text tokens, the markup (if any), a
    finish and `[DONE]`."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        return b"data: " + orjson.dumps(body) + b"\n\n"

    tokens = MARKUP[markup] if markup else []
    texts = max(0, events - 3 - len(tokens))
    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": " " + WORDS[i % len(WORDS)]}) for i in range(texts)]
    out += [chunk({"content": token}) for token in tokens]
    out += [chunk({}, "stop"), b"data: [DONE]\n\n"]
    return tuple(out)


async def upstream_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    if scope["method"] != "POST":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
        return
    request = orjson.loads(body)
    events = script(request["model"], request.get("bench_markup"), request["bench_events"])
    pace: float = request["bench_pace"]
    headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    for event in events:
        await asyncio.sleep(pace)  # 0: the other streams get their turn, as on a busy server
        await send({"type": "http.response.body", "body": event, "more_body": True})
    await send({"type": "http.response.body", "body": b""})


def serve_upstream(port: int) -> None:
    import uvicorn

    uvicorn.run(
        upstream_app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        backlog=4096,
    )


# --- the proxies under test ------------------------------------------------------------------


@dataclass
class Proxy:
    name: str
    pid: int
    port: int


def tree_cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` and its live descendants (workers), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        todo += children.get(current, [])
    return total


@contextmanager
def started(name: str, argv: list[str], port: int, ready: str, **kwargs: Any) -> Iterator[Proxy]:
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
    try:
        wait_ready(f"http://127.0.0.1:{port}{ready}", proc, time.monotonic() + 30)
        yield Proxy(name, proc.pid, port)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def toolcall_serve(upstream: str, workers: int | None = None) -> tuple[list[str], int]:
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "toolcall_middleware.cli",
        "serve",
        "--upstream",
        upstream,
        "--port",
        str(port),
    ]
    if workers is not None:
        argv += ["--workers", str(workers)]
    return argv, port


def serve_accepts_workers() -> bool:
    help_text = subprocess.run(
        [sys.executable, "-m", "toolcall_middleware.cli", "serve", "--help"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return "--workers" in help_text


NGINX_CONF = """daemon off;
worker_processes {workers};
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream model {{ server 127.0.0.1:{upstream}; keepalive 256; }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://model;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_request_buffering off;
        }}
    }}
}}
"""


@contextmanager
def nginx(upstream_port: int, workers: int = 1) -> Iterator[Proxy | None]:
    binary = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.path.exists(p)), None
    )
    if binary is None:
        yield None
        return
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        conf = Path(tmp, "nginx.conf")
        conf.write_text(
            NGINX_CONF.format(workers=workers, dir=tmp, upstream=upstream_port, port=port)
        )
        with started("nginx", [binary, "-c", str(conf), "-p", tmp], port, "/") as proxy:
            yield proxy


# --- the load --------------------------------------------------------------------------------


@dataclass
class Phase:
    streams_ok: int = 0
    streams: int = 0
    events: int = 0
    cpu: float = 0.0
    seconds: float = 0.0
    errors: tuple[str, ...] = ()

    def add(self, other: Phase) -> None:
        self.streams_ok += other.streams_ok
        self.streams += other.streams
        self.events += other.events
        self.cpu += other.cpu
        self.seconds += other.seconds
        self.errors += other.errors

    @property
    def us_per_event(self) -> float:
        return self.cpu / self.events * 1e6 if self.events else float("nan")

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds else float("nan")


async def one_stream(port: int, request: bytes, delay: float, repaired: bool) -> str | None:
    """One streaming request; `None` when it ended well, else what went wrong."""
    await asyncio.sleep(delay)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as exc:
        return f"connect: {exc}"
    try:
        writer.write(request)
        head = await reader.read(65536)
        tail = head[-512:]
        while chunk := await reader.read(65536):
            tail = (tail + chunk)[-512:]
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        writer.close()
    if not head.startswith(b"HTTP/1.1 200"):
        return head.split(b"\r\n", 1)[0].decode("latin-1") or "no response"
    if b"data: [DONE]" not in tail:
        return "stream ended without [DONE]"
    if repaired and b'"finish_reason":"tool_calls"' not in tail:
        return "tool call not repaired"
    return None


def http_request(body: dict[str, Any]) -> bytes:
    data = orjson.dumps(body)
    return (
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        b"content-type: application/json\r\naccept-encoding: identity\r\nconnection: close\r\n"
        b"content-length: %d\r\n\r\n" % len(data)
    ) + data


def run_phase(
    proxy: Proxy,
    streams: int,
    events: int,
    pace: float,
    ramp: float,
    markup: str | None,
    tools: bool,
) -> Phase:
    body: dict[str, Any] = {
        "model": MODELS[markup or "kimi"],
        "stream": True,
        "messages": [{"role": "user", "content": "list the files"}],
        "bench_events": events,
        "bench_pace": pace,
        "bench_markup": markup,
    }
    if tools:
        body["tools"] = TOOLS
    request = http_request(body)
    repaired = tools and markup is not None and proxy.name.startswith("toolcall")

    async def load() -> list[str | None]:
        return await asyncio.gather(
            *(one_stream(proxy.port, request, ramp * i / streams, repaired) for i in range(streams))
        )

    cpu = tree_cpu_seconds(proxy.pid)
    begun = time.monotonic()
    outcomes = asyncio.run(load())
    seconds = time.monotonic() - begun
    cpu = tree_cpu_seconds(proxy.pid) - cpu
    errors = tuple(o for o in outcomes if o is not None)
    ok = streams - len(errors)
    return Phase(ok, streams, ok * events, cpu, seconds, errors)


# --- the run ---------------------------------------------------------------------------------


def ratio(value: float, base: float | None) -> str:
    return f"{value / base:6.2f}x" if base else "    n/a"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=100, help="concurrent streams (100)")
    parser.add_argument("--events", type=int, default=150, help="events per stream (150)")
    parser.add_argument("--pace", type=float, default=0.02, help="seconds between events (0.02)")
    parser.add_argument("--ramp", type=float, default=1.0, help="seconds over which streams start")
    parser.add_argument("--rounds", type=int, default=3, help="paced rounds (3)")
    parser.add_argument("--markup", choices=sorted(MARKUP), default="kimi")
    parser.add_argument("--sat-streams", type=int, default=100, help="saturation streams (100)")
    parser.add_argument("--sat-events", type=int, default=400, help="saturation events (400)")
    parser.add_argument("--serve-upstream", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_upstream:
        serve_upstream(args.serve_upstream)
        return 0

    up_port = free_port()
    up_url = f"http://127.0.0.1:{up_port}"
    with ExitStack() as stack:
        stack.enter_context(
            started(
                "upstream",
                [sys.executable, __file__, "--serve-upstream", str(up_port)],
                up_port,
                "/",
            )
        )
        argv, port = toolcall_serve(up_url)
        serve = stack.enter_context(started("toolcall serve", argv, port, "/healthz"))
        naive_port = free_port()
        naive = stack.enter_context(
            started(
                "naive",
                [sys.executable, str(HERE / "naive_proxy.py"), up_url, str(naive_port)],
                naive_port,
                "/",
            )
        )
        nginx_proxy = stack.enter_context(nginx(up_port))
        loop_impl = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
        http_impl = "httptools" if importlib.util.find_spec("httptools") else "h11"
        print(
            f"uvicorn loop {loop_impl}, http {http_impl}; "
            f"nginx {'found' if nginx_proxy else 'not installed'}",
            flush=True,
        )

        Run = Callable[[], Phase]
        paced: dict[str, tuple[Run, list[Phase]]] = {}
        naive_label = "naive uvicorn + httpx proxy"

        def add(label: str, proxy: Proxy, markup: str | None, tools: bool) -> None:
            def run() -> Phase:
                return run_phase(
                    proxy, args.streams, args.events, args.pace, args.ramp, markup, tools
                )

            paced[label] = (run, [])

        add(f"toolcall serve, {args.markup} markup + tools", serve, args.markup, True)
        add("toolcall serve, plain text, no tools", serve, None, False)
        add(naive_label, naive, args.markup, True)
        if nginx_proxy is not None:
            add("nginx (proxy_buffering off)", nginx_proxy, args.markup, True)
        # A few streams through each first: imports, connection pools, caches.
        for proxy in (serve, naive, nginx_proxy):
            if proxy is not None:
                run_phase(proxy, 4, 20, 0.0, 0.0, args.markup, True)
        print(
            f"paced: {args.streams} streams x {args.events} events, one every "
            f"{args.pace * 1000:g} ms each ({args.streams / args.pace:.0f} events/s offered), "
            f"{args.rounds} round(s)",
            flush=True,
        )
        for _ in range(args.rounds):
            for run, rounds in paced.values():
                rounds.append(run())
        totals: dict[str, Phase] = {}
        for label, (_, rounds) in paced.items():
            totals[label] = Phase()
            for phase in rounds:
                totals[label].add(phase)
        naive_us = totals[naive_label].us_per_event
        nginx_us = totals["nginx (proxy_buffering off)"].us_per_event if nginx_proxy else None
        print(
            f"{'proxy':<40} {'CPU/event':>10} {'vs naive':>9} {'vs nginx':>9} {'streams ok':>11}"
            f"  {'vs naive, each round':>20}"
        )
        failures: list[str] = []
        for label, total in totals.items():
            us = total.us_per_event
            # Each round against the naive proxy's round next to it (the same background load).
            each = sorted(
                phase.us_per_event / naive.us_per_event
                for phase, naive in zip(paced[label][1], paced[naive_label][1], strict=True)
                if naive.events
            )
            spread = f"{each[0]:.2f}-{each[-1]:.2f}x" if each else "n/a"
            print(
                f"{label:<40} {us:8.1f} us {ratio(us, naive_us):>9} {ratio(us, nginx_us):>9} "
                f"{total.streams_ok:>5}/{total.streams}  {spread:>20}"
            )
            failures += [f"{label}: {e}" for e in total.errors]

        print(
            f"saturation: {args.sat_streams} streams x {args.sat_events} events, unpaced",
            flush=True,
        )
        sat: list[tuple[str, Phase | None]] = []

        def saturate(proxy: Proxy) -> Phase:
            return run_phase(proxy, args.sat_streams, args.sat_events, 0.0, 0.2, args.markup, True)

        sat.append(("toolcall serve, 1 worker", saturate(serve)))
        if serve_accepts_workers():
            argv, port = toolcall_serve(up_url, 2)
            with started("toolcall serve x2", argv, port, "/healthz") as serve2:
                run_phase(serve2, 8, 20, 0.0, 0.0, args.markup, True)
                sat.append(("toolcall serve, 2 workers", saturate(serve2)))
        else:
            sat.append(("toolcall serve, 2 workers", None))
        sat.append(("naive uvicorn + httpx proxy", saturate(naive)))
        if nginx_proxy is not None:
            sat.append(("nginx, 1 worker", saturate(nginx_proxy)))
        print(f"{'proxy':<40} {'events/s':>10} {'CPU/event':>10} {'streams ok':>11}")
        for label, result in sat:
            if result is None:
                print(f"{label:<40} {'n/a':>10} {'n/a':>10}   (serve has no --workers)")
                continue
            print(
                f"{label:<40} {result.rate:10.0f} {result.us_per_event:7.1f} us "
                f"{result.streams_ok:>5}/{result.streams}"
            )
            failures += [f"{label}: {e}" for e in result.errors]
        for failure in sorted(set(failures))[:10]:
            print(f"  error: {failure} (x{failures.count(failure)})")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
