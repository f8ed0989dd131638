"""The events that open and close a reasoning or message item of a Response (sans-I/O).

Their data are written out whole, not merged from keywords: a turn of a stream closes and opens
items often, and keyword merging costs twice as much. ``seq`` is the sequence number of the
first event; the opening takes two, the closing three.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..core.templates import EventTemplate
from ..core.wire import event_head
from .reasoning import encode_reasoning

Event = tuple[str, dict[str, Any]]

_dumps = orjson.dumps
ITEM_ADDED, ITEM_DONE = "response.output_item.added", "response.output_item.done"


class OpenItem:
    """A reasoning or message item being streamed: its text so far, in parts."""

    __slots__ = ("id", "index", "kind", "parts")

    def __init__(self, kind: str, item_id: str, index: int) -> None:
        self.kind = kind  # "reasoning", "output_text" or "refusal"
        self.id = item_id
        self.index = index
        self.parts: list[str] = []


def shell(kind: str, item_id: str) -> dict[str, Any]:
    """The item in progress, no text yet."""
    if kind == "reasoning":
        return {
            "type": "reasoning",
            "id": item_id,
            "summary": [],
            "content": [],
            "encrypted_content": None,
            "status": "in_progress",
        }
    return {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }


def delta_types(reasoning_as: str) -> dict[str, str]:
    """The type of the delta events of each kind of item (``reasoning_as``: see
    ``ResponsesOptions``)."""
    summary = reasoning_as == "summary"
    return {
        "reasoning": f"response.reasoning_{'summary_' if summary else ''}text.delta",
        "output_text": "response.output_text.delta",
        "refusal": "response.refusal.delta",
    }


def text_delta(delta_type: str, item_id: str, index: int, seq: int, text: str) -> Event:
    """One delta event (of ``delta_types``' ``delta_type``) of a reasoning or message item (the
    fast path's template is made from this very function)."""
    data: dict[str, Any] = {
        "type": delta_type,
        "sequence_number": seq,
        "item_id": item_id,
        "output_index": index,
    }
    if delta_type == "response.reasoning_summary_text.delta":
        data["summary_index"] = 0
    else:
        data["content_index"] = 0
    data["delta"] = text
    if delta_type == "response.output_text.delta":
        data["logprobs"] = []
    return delta_type, data


def text_delta_template(delta_type: str, item_id: str, index: int) -> EventTemplate:
    """``text_delta(delta_type, item_id, index, seq, text)``, encoded, as bytes around ``seq``
    and ``text`` (proved equal in ``tests/fronts/test_templates.py``)."""
    head = event_head(delta_type) + b'{"type":' + _dumps(delta_type) + b',"sequence_number":'
    part = "summary" if delta_type == "response.reasoning_summary_text.delta" else "content"
    middle = b"".join(
        (b',"item_id":', _dumps(item_id), b',"output_index":%d,"' % index, part.encode())
    )
    middle += b'_index":0,"delta":'
    tail = b',"logprobs":[]}' if delta_type == "response.output_text.delta" else b"}"
    return EventTemplate(head, middle, tail + b"\n\n")


def opened(
    kind: str, item_id: str, index: int, seq: int, reasoning_as: str
) -> tuple[dict[str, Any], list[Event]]:
    """The item's shell (in progress, no text yet) and the events that open it."""
    item = shell(kind, item_id)
    if kind == "reasoning":
        part_kind = "response.content_part.added"
        part: dict[str, Any] = {
            "type": part_kind,
            "sequence_number": seq + 1,
            "item_id": item_id,
            "output_index": index,
            "content_index": 0,
            "part": {"type": "reasoning_text", "text": ""},
        }
        if reasoning_as == "summary":
            part_kind = "response.reasoning_summary_part.added"
            part = {
                "type": part_kind,
                "sequence_number": seq + 1,
                "item_id": item_id,
                "output_index": index,
                "summary_index": 0,
                "part": {"type": "summary_text", "text": ""},
            }
    else:
        part_kind = "response.content_part.added"
        part = {
            "type": part_kind,
            "sequence_number": seq + 1,
            "item_id": item_id,
            "output_index": index,
            "content_index": 0,
            "part": content_part(kind, ""),
        }
    return item, [item_event(ITEM_ADDED, seq, index, item), (part_kind, part)]


def whole(kind: str, item_id: str, text: str, reasoning_as: str, encrypted: bool) -> dict[str, Any]:
    """The whole item, with its ``text``."""
    if kind != "reasoning":
        return {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": "completed",
            "content": [content_part(kind, text)],
        }
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": item_id,
        "summary": [],
        "content": [],
        "encrypted_content": None,
        "status": "completed",
    }
    if reasoning_as == "summary":
        item["summary"] = [{"type": "summary_text", "text": text}]
    else:
        item["content"] = [{"type": "reasoning_text", "text": text}]
    if encrypted:
        item["encrypted_content"] = encode_reasoning(text)
    return item


def closed(
    kind: str, item_id: str, index: int, seq: int, text: str, reasoning_as: str, encrypted: bool
) -> tuple[dict[str, Any], list[Event]]:
    """The whole item, with its ``text``, and the events that close it."""
    item = whole(kind, item_id, text, reasoning_as, encrypted)
    text_done: dict[str, Any]
    if kind == "reasoning" and reasoning_as == "summary":
        text_kind, part_kind = (
            "response.reasoning_summary_text.done",
            "response.reasoning_summary_part.done",
        )
        text_done = {
            "type": text_kind,
            "sequence_number": seq,
            "item_id": item_id,
            "output_index": index,
            "summary_index": 0,
            "text": text,
        }
        part_done = {
            "type": part_kind,
            "sequence_number": seq + 1,
            "item_id": item_id,
            "output_index": index,
            "summary_index": 0,
            "part": item["summary"][0],
        }
    else:
        if kind == "reasoning":
            text_kind = "response.reasoning_text.done"
            text_done = {
                "type": text_kind,
                "sequence_number": seq,
                "item_id": item_id,
                "output_index": index,
                "content_index": 0,
                "text": text,
            }
        elif kind == "refusal":
            text_kind = "response.refusal.done"
            text_done = {
                "type": text_kind,
                "sequence_number": seq,
                "item_id": item_id,
                "output_index": index,
                "content_index": 0,
                "refusal": text,
            }
        else:
            text_kind = "response.output_text.done"
            text_done = {
                "type": text_kind,
                "sequence_number": seq,
                "item_id": item_id,
                "output_index": index,
                "content_index": 0,
                "text": text,
                "logprobs": [],
            }
        part_kind = "response.content_part.done"
        part_done = {
            "type": part_kind,
            "sequence_number": seq + 1,
            "item_id": item_id,
            "output_index": index,
            "content_index": 0,
            "part": item["content"][0],
        }
    return item, [(text_kind, text_done), (part_kind, part_done), item_done(seq + 2, index, item)]


# --- function and custom tool calls ------------------------------------------------------


def call_item(
    custom: bool, item_id: str, call_id: str, name: str, namespace: str | None
) -> dict[str, Any]:
    """A call's item, in progress, no arguments (input) yet."""
    item: dict[str, Any]
    if custom:
        item = {
            "type": "custom_tool_call",
            "id": item_id,
            "call_id": call_id,
            "name": name,
            "input": "",
        }
    else:
        item = {
            "type": "function_call",
            "id": item_id,
            "call_id": call_id,
            "name": name,
            "arguments": "",
            "status": "in_progress",
        }
    if namespace is not None:
        item["namespace"] = namespace
    return item


def item_event(kind: str, seq: int, index: int, item: dict[str, Any]) -> Event:
    """An output item's ``added`` or ``done`` event (``kind``), carrying ``item``."""
    return kind, {"type": kind, "sequence_number": seq, "output_index": index, "item": item}


def call_added(seq: int, index: int, item: dict[str, Any]) -> Event:
    """The event that opens a call (its item as it is now)."""
    return item_event(ITEM_ADDED, seq, index, dict(item))


def custom_call_events(seq: int, index: int, item: dict[str, Any], text: str) -> list[Event]:
    """The events of a custom call, sent whole at its end with its input ``text`` (which its
    ``item`` takes): added, input delta, input done, item done."""
    ids = {"item_id": item["id"], "output_index": index}
    delta, done = "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done"
    events = [
        call_added(seq, index, item),
        (delta, {"type": delta, "sequence_number": seq + 1, **ids, "delta": text}),
        (done, {"type": done, "sequence_number": seq + 2, **ids, "input": text}),
    ]
    item["input"] = text
    events.append(item_done(seq + 3, index, item))
    return events


def completed_call(item: dict[str, Any], arguments: str) -> dict[str, Any]:
    """A function call's ``item``, completed with its ``arguments``."""
    item["arguments"] = arguments
    item["status"] = "completed"
    return item


def call_closing(item: dict[str, Any], index: int, seq: int, arguments: str) -> list[Event]:
    """The events that close a function call: its arguments, its item completed with them."""
    completed_call(item, arguments)
    return [arguments_done(seq, item["id"], index, arguments), item_done(seq + 1, index, item)]


def arguments_delta(item_id: str, index: int, seq: int, fragment: str) -> Event:
    return (
        "response.function_call_arguments.delta",
        {
            "type": "response.function_call_arguments.delta",
            "sequence_number": seq,
            "item_id": item_id,
            "output_index": index,
            "delta": fragment,
        },
    )


def arguments_delta_template(item_id: str, index: int) -> EventTemplate:
    """``arguments_delta(item_id, index, seq, fragment)``, encoded, as bytes around ``seq``
    and ``fragment`` (proved equal in ``tests/fronts/test_templates.py``)."""
    kind = "response.function_call_arguments.delta"
    head = event_head(kind) + b'{"type":"' + kind.encode() + b'","sequence_number":'
    middle = b',"item_id":' + _dumps(item_id) + b',"output_index":%d,"delta":' % index
    return EventTemplate(head, middle, b"}\n\n")


def arguments_done(seq: int, item_id: str, index: int, arguments: str) -> Event:
    return (
        "response.function_call_arguments.done",
        {
            "type": "response.function_call_arguments.done",
            "sequence_number": seq,
            "item_id": item_id,
            "output_index": index,
            "arguments": arguments,
        },
    )


def item_done(seq: int, index: int, item: dict[str, Any]) -> Event:
    return item_event(ITEM_DONE, seq, index, item)


def content_part(kind: str, text: str) -> dict[str, Any]:
    """A message item's content part."""
    if kind == "refusal":
        return {"type": "refusal", "refusal": text}
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
