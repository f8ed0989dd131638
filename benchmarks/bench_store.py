"""What the Responses front's store adds per request: µs and bytes written, SQLite and Redis,
beside what the request costs without it.

A client that uses the store sends only its new items and ``previous_response_id``; one that
does not sends the whole conversation every turn, with ``store: false``. Both run the same
tool loop: every turn the model thinks aloud (140 text events) and calls ``bash`` in Kimi
markup (15 events); the next turn sends the call's output. For conversations of 0 (a first
turn), 10 and 50 earlier turns, each request is timed three ways, interleaved:

- ``off``: the whole conversation in ``input``, ``store: false`` (nothing read or written);
- ``sqlite``: ``previous_response_id`` of the stored conversation, ``store`` on, the
  embedded SQLite file (WAL) on the machine's temporary directory;
- ``redis``: the same with a ``redis-server`` started on a free loopback port (skipped when
  ``redis-server`` is not installed).

Part 1 drives the front in process (direct ASGI calls, a scripted upstream): wall and CPU
time per request (the process's, the store's worker thread included), best of the rounds.
Part 2 does the same through a real ``toolcall serve`` per store, in front of a fake upstream
in its own process, and reads the proxy's CPU per request from /proc: what the proxy spends
on a request, and what the store adds to it. Bytes written: the entry stored per request
(response object and conversation), what the SQLite connection wrote to its files (``wchar``
of /proc/self/io), and what Redis received (``total_net_input_bytes``).

    python benchmarks/bench_store.py [--depths 0,10,50] [--requests 50] [--rounds 8]

``--only STORE,DEPTH,N`` sends N requests in process and times nothing, for an instruction
count that does not vary with the machine's load (the difference of two N, per request):

    valgrind --tool=callgrind python benchmarks/bench_store.py --only sqlite,10,25
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import orjson

from toolcall_middleware import ResponsesMiddleware, ToolCallMiddleware
from toolcall_middleware.asgi import Message, Receive, Scope, Send
from toolcall_middleware.fronts.responses.store import owner_of

MODEL = "kimi-k2-instruct"
TOOLS = [
    {
        "type": "function",
        "name": "bash",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    }
]
WORDS = ("the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog,", "then")
OUTPUT = "total 8\n-rw-r--r-- 1 user user 120 a.txt\n-rw-r--r-- 1 user user 80 b.txt\n"


# --- the scripted model: one tool-call turn per request ------------------------------------


@functools.lru_cache(maxsize=128)
def turn_events(turn: int) -> tuple[bytes, ...]:
    """140 text events, then a call ``functions.bash:<turn>`` in Kimi markup (its id is the
    turn's, as Kimi numbers its calls), the finish and the usage."""

    def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> bytes:
        choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        body = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": MODEL}
        return b"data: " + orjson.dumps({**body, "choices": choices, **extra}) + b"\n\n"

    markup = [
        "<|tool_calls_section_begin|>",
        "<|tool_call_begin|>",
        f"functions.bash:{turn}",
        "<|tool_call_argument_begin|>",
        '{"command": ',
        '"ls -la"}',
        "<|tool_call_end|>",
        "<|tool_calls_section_end|>",
    ]
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": " " + WORDS[i % len(WORDS)]}) for i in range(140)]
    events += [chunk({"content": token}) for token in markup]
    events += [
        chunk({}, "stop"),
        chunk(None, usage={"prompt_tokens": 10, "completion_tokens": 150, "total_tokens": 160}),
    ]
    return (*events, b"data: [DONE]\n\n")


async def model_app(scope: Scope, receive: Receive, send: Send) -> None:
    """The scripted model as an ASGI app: the turn is the number of tool results so far."""
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    if scope.get("method") != "POST":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
        return
    messages = orjson.loads(body)["messages"]
    turn = sum(m["role"] == "tool" for m in messages)
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/event-stream")],
        }
    )
    for event in turn_events(turn):
        await send({"type": "http.response.body", "body": event, "more_body": True})
    await send({"type": "http.response.body", "body": b""})


# --- requests -------------------------------------------------------------------------------


class Conversation:
    """The tool loop so far: every item, and the last stored response's id."""

    def __init__(self) -> None:
        self.items: list[Any] = [{"role": "user", "content": "List the files, then go on."}]
        self.last_id: str | None = None
        self.last_call: str | None = None

    def request(self, stored: bool) -> dict[str, Any]:
        doc: dict[str, Any] = {"model": MODEL, "stream": True, "tools": TOOLS}
        if not stored:
            return {**doc, "input": self.items, "store": False}
        if self.last_id is None:
            return {**doc, "input": self.items}
        output = {"type": "function_call_output", "call_id": self.last_call, "output": OUTPUT}
        return {**doc, "input": [output], "previous_response_id": self.last_id}

    def answered(self, response: dict[str, Any]) -> None:
        """``response`` (the terminal event's) is the next turn: keep its output, answer it."""
        self.items += response["output"]
        call = response["output"][-1]
        assert call["type"] == "function_call", call
        self.last_id, self.last_call = response["id"], call["call_id"]
        self.items.append(
            {"type": "function_call_output", "call_id": call["call_id"], "output": OUTPUT}
        )


def terminal(body: bytes) -> dict[str, Any]:
    """The response of the stream's last event."""
    data = body.rstrip().rsplit(b"\ndata: ", 1)[1]
    response: dict[str, Any] = orjson.loads(data)["response"]
    assert response["status"] == "completed", response
    return response


async def post(app: Callable[..., Any], doc: dict[str, Any]) -> bytes:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/responses",
        "headers": [(b"authorization", b"Bearer bench")],
        "query_string": b"",
    }
    body = orjson.dumps(doc)
    sent = False
    out = bytearray()

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()
        raise AssertionError

    async def send(message: Message) -> None:
        out.extend(message.get("body", b""))

    await app(scope, receive, send)
    return bytes(out)


# --- part 1: in process ---------------------------------------------------------------------


def wchar() -> int:
    with open("/proc/self/io") as fh:
        for line in fh:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    return 0


Samples = dict[str, list[float]]


def in_process(
    depths: list[int], requests: int, rounds: int, redis_url: str | None, tmp: Path
) -> dict[int, dict[str, Samples]]:
    """Per depth and store: each round's wall and CPU µs per request, bytes written per
    request, and the stored entry's size."""
    stores = {"off": "off", "sqlite": f"sqlite:{tmp / 'bench.sqlite3'}"}
    if redis_url:
        stores["redis"] = redis_url
    results: dict[int, dict[str, Samples]] = {}
    owner = owner_of([(b"authorization", b"Bearer bench")])

    async def main() -> None:
        chat = ToolCallMiddleware(model_app, provider="kimi_k2", metrics=False)
        apps = {
            name: ResponsesMiddleware(
                chat, keepalive_interval=0, store=spec, store_max_bytes=2**34, metrics=None
            )
            for name, spec in stores.items()
        }
        for depth in depths:
            # Each store gets the conversation so far (``off`` sends SQLite's in full).
            conversations = {}
            for name in stores:
                builder = apps["sqlite" if name == "off" else name]
                conversations[name] = conversation = Conversation()
                for _ in range(depth):
                    doc = conversation.request(True)
                    conversation.answered(terminal(await post(builder, doc)))
            samples: dict[str, defaultdict[str, list[float]]] = {n: defaultdict(list) for n in apps}
            for name, app in apps.items():  # warm up
                await post(app, conversations[name].request(name != "off"))
            for _ in range(rounds):
                for name, app in apps.items():
                    doc = conversations[name].request(name != "off")
                    before = redis_bytes(redis_url) if name == "redis" else wchar()
                    wall, cpu = time.perf_counter(), time.process_time()
                    for _ in range(requests):
                        body = await post(app, doc)
                    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                    after = redis_bytes(redis_url) if name == "redis" else wchar()
                    sample = samples[name]
                    sample["wall"].append(wall / requests * 1e6)
                    sample["cpu"].append(cpu / requests * 1e6)
                    sample["written"].append((after - before) / requests)
                    response = terminal(body)
                    if name != "off":
                        keeper = app.keeper
                        assert keeper is not None and response["store"] is True
                        stored = await keeper.store.get(response["id"], owner)
                        assert stored is not None
                        sample["entry"].append(len(stored.response) + len(stored.items))
            results[depth] = {name: dict(sample) for name, sample in samples.items()}
        for app in apps.values():
            await app.aclose()

    anyio.run(main)
    return results


def redis_bytes(url: str | None) -> int:
    import redis

    client = redis.Redis.from_url(url or "")
    value = int(client.info("stats")["total_net_input_bytes"])
    client.close()
    return value


# --- part 2: through `toolcall serve` -------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def wait_up(url: str, process: subprocess.Popen[bytes]) -> None:
    import httpx

    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(url, timeout=1, trust_env=False)
            return
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not come up") from None
            time.sleep(0.05)


@contextmanager
def process(
    argv: list[str], url: str, env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        argv,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_up(url, proc)
        yield proc
    finally:
        proc.terminate()
        proc.wait(15)


def proc_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_wchar(pid: int) -> int:
    with open(f"/proc/{pid}/io") as fh:
        for line in fh:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    return 0


def through_serve(
    depths: list[int], requests: int, rounds: int, redis_url: str | None, tmp: Path
) -> dict[int, dict[str, Samples]]:
    """Per depth and store: each round's CPU µs per request of the ``toolcall serve`` process
    (user + system, /proc), and bytes written per request."""
    import httpx

    upstream_port = free_port()
    stores = {"off": "off", "sqlite": f"sqlite:{tmp / 'serve.sqlite3'}"}
    if redis_url:
        stores["redis"] = redis_url
    results: dict[int, dict[str, Samples]] = {}
    model = [sys.executable, __file__, "--serve-model", str(upstream_port)]
    with (
        process(model, f"http://127.0.0.1:{upstream_port}/"),
        _serves(stores, upstream_port) as serves,
    ):
        clients = {
            name: httpx.Client(base_url=url, timeout=60, headers={"authorization": "Bearer bench"})
            for name, (url, _) in serves.items()
        }

        def post_to(name: str, doc: dict[str, Any]) -> bytes:
            return clients[name].post("/v1/responses", json=doc).content

        for depth in depths:
            conversations = {}
            for name in serves:
                conversations[name] = conversation = Conversation()
                for _ in range(depth):
                    doc = conversation.request(True)
                    conversation.answered(
                        terminal(post_to("sqlite" if name == "off" else name, doc))
                    )
            samples: dict[str, defaultdict[str, list[float]]] = {
                n: defaultdict(list) for n in serves
            }
            for _ in range(rounds):
                for name, (_, pid) in serves.items():
                    doc = conversations[name].request(name != "off")
                    before_io = redis_bytes(redis_url) if name == "redis" else proc_wchar(pid)
                    before = proc_cpu(pid)
                    for _ in range(requests):
                        body = post_to(name, doc)
                    cpu = (proc_cpu(pid) - before) / requests * 1e6
                    after_io = redis_bytes(redis_url) if name == "redis" else proc_wchar(pid)
                    samples[name]["cpu"].append(cpu)
                    samples[name]["written"].append((after_io - before_io) / requests)
                    assert terminal(body)["store"] is (name != "off")
            results[depth] = {name: dict(sample) for name, sample in samples.items()}
        for client in clients.values():
            client.close()
    return results


@contextmanager
def _serves(stores: dict[str, str], upstream_port: int) -> Iterator[dict[str, tuple[str, int]]]:
    from contextlib import ExitStack

    with ExitStack() as stack:
        out = {}
        for name, spec in stores.items():
            port = free_port()
            argv = [
                sys.executable,
                "-m",
                "toolcall_middleware.cli",
                "serve",
                "--upstream",
                f"http://127.0.0.1:{upstream_port}",
                "--port",
                str(port),
            ]
            env = {
                "TOOLCALL_RESPONSES_STORE": spec,
                "TOOLCALL_ACCESS_LOG": "false",
                "TOOLCALL_METRICS": "false",
            }
            proc = stack.enter_context(process(argv, f"http://127.0.0.1:{port}/healthz", env))
            out[name] = (f"http://127.0.0.1:{port}", proc.pid)
        yield out


def only(store: str, depth: int, count: int) -> None:
    """``count`` requests after ``depth`` earlier turns (built with SQLite) and three more to
    warm up, with the store ``off`` or in ``sqlite``."""
    with tempfile.TemporaryDirectory() as directory:
        sqlite = f"sqlite:{Path(directory) / 'only.sqlite3'}"

        async def main() -> None:
            chat = ToolCallMiddleware(model_app, provider="kimi_k2", metrics=False)
            builder = ResponsesMiddleware(chat, keepalive_interval=0, store=sqlite)
            off = ResponsesMiddleware(chat, keepalive_interval=0, store="off")
            app = builder if store == "sqlite" else off
            conversation = Conversation()
            for _ in range(depth):
                doc = conversation.request(True)
                conversation.answered(terminal(await post(builder, doc)))
            doc = conversation.request(store == "sqlite")
            for _ in range(3 + count):
                await post(app, doc)
            await builder.aclose()

        anyio.run(main)


# --- redis, the report ----------------------------------------------------------------------


@contextmanager
def redis_server(tmp: Path) -> Iterator[str | None]:
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=tmp,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


def report(title: str, results: dict[int, dict[str, Samples]], key: str) -> None:
    """Per depth: the median of ``key`` without the store, and per store the median of what it
    added in each round (the store's value minus ``off``'s of the same round) with the range
    of those, the share of ``off``'s, and the bytes written per request beyond ``off``'s."""
    print(f"\n{title}")
    stored = [name for name in ("sqlite", "redis") if name in next(iter(results.values()))]
    head = f"{'earlier turns':>13} {'off':>7}"
    for name in stored:
        head += f" | {name + ' adds':>12} {'(range)':>13} {'share':>6} {'B written':>9}"
    entries = "entry" in next(iter(results.values()))["sqlite"]
    print(head + (f" | {'entry B':>8}" if entries else ""))
    for depth in sorted(results):
        by_name = results[depth]
        base = statistics.median(by_name["off"][key])
        line = f"{depth:>13} {base:>7.0f}"
        for name in stored:
            added = [v - o for v, o in zip(by_name[name][key], by_name["off"][key], strict=True)]
            written = statistics.median(by_name[name]["written"]) - statistics.median(
                by_name["off"]["written"]
            )
            middle = statistics.median(added)
            line += (
                f" | {middle:>+12.0f} {f'({min(added):+.0f}, {max(added):+.0f})':>13}"
                f" {middle / base:>6.1%} {written:>9.0f}"
            )
        if entries:
            line += f" | {statistics.median(by_name['sqlite']['entry']):>8.0f}"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", default="0,10,50")
    parser.add_argument("--requests", type=int, default=50, help="requests per timed batch")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--serve-requests", type=int, default=200)
    parser.add_argument("--serve-model", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--only", metavar="STORE,DEPTH,N", help="off or sqlite; see above")
    args = parser.parse_args()
    if args.only:
        store, depth, count = args.only.split(",")
        only(store, int(depth), int(count))
        return
    if args.serve_model:
        import uvicorn

        uvicorn.run(
            model_app, host="127.0.0.1", port=args.serve_model, log_level="warning", lifespan="off"
        )
        return
    depths = [int(d) for d in args.depths.split(",")]
    with tempfile.TemporaryDirectory() as directory:
        tmp = Path(directory)
        with redis_server(tmp) as redis_url:
            if redis_url is None:
                print("redis-server is not installed: Redis is left out")
            part1 = in_process(depths, args.requests, args.rounds, redis_url, tmp)
            print(f"{args.rounds} rounds; medians, and the range of the rounds' added cost")
            report("In process (direct ASGI): wall µs per request", part1, "wall")
            report("In process: CPU µs per request (the store's thread included)", part1, "cpu")
            part2 = through_serve(depths, args.serve_requests, args.rounds, redis_url, tmp)
            report("Through `toolcall serve`: the proxy's CPU µs per request", part2, "cpu")


if __name__ == "__main__":
    main()
