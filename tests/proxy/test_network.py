"""The upstream connections' network stream (proxy/network.py): timeouts per silence,
backpressure, closed connections and TLS, through real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager

import httpcore
import httpx
import orjson
import pytest
import trustme
from servers import start_proxy

from toolcall_middleware.proxy.network import HIGH_WATER, AsyncioBackend, UpstreamTransport


@contextmanager
def raw_upstream(pieces: list[tuple[float, bytes]]) -> Iterator[str]:
    """An HTTP server that answers one request with ``pieces`` (pause in seconds, then bytes),
    each written as one chunk of a chunked event stream."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n"
            )
            try:
                for pause, data in pieces:
                    time.sleep(pause)
                    conn.sendall(b"%x\r\n%s\r\n" % (len(data), data))
                conn.sendall(b"0\r\n\r\n")
                time.sleep(0.2)
            except OSError:
                pass  # the proxy gave up on us: what the timeout test wants

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        thread.join(5)


def event(n: int) -> bytes:
    return b"data: " + orjson.dumps({"n": n}) + b"\n\n"


def test_read_timeout_bounds_each_silence_not_the_whole_stream() -> None:
    pieces = [(0.25, event(n)) for n in range(8)]  # 2 s in all, never 0.6 s quiet
    with raw_upstream(pieces) as url, start_proxy(url, read_timeout=0.6) as proxy:
        response = httpx.post(proxy + "/v1/completions", json={}, timeout=10)
    assert response.status_code == 200
    assert response.content == b"".join(data for _, data in pieces)


def test_silence_mid_stream_past_the_read_timeout_ends_with_an_error_event() -> None:
    pieces = [(0.0, event(0)), (0.2, event(1)), (3.0, event(2))]
    with raw_upstream(pieces) as url, start_proxy(url, read_timeout=0.5) as proxy:
        started = time.monotonic()
        response = httpx.post(proxy + "/v1/completions", json={}, timeout=10)
        elapsed = time.monotonic() - started
    assert response.status_code == 200
    head, last = response.content.rstrip().rsplit(b"\n\n", 1)
    assert head + b"\n\n" == event(0) + event(1)
    assert orjson.loads(last.removeprefix(b"data: "))["error"]["code"] == "upstream_timeout"
    assert 0.65 <= elapsed < 2.5  # 0.2 s, then 0.5 s of silence; not the upstream's 3 s


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@asynccontextmanager
async def connected(handler: Handler) -> AsyncIterator[httpcore.AsyncNetworkStream]:
    """A stream of ``AsyncioBackend`` connected to a server that runs ``handler``."""
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
    try:
        yield stream
    finally:
        await stream.aclose()
        server.close()
        await server.wait_closed()


def test_a_reader_that_falls_behind_stops_the_socket_being_read() -> None:
    async def main() -> None:
        written = asyncio.Event()
        peer: list[asyncio.StreamWriter] = []

        async def flood(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            peer.append(writer)
            writer.write(b"x" * (4 * HIGH_WATER))
            written.set()
            await reader.read()

        async with connected(flood) as stream:
            await written.wait()
            transport = stream._transport  # type: ignore[attr-defined]
            deadline = time.monotonic() + 5
            while transport.is_reading() and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            assert not transport.is_reading()  # buffered past the high-water mark: paused
            assert stream._protocol.size <= HIGH_WATER + 256 * 1024  # type: ignore[attr-defined]
            received = 0
            while received < 4 * HIGH_WATER:
                data = await stream.read(65536, timeout=5)
                assert 0 < len(data) <= 65536
                received += len(data)
            assert received == 4 * HIGH_WATER
            assert transport.is_reading()  # drained: reading again
            peer[0].close()

    asyncio.run(main())


def test_a_connection_the_upstream_closed_reads_as_readable_then_empty() -> None:
    async def main() -> None:
        async def close_at_once(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.close()

        async with connected(close_at_once) as stream:
            deadline = time.monotonic() + 5
            while not stream.get_extra_info("is_readable") and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            # What the pool asks before reusing an idle connection: this one is gone.
            assert stream.get_extra_info("is_readable")
            assert await stream.read(65536, timeout=1) == b""
            with pytest.raises(httpcore.WriteError):
                await stream.write(b"GET / HTTP/1.1\r\n\r\n", timeout=1)

    asyncio.run(main())


def test_a_read_past_its_timeout_raises_read_timeout() -> None:
    async def main() -> None:
        async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.read()
            writer.close()

        async with connected(silent) as stream:
            started = time.monotonic()
            with pytest.raises(httpcore.ReadTimeout):
                await stream.read(65536, timeout=0.3)
            assert 0.25 <= time.monotonic() - started < 2

    asyncio.run(main())


def test_a_waiting_read_woken_without_data_keeps_waiting() -> None:
    async def main() -> None:
        async def answer_late(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await asyncio.sleep(0.3)
            writer.write(b"late")
            await reader.read()
            writer.close()

        async with connected(answer_late) as stream:
            read = asyncio.create_task(stream.read(65536, timeout=5))
            await asyncio.sleep(0.05)
            stream._protocol.resume_writing()  # type: ignore[attr-defined]
            await asyncio.sleep(0.05)
            assert not read.done()  # a wake-up without data is not the end of the stream
            assert await read == b"late"

    asyncio.run(main())


def test_connecting_to_a_closed_port_is_a_connect_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(httpcore.ConnectError):
        asyncio.run(AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5))


@contextmanager
def tls_upstream(ca: trustme.CA) -> Iterator[str]:
    """A TLS server for ``localhost`` (certificate from ``ca``) answering each request with a
    chunked event stream of three events, the second written after a pause."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(context)
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        with context.wrap_socket(server, server_side=True) as tls:
            tls.settimeout(0.1)
            while not stop.is_set():
                try:
                    conn, _ = tls.accept()
                except (TimeoutError, ssl.SSLError, OSError):
                    continue
                with conn:
                    conn.settimeout(5)
                    conn.recv(65536)
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                        b"transfer-encoding: chunked\r\nconnection: close\r\n\r\n"
                    )
                    for n in range(3):
                        time.sleep(0.05 * n)
                        conn.sendall(b"%x\r\n%s\r\n" % (len(event(n)), event(n)))
                    conn.sendall(b"0\r\n\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"https://localhost:{port}"
    finally:
        stop.set()
        thread.join(5)
        server.close()


def test_an_https_upstream_streams_through_the_tls_stream() -> None:
    ca = trustme.CA()
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)

    async def main(url: str) -> bytes:
        transport = UpstreamTransport(verify=client_context, limits=httpx.Limits())
        async with (
            httpx.AsyncClient(transport=transport) as client,
            client.stream("GET", url + "/v1/stream") as response,
        ):
            assert response.status_code == 200
            stream = response.extensions["network_stream"]
            assert stream.get_extra_info("ssl_object") is not None
            return b"".join([chunk async for chunk in response.aiter_raw()])

    with tls_upstream(ca) as url:
        assert asyncio.run(main(url)) == event(0) + event(1) + event(2)


def test_an_upstream_certificate_that_is_not_trusted_is_a_connect_error() -> None:
    async def main(url: str) -> None:
        # The system's CAs only: the test CA's certificate is refused.
        transport = UpstreamTransport(verify=ssl.create_default_context(), limits=httpx.Limits())
        async with httpx.AsyncClient(transport=transport) as client:
            await client.get(url + "/v1/models")

    with tls_upstream(trustme.CA()) as url, pytest.raises(httpx.ConnectError):
        asyncio.run(main(url))
