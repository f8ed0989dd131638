"""``ResponseKeeper``: the Responses front's side of the store, where its failures are contained.

A write that fails or takes longer than ``STORE_TIMEOUT`` never takes a stream down: the answer
goes out with ``"store": false``, the failure is logged and counted
(``toolcall_responses_store_failures_total``). A read that fails is a 503 in the API's error
shape for the one request that needed it (``previous_response_id``, ``item_reference``,
retrieval); requests that need nothing stored never read.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio

from ....metrics import Metrics
from ...core.wire import dumps
from ..errors import ResponsesError
from .base import EntryTooLarge, ResponseStore, StoredEntry
from .conversation import Conversation, encode_entry, resolve

logger = logging.getLogger("toolcall_middleware.responses")

#: Seconds a store operation may take before it counts as failed (a write holds the stream's
#: terminal event meanwhile).
STORE_TIMEOUT = 2.0


class ResponseKeeper:
    def __init__(
        self, store: ResponseStore, *, metrics: Metrics | None, timeout: float = STORE_TIMEOUT
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.timeout = timeout

    async def resolve(self, doc: Any, owner: str) -> tuple[Conversation, str]:
        """The request with what it continues resolved, and the id its response will have."""
        response_id = "resp_" + secrets.token_hex(12)
        conversation = await resolve(doc, lambda rid: self.lookup(rid, owner), response_id)
        return conversation, response_id

    async def lookup(self, response_id: str, owner: str) -> StoredEntry | None:
        """The owner's entry, or None; a 503 ``ResponsesError`` when the store fails."""
        try:
            with anyio.fail_after(self.timeout):
                return await self.store.get(response_id, owner)
        except Exception as exc:
            self._failed("read", response_id, exc)
            raise unavailable() from None

    async def delete(self, response_id: str, owner: str) -> bool:
        try:
            with anyio.fail_after(self.timeout):
                return await self.store.delete(response_id, owner)
        except Exception as exc:
            self._failed("delete", response_id, exc)
            raise unavailable() from None

    async def save(
        self,
        response_id: str,
        owner: str,
        response: Mapping[str, Any],
        conversation: Conversation,
        *,
        large: bool,
    ) -> bool:
        """Store a finished response; False (logged and counted) when it could not be."""
        try:
            entry = encode_entry(response, conversation, dumps=lambda doc: dumps(doc, large=large))
            with anyio.fail_after(self.timeout):
                await self.store.put(response_id, owner, entry)
        except Exception as exc:
            self._failed("write", response_id, exc)
            return False
        return True

    async def aclose(self) -> None:
        await self.store.aclose()

    def _failed(self, operation: str, response_id: str, exc: Exception) -> None:
        backend = self.store.backend
        if self.metrics is not None:
            self.metrics.store_failure(backend, operation)
        reason = "full" if isinstance(exc, EntryTooLarge) else "failed"
        logger.warning(
            "response store %s %s for %s: %r",
            operation,
            reason,
            response_id,
            exc,
            extra={
                "fields": {
                    "event": "response_store_failed",
                    "backend": backend,
                    "operation": operation,
                    "response_id": response_id,
                    "error": repr(exc) if str(exc) else type(exc).__name__,
                }
            },
        )


def unavailable() -> ResponsesError:
    return ResponsesError(
        "the response store is unavailable; try again later",
        status=503,
        type="server_error",
        code="store_unavailable",
    )


@dataclass
class Saving:
    """What storing one response needs once it is finished (``ResponsesStream.settle``): the
    response's id is given to it here, so that its input items can carry it."""

    keeper: ResponseKeeper
    owner: str
    response_id: str
    conversation: Conversation

    async def save(self, response: Mapping[str, Any], *, large: bool) -> bool:
        return await self.keeper.save(
            self.response_id, self.owner, response, self.conversation, large=large
        )
