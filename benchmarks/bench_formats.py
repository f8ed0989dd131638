"""Per-delta cost of ToolCallMiddleware for every provider format (direct ASGI, no network).

Each format gets the same synthetic agent session, written in its own markup: thinking in
``reasoning`` (mirrored into ``reasoning_content``), then two tool calls whose arguments stream
in small pieces and answer text, in ``content``; repeated. Deltas are cut like a detokenizer cuts
text (special tokens whole, words and punctuation apart), so markers split across deltas.

For each format and session size it prints µs per delta through the middleware, and the
ratios middleware/orjson (orjson decode + encode of every event: the irreducible work) and
(µs per delta at the largest size) / (µs per delta at the smallest): linear total cost keeps
that ratio near 1 (target below 1.5).

    python benchmarks/bench_formats.py [--sizes 1000,100000] [--formats hermes,glm45]

``--auto`` compares, side by side in interleaved rounds, each format named explicitly with
``provider="auto"`` and a model name that picks the format's family (``auto_model``): the cost
of reading the stream by family, in µs per delta and as a share of the proxy's ~100 µs per event.

    python benchmarks/bench_formats.py --auto [--sizes 10000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator

import bench_stream
import orjson

from toolcall_middleware.parsers import Format, formats

#: What the proxy spends per upstream event (CPU), to state a cost as a share of.
PROXY_US_PER_EVENT = 100.0


def _command(n: int, call: int) -> str:
    return f"grep -rn error logs/build-{n}-{call}.txt | head -20"


def _json(n: int, call: int) -> str:
    return orjson.dumps({"command": _command(n, call)}).decode()


def _two_calls(fmt: Format) -> Callable[[int], str]:
    writer = fmt.write_calls
    assert writer is not None
    return lambda n: writer([("bash", _json(n, c)) for c in range(2)], start=2 * n)


# Two calls to `bash` in each format's markup (n numbers the session cycle).
MARKUP: dict[str, Callable[[int], str]] = {
    name: _two_calls(fmt) for name, fmt in formats().items() if fmt.write_calls is not None
}

_SPECIAL = (
    r"<\|[a-z_]+\|>|<｜[^｜]{1,40}｜>|\[TOOL_CALLS\]|\[ARGS\]|</?tool_call>"
    r"|</?minimax:tool_call>|</?arg_key>|</?arg_value>|｜DSML｜|\]<\]minimax\[>\[|</?mm:think>"
    r"|</?seed:tool_call>|</?seed:think>"
    r"|</?(?:tool_calls?|tool_sep|arg_key|arg_value|think):opensource>|<tool_sep>"
)
_TOKEN = re.compile(_SPECIAL + r"|[ \t]?[A-Za-z]{1,7}|\d{1,3}|\n+|[ \t]+|[^\sA-Za-z\d]")
THINKING = (
    "The user wants the build logs; let me check the CI output first, then grep "
    "for errors in both builds."
)
ANSWER = "The logs show a missing header in asm/types.h; fixing it now."


def session(fmt: str) -> Iterator[tuple[str, str]]:
    """An endless session in format ``fmt``: (field, text) deltas."""
    n = 0
    while True:
        for piece in _TOKEN.findall(THINKING):
            yield "reasoning", piece
        for text in (MARKUP[fmt](n), ANSWER):
            for piece in _TOKEN.findall(text):
                yield "content", piece
        n += 1


def build_events(fmt: str, deltas: int) -> list[bytes]:
    events = []
    pieces = session(fmt)
    for _ in range(deltas):
        field, text = next(pieces)
        delta = (
            {"reasoning": text, "reasoning_content": text}
            if field == "reasoning"
            else {"content": text}
        )
        chunk = {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "bench",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}],
        }
        events.append(b"data: " + orjson.dumps(chunk) + b"\n\n")
    return events


def measure(fmt: str, deltas: int) -> dict[str, float]:
    return bench_stream.measure(deltas, fmt, build_events(fmt, deltas))


def auto_model(fmt: str) -> str:
    """A model name whose rule picks ``fmt`` (a family's name for a format no name picks)."""
    rules = formats()[fmt].model_names
    if rules:
        return rules[0].patterns[0].replace("*", "-")
    return "qwen3-max" if fmt == "qwen_xml" else "company-model"


def compare_auto(fmts: list[str], deltas: int, rounds: int) -> None:
    print(f"µs per delta at {deltas} deltas, best of {rounds} interleaved rounds")
    print(f"{'format':<12}{'model':<14}{'explicit':>9}{'auto':>8}{'Δ µs':>7}{'Δ/100µs':>9}")
    for fmt in fmts:
        events = build_events(fmt, deltas)
        model = auto_model(fmt)
        best = {"explicit": float("inf"), "auto": float("inf")}
        for _ in range(rounds):
            for kind, provider in (("explicit", fmt), ("auto", "auto")):
                result = bench_stream.measure(deltas, provider, events, model)
                best[kind] = min(best[kind], result["middleware"])
        delta = best["auto"] - best["explicit"]
        print(
            f"{fmt:<12}{model:<14}{best['explicit']:>9.2f}{best['auto']:>8.2f}{delta:>7.2f}"
            f"{delta / PROXY_US_PER_EVENT:>9.2%}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,100000")
    parser.add_argument("--formats", default=",".join(MARKUP))
    parser.add_argument("--auto", action="store_true", help="explicit provider vs auto")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.auto:
        compare_auto(args.formats.split(","), sizes[0], args.rounds)
        return
    print(
        "µs per delta, best of several runs; ratio = per-delta cost at "
        f"{sizes[-1]} vs {sizes[0]} deltas"
    )
    header = "".join(f"{f'mw@{s}':>11}" for s in sizes)
    print(f"{'format':<12}{header}{'passthru':>10}{'orjson':>8}{'mw/orjson':>10}{'ratio':>7}")
    for fmt in args.formats.split(","):
        results = {size: measure(fmt, size) for size in sizes}
        first, last = results[sizes[0]], results[sizes[-1]]
        cells = "".join(f"{results[s]['middleware']:>11.2f}" for s in sizes)
        print(
            f"{fmt:<12}{cells}{last['passthrough']:>10.2f}{last['orjson']:>8.2f}"
            f"{last['middleware'] / last['orjson']:>10.2f}"
            f"{last['middleware'] / first['middleware']:>7.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
