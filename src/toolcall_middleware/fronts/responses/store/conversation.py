"""``previous_response_id`` and ``item_reference`` resolved from stored responses, and what is
stored of a response.

A stored entry holds the response object and the conversation as Responses items: ``context``,
what came before the request (the previous response's context, input and output, when the
request continued one), and ``input``, the request's own items with their references resolved
and an id each. Continuing a response puts its whole conversation before the new request's
items, and the result is translated and validated as one ``input`` (a call in the stored output
pairs with its ``function_call_output`` in the new request). ``instructions`` and tools are not
carried over, as in OpenAI's API.

Ids: a response's items carry its hex (``rs_<hex>_0``, ``msg_<hex>_in1``), so a reference to one
reads that response. An id the store cannot answer for (never stored, expired, evicted,
deleted, another owner's, or a client's own id) is the API's error, never another conversation.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..errors import ResponsesError, invalid
from .base import StoredEntry

#: Reads a stored entry by response id (for the request's owner): None when there is none.
Lookup = Callable[[str], Awaitable[StoredEntry | None]]

_GONE = (
    "It was never stored here, or it expired, was evicted or deleted, or it was stored with "
    "other credentials."
)
#: The response hex in one of our item ids.
_ITEM_OF = re.compile(r"[a-z]+_([0-9a-f]{24})_")
_ID_PREFIX = {
    "message": "msg",
    "reasoning": "rs",
    "function_call": "fc",
    "function_call_output": "fco",
    "custom_tool_call": "ctc",
    "custom_tool_call_output": "ctco",
}
#: An input item's path in an error, with the path within it.
_INPUT_PATH = re.compile(r"input\[(\d+)\]((?:\.\w+|\[\d+\])*)")


@dataclass
class Conversation:
    """A request with what it continues resolved."""

    #: The request as the translation takes it: the stored conversation, then its own items
    #: with their references resolved; no ``previous_response_id``.
    doc: Any
    #: The client asked for the response to be stored (``store`` true or absent).
    store: bool
    previous_response_id: str | None = None
    #: The stored items before the request's own (``doc["input"]`` starts with them).
    context: list[Any] = field(default_factory=list)
    #: The request's own items as stored: references resolved, each with an id.
    own: list[Any] = field(default_factory=list)


def store_asked(doc: Mapping[str, Any]) -> bool:
    """The request's ``store`` (the API's default: true)."""
    store = doc.get("store")
    if store is None:
        return True
    if not isinstance(store, bool):
        raise invalid("must be a boolean", "store")
    return store


async def resolve(doc: Any, lookup: Lookup, response_id: str) -> Conversation:
    """Raises ``ResponsesError``: 400 ``previous_response_not_found``, 404 for an item, 400 for
    a malformed id (and whatever ``lookup`` raises when the store fails)."""
    if not isinstance(doc, Mapping):
        return Conversation(doc, False)  # the translation refuses it
    store = store_asked(doc)
    previous = doc.get("previous_response_id")
    items = doc.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    elif not isinstance(items, list):
        items = None  # the translation refuses it (unless a previous response gives context)
    refers = items is not None and any(is_reference(i) for i in items)
    if previous is None and not refers and not store:
        return Conversation(doc, False)
    reader = _Reader(lookup)
    context: list[Any] = []
    if previous is not None:
        if not isinstance(previous, str) or not previous:
            raise invalid("must be a non-empty string", "previous_response_id")
        stored = await reader.read(previous)
        if stored is None:
            raise ResponsesError(
                f"previous_response_id: Previous response with id '{previous}' not found. " + _GONE,
                param="previous_response_id",
                code="previous_response_not_found",
            )
        items_of, response = stored
        context = [*items_of["context"], *items_of["input"], *response["output"]]
    resolved = [await reader.resolve(item) for item in items] if refers and items else items
    hex_id = response_id.removeprefix("resp_")
    own = [_stored_item(item, hex_id, n) for n, item in enumerate(resolved or ())]
    new_doc = {k: v for k, v in doc.items() if k != "previous_response_id"}
    if resolved is not None and (previous is not None or refers):
        new_doc["input"] = [*context, *resolved]
    return Conversation(new_doc, store, previous, context, own)


def is_reference(item: Any) -> bool:
    """An ``item_reference``: its ``type`` says so, or it is an id alone (the API's type is
    optional there)."""
    if not isinstance(item, Mapping):
        return False
    kind = item.get("type")
    return kind == "item_reference" or (kind is None and "role" not in item and "id" in item)


class _Reader:
    """Stored entries read once per request."""

    def __init__(self, lookup: Lookup) -> None:
        self.lookup = lookup
        self.read_already: dict[str, tuple[dict[str, Any], dict[str, Any]] | None] = {}

    async def read(self, response_id: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The entry's items and response object."""
        if response_id in self.read_already:
            return self.read_already[response_id]
        entry = await self.lookup(response_id)
        found = None if entry is None else (orjson.loads(entry.items), orjson.loads(entry.response))
        self.read_already[response_id] = found
        return found

    async def resolve(self, item: Any) -> Any:
        """The stored item an ``item_reference`` names; anything else as it is."""
        if not is_reference(item):
            return item
        item_id = item.get("id")
        if not isinstance(item_id, str) or not item_id:
            raise invalid(
                "item_reference needs the id of a stored item (a non-empty string)", "input"
            )
        match = _ITEM_OF.match(item_id)
        stored = await self.read("resp_" + match.group(1)) if match else None
        if stored is not None:
            items_of, response = stored
            for candidate in (*items_of["input"], *response["output"]):
                if candidate.get("id") == item_id:
                    return candidate
        raise ResponsesError(
            f"Item with id '{item_id}' not found. {_GONE}",
            status=404,
            param="input",
            code="not_found",
        )


def _stored_item(item: Any, hex_id: str, n: int) -> Any:
    """An input item as the store keeps it (and ``input_items`` lists it): a message in the
    API's item shape (``type``, a list of content parts), and an id (ours: ``<kind>_<response
    hex>_in<n>``) where the client gave none. Translated again, it gives what the original
    gave."""
    if not isinstance(item, Mapping):
        return item
    out = dict(item)
    kind = out.get("type")
    if not isinstance(kind, str):  # (the translation refuses a type that is not a string)
        kind = "message" if "role" in out else "item"
    if kind == "message":
        out["type"] = "message"
        content = out.get("content")
        if isinstance(content, str):
            if out.get("role") == "assistant":
                out["content"] = [{"type": "output_text", "text": content, "annotations": []}]
            else:
                out["content"] = [{"type": "input_text", "text": content}]
        out.setdefault("status", "completed")
    if not isinstance(out.get("id"), str) or not out["id"]:
        out["id"] = f"{_ID_PREFIX.get(kind, 'item')}_{hex_id}_in{n}"
    return out


def for_own_items(error: ResponsesError, offset: int) -> ResponsesError:
    """``error`` from translating a continued conversation, with each ``input[N]`` it names
    counted in the request's own items, as the client wrote them (the ``offset`` stored items
    come first; one of those is named as ``previous_response_id``)."""
    if offset == 0:
        return error

    def own(match: re.Match[str]) -> str:
        index = int(match.group(1))
        if index < offset:
            return "previous_response_id"
        return f"input[{index - offset}]{match.group(2)}"

    param = _INPUT_PATH.sub(own, error.param) if error.param else error.param
    message = _INPUT_PATH.sub(own, error.message)
    return ResponsesError(
        message, status=error.status, type=error.type, param=param, code=error.code
    )


def encode_entry(
    response: Mapping[str, Any], conversation: Conversation, *, dumps: Callable[[Any], bytes]
) -> StoredEntry:
    """The entry to store for ``response`` (encoded by ``dumps``, which may be the large-document
    encoder), the conversation's items by orjson."""
    items = orjson.dumps({"context": conversation.context, "input": conversation.own})
    return StoredEntry(dumps(response), items)
