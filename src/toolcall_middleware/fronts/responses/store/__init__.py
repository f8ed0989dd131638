"""The Responses front's response store: ``store``, ``previous_response_id``, ``item_reference``
and ``GET``/``DELETE /v1/responses/{id}`` (``docs/responses-store.md``).

``base`` is the interface and the choice of backend (``[responses] store``): ``sqlite_store``, a
SQLite file shared by the workers of one ``toolcall serve`` (the default), or ``redis_store``,
shared by replicas. ``conversation`` resolves what a request continues and builds what is
stored; ``keeper`` contains the store's failures; ``routes`` serves the stored responses.
"""

from __future__ import annotations

from .base import (
    DEFAULT_MAX_BYTES,
    DEFAULT_STORE,
    DEFAULT_TTL,
    EntryTooLarge,
    ResponseStore,
    StoredEntry,
    StoreError,
    check_spec,
    default_sqlite_path,
    open_store,
    owner_of,
)
from .keeper import ResponseKeeper, Saving

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_STORE",
    "DEFAULT_TTL",
    "EntryTooLarge",
    "ResponseKeeper",
    "ResponseStore",
    "Saving",
    "StoreError",
    "StoredEntry",
    "check_spec",
    "default_sqlite_path",
    "open_store",
    "owner_of",
]
