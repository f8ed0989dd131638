"""Instructions per upstream event of the chat path and of what each API front adds (callgrind).

Timings on a shared machine move by tens of percent; instruction counts do not. For each app of
``bench_fronts.py`` (the chat path alone, then each front around it) this runs its session of
``--short`` and of ``--long`` events under ``valgrind --tool=callgrind``, each in a process of its
own with the garbage collector off and one hash seed, and prints the difference per event:
start-up and the per-request cost cancel out, and a count repeats to a few instructions. Each
front's figure less the chat path's is what the front adds.

    python benchmarks/count_fronts.py [--short 2000] [--long 6000] [--fronts responses,gemini]

``PYTHONPATH=<another tree>/src`` measures another tree with this same script (side by side).
A run takes a few minutes: valgrind runs Python some fifty times slower.
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

import anyio
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import callgrind
from bench_fronts import FRONTS, REQUESTS, apps, drive


def run_once(app_name: str, deltas: int) -> None:
    """One session of ``deltas`` events through one app, the collector off (what callgrind
    counts)."""
    app = apps(deltas, (app_name,))[app_name]
    path, query, doc = REQUESTS[app_name]
    body = orjson.dumps(doc)
    gc.disable()
    assert anyio.run(drive, app, path, query, body) > 0


def instructions(app_name: str, deltas: int) -> int:
    return callgrind.instructions(__file__, ["--run", app_name, str(deltas)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=int, default=2000)
    parser.add_argument("--long", type=int, default=6000)
    parser.add_argument("--fronts", default=",".join(FRONTS))
    parser.add_argument("--run", nargs=2, metavar=("APP", "EVENTS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        run_once(args.run[0], int(args.run[1]))
        return
    fronts = [f for f in args.fronts.split(",") if f]
    per_event = {}
    for name in ["chat", *fronts]:
        short, long = instructions(name, args.short), instructions(name, args.long)
        per_event[name] = (long - short) / (args.long - args.short)
    print(f"instructions per upstream event ({args.long} - {args.short} events)")
    print(f"{'chat':>10} {per_event['chat']:>9.0f}")
    for name in fronts:
        added = per_event[name] - per_event["chat"]
        print(f"{name:>10} {per_event[name]:>9.0f}  added {added:>7.0f}")


if __name__ == "__main__":
    main()
