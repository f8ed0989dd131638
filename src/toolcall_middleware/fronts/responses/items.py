"""The events that open and close a reasoning or message item of a Response (sans-I/O).

Their data are written out whole, not merged from keywords: a turn of a stream closes and opens
items often, and keyword merging costs twice as much. ``seq`` is the sequence number of the
first event; the opening takes two, the closing three.
"""

from __future__ import annotations

from typing import Any

from .request import encode_reasoning

Event = tuple[str, dict[str, Any]]


def opened(
    kind: str, item_id: str, index: int, seq: int, reasoning_as: str
) -> tuple[dict[str, Any], list[Event]]:
    """The item's shell (in progress, no text yet) and the events that open it."""
    shell: dict[str, Any]
    if kind == "reasoning":
        shell = {
            "type": "reasoning",
            "id": item_id,
            "summary": [],
            "content": [],
            "encrypted_content": None,
            "status": "in_progress",
        }
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
        shell = {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
        part_kind = "response.content_part.added"
        part = {
            "type": part_kind,
            "sequence_number": seq + 1,
            "item_id": item_id,
            "output_index": index,
            "content_index": 0,
            "part": content_part(kind, ""),
        }
    added = {
        "type": "response.output_item.added",
        "sequence_number": seq,
        "output_index": index,
        "item": shell,
    }
    return shell, [("response.output_item.added", added), (part_kind, part)]


def closed(
    kind: str, item_id: str, index: int, seq: int, text: str, reasoning_as: str, encrypted: bool
) -> tuple[dict[str, Any], list[Event]]:
    """The whole item, with its ``text``, and the events that close it."""
    whole: dict[str, Any]
    if kind == "reasoning":
        whole = {
            "type": "reasoning",
            "id": item_id,
            "summary": [],
            "content": [],
            "encrypted_content": None,
            "status": "completed",
        }
        if reasoning_as == "summary":
            part = {"type": "summary_text", "text": text}
            text_kind, part_kind = (
                "response.reasoning_summary_text.done",
                "response.reasoning_summary_part.done",
            )
            text_done: dict[str, Any] = {
                "type": text_kind,
                "sequence_number": seq,
                "item_id": item_id,
                "output_index": index,
                "summary_index": 0,
                "text": text,
            }
            part_done: dict[str, Any] = {
                "type": part_kind,
                "sequence_number": seq + 1,
                "item_id": item_id,
                "output_index": index,
                "summary_index": 0,
                "part": part,
            }
            whole["summary"] = [part]
        else:
            part = {"type": "reasoning_text", "text": text}
            text_kind, part_kind = (
                "response.reasoning_text.done",
                "response.content_part.done",
            )
            text_done = {
                "type": text_kind,
                "sequence_number": seq,
                "item_id": item_id,
                "output_index": index,
                "content_index": 0,
                "text": text,
            }
            part_done = {
                "type": part_kind,
                "sequence_number": seq + 1,
                "item_id": item_id,
                "output_index": index,
                "content_index": 0,
                "part": part,
            }
            whole["content"] = [part]
        if encrypted:
            whole["encrypted_content"] = encode_reasoning(text)
    else:
        part = content_part(kind, text)
        if kind == "refusal":
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
            "part": part,
        }
        whole = {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": "completed",
            "content": [part],
        }
    return whole, [
        (text_kind, text_done),
        (part_kind, part_done),
        (
            "response.output_item.done",
            {
                "type": "response.output_item.done",
                "sequence_number": seq + 2,
                "output_index": index,
                "item": whole,
            },
        ),
    ]


def content_part(kind: str, text: str) -> dict[str, Any]:
    """A message item's content part."""
    if kind == "refusal":
        return {"type": "refusal", "refusal": text}
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
