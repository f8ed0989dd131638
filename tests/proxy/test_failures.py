"""Disconnects, an upstream that is down, slow or dies mid-stream."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import orjson
import pytest
from fake_upstream import FakeUpstream, chunk
from servers import free_port, start_proxy


def test_client_disconnect_closes_the_upstream_within_a_second(
    proxy: str, upstream: FakeUpstream
) -> None:
    upstream.seen.disconnected.clear()
    with httpx.stream("POST", proxy + "/endless", json={}) as response:
        assert response.status_code == 200
        pieces = response.iter_raw()
        next(pieces)
        next(pieces)  # the stream is flowing through the proxy
        left_at = time.monotonic()
    # Leaving the block closed our connection to the proxy.
    assert upstream.seen.disconnected.wait(5), "upstream never saw the connection close"
    assert upstream.seen.disconnected_at - left_at < 1.0


def test_upstream_down_gives_502_with_an_openai_error_body() -> None:
    with start_proxy(f"http://127.0.0.1:{free_port()}") as proxy:
        response = httpx.post(proxy + "/v1/chat/completions", json={"model": "m"})
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "upstream_unreachable"
    assert error["type"] == "upstream_error"
    assert "unreachable" in error["message"]


def test_slow_upstream_gives_504_at_the_configured_timeout(upstream: FakeUpstream) -> None:
    with start_proxy(upstream.url, read_timeout=0.5) as proxy:
        started = time.monotonic()
        response = httpx.get(proxy + "/slow", timeout=30)
        elapsed = time.monotonic() - started
    assert response.status_code == 504
    assert response.json()["error"]["code"] == "upstream_timeout"
    # Not before the timeout, and well before the upstream's 3 s answer.
    assert 0.45 <= elapsed < 2.5


@contextmanager
def dying_upstream(first: bytes) -> Iterator[str]:
    """A raw HTTP server that starts an SSE response, sends ``first`` and drops the connection."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n" + b"%x\r\n%s\r\n" % (len(first), first)
            )
            time.sleep(0.1)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()
        thread.join(5)


def test_upstream_dying_mid_stream_ends_the_sse_with_an_error_event() -> None:
    first = chunk({"role": "assistant", "content": "Hel"})
    with dying_upstream(first) as url, start_proxy(url) as proxy:
        response = httpx.post(proxy + "/v1/chat/completions", json={"model": "m"}, timeout=10)
    assert response.status_code == 200
    assert response.content.startswith(first)
    last = response.content[len(first) :].strip()
    assert last.startswith(b"data: ")
    error = orjson.loads(last.removeprefix(b"data: "))["error"]
    assert error["code"] == "upstream_stream_error"


@pytest.mark.parametrize("path", ["/v1/models", "/v1/chat/completions"])
def test_nothing_is_retried_after_a_failure(path: str) -> None:
    hits = 0
    stop = threading.Event()
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.05)

    def serve() -> None:
        nonlocal hits
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            hits += 1
            conn.close()  # accepted, then dropped before any response

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}"
    try:
        with start_proxy(url) as proxy:
            response = httpx.post(proxy + path, json={"model": "m"}, timeout=10)
            time.sleep(0.3)  # a retry, had there been one, is accepted by now
    finally:
        stop.set()
        thread.join(5)
        server.close()
    assert response.status_code == 502
    assert hits == 1
