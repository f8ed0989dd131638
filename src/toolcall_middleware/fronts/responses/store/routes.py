"""``GET /v1/responses/{id}``, ``GET /v1/responses/{id}/input_items`` and
``DELETE /v1/responses/{id}``, served from the store for the credentials that made the
response (``base.owner_of``); any other id, owner or path is the API's 404.

``input_items`` lists the request's own input items (not the conversation it continued), as
OpenAI's does: ``{"object": "list", "data", "first_id", "last_id", "has_more"}``, newest first
unless ``order=asc``, ``limit`` 1 to 100 (default 20), ``after`` an item id of the list.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

import orjson

from ....asgi import Scope, Send
from ...core.pipeline import Reply, json_reply, send_reply
from ..errors import ResponsesError, invalid
from .base import owner_of
from .keeper import ResponseKeeper

DEFAULT_LIMIT = 20
MAX_LIMIT = 100


async def serve_stored(keeper: ResponseKeeper | None, scope: Scope, send: Send, tail: str) -> None:
    """Answer a request for ``<responses path>/<tail>``."""
    try:
        reply = await _reply(keeper, scope, tail)
    except ResponsesError as exc:
        extra = [(b"allow", exc.allow)] if isinstance(exc, _NotAllowed) else []
        reply = json_reply(exc.status, exc.body(), extra)
    await send_reply(send, reply)


async def _reply(keeper: ResponseKeeper | None, scope: Scope, tail: str) -> Reply:
    response_id, _, rest = tail.partition("/")
    method = scope.get("method")
    if not response_id or rest not in ("", "input_items"):
        raise ResponsesError(
            f"there is nothing at {scope['path']} on this server",
            status=404,
            code="not_found",
        )
    allowed = b"GET, DELETE" if not rest else b"GET"
    if method not in allowed.decode().split(", "):
        raise _NotAllowed(allowed)
    if keeper is None:
        raise ResponsesError(
            "responses are not stored by this server (its response store is off)",
            status=404,
            code="not_found",
        )
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    owner = owner_of(scope.get("headers", ()))
    if method == "DELETE":
        if not await keeper.delete(response_id, owner):
            raise not_found(response_id)
        return json_reply(200, {"id": response_id, "object": "response.deleted", "deleted": True})
    if rest == "" and _flag(query, "stream"):
        raise invalid("streaming a stored response again is not supported", "stream")
    listing = _listing(query) if rest else None  # (checked before the store is read)
    entry = await keeper.lookup(response_id, owner)
    if entry is None:
        raise not_found(response_id)
    if listing is None:
        return Reply(200, entry.response, ((b"content-type", b"application/json"),))
    items = orjson.loads(entry.items)["input"]
    return json_reply(200, listing.page(items))


def not_found(response_id: str) -> ResponsesError:
    return ResponsesError(
        f"Response with id '{response_id}' not found. It was never stored here, or it "
        "expired, was evicted or deleted, or it was stored with other credentials.",
        status=404,
        code="not_found",
    )


class _NotAllowed(ResponsesError):
    def __init__(self, allow: bytes) -> None:
        super().__init__(
            f"method not allowed here (use {allow.decode()})",
            status=405,
            code="method_not_allowed",
        )
        self.allow = allow


class _Listing:
    def __init__(self, limit: int, order: str, after: str | None) -> None:
        self.limit = limit
        self.order = order
        self.after = after

    def page(self, items: list[Any]) -> dict[str, Any]:
        ordered = items if self.order == "asc" else items[::-1]
        start = 0
        if self.after is not None:
            ids = [item.get("id") for item in ordered]
            if self.after not in ids:
                raise invalid(f"no item with id {self.after!r} in this list", "after")
            start = ids.index(self.after) + 1
        data = ordered[start : start + self.limit]
        return {
            "object": "list",
            "data": data,
            "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None,
            "has_more": start + self.limit < len(ordered),
        }


def _listing(query: dict[str, list[str]]) -> _Listing:
    raw_limit = _one(query, "limit")
    limit = DEFAULT_LIMIT
    if raw_limit is not None:
        try:
            limit = int(raw_limit)
        except ValueError:
            limit = 0
        if not 1 <= limit <= MAX_LIMIT:
            raise invalid(f"must be an integer from 1 to {MAX_LIMIT}", "limit")
    order = _one(query, "order") or "desc"
    if order not in ("asc", "desc"):
        raise invalid("must be 'asc' or 'desc'", "order")
    return _Listing(limit, order, _one(query, "after") or None)


def _one(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    return values[-1] if values else None


def _flag(query: dict[str, list[str]], name: str) -> bool:
    return (_one(query, name) or "").lower() in ("true", "1")
