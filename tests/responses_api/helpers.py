"""Responses test helpers: the event-sequence checker every stream goes through, the openai SDK
against an app, requests built from the recordings' chat requests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai
import orjson

from toolcall_middleware.asgi import ASGIApp, Message, Receive, Scope, Send
from toolcall_middleware.sse import SSEDecoder

Event = tuple[str, dict[str, Any]]
TERMINAL = ("response.completed", "response.incomplete", "response.failed")
TEXT_DELTAS = {
    "response.output_text.delta": "output_text",
    "response.refusal.delta": "refusal",
    "response.reasoning_text.delta": "reasoning_text",
    "response.reasoning_summary_text.delta": "summary_text",
}


def parse_sse(raw: bytes) -> list[Event]:
    """Every event: its ``event:`` line and JSON data (no ``[DONE]`` allowed)."""
    decoder = SSEDecoder()
    out: list[Event] = []
    for event in [*decoder.feed(raw), *decoder.close()]:
        if event.data is None:
            assert all(f.startswith(b":") for f in event.fields), event.raw  # comments only
            continue
        assert event.data != b"[DONE]"
        kind = (event.event_type or b"").decode()
        out.append((kind, orjson.loads(event.data)))
    return out


@dataclass
class _Open:
    item: dict[str, Any]
    parts: dict[int, list[str]] = field(default_factory=dict)
    arguments: list[str] = field(default_factory=list)


def check_events(events: Sequence[Event]) -> dict[str, Any]:
    """Assert the wire spec's sequence rules; return the terminal response."""
    assert events, "empty stream"
    kinds = [k for k, _ in events]
    assert kinds[:2] == ["response.created", "response.in_progress"], kinds[:3]
    assert kinds[-1] in TERMINAL and sum(k in TERMINAL for k in kinds) == 1, kinds[-3:]
    response_id = events[0][1]["response"]["id"]
    opened: dict[int, _Open] = {}
    done: dict[int, dict[str, Any]] = {}
    for seq, (kind, data) in enumerate(events):
        assert data["type"] == kind and data["sequence_number"] == seq, (seq, kind, data)
        if "response" in data:
            assert data["response"]["id"] == response_id
        index = data.get("output_index")
        if kind == "response.output_item.added":
            assert index == len(opened), f"output_index {index} is not the next one"
            assert not [o for i, o in opened.items() if i not in done], "an item is still open"
            opened[index] = _Open(data["item"])
            continue
        if index is not None:
            assert index in opened and index not in done, (kind, index)
            current = opened[index]
            if "item_id" in data:
                assert data["item_id"] == current.item["id"]
        if kind == "response.content_part.added" or kind.endswith("summary_part.added"):
            current.parts[data.get("content_index", data.get("summary_index"))] = []
        elif kind in TEXT_DELTAS:
            part = data.get("content_index", data.get("summary_index"))
            assert part in current.parts, f"{kind} before its part was added"
            current.parts[part].append(data["delta"])
        elif kind in (
            "response.output_text.done",
            "response.reasoning_text.done",
            "response.reasoning_summary_text.done",
        ):
            part = data.get("content_index", data.get("summary_index"))
            assert data["text"] == "".join(current.parts[part])
        elif kind == "response.function_call_arguments.delta":
            current.arguments.append(data["delta"])
        elif kind == "response.function_call_arguments.done":
            assert data["arguments"] == "".join(current.arguments)
        elif kind == "response.output_item.done":
            item = data["item"]
            for key in ("type", "id", "call_id"):
                assert item.get(key) == current.item.get(key), key
            if item["type"] == "function_call":
                assert item["arguments"] == "".join(current.arguments)
                assert item["status"] == "completed"
            if item["type"] == "reasoning":
                assert isinstance(item["summary"], list)
            done[index] = item
    terminal = events[-1][1]["response"]
    if kinds[-1] != "response.failed":
        assert sorted(done) == sorted(opened), "an item was never done"
        assert terminal["output"] == [done[i] for i in sorted(done)]
        usage = terminal["usage"]
        if usage is not None:
            assert {"input_tokens", "output_tokens", "total_tokens"} <= set(usage)
    else:
        assert terminal["error"]["code"] and terminal["error"]["message"]
    return dict(terminal)


@dataclass
class CheckedApp:
    """Wraps the app under test; every event stream it sends is checked when it ends."""

    app: ASGIApp
    streams: list[list[Event]] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = bytearray()
        is_sse = False

        async def recording_send(message: Message) -> None:
            nonlocal is_sse
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers", ()))
                is_sse = headers.get(b"content-type", b"").startswith(b"text/event-stream")
            elif message["type"] == "http.response.body" and is_sse:
                raw.extend(message.get("body", b""))
            await send(message)

        await self.app(scope, receive, recording_send)
        if is_sse:
            events = parse_sse(bytes(raw))
            check_events(events)
            self.streams.append(events)


def sdk_client(app: ASGIApp, checked: bool = True) -> openai.AsyncOpenAI:
    transport = httpx2.ASGITransport(app=CheckedApp(app) if checked else app)
    return openai.AsyncOpenAI(
        api_key="test-key",
        base_url="http://test/v1",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=transport, base_url="http://test"),
    )


def responses_request(chat: dict[str, Any]) -> dict[str, Any]:
    """A Responses request asking what a recording's chat request asked."""
    instructions = [m["content"] for m in chat["messages"] if m["role"] == "system"]
    doc: dict[str, Any] = {
        "model": chat["model"],
        "input": [
            {"role": m["role"], "content": m["content"]}
            for m in chat["messages"]
            if m["role"] != "system"
        ],
        "tools": [{"type": "function", **t["function"]} for t in chat.get("tools", ())],
    }
    if instructions:
        doc["instructions"] = "\n\n".join(instructions)
    return doc
