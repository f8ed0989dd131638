"""``mode="buffered"``: text streams at once, each call leaves whole at the end of its choice."""

from __future__ import annotations

from typing import Any

import anyio
import orjson
import pytest

from helpers import body_app, chunk, request_json, sse, through
from native_support import client_view, gated_upstream
from toolcall_middleware import ConfigError, Options, ToolCallMiddleware
from toolcall_middleware.asgi import Message, Scope
from toolcall_middleware.completion import chunks_from_sse, completion_from_sse

pytestmark = pytest.mark.anyio

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"


def native(index: int, **fields: Any) -> dict[str, Any]:
    return chunk({"tool_calls": [{"index": index, **fields}]}, model="gpt-4.1")


async def test_content_streams_while_calls_are_held_until_the_choice_ends() -> None:
    gate = anyio.Event()
    head = sse(
        chunk({"role": "assistant", "content": "Checking "}, model="gpt-4.1"),
        native(
            0,
            id="call_a",
            type="function",
            function={"name": "get_weather", "arguments": '{"city": '},
        ),
        chunk({"content": "the weather."}, model="gpt-4.1"),
    )
    tail = sse(
        native(0, function={"arguments": '"Paris"}'}),
        chunk({}, "tool_calls", model="gpt-4.1"),
        "[DONE]",
    )
    received = bytearray()
    text_seen = anyio.Event()

    async def send(message: Message) -> None:
        received.extend(message.get("body", b""))
        if b"the weather." in received:
            text_seen.set()

    async def receive() -> Message:
        return {
            "type": "http.request",
            "body": request_json("gpt-4.1", ("get_weather",)),
            "more_body": False,
        }

    scope: Scope = {"type": "http", "method": "POST", "path": "/v1/chat/completions"}
    app = ToolCallMiddleware(gated_upstream(head, tail, gate), mode="buffered", metrics=False)
    async with anyio.create_task_group() as tg:
        tg.start_soon(app, scope, receive, send)
        with anyio.fail_after(5):
            await text_seen.wait()
        assert b"tool_calls" not in received  # the call is still open upstream: held
        gate.set()
    chunks = list(chunks_from_sse(bytes(received)))
    entries = [e for c in chunks for ch in c["choices"] for e in ch["delta"].get("tool_calls", ())]
    assert len(entries) == 1
    assert client_view(entries) == [("call_a", "get_weather", '{"city": "Paris"}')]
    assert (
        completion_from_sse(bytes(received))["choices"][0]["message"]["content"]
        == "Checking the weather."
    )


async def test_calls_leave_at_the_end_of_a_stream_without_a_finish_reason() -> None:
    body = sse(
        native(0, id="call_x", type="function", function={"name": "get_time", "arguments": "{}"}),
        "[DONE]",
    )
    app = ToolCallMiddleware(body_app([body]), mode="buffered", metrics=False)
    out = await through(app, request_json("gpt-4.1", ("get_time",)))
    assert out.endswith(b"data: [DONE]\n\n")
    entries = [
        e
        for c in chunks_from_sse(out)
        for ch in c["choices"]
        for e in ch["delta"].get("tool_calls", ())
    ]
    assert client_view(entries) == [("call_x", "get_time", "{}")]


async def test_kimi_markup_calls_are_buffered_too_and_text_around_them_streams() -> None:
    pieces = [
        f"Let me look.{SB}{CB}functions.bash:0{AB}",
        '{"command": ',
        '"ls"}',
        f"{CE}{SE}",
        " Done.",
    ]
    body = sse(*(chunk({"content": p}) for p in pieces), chunk({}, "stop"), "[DONE]")
    out = await through(
        ToolCallMiddleware(body_app([body]), mode="buffered", metrics=False), request_json()
    )
    chunks = list(chunks_from_sse(out))
    deltas = [ch["delta"] for c in chunks for ch in c["choices"]]
    call_at = next(i for i, d in enumerate(deltas) if "tool_calls" in d)
    assert "".join(d.get("content") or "" for d in deltas[:call_at]) == "Let me look. Done."
    assert client_view(deltas[call_at]["tool_calls"]) == [
        ("functions.bash:0", "bash", '{"command": "ls"}')
    ]
    finish = [ch for c in chunks for ch in c["choices"] if ch["finish_reason"]]
    assert finish == [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]


async def test_each_choice_releases_its_calls_at_its_own_finish() -> None:
    def c(index: int, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return chunk(delta, finish, index=index, model="gpt-4.1")

    def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
        return {
            "tool_calls": [
                {"index": 0, "id": call_id, "function": {"name": name, "arguments": arguments}}
            ]
        }

    body = sse(
        c(0, call("a0", "f", "{}")),
        c(1, call("b0", "g", "{")),
        c(0, {}, "tool_calls"),
        c(1, {"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]}),
        c(1, {}, "stop"),
        "[DONE]",
    )
    out = await through(
        ToolCallMiddleware(body_app([body]), mode="buffered", metrics=False),
        request_json("gpt-4.1", ("f", "g")),
    )
    chunks = list(chunks_from_sse(out))
    order = [
        (ch["index"], "call" if ch["delta"].get("tool_calls") else ch["finish_reason"])
        for c in chunks
        for ch in c["choices"]
    ]
    assert order == [(0, "call"), (0, "tool_calls"), (1, "call"), (1, "tool_calls")]
    completion = completion_from_sse(out)
    assert [
        [(t["id"], t["function"]["arguments"]) for t in ch["message"]["tool_calls"]]
        for ch in completion["choices"]
    ] == [[("a0", "{}")], [("b0", "{}")]]


async def test_buffered_non_streaming_response_checks_arguments() -> None:
    completion = {
        "id": "x",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4.1",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "not json"},
                        }
                    ],
                },
            }
        ],
    }
    app = ToolCallMiddleware(
        body_app([orjson.dumps(completion)], headers=[(b"content-type", b"application/json")]),
        mode="buffered",
        metrics=False,
    )
    out = orjson.loads(await through(app, request_json("gpt-4.1", ("f",), stream=False)))
    choice = out["choices"][0]
    assert choice["message"]["tool_calls"] == [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "f", "arguments": '{"input":"not json"}'},
        }
    ]
    assert choice["finish_reason"] == "tool_calls"


def test_mode_and_limits_come_from_options_and_the_environment() -> None:
    env = {
        "TOOLCALL_MODE": "buffered",
        "TOOLCALL_MAX_HELD_BYTES": "2048",
        "TOOLCALL_MAX_BUFFERED_BYTES": "65536",
        "TOOL_CALL_DEBUG_MAX": "17",
        "TOOLCALL_METRICS": "false",
        "TOOLCALL_ADMIN_KEY": "s3cret",
    }
    options = Options.from_env(env)
    assert (options.mode, options.max_held_bytes, options.max_buffered_bytes) == (
        "buffered",
        2048,
        65536,
    )
    assert (options.debug_max, options.metrics, options.admin_key) == (17, False, "s3cret")
    assert "s3cret" not in repr(options)
    assert Options.from_env({**env, "TOOLCALL_DEBUG_MAX": "5"}).debug_max == 5
    assert Options.from_env(env, mode="stream").mode == "stream"
    with pytest.raises(ConfigError, match="mode"):
        Options(mode="batch")
    with pytest.raises(ConfigError, match="max_held_bytes"):
        Options(max_held_bytes=0)
    with pytest.raises(ConfigError, match="TOOLCALL_MAX_BUFFERED_BYTES"):
        Options.from_env({"TOOLCALL_MAX_BUFFERED_BYTES": "lots"})


async def test_when_every_call_is_dropped_the_finish_reason_becomes_stop() -> None:
    body = sse(
        chunk({"content": "Hmm."}, model="gpt-4.1"),
        native(0, id="c", type="function", function={"name": "f"}),  # no arguments
        chunk({}, "tool_calls", model="gpt-4.1"),
        "[DONE]",
    )
    app = ToolCallMiddleware(body_app([body]), "openai", mode="buffered", metrics=False)
    completion = completion_from_sse(await through(app, request_json("gpt-4.1", ("f",))))
    assert completion["choices"][0]["finish_reason"] == "stop"
    assert "tool_calls" not in completion["choices"][0]["message"]
    message = {
        "role": "assistant",
        "content": "Hmm.",
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f"}}],
    }
    json_app = ToolCallMiddleware(
        body_app(
            [
                orjson.dumps(
                    {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}
                )
            ],
            headers=[(b"content-type", b"application/json")],
        ),
        "openai",
        mode="buffered",
        metrics=False,
    )
    out = orjson.loads(await through(json_app, request_json("gpt-4.1", ("f",), stream=False)))
    assert out["choices"][0]["finish_reason"] == "stop"
    assert "tool_calls" not in out["choices"][0]["message"]
