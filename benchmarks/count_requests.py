"""Instructions per request of each API through the whole `toolcall serve` app (callgrind).

Time to first token under load (``ttft_load.py``) is, at the median, the work of the requests
ahead: with many streams starting together, what one request costs the proxy's one event loop
delays every other. Timings of it on a shared machine move by tens of percent; this counts it.
Each API's request of ``ttft_load.py`` goes through the app ``toolcall serve`` builds
(``create_proxy_app``: the access log off, the response store as ``--store`` names it), whose
upstream is ``ttft_load.py``'s stand-in over ``httpx.ASGITransport``, answering with its first
text delta and the end. Each count runs in a process of its own under ``valgrind
--tool=callgrind`` with one hash seed; the difference between ``--short`` and ``--long``
requests, per request, is what one request costs: reading and translating it, the upstream
call, the head and first delta, the end (and storing the response, on Responses).

    python benchmarks/count_requests.py [--apis chat,responses,anthropic,gemini] [--store off]

``PYTHONPATH=<another tree>/src`` measures another tree with this same script (side by side).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import callgrind
import ttft_load


def run_once(api: str, requests: int, store: str) -> None:
    """``requests`` requests of ``api`` one after the other, after three that warm up (the
    store's file, the first-use caches); the collector frozen as ``toolcall serve`` leaves it."""
    import httpx
    import orjson

    from toolcall_middleware.config import load_serve_config
    from toolcall_middleware.proxy.app import create_proxy_app

    if store == "sqlite":
        store = f"sqlite:{tempfile.mkdtemp(prefix='count-requests-')}/responses.db"
    os.environ["TOOLCALL_RESPONSES_STORE"] = store
    ttft_load.PACE = 0
    ttft_load.EVENTS_AFTER_FIRST = 0
    config = load_serve_config({"upstream": "http://upstream.test"}, env={})
    transport = httpx.ASGITransport(ttft_load.upstream_app())
    app = create_proxy_app(config, transport=transport)
    path, doc, marker = ttft_load.APIS[api]
    path, _, query = path.partition("?")
    body = orjson.dumps(doc)
    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "headers": [(b"content-type", b"application/json"), (b"authorization", b"Bearer k")],
        "http_version": "1.1",
        "scheme": "http",
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 2),
        "root_path": "",
    }

    async def one() -> None:
        sent = False
        bodies: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()
            raise AssertionError

        async def send(message: dict[str, Any]) -> None:
            bodies.append(message.get("body", b""))

        await app(dict(scope), receive, send)
        assert any(marker in b for b in bodies), f"{api}: no text delta"

    async def main() -> None:
        for _ in range(3):
            await one()
        gc.collect()
        gc.freeze()
        for _ in range(requests):
            await one()

    asyncio.run(main())


def instructions(api: str, requests: int, store: str) -> int:
    env = {"TOOLCALL_ACCESS_LOG": "false", "TOOLCALL_LOG_LEVEL": "warning"}
    return callgrind.instructions(__file__, ["--run", api, str(requests), store], env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apis", default=",".join(ttft_load.APIS))
    parser.add_argument("--store", default="sqlite", help="the Responses store: sqlite or off")
    parser.add_argument("--short", type=int, default=20)
    parser.add_argument("--long", type=int, default=80)
    parser.add_argument(
        "--run", nargs=3, metavar=("API", "REQUESTS", "STORE"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.run:
        run_once(args.run[0], int(args.run[1]), args.run[2])
        return
    print(f"instructions per request ({args.long} - {args.short} requests, store {args.store})")
    for api in (a for a in args.apis.split(",") if a):
        short = instructions(api, args.short, args.store)
        long = instructions(api, args.long, args.store)
        print(f"{api:>10} {(long - short) / (args.long - args.short):>10.0f}", flush=True)


if __name__ == "__main__":
    main()
