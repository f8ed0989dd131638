"""Upstream text that is not UTF-8 (``fronts/core/undecoded.py``): a character cut between two
events is joined, each byte that is truly not UTF-8 becomes U+FFFD and is counted, and no piece
of text or arguments is dropped, on every front, streamed and not; the chat path forwards such
events byte for byte."""

from __future__ import annotations

import itertools
import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry

from anthropic_api.helpers import Reply, ScriptedApp, call_delta, chunk, json_reply
from helpers import request_json, sdk_client, through
from toolcall_middleware import (
    AnthropicMiddleware,
    GeminiMiddleware,
    ResponsesMiddleware,
    ToolCallMiddleware,
)
from toolcall_middleware.asgi import ASGIApp
from toolcall_middleware.fronts.core import events as core
from toolcall_middleware.fronts.core.reader import ChatReader
from toolcall_middleware.fronts.core.undecoded import decode_chunk
from toolcall_middleware.metrics import Metrics

from .clients import FRONTS, seen

pytestmark = pytest.mark.anyio

HEAD = b'{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'


def event(delta: bytes, finish: bytes = b"null") -> bytes:
    """One SSE event whose delta is written as raw bytes (any bytes at all)."""
    return b"data: " + HEAD + b'"delta":' + delta + b',"finish_reason":' + finish + b"}]}\n\n"


def arguments(piece: bytes) -> bytes:
    return b'{"tool_calls":[{"index":0,"function":{"arguments":"' + piece + b'"}}]}'


def text(field: str, piece: bytes) -> bytes:
    return b'{"' + field.encode() + b'":"' + piece + b'"}'


CALL_HEADER = (
    b"data: " + orjson.dumps(chunk(call_delta(0, id="call_1", name="bash", args=""))) + b"\n\n"
)
FINISH = b"data: " + orjson.dumps(chunk(None, "stop")) + b"\n\n"
#: The issue's example: the middle piece is Latin-1 ("é" as the one byte E9).
LATIN1_ARGUMENTS = [
    CALL_HEADER,
    event(arguments(b'{\\"command\\": \\"rm -rf /srv/cache/')),
    event(arguments(b"caf\xe9-old")),
    event(arguments(b'\\"}')),
    FINISH,
    b"data: [DONE]\n\n",
]
REPLACED_COMMAND = "rm -rf /srv/cache/caf\ufffd-old"


def upstream(events: list[bytes], chat_path: bool) -> ASGIApp:
    app = ScriptedApp([Reply(200, events)])
    return ToolCallMiddleware(app, metrics=False) if chat_path else app


@pytest.mark.parametrize("chat_path", [False, True], ids=["alone", "on-the-chat-path"])
@pytest.mark.parametrize("api", FRONTS)
async def test_latin1_arguments_keep_every_piece(api: str, chat_path: bool) -> None:
    result = await seen(api, upstream(LATIN1_ARGUMENTS, chat_path))
    ((name, args),) = result.calls
    command = orjson.loads(args)["command"] if isinstance(args, str) else args["command"]
    assert (name, command, result.error) == ("bash", REPLACED_COMMAND, None)


@pytest.mark.parametrize("api", FRONTS)
async def test_latin1_in_a_whole_body(api: str) -> None:
    message = {
        "role": "assistant",
        "content": "déjà vu",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": "bash",
                    "arguments": '{"command": "rm -rf /srv/cache/café-old"}',
                },
            }
        ],
    }
    doc = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }
    reply = json_reply(None)
    reply.body = [json.dumps(doc, ensure_ascii=False).encode("latin-1")]
    result = await seen(api, ToolCallMiddleware(ScriptedApp([reply]), metrics=False), stream=False)
    ((_, args),) = result.calls
    command = orjson.loads(args)["command"] if isinstance(args, str) else args["command"]
    assert command == REPLACED_COMMAND
    assert result.text == "d\ufffdj\ufffd vu"


EMOJI = "🙂".encode()  # four bytes


@pytest.mark.parametrize("cut", [1, 2, 3])
@pytest.mark.parametrize(
    ("field", "chat_path"),
    [("content", True), ("reasoning_content", True), ("content", False), ("arguments", False)],
)
@pytest.mark.parametrize("api", FRONTS)
async def test_a_character_cut_between_events_is_joined(
    api: str, field: str, chat_path: bool, cut: int
) -> None:
    first, second = b"ok " + EMOJI[:cut], EMOJI[cut:] + b" done"
    if field == "arguments":
        pieces = [arguments(b'{\\"command\\": \\"' + first), arguments(second + b'\\"}')]
        events = [CALL_HEADER, *(event(p) for p in pieces)]
    else:
        events = [event(text(field, first)), event(text(field, second))]
    result = await seen(api, upstream([*events, FINISH, b"data: [DONE]\n\n"], chat_path))
    expected = "ok 🙂 done"
    if field == "arguments":
        ((_, args),) = result.calls
        got = orjson.loads(args)["command"] if isinstance(args, str) else args["command"]
    else:
        got = result.text if field == "content" else result.reasoning
    assert (got, result.error) == (expected, None)


async def test_bytes_held_for_a_channel_end_before_other_text_and_the_finish() -> None:
    # A lead byte, then valid text of another channel, then more of its own channel, then a
    # call: each held byte becomes U+FFFD where its channel ended, in order.
    events = [
        event(text("content", b"a\xc3")),
        event(text("reasoning_content", b"think")),
        event(text("content", b"b\xe2\x82")),
        CALL_HEADER,
        event(arguments(b'{\\"command\\": \\"x\xf0\x9f')),
        FINISH,
        b"data: [DONE]\n\n",
    ]
    result = await seen("responses", upstream(events, chat_path=False))
    assert result.text == "a\ufffdb\ufffd\ufffd"
    assert result.reasoning == "think"
    ((_, args),) = result.calls
    assert args.startswith('{"command": "x\ufffd')


async def test_replaced_bytes_are_counted_per_api() -> None:
    registry = CollectorRegistry()
    metrics = Metrics(registry)
    fronts = {
        "responses": lambda app: ResponsesMiddleware(app, metrics=metrics),
        "anthropic": lambda app: AnthropicMiddleware(app, metrics=metrics),
        "gemini": lambda app: GeminiMiddleware(app, metrics=metrics),
    }
    for api, front in fronts.items():
        await seen(api, upstream(LATIN1_ARGUMENTS, chat_path=True), front=front)
        count = registry.get_sample_value("toolcall_invalid_utf8_bytes_total", {"api": api})
        assert count == 1, api


async def test_the_chat_path_forwards_such_events_byte_for_byte() -> None:
    events = [event(text("content", b"caf\xe9 ")), event(text("content", b"\xf0\x9f")), FINISH]
    app = ToolCallMiddleware(ScriptedApp([Reply(200, events)]), provider="hermes", metrics=False)
    body = await through(app, request_json(model="m"))
    assert events[0] in body and events[1] in body


# --- the reader, sans I/O: any cut of the bytes gives the same text ---------------------------

SAMPLES = ["café ", "日本語", "🙂👍", "plain ", "ß\u2028", "\\", '"']
BAD = [b"\xe9", b"\xc3", b"\xff", b"\xe2\x82", b"\xf0\x9f\x99", b"\x80", b"\xed\xa0\x80"]


@st.composite
def byte_streams(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    """Text of good and bad bytes, and where to cut it into events."""
    parts = draw(
        st.lists(
            st.one_of(st.sampled_from(SAMPLES).map(str.encode), st.sampled_from(BAD)), max_size=8
        )
    )
    data = b"".join(parts)
    cuts = draw(st.lists(st.integers(0, len(data)), max_size=6))
    return data, cuts


def escaped(data: bytes) -> bytes:
    """Bytes as they sit inside a JSON string (only the two characters JSON must escape)."""
    return data.replace(b"\\", b"\\\\").replace(b'"', b'\\"')


def read_text(field: str, data: bytes, cuts: list[int]) -> tuple[str, int]:
    reader = ChatReader(lambda: "id")
    bounds = sorted({0, len(data), *cuts})
    out: list[Any] = []
    for start, end in itertools.pairwise(bounds):
        raw = event(text(field, escaped(data[start:end])))
        out += reader.feed(decode_chunk(raw[6:-2]))
    out += reader.feed(decode_chunk(FINISH[6:-2])) + reader.finish()
    assert isinstance(out[-1], core.Finish)
    texts = [e.text for e in out if isinstance(e, (core.TextDelta, core.ReasoningDelta))]
    return "".join(texts), reader.replaced_bytes


@settings(max_examples=60, deadline=None)
@given(byte_streams(), st.sampled_from(["content", "reasoning_content", "refusal"]))
def test_any_cut_of_the_bytes_reads_the_same_text(
    stream: tuple[bytes, list[int]], field: str
) -> None:
    data, cuts = stream
    whole, replaced = read_text(field, data, [])
    assert read_text(field, data, cuts) == (whole, replaced)
    # Exactly what a decoder of the whole bytes reads, each bad byte as U+FFFD.
    expected = data.decode("utf-8", "surrogateescape")
    assert whole == "".join("\ufffd" if "\udc80" <= c <= "\udcff" else c for c in expected)
    assert replaced == sum("\udc80" <= c <= "\udcff" for c in expected)


async def test_the_openai_sdk_itself_cannot_read_such_a_stream() -> None:
    # Why the fronts decode: a client library reads the bytes strictly (openai raises), so a
    # front that forwarded them would break its client; the chat path forwards them as they
    # came (above), as the OpenAI-compatible server sent them.
    events = [event(text("content", b"caf\xe9")), FINISH, b"data: [DONE]\n\n"]
    client = sdk_client(ScriptedApp([Reply(200, events)]))
    with pytest.raises(UnicodeDecodeError):
        async for _ in await client.chat.completions.create(model="m", messages=[], stream=True):
            pass
