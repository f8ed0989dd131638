"""Streams through the proxy leave nothing behind (responses closed, tasks and buffers freed)."""

from __future__ import annotations

import gc
import logging
import time
import tracemalloc

import anyio
import httpx
import pytest
from fake_upstream import FakeUpstream
from servers import serve_in_thread, start_proxy

from toolcall_middleware.replay import Recording, find_recording

REQUEST = Recording.load(find_recording("kimi_k2-reasoning-two-calls")).request


async def concurrent_streams(url: str, count: int) -> None:
    limits = httpx.Limits(max_connections=count)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:

        async def one() -> None:
            async with client.stream("POST", url + "/v1/chat/completions", json=REQUEST) as r:
                body = await r.aread()
            assert b'"tool_calls"' in body

        async with anyio.create_task_group() as tg:
            for _ in range(count):
                tg.start_soon(one)


def test_traced_memory_returns_to_its_level_after_each_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # pytest's log capture keeps every record it sees: access-log lines would grow the traced
    # memory by the test harness, not by the proxy (which keeps none of them).
    monkeypatch.setattr(logging.getLogger("toolcall_middleware.access"), "level", logging.WARNING)
    upstream = FakeUpstream()
    tracemalloc.start()
    try:
        with serve_in_thread(upstream) as up, start_proxy(up, keepalive_expiry=0.2) as proxy:
            levels: list[int] = []
            for _ in range(3):
                anyio.run(concurrent_streams, proxy, 30)
                upstream.seen.requests.clear()  # the fake's own record is not the proxy's
                levels.append(settled_level(levels[0] if levels else None))
    finally:
        tracemalloc.stop()
    # The first round sets the level (pools, caches); 60 more streams must not add to it.
    # A leak of one 4 KiB buffer per stream would show as 240 KiB.
    assert max(levels[1:]) - levels[0] < LEAK_BYTES, levels


LEAK_BYTES = 200 * 1024


def settled_level(first: int | None) -> int:
    """The traced memory once idle upstream connections have expired (keepalive 0.2 s) and the
    server's connection tasks ended: on a loaded machine that takes longer than the expiry, so
    wait up to a few seconds for the level to come back; memory that is leaked never does."""
    deadline = time.monotonic() + 5
    previous = None
    while True:
        time.sleep(0.3)
        gc.collect()
        level = tracemalloc.get_traced_memory()[0]
        if first is None:  # the reference level: wait until it stops falling
            settled = previous is not None and previous - level < 16 * 1024
        else:
            settled = level - first < LEAK_BYTES
        if settled or time.monotonic() > deadline:
            return level
        previous = level
