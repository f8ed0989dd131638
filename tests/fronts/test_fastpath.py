"""The fronts' fast path against its one rule (``fronts/core/fast_path.py``): it yields exactly
the bytes the general path would, or declines. Every front is driven through a real
``FrontResponder`` with the same upstream stream twice, fast path on and off, and must send the
same bytes; the streams are hostile (non-canonical JSON, changing ids, usage, finishes,
escapes, raw U+2028, line breaks inside an event, huge strings, reads cut anywhere)."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

import anyio
import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from toolcall_middleware import (
    AnthropicMiddleware,
    GeminiMiddleware,
    ResponsesMiddleware,
    ToolCallMiddleware,
    handoff,
)
from toolcall_middleware.asgi import ASGIApp, Message, Receive, Scope, Send
from toolcall_middleware.fronts.anthropic.middleware import AnthropicStream
from toolcall_middleware.fronts.anthropic.options import AnthropicOptions
from toolcall_middleware.fronts.anthropic.request import translate_request as anthropic_request
from toolcall_middleware.fronts.core import fast_path as fastpath
from toolcall_middleware.fronts.core.reader import ChatReader
from toolcall_middleware.fronts.core.responder import FrontResponder
from toolcall_middleware.fronts.core.translator import EventStream
from toolcall_middleware.fronts.core.wire import SSE_HEADERS
from toolcall_middleware.fronts.gemini import GeminiStream
from toolcall_middleware.fronts.gemini import translate_request as gemini_request
from toolcall_middleware.fronts.responses import stream as responses_stream
from toolcall_middleware.fronts.responses.middleware import ResponsesStream
from toolcall_middleware.fronts.responses.options import ResponsesOptions
from toolcall_middleware.fronts.responses.request import RequestOptions
from toolcall_middleware.fronts.responses.request import translate_request as responses_request

from .asgi import call
from .hostile import handed_as_the_chat_path_hands, upstream_bodies

LOGS = Path(__file__).resolve().parents[2] / "sse_logs"


# --- the fronts, deterministic ---------------------------------------------------------------


@contextlib.contextmanager
def deterministic() -> Iterator[None]:
    """Ids and times as the same values in every run (both paths must make the same ones)."""
    counter = itertools.count()
    clock = SimpleNamespace(time=lambda: 1_700_000_000.0)
    with (
        mock.patch("secrets.token_hex", lambda n=16: f"{next(counter):0{2 * n}x}"),
        mock.patch("secrets.choice", lambda seq: seq[next(counter) % len(seq)]),
        mock.patch.object(responses_stream, "time", clock),
    ):
        yield


SHELL = {"type": "object", "properties": {"cmd": {"type": "string"}}}


def responses_front(reasoning_as: str, **options: Any) -> EventStream:
    doc = {
        "model": "m",
        "stream": True,
        "input": "go",
        "tools": [
            {"type": "function", "name": "shell", "parameters": SHELL},
            {"type": "custom", "name": "apply_patch"},
            {"type": "namespace", "name": "mcp", "tools": [{"type": "function", "name": "run"}]},
        ],
    }
    built = ResponsesOptions.build(reasoning_as=reasoning_as, **options)
    return ResponsesStream(responses_request(doc, RequestOptions()), built)


def anthropic_front(buffer_tool_input: bool, **options: Any) -> EventStream:
    doc = {
        "model": "m",
        "stream": True,
        "max_tokens": 10,
        "stop_sequences": ["END"],
        "messages": [{"role": "user", "content": "go"}],
        "tools": [{"name": "shell", "input_schema": SHELL}],
    }
    built = AnthropicOptions.build(**options)
    return AnthropicStream(anthropic_request(doc, built.request), built, buffer_tool_input)


def gemini_front(thoughts: bool) -> GeminiStream:
    config = {"thinkingConfig": {"includeThoughts": thoughts}}
    doc = {
        "contents": [{"parts": [{"text": "go"}]}],
        "generationConfig": config,
        "tools": [{"functionDeclarations": [{"name": "shell", "parameters": SHELL}]}],
    }
    return GeminiStream(gemini_request(doc, "m", stream=True), "sse")


FRONTS: dict[str, Callable[[], Any]] = {
    "responses": lambda: responses_front("content"),
    "responses-summary": lambda: responses_front("summary"),
    "anthropic-streamed": lambda: anthropic_front(False),
    "anthropic-buffered": lambda: anthropic_front(True),
    # Limits small enough for the streams to reach them (arguments, the whole answer).
    "responses-small": lambda: responses_front("content", max_upstream_bytes=40),
    "anthropic-small": lambda: anthropic_front(False, max_upstream_bytes=40),
    "gemini": lambda: gemini_front(True),
    "gemini-no-thoughts": lambda: gemini_front(False),
}


def sse_app(pieces: list[bytes], hand: bool = False, last: bool = False) -> ASGIApp:
    """An upstream that sends these pieces of body; ``hand``: with what a chat path in the
    same process hands of each (``handoff.py``); ``last``: the last piece is the last body
    message (no empty body after it)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        for i, piece in enumerate(pieces):
            more = not last or i < len(pieces) - 1
            message = {"type": "http.response.body", "body": piece, "more_body": more}
            handed = handed_as_the_chat_path_hands(piece) if hand else None
            if handed is not None:
                message[handoff.KEY] = handed
            await send(message)
        if not last:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


async def _never() -> Message:
    await anyio.sleep_forever()
    raise AssertionError


def respond(
    front: str, pieces: list[bytes], fast: bool, hand: bool = False, last: bool = False
) -> bytes:
    """What the front sends its client for this upstream body, the fast path on or off
    (``hand``, ``last``: see ``sse_app``)."""
    sent: list[bytes] = []

    async def send(message: Message) -> None:
        sent.append(message.get("body", b""))

    async def main() -> None:
        stream = FRONTS[front]()
        assert (stream.fast_event is not None) is fast
        responder = FrontResponder(send, stream, max_upstream_bytes=1 << 22)
        await responder.run(sse_app(pieces, hand, last), {"type": "http"}, _never)

    with deterministic(), mock.patch.object(fastpath, "enabled", fast):
        anyio.run(main)
    return b"".join(sent)


@pytest.mark.parametrize("front", sorted(FRONTS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=upstream_bodies())
def test_the_fast_path_sends_exactly_what_the_general_path_sends(
    front: str, pieces: list[bytes]
) -> None:
    assert respond(front, pieces, fast=True) == respond(front, pieces, fast=False)


@pytest.mark.parametrize("front", sorted(FRONTS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=upstream_bodies())
def test_the_fast_path_sends_what_the_general_path_sends_from_handed_readings(
    front: str, pieces: list[bytes]
) -> None:
    # As a chat path in the same process hands them: texts, and pieces of a call's arguments
    # as their call index and text.
    assert respond(front, pieces, fast=True, hand=True) == respond(front, pieces, fast=False)


@pytest.mark.parametrize("front", sorted(FRONTS))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=upstream_bodies())
def test_a_reading_handed_with_the_last_body_gives_what_the_general_path_gives(
    front: str, pieces: list[bytes]
) -> None:
    # The chat path hands readings only with bodies that are not the last, but a reading
    # that comes with the last one (which the responder then takes on its hot path) still
    # ends the answer as the general path does.
    pieces = [*pieces, event({"content": "end"})]
    assert respond(front, pieces, fast=True, hand=True, last=True) == respond(
        front, pieces, fast=False, last=True
    )


KEEPALIVE = b": keepalive\n\n"


def test_a_keep_alive_being_sent_holds_the_fast_paths_writes() -> None:
    # One write at a time: an event that comes while a keep-alive is being written waits
    # for it, then goes out whole, on the fast path or not.
    pieces = [event({"content": f" w{i}"}) for i in range(40)]
    pieces += [event({}, "stop"), b"data: [DONE]\n\n"]
    sent: list[bytes] = []
    overlaps = 0
    writing = False

    async def send(message: Message) -> None:
        nonlocal writing, overlaps
        overlaps += writing
        writing = True
        body = message.get("body", b"")
        sent.append(body)
        if body == KEEPALIVE:
            await anyio.sleep(0.03)  # a slow write
        writing = False

    async def upstream(scope: Scope, receive: Receive, send: Send) -> None:
        start = {"type": "http.response.start", "status": 200, "headers": SSE_HEADERS}
        await send(start)
        for i, piece in enumerate(pieces):
            await send({"type": "http.response.body", "body": piece, "more_body": True})
            if i % 10 == 9:
                await anyio.sleep(0.02)  # quiet long enough for a keep-alive
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def main() -> None:
        stream = FRONTS["responses"]()
        assert stream.fast_event is not None
        responder = FrontResponder(send, stream, keepalive=KEEPALIVE, keepalive_interval=0.01)
        await responder.run(upstream, {"type": "http"}, _never)

    with deterministic():
        anyio.run(main)
    assert overlaps == 0
    assert sent.count(KEEPALIVE) >= 2
    events = b"".join(body for body in sent if body != KEEPALIVE)
    assert events == respond("responses", pieces, fast=False)


# --- through the chat path, on the recordings ------------------------------------------------


def _drive(app: ASGIApp, path: str, doc: dict[str, Any], fast: bool) -> bytes:
    with deterministic(), mock.patch.object(fastpath, "enabled", fast):
        sent = anyio.run(call, app, path, [orjson.dumps(doc)])
    return b"".join(m.get("body", b"") for m in sent)


def _log_app(body: bytes) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        await sse_app([e + b"\n\n" for e in body.split(b"\n\n") if e.strip()])(scope, receive, send)

    return app


STREAM_LOGS = sorted(p for p in LOGS.glob("*.log") if b"data:" in p.read_bytes())


@pytest.mark.parametrize("log", STREAM_LOGS, ids=lambda p: p.stem)
def test_recordings_through_the_chat_path_give_the_same_bytes_either_way(log: Path) -> None:
    chat = ToolCallMiddleware(_log_app(log.read_bytes()), metrics=False)
    tools = [
        {"name": n, "parameters": {"type": "object"}}
        for n in ("bash", "get_weather", "shell", "read_file", "search")
    ]
    requests = [
        (
            ResponsesMiddleware(chat),
            "/v1/responses",
            {
                "model": log.stem,
                "stream": True,
                "input": "go",
                "tools": [{"type": "function", **t} for t in tools],
            },
        ),
        (
            AnthropicMiddleware(chat),
            "/v1/messages",
            {
                "model": log.stem,
                "stream": True,
                "max_tokens": 100,
                "messages": [{"role": "user", "content": "go"}],
                "tools": [{"name": t["name"], "input_schema": t["parameters"]} for t in tools],
            },
        ),
        (
            GeminiMiddleware(chat),
            f"/v1beta/models/{log.stem}:streamGenerateContent",
            {
                "contents": [{"parts": [{"text": "go"}]}],
                "generationConfig": {"thinkingConfig": {"includeThoughts": True}},
                "tools": [
                    {
                        "functionDeclarations": [
                            {"name": t["name"], "parameters": t["parameters"]} for t in tools
                        ]
                    }
                ],
            },
        ),
    ]
    for app, path, doc in requests:
        assert _drive(app, path, doc, fast=True) == _drive(app, path, doc, fast=False)


def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
    return (
        b"data: "
        + orjson.dumps(
            {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "m",
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
            }
        )
        + b"\n\n"
    )


def call_stream(index: int, pieces: list[bytes]) -> list[bytes]:
    start = {
        "index": index,
        "id": "call_1",
        "type": "function",
        "function": {"name": "shell", "arguments": ""},
    }
    return [
        event({"content": "a"}),
        event({"content": "b"}),
        event({"tool_calls": [start]}),
        *pieces,
        event({}, "tool_calls"),
        b"data: [DONE]\n\n",
    ]


@pytest.mark.parametrize("size", [1, 9, 41])
def test_handed_pieces_past_the_limits_take_the_general_path(size: int) -> None:
    # The "-small" fronts cap arguments and the whole answer at 40 characters: handed pieces
    # count toward both exactly as decoded ones do.
    piece = event({"tool_calls": [{"index": 0, "function": {"arguments": "x" * size}}]})
    pieces = call_stream(0, [piece] * (80 // size + 2))
    for front in FRONTS:
        assert respond(front, pieces, fast=True, hand=True) == respond(front, pieces, fast=False)


@pytest.mark.parametrize("index", [0, 7, 600])
@pytest.mark.parametrize(
    "written", [b"0%d", b"%d.0", b"%de0", b" %d", b"%d ", b"-%d", b"+%d", b"%d", b'"%d"']
)
def test_call_indexes_as_json_does_not_write_them_take_the_general_path(
    index: int, written: bytes
) -> None:
    args = event({"tool_calls": [{"index": index, "function": {"arguments": '{"cmd": 1}'}}]})
    odd = args.replace(b'"index":%d' % index, b'"index":' + written % index)
    pieces = call_stream(index, [args, odd, args])
    for front in FRONTS:
        assert respond(front, pieces, fast=True) == respond(front, pieces, fast=False)


@pytest.mark.parametrize("space", [b"\n", b"\r", b"\r\n", b" ", b"\t"])
@pytest.mark.parametrize(
    "members",
    [
        b'"content":"x"',
        b'"reasoning":"x","reasoning_content":"x"',
        b'"tool_calls":[{"index":0,"function":{"arguments":"x"}}]',
    ],
)
def test_whitespace_around_a_value_takes_the_general_path(space: bytes, members: bytes) -> None:
    # JSON allows it, but a line break would also end an SSE line: the event is not one.
    head, tail = event({"content": "a"}).split(b'"content":"a"')
    usual = head + members + tail
    at = members.index(b'"x"')
    odd = [
        head + members[:at] + space + members[at:] + tail,
        head + members[: at + 3] + space + members[at + 3 :] + tail,
    ]
    pieces = [usual, *odd, usual]
    if b"tool_calls" in members:
        pieces = call_stream(0, pieces)
    for front in FRONTS:
        assert respond(front, pieces, fast=True) == respond(front, pieces, fast=False)


def test_a_canonical_stream_is_read_and_written_on_the_fast_path() -> None:
    # The rule holds trivially if the fast path never runs: show that it does, for nearly
    # every event of a usual stream.
    words = [f" w{i}" for i in range(30)]
    pieces = [event({"reasoning": w, "reasoning_content": w}) for w in words]
    pieces.append(
        event(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "shell", "arguments": ""},
                    }
                ]
            }
        )
    )
    pieces += [
        event({"tool_calls": [{"index": 0, "function": {"arguments": p}}]})
        for p in ['{"cmd":', ' "ls', " -la", '"}']
    ]
    pieces += [event({"content": w}) for w in words] + [event({}, "stop"), b"data: [DONE]\n\n"]
    read_fast = ChatReader.read_fast
    fast_reads: list[bool] = []
    fast_writes: list[bool] = []

    def spy(self: ChatReader, body: bytes) -> tuple[int, str] | None:
        found = read_fast(self, body)
        fast_reads.append(found is not None)
        return found

    for front in (f for f in FRONTS if not f.endswith("-small")):
        translator = getattr(FRONTS[front](), "translator", None)
        fast_reads.clear()
        fast_writes.clear()
        with contextlib.ExitStack() as spies:
            spies.enter_context(mock.patch.object(ChatReader, "read_fast", spy))
            if translator is not None:  # a front that renders its own deltas
                fast_delta = type(translator).fast_delta

                def delta_spy(self: Any, kind: int, text: str) -> bytes | None:
                    data = fast_delta(self, kind, text)  # noqa: B023 (used in this iteration)
                    fast_writes.append(data is not None)
                    return data

                spies.enter_context(mock.patch.object(type(translator), "fast_delta", delta_spy))
            out = respond(front, pieces, fast=True)
        assert out == respond(front, pieces, fast=False)
        # All but the first of each kind (the template, a new block or item) go fast, and
        # a front with templates writes them from its templates.
        assert fast_reads.count(True) >= len(pieces) - 6, (front, fast_reads)
        if translator is not None:
            assert fast_writes.count(True) >= len(pieces) - 8, (front, fast_writes)
