"""Per-delta cost of ToolCallMiddleware on synthetic Kimi K2 sessions (direct ASGI, no network).

For sessions of 1k, 10k and 100k deltas it prints, measured in this run:
  - middleware: µs per delta through ToolCallMiddleware (provider kimi_k2)
  - passthrough: µs per delta through a bare pass-through ASGI middleware (same bytes)
  - orjson: µs per delta for an orjson decode + encode of every event (the irreducible work)
and the ratios middleware/orjson and (per-delta cost at 100k) / (per-delta cost at 1k).

    python benchmarks/bench_stream.py [--sizes 1000,10000,100000] [--provider kimi_k2] [--breakdown]
        [--model NAME]

``--provider auto`` reads the stream as the model name chooses (``--model``, default Kimi K2.5).

Each upstream event is its own http.response.body message, as servers send them.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import orjson

from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.asgi import Message, Receive, Scope, Send

MODEL = "moonshotai/Kimi-K2.5-TEE"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": n,
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
    for n in ("bash", "read")
]


def request(model: str = MODEL) -> bytes:
    return orjson.dumps({"model": model, "stream": True, "messages": [], "tools": TOOLS})


REQUEST = request()


def kimi_session_pieces() -> Iterator[tuple[str, str]]:
    """An endless realistic Kimi K2.5 session: (field, text) deltas.

    Thinking in reasoning (mirrored into reasoning_content), a tool section with two calls
    whose arguments stream in small pieces, then answer text in content; repeated.
    """
    n = 0
    while True:
        for word in (
            "The",
            " user",
            " wants",
            " the",
            " build",
            " logs",
            ";",
            " let",
            " me",
            " check",
            " the",
            " CI",
            " output",
            " first",
            ".",
        ):
            yield "reasoning", word
        yield "reasoning", " <|tool_calls_section_begin|>"
        for call in range(2):
            yield "reasoning", "<|tool_call_begin|>"
            yield "reasoning", f"functions.bash:{n}"
            yield "reasoning", "<|tool_call_argument_begin|>"
            for piece in (
                '{"',
                "command",
                '": "',
                "grep",
                " -rn",
                " error",
                " logs/",
                f"build-{n}-{call}",
                ".txt",
                '"}',
            ):
                yield "reasoning", piece
            yield "reasoning", "<|tool_call_end|>"
            n += 1
        yield "reasoning", "<|tool_calls_section_end|>"
        for word in (
            "The",
            " logs",
            " show",
            " a",
            " missing",
            " header",
            " in",
            " asm",
            "/types.h",
            ";",
            " fixing",
            " it",
            " now",
            ".",
        ):
            yield "content", word


def build_events(deltas: int) -> list[bytes]:
    events = []
    pieces = kimi_session_pieces()
    for _ in range(deltas):
        field, text = next(pieces)
        delta = (
            {"reasoning": text, "reasoning_content": text}
            if field == "reasoning"
            else {"content": text}
        )
        events.append(_event(delta))
    return events


def kind_events(kind: str, deltas: int) -> list[bytes]:
    """A session of one kind of delta only: plain text, argument pieces, or markup."""
    opening = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0"
        "<|tool_call_argument_begin|>{"
    )
    markup = (
        "<|tool_call_begin|>",
        "functions.bash:{n}",
        "<|tool_call_argument_begin|>",
        "{{}}",
        "<|tool_call_end|>",
    )
    if kind == "text":
        texts = [" word"] * deltas
    elif kind == "arguments":
        texts = [opening] + [" piece"] * (deltas - 1)
    else:  # one empty call per five deltas, each with its own id as a model writes them
        texts = [markup[i % 5].format(n=i // 5) for i in range(deltas)]
    return [_event({"reasoning": t, "reasoning_content": t}) for t in texts]


def _event(delta: dict[str, str]) -> bytes:
    chunk = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}],
    }
    return b"data: " + orjson.dumps(chunk) + b"\n\n"


def upstream(events: list[bytes]) -> Callable[..., Any]:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        for event in events:
            await send({"type": "http.response.body", "body": event, "more_body": True})
        await send({"type": "http.response.body", "body": b"data: [DONE]\n\n", "more_body": False})

    return app


def passthrough(app: Callable[..., Any]) -> Callable[..., Any]:
    """The cheapest possible send-wrapping middleware: what any ASGI middleware costs."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        async def forward(message: Message) -> None:
            await send(message)

        await app(scope, receive, forward)

    return wrapped


async def drive(app: Callable[..., Any], body: bytes = REQUEST) -> int:
    scope = {"type": "http", "method": "POST", "path": "/v1/chat/completions", "headers": []}
    received = 0

    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        nonlocal received
        received += len(message.get("body", b""))

    await app(scope, receive, send)
    return received


def timed(run: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def timed_in_loop(app: Callable[..., Any], repeat: int, body: bytes = REQUEST) -> float:
    """Best time of ``repeat`` requests through ``app``, each timed inside one running event
    loop: starting a loop is not part of any request's cost. (No ``gc.collect()`` between
    them: it leaves the CPU caches cold, which a server in steady state does not see.)"""

    async def runs() -> float:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            await drive(app, body)
            best = min(best, time.perf_counter() - start)
        return best

    return anyio.run(runs)


def orjson_floor(events: list[bytes]) -> None:
    loads, dumps = orjson.loads, orjson.dumps
    for event in events:
        dumps(loads(event[6:-2]))


def measure(
    deltas: int, provider: str, events: list[bytes] | None = None, model: str = MODEL
) -> dict[str, float]:
    events = events if events is not None else build_events(deltas)
    repeat = {1000: 20, 10_000: 8}.get(deltas, 3)
    app = upstream(events)
    middleware = ToolCallMiddleware(app, provider=provider)
    out = {
        "middleware": timed_in_loop(middleware, repeat, request(model)),
        "passthrough": timed_in_loop(passthrough(app), repeat),
        "orjson": timed(lambda: orjson_floor(events), repeat),
    }
    return {k: v / deltas * 1e6 for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--provider", default="kimi_k2")
    parser.add_argument("--model", default=MODEL, help="the request's model name")
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also time sessions of plain text, argument and markup deltas",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"provider={args.provider} model={args.model}  (µs per delta, best of several runs)")
    print(f"{'deltas':>8} {'middleware':>11} {'passthrough':>12} {'orjson':>8} {'mw/orjson':>10}")
    results = {}
    for size in sizes:
        r = results[size] = measure(size, args.provider, model=args.model)
        print(
            f"{size:>8} {r['middleware']:>11.2f} {r['passthrough']:>12.2f} {r['orjson']:>8.2f} "
            f"{r['middleware'] / r['orjson']:>10.2f}"
        )
    if len(sizes) > 1:
        ratio = results[sizes[-1]]["middleware"] / results[sizes[0]]["middleware"]
        print(f"per-delta cost {sizes[-1]} vs {sizes[0]} deltas: {ratio:.2f}x")
    if args.breakdown:
        print("\nby kind of delta (10000 deltas of one kind each):")
        for kind in ("text", "arguments", "markup"):
            r = measure(10_000, args.provider, kind_events(kind, 10_000), args.model)
            print(
                f"{kind:>10} {r['middleware']:>9.2f} {r['passthrough']:>12.2f} "
                f"{r['orjson']:>8.2f} {r['middleware'] / r['orjson']:>10.2f}"
            )


if __name__ == "__main__":
    main()
