"""The store backends on their own: the embedded SQLite file and a real ``redis-server``
(started by the tests on a free loopback port), through the one interface: owners, expiry,
the size cap, rewrites, and the file SQLite makes."""

from __future__ import annotations

import sqlite3
import stat
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolcall_middleware.fronts.responses.store import EntryTooLarge, ResponseStore, StoredEntry
from toolcall_middleware.fronts.responses.store.redis_store import RedisStore
from toolcall_middleware.fronts.responses.store.sqlite_store import SQLiteStore

from .store_helpers import RedisServer, redis_server

pytestmark = pytest.mark.anyio

BACKENDS = ("sqlite", "redis")


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@asynccontextmanager
async def opened(
    backend: str, tmp_path: Path, server: Any, *, ttl: float = 60, max_bytes: int = 10**6
) -> AsyncIterator[ResponseStore]:
    store: ResponseStore
    if backend == "sqlite":
        store = SQLiteStore(tmp_path / "store.sqlite3", ttl=ttl, max_bytes=max_bytes)
    else:
        # Each test gets keys of its own in the one server.
        prefix = f"test:{tmp_path.name}:"
        store = RedisStore(server.url, ttl=ttl, max_bytes=max_bytes, prefix=prefix)
    try:
        yield store
    finally:
        await store.aclose()


def entry(size: int, mark: str = "x") -> StoredEntry:
    """An entry of ``size`` bytes in all."""
    return StoredEntry(b"{" + mark.encode() * (size - 4) + b"}", b"[]")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "redis":
        request.getfixturevalue("redis")
    return str(request.param)


def server_of(request: pytest.FixtureRequest, backend: str) -> Any:
    return request.getfixturevalue("redis") if backend == "redis" else None


async def test_entries_belong_to_their_owner(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    async with opened(backend, tmp_path, server_of(request, backend)) as store:
        await store.put("resp_a", "owner-1", entry(50, "a"))
        assert await store.get("resp_a", "owner-1") == entry(50, "a")
        assert await store.get("resp_a", "owner-2") is None
        assert await store.get("resp_b", "owner-1") is None
        assert await store.delete("resp_a", "owner-2") is False
        assert await store.get("resp_a", "owner-1") == entry(50, "a")
        assert await store.delete("resp_a", "owner-1") is True
        assert await store.get("resp_a", "owner-1") is None
        assert await store.delete("resp_a", "owner-1") is False


async def test_entries_expire(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    async with opened(backend, tmp_path, server_of(request, backend), ttl=0.25) as store:
        await store.put("resp_a", "o", entry(50))
        assert await store.get("resp_a", "o") is not None
        await anyio.sleep(0.35)
        assert await store.get("resp_a", "o") is None
        assert await store.delete("resp_a", "o") is False
        await store.put("resp_b", "o", entry(50))  # (also drops the expired one's accounting)
        assert await store.get("resp_b", "o") is not None


async def test_the_cap_evicts_the_oldest(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    async with opened(backend, tmp_path, server_of(request, backend), max_bytes=250) as store:
        for name in "abcde":
            await store.put(f"resp_{name}", "o", entry(100, name))
        present = [n for n in "abcde" if await store.get(f"resp_{n}", "o") is not None]
        assert present == ["d", "e"]
        await store.put("resp_e", "o", entry(100, "E"))  # written again: counted once
        await store.put("resp_f", "o", entry(40, "f"))
        assert [n for n in "def" if await store.get(f"resp_{n}", "o") is not None] == [
            "d",
            "e",
            "f",
        ]
        assert await store.get("resp_e", "o") == entry(100, "E")
        with pytest.raises(EntryTooLarge):
            await store.put("resp_g", "o", entry(251))
        assert await store.get("resp_g", "o") is None


@settings(max_examples=20, deadline=None)
@given(sizes=st.lists(st.integers(min_value=10, max_value=120), min_size=1, max_size=12))
def test_the_cap_keeps_the_newest_entries_that_fit(sizes: list[int]) -> None:
    """After every write the store holds exactly the newest entries whose sizes sum to at most
    the cap (the oldest go first), whatever the sizes."""
    import tempfile

    cap = 300

    async def main(path: Path) -> None:
        async with opened("sqlite", path, None, max_bytes=cap) as store:
            for n, size in enumerate(sizes):
                await store.put(f"resp_{n}", "o", entry(size))
                kept, total = [], 0
                for m in range(n, -1, -1):
                    if total + sizes[m] > cap:
                        break
                    total += sizes[m]
                    kept.append(m)
                present = [m for m in range(n + 1) if await store.get(f"resp_{m}", "o")]
                assert present == sorted(kept)
            assert isinstance(store, SQLiteStore)
            database = sqlite3.connect(store.path)
            (stored_total,) = database.execute("SELECT total FROM usage").fetchone()
            database.close()
            assert stored_total == sum(sizes[m] for m in present)

    with tempfile.TemporaryDirectory() as directory:
        anyio.run(main, Path(directory))


async def test_redis_keeps_the_same_accounting(redis: RedisServer, tmp_path: Path) -> None:
    import redis.asyncio as aioredis

    async with opened("redis", tmp_path, redis, max_bytes=250) as store:
        for name in "abcd":
            await store.put(f"resp_{name}", "o", entry(100, name))
        assert await store.delete("resp_d", "o")
        client: Any = aioredis.Redis.from_url(redis.url)
        prefix = f"test:{tmp_path.name}:"
        assert int(await client.get(prefix + "total")) == 100  # only c is left
        assert await client.zrange(prefix + "index", 0, -1) == [b"resp_c"]
        assert await client.hget(prefix + "entry:resp_c", "owner") == b"o"
        assert 0 < await client.pttl(prefix + "entry:resp_c") <= 60_000  # Redis expires it
        await client.aclose()


async def test_sqlite_makes_a_private_wal_file_on_first_use(tmp_path: Path) -> None:
    path = tmp_path / "state" / "toolcall" / "responses.sqlite3"
    store = SQLiteStore(path, ttl=60, max_bytes=10**6)
    assert not path.parent.exists()
    assert await store.get("resp_a", "o") is None  # the first use creates it
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    await store.put("resp_a", "o", entry(50))
    other = SQLiteStore(path, ttl=60, max_bytes=10**6)  # another worker's connection
    assert await other.get("resp_a", "o") == entry(50)
    database = sqlite3.connect(path)
    assert database.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    database.close()
    await store.aclose()
    await other.aclose()
    assert await store.get("resp_a", "o") == entry(50)  # reopened after aclose


async def test_sqlite_refuses_a_file_of_another_layout(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    database = sqlite3.connect(path)
    database.execute("PRAGMA user_version=99")
    database.close()
    with pytest.raises(sqlite3.DatabaseError, match="layout 99"):
        await SQLiteStore(path, ttl=60, max_bytes=100).get("resp_a", "o")


async def test_a_redis_that_is_down_fails_fast(tmp_path: Path) -> None:
    from .store_helpers import free_port

    store = RedisStore(f"redis://127.0.0.1:{free_port()}/0", ttl=60, max_bytes=100)
    with anyio.fail_after(5), pytest.raises(Exception, match=r"(?i)connect"):
        await store.get("resp_a", "o")
    await store.aclose()
