"""The yardstick of ``bench_proxy_cpu.py``: a pass-through proxy in ~30 lines (uvicorn + httpx).

It parses nothing, checks nothing and logs nothing: what any Python streaming proxy costs.

    python benchmarks/naive_proxy.py UPSTREAM_URL PORT
"""

from __future__ import annotations

import sys
from typing import Any

import httpx
import uvicorn

DROP = {b"host", b"connection", b"transfer-encoding", b"content-length", b"keep-alive"}


def naive_app(upstream: str) -> Any:
    limits = httpx.Limits(max_connections=1000, max_keepalive_connections=1000)
    client = httpx.AsyncClient(base_url=upstream, timeout=None, limits=limits, trust_env=False)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(k, v) for k, v in scope["headers"] if k not in DROP]
        request = client.build_request(
            scope["method"], scope["path"], headers=headers, content=body
        )
        response = await client.send(request, stream=True)
        try:
            headers = [(k, v) for k, v in response.headers.raw if k.lower() not in DROP]
            await send(
                {"type": "http.response.start", "status": response.status_code, "headers": headers}
            )
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            await response.aclose()

    return app


if __name__ == "__main__":
    uvicorn.run(
        naive_app(sys.argv[1]),
        host="127.0.0.1",
        port=int(sys.argv[2]),
        log_level="warning",
        access_log=False,
        lifespan="off",
        backlog=4096,
    )
