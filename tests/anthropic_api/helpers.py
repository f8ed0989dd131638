"""Test helpers: a scripted OpenAI-compatible inner app, direct ASGI calls, the SDK client, and
the event-order invariant checker that every Anthropic stream in these tests goes through."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anthropic
import anyio
import httpx2
import orjson

from toolcall_middleware.sse import SSEDecoder

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOOL_ID = re.compile(r"^[a-zA-Z0-9_-]+$")


# --- upstream chunks ------------------------------------------------------------------------


def chunk(
    delta: dict[str, Any] | None = None,
    finish: str | None = None,
    *,
    usage: dict[str, Any] | None = None,
    **choice_extra: Any,
) -> dict[str, Any]:
    """One ``chat.completion.chunk``; ``delta=None, usage=...`` gives the usage-only chunk."""
    doc: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "upstream-model",
        "choices": [],
    }
    if delta is not None or finish is not None:
        doc["choices"] = [
            {"index": 0, "delta": delta or {}, "finish_reason": finish, **choice_extra}
        ]
    if usage is not None:
        doc["usage"] = usage
    return doc


def call_delta(
    index: int, *, id: str | None = None, name: str | None = None, args: str | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": index}
    if id is not None:
        entry["id"] = id
        entry["type"] = "function"
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if args is not None:
        function["arguments"] = args
    if function:
        entry["function"] = function
    return {"tool_calls": [entry]}


def sse_body(chunks: Sequence[dict[str, Any] | bytes], done: bool = True) -> list[bytes]:
    """Each chunk as one SSE event (one ``http.response.body`` message each)."""
    out = [c if isinstance(c, bytes) else b"data: " + orjson.dumps(c) + b"\n\n" for c in chunks]
    if done:
        out.append(b"data: [DONE]\n\n")
    return out


USAGE = {
    "prompt_tokens": 120,
    "completion_tokens": 30,
    "total_tokens": 150,
    "prompt_tokens_details": {"cached_tokens": 100},
}


# --- scripted inner app ---------------------------------------------------------------------


@dataclass
class Reply:
    status: int = 200
    body: Sequence[bytes] = ()
    content_type: bytes = b"text/event-stream"
    headers: Sequence[tuple[bytes, bytes]] = ()
    delay: float = 0.0  # seconds before each body part
    raise_after: BaseException | None = None


@dataclass
class ScriptedApp:
    """An OpenAI-compatible ASGI app that replies from a script and records every call."""

    replies: list[Reply] = field(default_factory=list)
    calls: list[tuple[Scope, Any]] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        self.calls.append((scope, orjson.loads(body) if body else None))
        reply = (
            self.replies.pop(0)
            if self.replies
            else Reply(404, [b'{"detail":"Not Found"}'], b"application/json")
        )
        headers = [(b"content-type", reply.content_type), *reply.headers]
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        for part in reply.body:
            if reply.delay:
                await anyio.sleep(reply.delay)
            await send({"type": "http.response.body", "body": part, "more_body": True})
        if reply.raise_after is not None:
            raise reply.raise_after
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    @property
    def upstream_bodies(self) -> list[Any]:
        return [body for _, body in self.calls]


def stream_reply(chunks: Sequence[dict[str, Any] | bytes], done: bool = True, **kw: Any) -> Reply:
    return Reply(200, sse_body(chunks, done), **kw)


def json_reply(doc: Any, status: int = 200, **kw: Any) -> Reply:
    return Reply(status, [orjson.dumps(doc)], b"application/json", **kw)


# --- event-order invariants -----------------------------------------------------------------


DELTA_FOR_BLOCK = {
    "text": {"text_delta"},
    "thinking": {"thinking_delta", "signature_delta"},
    "tool_use": {"input_json_delta"},
}
STOP_REASONS = {"end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal", "pause_turn"}


def parse_sse(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    decoder = SSEDecoder()
    events = decoder.feed(raw) + decoder.close()
    out = []
    for event in events:
        assert event.data is not None, f"event without data: {event.raw!r}"
        name = event.event_type
        assert name is not None, f"event without an event: line: {event.raw!r}"
        out.append((name.decode(), orjson.loads(event.data)))
    return out


def check_events(events: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """The ordering rules of docs/clients.md: message_start first; blocks one at a time with
    contiguous indexes from 0; delta types matching the block; a signature before a thinking
    block stops; message_delta (stop_reason, output_tokens) then message_stop last; or an error
    event last."""
    assert events, "empty stream"
    assert events[0][0] == "message_start", events[0]
    assert events[-1][0] in ("message_stop", "error"), events[-1]
    next_index = 0
    open_block: dict[str, Any] | None = None
    open_index = -1
    signed = False
    json_parts: dict[int, list[str]] = {}
    blocks: list[dict[str, Any]] = []
    stop_reason = None
    for position, (name, data) in enumerate(events):
        assert data["type"] == name, (name, data)
        if name == "message_start":
            assert position == 0
            message = data["message"]
            assert message["id"].startswith("msg_")
            assert (message["type"], message["role"], message["content"]) == (
                "message",
                "assistant",
                [],
            )
            assert message["stop_reason"] is None and message["stop_sequence"] is None
            assert isinstance(message["usage"]["input_tokens"], int)
            assert isinstance(message["usage"]["output_tokens"], int)
        elif name == "content_block_start":
            assert open_block is None, "a block started before the previous one stopped"
            assert data["index"] == next_index, (data["index"], next_index)
            open_block, open_index, signed = data["content_block"], next_index, False
            next_index += 1
            blocks.append(open_block)
            kind = open_block["type"]
            assert kind in DELTA_FOR_BLOCK, kind
            if kind == "tool_use":
                assert TOOL_ID.match(open_block["id"]), open_block["id"]
                assert open_block["input"] == {} and open_block["name"]
                json_parts[open_index] = []
        elif name == "content_block_delta":
            assert open_block is not None and data["index"] == open_index
            dtype = data["delta"]["type"]
            assert dtype in DELTA_FOR_BLOCK[open_block["type"]], (open_block["type"], dtype)
            assert not signed, "delta after the signature"
            if dtype == "signature_delta":
                signed = True
            if dtype == "input_json_delta":
                json_parts[open_index].append(data["delta"]["partial_json"])
        elif name == "content_block_stop":
            assert open_block is not None and data["index"] == open_index
            if open_block["type"] == "thinking":
                assert signed, "thinking block stopped without a signature_delta"
            open_block = None
        elif name == "message_delta":
            assert open_block is None and stop_reason is None
            stop_reason = data["delta"]["stop_reason"]
            assert stop_reason in STOP_REASONS
            assert "stop_sequence" in data["delta"]
            assert isinstance(data["usage"]["output_tokens"], int)
        elif name == "message_stop":
            assert stop_reason is not None and position == len(events) - 1
        elif name == "ping":
            pass
        elif name == "error":
            assert position == len(events) - 1
            assert data["error"]["type"] and data["error"]["message"]
        else:
            raise AssertionError(f"unknown event {name}")
    if stop_reason is not None:
        if any(b["type"] == "tool_use" for b in blocks) and stop_reason not in (
            "max_tokens",
            "refusal",
        ):
            assert stop_reason == "tool_use"
        if stop_reason != "max_tokens":
            for parts in json_parts.values():
                if parts:
                    orjson.loads("".join(parts))  # accumulated input is valid JSON


@dataclass
class CheckedApp:
    """Wraps the app under test; every event stream it sends is checked when it ends."""

    app: ASGIApp
    streams: list[list[tuple[str, dict[str, Any]]]] = field(default_factory=list)

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
        # Checked once the app returned: an assertion raised inside ``send`` would look like a
        # client disconnect to the app under test.
        if is_sse:
            events = parse_sse(bytes(raw))
            check_events(events)
            self.streams.append(events)


# --- calling the app ------------------------------------------------------------------------


@dataclass
class Response:
    status: int
    headers: dict[bytes, bytes]
    body: bytes
    times: list[float]  # when each body message was sent (anyio clock)

    def json(self) -> Any:
        return orjson.loads(self.body)

    def events(self) -> list[tuple[str, dict[str, Any]]]:
        return parse_sse(self.body)


async def request(
    app: ASGIApp,
    doc: Any,
    path: str = "/v1/messages",
    *,
    headers: Sequence[tuple[bytes, bytes]] = (),
    method: str = "POST",
    query: bytes = b"",
    raw: bytes | None = None,
    parts: int = 1,
    checked: Callable[[ASGIApp], ASGIApp] | None = None,
) -> Response:
    """Call the app directly (no HTTP client) and record what it sends, with timestamps.

    Every SSE stream goes through ``checked`` (default: the Anthropic invariant checker)."""
    body = raw if raw is not None else orjson.dumps(doc)
    size = -(-len(body) // parts) if body else 0
    pieces = [body[i : i + size] for i in range(0, len(body), size)] if size else [b""]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query,
        "headers": [(b"host", b"test"), (b"content-type", b"application/json"), *headers],
        "client": ("127.0.0.1", 1),
        "server": ("test", 80),
    }
    sent: list[Message] = []
    times: list[float] = []
    remaining = list(pieces)

    async def receive() -> Message:
        if remaining:
            piece = remaining.pop(0)
            return {"type": "http.request", "body": piece, "more_body": bool(remaining)}
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def send(message: Message) -> None:
        sent.append(message)
        if message["type"] == "http.response.body":
            times.append(anyio.current_time())

    await (checked or CheckedApp)(app)(scope, receive, send)
    start = sent[0]
    assert start["type"] == "http.response.start"
    assert sent[-1]["type"] == "http.response.body" and not sent[-1].get("more_body", False), sent[
        -3:
    ]
    body_out = b"".join(m.get("body", b"") for m in sent[1:])
    return Response(start["status"], dict(start.get("headers", ())), body_out, times)


async def drive(
    app: ASGIApp,
    doc: Any,
    send: Send,
    path: str = "/v1/messages",
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    """Call ``app`` with one POST of ``doc`` and a caller-supplied ``send`` (the client side)."""
    pending = [{"type": "http.request", "body": orjson.dumps(doc), "more_body": False}]

    async def receive() -> Message:
        if pending:
            return pending.pop()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "headers": headers or [],
        "query_string": b"",
    }
    await app(scope, receive, send)


def sdk_client(app: ASGIApp, checked: bool = True) -> anthropic.AsyncAnthropic:
    """The official SDK against ``app`` (wrapped in the invariant checker), no retries."""
    transport = httpx2.ASGITransport(app=CheckedApp(app) if checked else app)
    return anthropic.AsyncAnthropic(
        api_key="test-key",
        base_url="http://test",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=transport, base_url="http://test"),
    )


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def base_request(**extra: Any) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-6", "max_tokens": 256, "messages": [user("hi")], **extra}
