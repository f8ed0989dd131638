"""Real uvicorn servers on 127.0.0.1 with ephemeral ports, run in threads for the tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from toolcall_middleware.config import load_serve_config
from toolcall_middleware.proxy.app import create_proxy_app


@contextmanager
def serve_in_thread(app: ASGIApp, *, lifespan: str = "auto") -> Iterator[str]:
    """Run ``app`` under uvicorn on a free loopback port; yield its base URL; stop it after."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan=lifespan,  # type: ignore[arg-type]
        server_header=False,
        date_header=False,
        proxy_headers=False,  # as `toolcall serve` runs uvicorn
        http="h11",  # likewise
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@contextmanager
def start_proxy(upstream_url: str | None, **settings: Any) -> Iterator[str]:
    """``toolcall serve``'s app on a free port, configured as the CLI would (no env)."""
    config = load_serve_config({"upstream": upstream_url, **settings}, env={})
    with serve_in_thread(create_proxy_app(config)) as url:
        yield url
