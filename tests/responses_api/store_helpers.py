"""Response store test helpers: a real ``redis-server`` on a free loopback port, a store that
fails on demand, a Kimi tool-call turn and the answer after it, and an app in front of them."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from prometheus_client import CollectorRegistry

from anthropic_api.helpers import USAGE, ScriptedApp, chunk, stream_reply
from toolcall_middleware import ResponsesMiddleware, ToolCallMiddleware
from toolcall_middleware.fronts.responses.store import ResponseStore, StoredEntry
from toolcall_middleware.fronts.responses.store.sqlite_store import SQLiteStore
from toolcall_middleware.metrics import Metrics

SHELL = {
    "type": "function",
    "name": "shell",
    "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
}
KIMI_CALL = (
    "Run it. <|tool_calls_section_begin|><|tool_call_begin|>functions.shell:0"
    '<|tool_call_argument_begin|>{"cmd": "ls"}<|tool_call_end|><|tool_calls_section_end|>'
)
CALL_ID = "functions.shell:0"
FAILURES = "toolcall_responses_store_failures_total"


def kimi_call_turn() -> Any:
    """A turn whose reasoning says "Run it. " and then calls ``shell`` in Kimi markup."""
    pieces = [
        chunk({"reasoning_content": KIMI_CALL[i : i + 9]}) for i in range(0, len(KIMI_CALL), 9)
    ]
    return stream_reply([*pieces, chunk(None, "stop"), chunk(usage=USAGE)])


def answer_turn(text: str = "There is a.txt") -> Any:
    return stream_reply([chunk({"content": text}), chunk(None, "stop"), chunk(usage=USAGE)])


@dataclass
class Stack:
    """``ResponsesMiddleware(ToolCallMiddleware(scripted upstream))`` with a store of its own."""

    upstream: ScriptedApp
    app: ResponsesMiddleware
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def failures(self, operation: str, backend: str = "sqlite") -> float:
        value = self.registry.get_sample_value(
            FAILURES, {"backend": backend, "operation": operation}
        )
        return value or 0.0


def stack(
    tmp_path: Path, *turns: Any, response_store: ResponseStore | None = None, **options: Any
) -> Stack:
    upstream = ScriptedApp(list(turns))
    registry = CollectorRegistry()
    options.setdefault("store", f"sqlite:{tmp_path / 'responses.sqlite3'}")
    app = ResponsesMiddleware(
        ToolCallMiddleware(upstream, provider="kimi_k2", metrics=False),
        response_store=response_store,
        metrics=Metrics(registry),
        **options,
    )
    return Stack(upstream, app, registry)


@dataclass
class FlakyStore:
    """A SQLite store whose operations fail (``fail``: raise; ``hang``: never answer) when
    told to, the way a disk or a connection fails in the middle of a request."""

    inner: SQLiteStore
    backend: str = "sqlite"
    fail: set[str] = field(default_factory=set)
    hang: set[str] = field(default_factory=set)
    #: What the client had been sent when each write began (set by the test).
    sent_at_write: list[bytes] = field(default_factory=list)
    sent: bytearray = field(default_factory=bytearray)

    async def _maybe_fail(self, operation: str) -> None:
        if operation in self.hang:
            await anyio.sleep_forever()
        if operation in self.fail:
            raise OSError(f"store {operation} failed")

    async def put(self, response_id: str, owner: str, entry: StoredEntry) -> None:
        self.sent_at_write.append(bytes(self.sent))
        await self._maybe_fail("write")
        await self.inner.put(response_id, owner, entry)

    async def get(self, response_id: str, owner: str) -> StoredEntry | None:
        await self._maybe_fail("read")
        return await self.inner.get(response_id, owner)

    async def delete(self, response_id: str, owner: str) -> bool:
        await self._maybe_fail("delete")
        return await self.inner.delete(response_id, owner)

    async def aclose(self) -> None:
        await self.inner.aclose()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@dataclass
class RedisServer:
    url: str
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


@contextmanager
def redis_server() -> Iterator[RedisServer]:
    """A ``redis-server`` of its own on a free loopback port, nothing saved to disk."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="toolcall-redis-")
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = RedisServer(f"redis://127.0.0.1:{port}/0", process)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(64).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        yield server
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
