"""Per-delta cost of the format parsers alone, and what each one's shortcut saves.

The content deltas of ``bench_formats``' session (markup, arguments in small pieces, answer
text) go straight to a parser's ``feed``, three ways, in one run:
  - feed: as the middleware feeds it
  - no shortcut: the format's ``_shortcut`` switched off (``_SHORTCUT_STATES = ()``)
  - steps: ``feed_by_steps``, the step loop alone
and, for the formats whose markers name them, ``provider="sniff"`` reading the same deltas
(``sniff/feed``: what recognising the format and handing it each delta costs).
``gain`` is (no shortcut) / feed. Whether a shortcut stays is decided on the middleware figures
(``bench_formats.py``): this shows where in the parser the time goes.

    python benchmarks/bench_parsers.py [--deltas 20000] [--formats hermes,glm45]
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable

import bench_formats

from toolcall_middleware.events import Event
from toolcall_middleware.parsers import ParserContext, Tool, create_parser, formats
from toolcall_middleware.parsers.driver import StreamParser
from toolcall_middleware.parsers.sniff import TOOL_CALL_FORMATS

CONTEXT = ParserContext(
    tools=(
        Tool("bash", {"type": "object", "properties": {"command": {"type": "string"}}}),
        Tool("read"),
    )
)


def content_deltas(fmt: str, deltas: int) -> list[str]:
    session = itertools.islice(bench_formats.session(fmt), deltas)
    return [text for field, text in session if field == "content"]


def timed(provider: str, texts: list[str], way: str, repeat: int) -> float:
    """Best ns per delta of ``repeat`` runs, a new parser each; NaN for a way it has not."""
    times = []
    for _ in range(repeat):
        parser = create_parser(provider, CONTEXT)
        feed: Callable[[str], list[Event]] = parser.feed
        if way != "feed":
            if not isinstance(parser, StreamParser):
                return float("nan")
            if way == "steps":
                feed = parser.feed_by_steps
            else:
                parser._SHORTCUT_STATES = ()
        start = time.perf_counter()
        for text in texts:
            feed(text)
        parser.finish()
        times.append(time.perf_counter() - start)
    return min(times) / len(texts) * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--formats", default=",".join(bench_formats.MARKUP))
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    print("ns per content delta, best of several runs; gain = (no shortcut) / feed")
    print(
        f"{'format':<12}{'deltas':>7}{'feed':>7}{'no shortcut':>12}{'steps':>7}{'gain':>6}"
        f"{'sniff':>8}{'sniff/feed':>11}"
    )
    sniffed = {name for name, fmt in formats().items() if fmt.sniff_markers}
    sniffed.update(TOOL_CALL_FORMATS)
    for name in args.formats.split(","):
        texts = content_deltas(name, args.deltas)
        feed = timed(name, texts, "feed", args.repeat)
        off = timed(name, texts, "no shortcut", args.repeat)
        steps = timed(name, texts, "steps", args.repeat)
        row = f"{name:<12}{len(texts):>7}{feed:>7.0f}{off:>12.0f}{steps:>7.0f}{off / feed:>6.2f}"
        if name in sniffed:  # the format recognised by its markers, then handed each delta
            sniff = timed("sniff", texts, "feed", args.repeat)
            row += f"{sniff:>8.0f}{sniff / feed:>11.2f}"
        print(row, flush=True)


if __name__ == "__main__":
    main()
