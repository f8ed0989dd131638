"""The response store's interface, the backend a ``store`` option names, and ownership.

A backend keeps one entry per response id: the owner's digest, the response object as JSON,
and the conversation items as JSON (``StoredEntry``), for ``ttl`` seconds, within
``max_bytes`` (the oldest entries go first). It knows nothing of the Responses API: the
conversation logic (``conversation.py``) writes and reads the JSON. A backend raises on any
failure (``StoreError`` or the client library's own); the keeper (``keeper.py``) turns that into
a response marked not stored, or a 503 when a request needs what the store holds.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple, Protocol

from ....config import ConfigError

#: ``[responses] store``: the embedded SQLite file at its default path.
DEFAULT_STORE = "sqlite"
#: Seconds a stored response is kept: a day.
DEFAULT_TTL = 86400.0
#: The most bytes the stored responses may take: 1 GiB.
DEFAULT_MAX_BYTES = 1024 * 1024 * 1024
STORE_OFF = "off"


class StoredEntry(NamedTuple):
    #: The response object as JSON (what ``GET /v1/responses/{id}`` answers).
    response: bytes
    #: ``{"context": [...], "input": [...]}`` as JSON: the conversation before the request and
    #: the request's own input items (``conversation.py``).
    items: bytes


class StoreError(Exception):
    """The store could not do what was asked."""


class EntryTooLarge(StoreError):
    """One entry alone is larger than the store may hold."""


class ResponseStore(Protocol):
    """Where responses are kept; every worker and replica that shares it shares them."""

    #: The backend's name, for logs and metrics (``sqlite``, ``redis``).
    backend: str

    async def put(self, response_id: str, owner: str, entry: StoredEntry) -> None:
        """Keep ``entry`` for ``ttl`` seconds, evicting the oldest entries past ``max_bytes``.
        Raises ``EntryTooLarge`` for an entry larger than ``max_bytes`` by itself."""

    async def get(self, response_id: str, owner: str) -> StoredEntry | None:
        """The entry, or None: never stored, expired, evicted, deleted, or another owner's."""

    async def delete(self, response_id: str, owner: str) -> bool:
        """Remove the entry; False when ``get`` would have found none."""

    async def aclose(self) -> None:
        """Release connections (the store may be used again afterwards: it reopens)."""


def owner_of(headers: Iterable[tuple[bytes, bytes]]) -> str:
    """Whose responses a request may read and continue: a digest of its credentials (the
    ``Authorization`` value, else ``x-api-key``, as the upstream gets them), never the secret
    itself. A request without credentials owns what other requests without them made."""
    credential = b""
    api_key = b""
    for name, value in headers:
        lowered = name.lower()
        if lowered == b"authorization":
            credential = value
            break
        if lowered == b"x-api-key" and not api_key:
            api_key = b"Bearer " + value
    return hashlib.sha256(b"toolcall-responses-owner\0" + (credential or api_key)).hexdigest()


def default_sqlite_path() -> Path:
    """``$XDG_STATE_HOME/toolcall/responses.sqlite3``, ``~/.local/state/...`` by default."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "toolcall" / "responses.sqlite3"


def check_spec(spec: object) -> None:
    """Raise ``ConfigError`` unless ``spec`` names a store (``open_store`` opens it)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(_SPEC_HELP)
    if spec in (STORE_OFF, DEFAULT_STORE) or spec.startswith("sqlite:"):
        if spec.startswith("sqlite:") and not spec.removeprefix("sqlite:").strip():
            raise ConfigError("store sqlite:PATH needs a path")
        return
    if spec.startswith(("redis://", "rediss://", "unix://")):
        try:
            import redis.asyncio  # noqa: F401
        except ImportError:
            raise ConfigError(
                "store redis://… needs the redis client: pip install 'toolcall-middleware[redis]'"
            ) from None
        return
    raise ConfigError(f"{_SPEC_HELP}, not {spec!r}")


_SPEC_HELP = "store must be 'sqlite', 'sqlite:PATH', 'redis://…', 'rediss://…' or 'off'"


def open_store(spec: str, *, ttl: float, max_bytes: int) -> ResponseStore | None:
    """The backend ``spec`` names (``check_spec``), not yet connected: a SQLite file is created
    and a Redis connection made on first use. None for ``off``."""
    check_spec(spec)
    if spec == STORE_OFF:
        return None
    if spec.startswith(("redis://", "rediss://", "unix://")):
        from .redis_store import RedisStore

        return RedisStore(spec, ttl=ttl, max_bytes=max_bytes)
    from .sqlite_store import SQLiteStore

    path = spec.removeprefix("sqlite:").strip() if spec != DEFAULT_STORE else ""
    return SQLiteStore(
        Path(path).expanduser() if path else default_sqlite_path(), ttl=ttl, max_bytes=max_bytes
    )
