"""The upstream's plain-HTTP connections on an asyncio protocol: what httpcore reads with.

httpcore's default network stream (anyio) pays, on every read, for a timeout scope
(``anyio.fail_after``: a context manager and a cancel scope) and for turning the socket's read
interest on and off. A streaming proxy reads once per upstream event, so that was a quarter of
``toolcall serve``'s CPU (benchmarks/bench_proxy_cpu.py). ``AsyncioBackend`` is httpcore's own
extension point (``AsyncConnectionPool(network_backend=...)``) filled with an asyncio
``Protocol`` that buffers what arrives (up to ``HIGH_WATER`` bytes, then the socket is paused:
backpressure as before) and one lazy timer per connection instead of one per read.

TLS (``https://`` upstreams) is asyncio's own ``start_tls`` on the same protocol.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Iterable
from typing import Any, cast

import httpcore
import httpx

#: Bytes buffered per connection before the socket stops being read (the reader's backpressure).
HIGH_WATER = 256 * 1024

_SocketOption = (
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
)


class _Protocol(asyncio.Protocol):
    """One connection's receive buffer and the waiter of its one reader or writer."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.chunks: list[bytes] = []
        self.size = 0
        self.paused = False  # reading paused: the buffer is full
        self.write_paused = False
        self.eof = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's are not subclasses

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        if self.size > HIGH_WATER and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self.write_paused = False
        self._wake()

    def pause_writing(self) -> None:
        self.write_paused = True

    def resume_writing(self) -> None:
        self.write_paused = False
        self._wake()

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            if not waiter.done():
                waiter.set_result(None)


class AsyncioStream(httpcore.AsyncNetworkStream):
    def __init__(self, transport: asyncio.Transport, protocol: _Protocol) -> None:
        self._transport = transport
        self._protocol = protocol
        self._deadline: float | None = None  # of the read or write waiting now
        self._timeout_error: type[Exception] = httpcore.ReadTimeout
        self._timer: asyncio.TimerHandle | None = None

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        while not protocol.chunks:  # woken by data, the end, or (spuriously) a write resuming
            if protocol.eof:
                if protocol.error is not None:
                    raise httpcore.ReadError(str(protocol.error) or type(protocol.error).__name__)
                return b""
            await self._wait(timeout, httpcore.ReadTimeout)
        chunks = protocol.chunks
        if len(chunks) == 1:
            data = chunks[0]
            chunks.clear()
        else:  # events that queued up while this stream waited to be read: one read
            data = b"".join(chunks)
            chunks.clear()
        if len(data) > max_bytes:
            chunks.append(data[max_bytes:])
            data = data[:max_bytes]
        protocol.size -= len(data)
        if protocol.paused and protocol.size <= HIGH_WATER // 4:
            protocol.paused = False
            self._transport.resume_reading()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        protocol = self._protocol
        if protocol.eof or self._transport.is_closing():
            raise httpcore.WriteError("the upstream connection is closed")
        self._transport.write(buffer)
        while protocol.write_paused:
            await self._wait(timeout, httpcore.WriteTimeout)
            if protocol.eof:
                raise httpcore.WriteError("the upstream connection is closed")

    async def aclose(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        protocol = self._protocol
        try:
            transport = await asyncio.wait_for(
                protocol.loop.start_tls(
                    self._transport, protocol, ssl_context, server_hostname=server_hostname
                ),
                timeout,
            )
        except asyncio.TimeoutError as exc:
            self._transport.close()
            raise httpcore.ConnectTimeout(str(exc) or "timed out in the TLS handshake") from exc
        except (ssl.SSLError, OSError) as exc:
            self._transport.close()
            raise httpcore.ConnectError(str(exc)) from exc
        if transport is None:  # the connection closed during the handshake
            raise httpcore.ConnectError("the upstream closed the connection in the TLS handshake")
        # The protocol now hears from the TLS transport: pause and resume that one.
        protocol.transport = transport
        return AsyncioStream(protocol.transport, protocol)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # an idle connection the upstream closed, or wrote to
            return bool(self._protocol.chunks) or self._protocol.eof
        name = {"client_addr": "sockname", "server_addr": "peername"}.get(info, info)
        return self._transport.get_extra_info(name)

    async def _wait(self, timeout: float | None, error: type[Exception]) -> None:
        """Until the protocol wakes this stream, at most ``timeout`` seconds."""
        protocol = self._protocol
        loop = protocol.loop
        waiter: asyncio.Future[None] = loop.create_future()
        protocol.waiter = waiter
        if timeout is None:
            try:
                await waiter
            finally:
                protocol.waiter = None
            return
        # One timer per connection, moved only when a wait must end sooner than it fires: a
        # read per event would otherwise create and cancel a timer per event.
        deadline = self._deadline = loop.time() + timeout
        self._timeout_error = error
        if self._timer is None or self._timer.when() > deadline:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_at(deadline, self._check_deadline)
        try:
            await waiter  # raises the timeout error _check_deadline sets
        finally:
            protocol.waiter = None
            self._deadline = None
            if waiter.done() and not waiter.cancelled():
                waiter.exception()  # retrieved, also when a cancellation came first

    def _check_deadline(self) -> None:
        self._timer = None
        deadline = self._deadline
        if deadline is None:
            return  # nothing waits: the next wait arms a timer
        loop = self._protocol.loop
        if loop.time() < deadline:
            self._timer = loop.call_at(deadline, self._check_deadline)
            return
        waiter = self._protocol.waiter
        self._protocol.waiter = None
        if waiter is not None and not waiter.done():
            waiter.set_exception(self._timeout_error("timed out"))


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[_SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = (local_address, 0) if local_address else None
        try:
            transport, protocol = await asyncio.wait_for(
                loop.create_connection(lambda: _Protocol(loop), host, port, local_addr=local),
                timeout,
            )
        except asyncio.TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc) or "timed out connecting") from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        sock: socket.socket | None = transport.get_extra_info("socket")
        for option in socket_options or ():
            if sock is not None:
                sock.setsockopt(*option)
        return AsyncioStream(transport, protocol)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[_SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("the upstream is reached over TCP only")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class UpstreamTransport(httpx.AsyncHTTPTransport):
    """httpx's transport, its connection pool on ``AsyncioBackend``."""

    def __init__(self, *, verify: Any, limits: httpx.Limits) -> None:
        super().__init__(verify=verify, limits=limits, trust_env=False)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=verify,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=AsyncioBackend(),
        )
