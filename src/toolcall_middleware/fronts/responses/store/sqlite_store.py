"""The embedded response store: one SQLite file, shared by every process that opens it.

The workers of one ``toolcall serve --workers N`` open the same file; SQLite's write-ahead log
(WAL) lets them read while one writes, and each write waits its turn (``busy_timeout``). The
file and its directory are created on first use, readable by their owner only (they hold
conversations).

Each process keeps one connection, used from anyio's worker threads one call at a time (a
lock: the sqlite3 module's connection is not for concurrent use), so the event loop never waits
on the disk. A call given up on (a timeout) finishes in its thread.

Size: triggers keep the total of the entries' sizes in ``usage``; a write past ``max_bytes``
deletes the oldest entries (lowest rowid: written first) until it fits. Expired entries are
deleted on each write and never read.
"""

from __future__ import annotations

import hmac
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import anyio.to_thread

from .base import EntryTooLarge, StoredEntry

T = TypeVar("T")

#: The layout of the file (``PRAGMA user_version``).
SCHEMA_VERSION = 1
#: Milliseconds a write waits for another process's write to finish.
BUSY_TIMEOUT_MS = 5000

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS responses (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        expires REAL NOT NULL,
        size INTEGER NOT NULL,
        response BLOB NOT NULL,
        items BLOB NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS responses_expires ON responses (expires)",
    "CREATE TABLE IF NOT EXISTS usage (total INTEGER NOT NULL)",
    "INSERT INTO usage (total) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM usage)",
    """CREATE TRIGGER IF NOT EXISTS responses_added AFTER INSERT ON responses
        BEGIN UPDATE usage SET total = total + new.size; END""",
    """CREATE TRIGGER IF NOT EXISTS responses_removed AFTER DELETE ON responses
        BEGIN UPDATE usage SET total = total - old.size; END""",
)


class SQLiteStore:
    backend = "sqlite"

    def __init__(
        self,
        path: Path,
        *,
        ttl: float,
        max_bytes: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self.ttl = ttl
        self.max_bytes = max_bytes
        self.clock = clock
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    # --- the interface (``base.ResponseStore``) ---------------------------------------------

    async def put(self, response_id: str, owner: str, entry: StoredEntry) -> None:
        size = len(entry.response) + len(entry.items)
        if size > self.max_bytes:
            raise EntryTooLarge(f"{size} bytes, over the store's max_bytes ({self.max_bytes})")
        # The thread takes the entry from ``held``: a worker thread lets go of the call it ran
        # only after the caller has gone on, and a whole answer must not outlive the write.
        held = [entry]
        del entry
        await self._run(lambda db: self._put(db, response_id, owner, held.pop(), size))

    async def get(self, response_id: str, owner: str) -> StoredEntry | None:
        return await self._run(lambda db: self._get(db, response_id, owner))

    async def delete(self, response_id: str, owner: str) -> bool:
        return await self._run(lambda db: self._delete(db, response_id, owner))

    async def aclose(self) -> None:
        await anyio.to_thread.run_sync(self._close)

    # --- in a worker thread -----------------------------------------------------------------

    async def _run(self, call: Callable[[sqlite3.Connection], T]) -> T:
        def locked() -> T:
            with self._lock:
                return call(self._connection or self._open())

        return await anyio.to_thread.run_sync(locked, abandon_on_cancel=True)

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not self.path.exists():  # created private: it will hold conversations
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        db = sqlite3.connect(
            self.path,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,  # transactions are explicit (BEGIN IMMEDIATE)
            check_same_thread=False,  # one thread at a time, under ``_lock``
        )
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at checkpoints, never corrupt
            with _transaction(db):
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version not in (0, SCHEMA_VERSION):
                    raise sqlite3.DatabaseError(
                        f"{self.path} has layout {version}, this version reads {SCHEMA_VERSION}"
                    )
                if version == 0:  # a new file (or another process just made it)
                    for statement in _SCHEMA:
                        db.execute(statement)
                    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except BaseException:
            db.close()
            raise
        self._connection = db
        return db

    def _put(
        self, db: sqlite3.Connection, response_id: str, owner: str, entry: StoredEntry, size: int
    ) -> None:
        now = self.clock()
        with _transaction(db):
            db.execute("DELETE FROM responses WHERE expires <= ?", (now,))
            db.execute("DELETE FROM responses WHERE id = ?", (response_id,))  # written again
            db.execute(
                "INSERT INTO responses (id, owner, expires, size, response, items) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (response_id, owner, now + self.ttl, size, entry.response, entry.items),
            )
            (total,) = db.execute("SELECT total FROM usage").fetchone()
            excess = total - self.max_bytes
            if excess <= 0:
                return
            last = None
            for rowid, entry_size in db.execute("SELECT rowid, size FROM responses ORDER BY rowid"):
                last = rowid
                excess -= entry_size
                if excess <= 0:
                    break
            db.execute("DELETE FROM responses WHERE rowid <= ?", (last,))

    def _get(self, db: sqlite3.Connection, response_id: str, owner: str) -> StoredEntry | None:
        row = db.execute(
            "SELECT owner, expires, response, items FROM responses WHERE id = ?", (response_id,)
        ).fetchone()
        if row is None or row[1] <= self.clock() or not hmac.compare_digest(row[0], owner):
            return None
        return StoredEntry(bytes(row[2]), bytes(row[3]))

    def _delete(self, db: sqlite3.Connection, response_id: str, owner: str) -> bool:
        with _transaction(db):
            cursor = db.execute(
                "DELETE FROM responses WHERE id = ? AND owner = ? AND expires > ?",
                (response_id, owner, self.clock()),
            )
            return cursor.rowcount > 0

    def _close(self) -> None:
        with self._lock:
            db, self._connection = self._connection, None
            if db is not None:
                db.close()


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on an error): the write lock is taken
    first, so a writer waits for another process's (``busy_timeout``) instead of failing when
    it would upgrade a read lock."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
