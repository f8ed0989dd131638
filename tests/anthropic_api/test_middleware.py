"""The ASGI layer, driven directly (no HTTP client): routing, the upstream request, streaming,
error mapping before and after the stream starts, pings, disconnects, options."""

from __future__ import annotations

from typing import Any

import anyio
import orjson
import pytest

from toolcall_middleware.config import ConfigError
from toolcall_middleware.fronts.anthropic import AnthropicMiddleware

from .helpers import (
    USAGE,
    Message,
    Reply,
    ScriptedApp,
    base_request,
    call_delta,
    chunk,
    drive,
    json_reply,
    request,
    stream_reply,
    user,
)

pytestmark = pytest.mark.anyio

HELLO = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": "Hello"}),
    chunk(None, "stop"),
    chunk(usage=USAGE),
]


def completion(content: str = "Hello", **message: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, **message},
                "finish_reason": "stop",
            }
        ],
        "usage": USAGE,
    }


async def test_streaming_request_reaches_the_upstream_as_chat_completions() -> None:
    upstream = ScriptedApp([stream_reply(HELLO)])
    headers = [
        (b"x-api-key", b"sk-test"),
        (b"anthropic-version", b"2023-06-01"),
        (b"anthropic-beta", b"x"),
        (b"x-custom", b"kept"),
        (b"accept-encoding", b"gzip"),
    ]
    response = await request(
        AnthropicMiddleware(upstream),
        base_request(stream=True),
        query=b"beta=true",
        headers=headers,
    )
    assert response.status == 200
    assert response.headers[b"content-type"].startswith(b"text/event-stream")
    assert b"content-length" not in response.headers
    ((scope, body),) = upstream.calls
    assert (scope["method"], scope["path"], scope["raw_path"], scope["query_string"]) == (
        "POST",
        "/v1/chat/completions",
        b"/v1/chat/completions",
        b"",
    )
    sent = dict(scope["headers"])
    assert sent[b"authorization"] == b"Bearer sk-test"
    assert sent[b"x-custom"] == b"kept" and sent[b"accept-encoding"] == b"identity"
    assert sent[b"accept"] == b"text/event-stream"
    assert (
        b"x-api-key" not in sent
        and b"anthropic-version" not in sent
        and b"anthropic-beta" not in sent
    )
    assert int(sent[b"content-length"]) == len(orjson.dumps(body))
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    events = response.events()
    assert events[0][0] == "message_start"
    assert events[0][1]["message"]["model"] == "claude-sonnet-4-6"


async def test_existing_authorization_header_wins() -> None:
    upstream = ScriptedApp([stream_reply(HELLO)])
    headers = [(b"authorization", b"Bearer real"), (b"x-api-key", b"other")]
    await request(AnthropicMiddleware(upstream), base_request(stream=True), headers=headers)
    sent = upstream.calls[0][0]["headers"]
    assert [v for k, v in sent if k == b"authorization"] == [b"Bearer real"]


async def test_non_streaming_request_returns_a_message() -> None:
    upstream = ScriptedApp([json_reply(completion())])
    response = await request(AnthropicMiddleware(upstream), base_request())
    assert response.status == 200
    assert int(response.headers[b"content-length"]) == len(response.body)
    msg = response.json()
    assert msg["id"].startswith("msg_") and msg["content"] == [{"type": "text", "text": "Hello"}]
    assert msg["stop_reason"] == "end_turn" and msg["usage"]["input_tokens"] == 20
    assert "stream" not in upstream.upstream_bodies[0]
    assert dict(upstream.calls[0][0]["headers"])[b"accept"] == b"application/json"


async def test_request_body_in_several_parts() -> None:
    upstream = ScriptedApp([json_reply(completion())])
    response = await request(
        AnthropicMiddleware(upstream), base_request(messages=[user("x" * 500)]), parts=7
    )
    assert response.status == 200
    assert upstream.upstream_bodies[0]["messages"] == [{"role": "user", "content": "x" * 500}]


async def test_upstream_json_when_a_stream_was_asked_is_streamed() -> None:
    upstream = ScriptedApp([json_reply(completion("Hi"))])
    response = await request(AnthropicMiddleware(upstream), base_request(stream=True))
    events = response.events()
    assert (
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
    ) in events
    assert events[-1][0] == "message_stop"


async def test_upstream_stream_when_json_was_asked_is_assembled() -> None:
    upstream = ScriptedApp(
        [stream_reply([chunk({"content": "A"}), chunk({"content": "B"}), chunk(None, "stop")])]
    )
    response = await request(AnthropicMiddleware(upstream), base_request())
    assert response.json()["content"] == [{"type": "text", "text": "AB"}]


@pytest.mark.parametrize(
    ("path", "method"),
    [
        ("/v1/chat/completions", "POST"),
        ("/v1/models", "GET"),
        ("/v1/messages", "GET"),
        ("/health", "GET"),
        ("/v1/messagesX", "POST"),
    ],
)
async def test_other_requests_pass_through_untouched(path: str, method: str) -> None:
    upstream = ScriptedApp([json_reply({"ok": True})])
    response = await request(AnthropicMiddleware(upstream), {"any": "thing"}, path, method=method)
    assert response.json() == {"ok": True}
    scope, body = upstream.calls[0]
    assert (scope["path"], scope["method"], body) == (path, method, {"any": "thing"})


async def test_count_tokens_is_local() -> None:
    upstream = ScriptedApp()
    app = AnthropicMiddleware(upstream)
    small = await request(
        app, {"model": "m", "messages": [user("hi")]}, "/v1/messages/count_tokens"
    )
    big = await request(
        app,
        {
            "model": "m",
            "messages": [user("word " * 400)],
            "tools": [{"name": "t", "input_schema": {"type": "object"}}],
        },
        "/v1/messages/count_tokens",
        query=b"beta=true",
    )
    assert small.status == big.status == 200
    assert set(small.json()) == {"input_tokens"}
    assert 0 < small.json()["input_tokens"] < 20 < 500 < big.json()["input_tokens"]
    assert upstream.calls == []


async def test_message_start_carries_the_local_estimate() -> None:
    upstream = ScriptedApp([stream_reply(HELLO)])
    app = AnthropicMiddleware(upstream)
    doc = base_request(stream=True, messages=[user("word " * 100)])
    estimate = (await request(app, doc, "/v1/messages/count_tokens")).json()["input_tokens"]
    events = (await request(app, doc)).events()
    assert events[0][1]["message"]["usage"]["input_tokens"] == estimate


# --- errors before the stream starts --------------------------------------------------------


@pytest.mark.parametrize(
    ("upstream_status", "status", "error_type"),
    [
        (400, 400, "invalid_request_error"),
        (401, 401, "authentication_error"),
        (402, 402, "billing_error"),
        (403, 403, "permission_error"),
        (404, 404, "not_found_error"),
        (408, 504, "timeout_error"),
        (413, 413, "request_too_large"),
        (418, 400, "invalid_request_error"),
        (422, 400, "invalid_request_error"),
        (429, 429, "rate_limit_error"),
        (500, 500, "api_error"),
        (502, 502, "api_error"),  # unreachable: 502 on every API without a code of its own
        (503, 529, "overloaded_error"),
        (504, 504, "timeout_error"),
        (529, 529, "overloaded_error"),
    ],
)
@pytest.mark.parametrize("stream", [True, False])
async def test_upstream_error_status_mapping(
    upstream_status: int, status: int, error_type: str, stream: bool
) -> None:
    body = {"error": {"message": "model is sad", "type": "x", "code": upstream_status}}
    upstream = ScriptedApp([json_reply(body, upstream_status, headers=[(b"retry-after", b"7")])])
    response = await request(AnthropicMiddleware(upstream), base_request(stream=stream))
    assert response.status == status
    assert response.headers[b"content-type"] == b"application/json"
    assert response.headers[b"retry-after"] == b"7"
    assert response.json() == {
        "type": "error",
        "error": {
            "type": error_type,
            "message": f"upstream returned HTTP {upstream_status}: model is sad",
        },
    }


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            b'{"object": "error", "message": "vllm says no", "type": "BadRequestError"}',
            "vllm says no",
        ),
        (b'{"detail": "Not Found"}', "Not Found"),
        (b'{"detail": [{"loc": ["body"], "msg": "bad"}]}', '"msg":"bad"'),
        (b"plain text failure", "plain text failure"),
    ],
)
async def test_upstream_error_message_dialects(raw: bytes, message: str) -> None:
    upstream = ScriptedApp([Reply(400, [raw], b"application/json")])
    response = await request(AnthropicMiddleware(upstream), base_request())
    assert message in response.json()["error"]["message"]


async def test_upstream_app_raising_before_the_response() -> None:
    async def broken(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        raise RuntimeError("kaput")

    response = await request(AnthropicMiddleware(broken), base_request(stream=True))
    assert response.status == 500
    assert response.json()["error"]["type"] == "api_error"
    assert "kaput" in response.json()["error"]["message"]


async def test_upstream_app_sending_nothing_is_502() -> None:
    async def silent(scope: Any, receive: Any, send: Any) -> None:
        await receive()

    response = await request(AnthropicMiddleware(silent), base_request())
    assert response.status == 502 and "sent no response" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(200, [b"hello"], b"text/plain"), "unexpected content-type 'text/plain'"),
        (
            Reply(
                200, [b"\x1f\x8b"], b"text/event-stream", headers=[(b"content-encoding", b"gzip")]
            ),
            "compressed response",
        ),
    ],
)
async def test_unusable_upstream_response_is_502(reply: Reply, message: str) -> None:
    response = await request(AnthropicMiddleware(ScriptedApp([reply])), base_request(stream=True))
    assert response.status == 502 and message in response.json()["error"]["message"]


# --- errors after the stream starts ---------------------------------------------------------


async def test_midstream_upstream_error_event() -> None:
    error = {"error": {"message": "rate limited", "type": "rate_limit_exceeded", "code": None}}
    upstream = ScriptedApp([stream_reply([chunk({"content": "Hel"}), error], done=False)])
    response = await request(AnthropicMiddleware(upstream), base_request(stream=True))
    assert response.status == 200
    assert response.events()[-1] == (
        "error",
        {"type": "error", "error": {"type": "rate_limit_error", "message": "rate limited"}},
    )


async def test_upstream_app_raising_midstream_gives_an_error_event() -> None:
    upstream = ScriptedApp(
        [
            Reply(
                200,
                [b"data: " + orjson.dumps(chunk({"content": "a"})) + b"\n\n"],
                raise_after=RuntimeError("lost"),
            )
        ]
    )
    response = await request(AnthropicMiddleware(upstream), base_request(stream=True))
    name, data = response.events()[-1]
    assert (
        name == "error"
        and data["error"]["type"] == "api_error"
        and "lost" in data["error"]["message"]
    )


async def test_truncated_upstream_stream_gives_an_error_event() -> None:
    upstream = ScriptedApp([stream_reply([chunk({"content": "a"})], done=False)])
    response = await request(AnthropicMiddleware(upstream), base_request(stream=True))
    assert response.events()[-1][0] == "error"


async def test_non_streaming_midstream_error_becomes_an_http_error() -> None:
    error = {"error": {"message": "overloaded", "type": "overloaded_error"}}
    upstream = ScriptedApp([stream_reply([chunk({"content": "a"}), error], done=False)])
    response = await request(AnthropicMiddleware(upstream), base_request())
    assert response.status == 529 and response.json()["error"]["type"] == "overloaded_error"


async def test_upstream_sse_split_at_every_byte() -> None:
    raw = b"".join(
        stream_reply(
            [
                chunk({"content": "héllo wörld"}),
                chunk(call_delta(0, id="functions.f:0", name="f", args='{"a": "ü"}')),
                chunk(None, "tool_calls"),
            ]
        ).body
    )
    upstream = ScriptedApp([Reply(200, [raw[i : i + 1] for i in range(len(raw))])])
    response = await request(AnthropicMiddleware(upstream), base_request(stream=True))
    events = response.events()
    assert [k for k, _ in events].count("content_block_start") == 2
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"


# --- pings and disconnects ------------------------------------------------------------------


async def test_pings_during_upstream_silence() -> None:
    upstream = ScriptedApp(
        [stream_reply([chunk({"reasoning_content": "a"}), chunk(None, "stop")], delay=0.25)]
    )
    response = await request(
        AnthropicMiddleware(upstream, ping_interval=0.05), base_request(stream=True)
    )
    names = [k for k, _ in response.events()]
    assert names.count("ping") >= 3
    assert names.index("ping") > names.index("message_start")


async def test_no_pings_when_disabled_or_when_busy() -> None:
    upstream = ScriptedApp(
        [stream_reply([chunk({"content": "a"}), chunk(None, "stop")], delay=0.1)]
    )
    response = await request(
        AnthropicMiddleware(upstream, ping_interval=0), base_request(stream=True)
    )
    assert "ping" not in [k for k, _ in response.events()]
    upstream = ScriptedApp([stream_reply([chunk({"content": "a"}), chunk(None, "stop")])])
    response = await request(
        AnthropicMiddleware(upstream, ping_interval=5), base_request(stream=True)
    )
    assert "ping" not in [k for k, _ in response.events()]


async def test_client_disconnect_stops_the_upstream() -> None:
    sent_parts = 0
    finished = False

    async def upstream(scope: Any, receive: Any, send: Any) -> None:
        nonlocal sent_parts, finished
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        for _ in range(50):
            await send(
                {
                    "type": "http.response.body",
                    "body": b"data: " + orjson.dumps(chunk({"content": "x"})) + b"\n\n",
                    "more_body": True,
                }
            )
            sent_parts += 1
            await anyio.sleep(0.001)
        finished = True

    writes = 0

    async def client_send(message: Message) -> None:
        nonlocal writes
        writes += 1
        if writes > 3:
            raise OSError("connection reset")

    with anyio.fail_after(2):
        await drive(AnthropicMiddleware(upstream), base_request(stream=True), client_send)
    assert not finished and sent_parts < 5


# --- options --------------------------------------------------------------------------------


async def test_model_map_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "TOOLCALL_ANTHROPIC_MODEL_MAP", '{"claude-*": "moonshotai/Kimi-K2-Instruct"}'
    )
    upstream = ScriptedApp([json_reply(completion())])
    response = await request(AnthropicMiddleware(upstream), base_request())
    assert upstream.upstream_bodies[0]["model"] == "moonshotai/Kimi-K2-Instruct"
    assert response.json()["model"] == "claude-sonnet-4-6"


async def test_keyword_options_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLCALL_ANTHROPIC_MODEL_MAP", '{"claude-*": "env-model"}')
    upstream = ScriptedApp([json_reply(completion())])
    await request(AnthropicMiddleware(upstream, model_map={"claude-*": "kw-model"}), base_request())
    assert upstream.upstream_bodies[0]["model"] == "kw-model"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        (
            "TOOLCALL_ANTHROPIC_MODEL_MAP",
            "{not json",
            "TOOLCALL_ANTHROPIC_MODEL_MAP is not valid JSON",
        ),
        ("TOOLCALL_ANTHROPIC_MODEL_MAP", '{"a": 1}', "must map model names"),
        ("TOOLCALL_ANTHROPIC_MODEL_MAP", "claude-x", "entries must look like"),
        ("TOOLCALL_ANTHROPIC_PING_INTERVAL", "soon", "TOOLCALL_ANTHROPIC_PING_INTERVAL"),
        ("TOOLCALL_ANTHROPIC_PING_INTERVAL", "-1", "ping_interval must be a number >= 0"),
        ("TOOLCALL_ANTHROPIC_THINKING_HISTORY", "keep", "TOOLCALL_ANTHROPIC_THINKING_HISTORY"),
    ],
)
def test_bad_environment_fails_at_construction(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        AnthropicMiddleware(ScriptedApp())


def test_unknown_option_is_rejected() -> None:
    with pytest.raises(TypeError, match="pingg"):
        AnthropicMiddleware(ScriptedApp(), pingg=1)


async def test_custom_paths() -> None:
    upstream = ScriptedApp([json_reply(completion())])
    app = AnthropicMiddleware(
        upstream, messages_path="/anthropic/v1/messages", upstream_path="/chat"
    )
    response = await request(app, base_request(), "/anthropic/v1/messages")
    assert response.status == 200 and upstream.calls[0][0]["path"] == "/chat"


@pytest.mark.parametrize(
    ("user_agent", "pieces"),
    [
        (b"claude-cli/2.1.330 (external, cli)", 2),  # Claude Code: streamed as they come
        (b"AsyncAnthropic/Python 0.40.0", 1),  # any other client: one whole, valid piece
        (b"", 1),
    ],
)
async def test_tool_input_streams_to_claude_code_and_is_buffered_for_other_clients(
    user_agent: bytes, pieces: int
) -> None:
    """``buffer_tool_input="auto"`` (the default): Claude Code answers input that does not parse
    with a tool error the model can act on; the SDKs' stream helpers fail the whole turn."""

    async def upstream(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        deltas = (
            call_delta(0, id="c1", name="write", args='{"text": "'),
            call_delta(0, args='a"}'),
        )
        body = b"".join(b"data: " + orjson.dumps(chunk(d)) + b"\n\n" for d in deltas)
        tail = b"data: " + orjson.dumps(chunk(None, "tool_calls")) + b"\n\ndata: [DONE]\n\n"
        await send({"type": "http.response.body", "body": body + tail, "more_body": False})

    received = b""

    async def client_send(message: Message) -> None:
        nonlocal received
        received += message.get("body", b"")

    headers = [(b"user-agent", user_agent)] if user_agent else []
    await drive(
        AnthropicMiddleware(upstream), base_request(stream=True), client_send, headers=headers
    )
    assert received.count(b"input_json_delta") == pieces
    assert b"message_stop" in received


async def test_argument_fragments_reach_the_client_before_the_upstream_finishes() -> None:
    """The upstream waits, mid-call, until the client has seen the first input_json_delta: a
    middleware that held arguments back would never get there."""
    seen_fragment = anyio.Event()

    async def upstream(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for delta in (call_delta(0, id="functions.write:0", name="write", args='{"text": "'), None):
            if delta is None:
                await seen_fragment.wait()
                delta = call_delta(0, args='rest"}')
            body = b"data: " + orjson.dumps(chunk(delta)) + b"\n\n"
            await send({"type": "http.response.body", "body": body, "more_body": True})
        tail = b"data: " + orjson.dumps(chunk(None, "tool_calls")) + b"\n\ndata: [DONE]\n\n"
        await send({"type": "http.response.body", "body": tail, "more_body": False})

    received = b""

    async def client_send(message: Message) -> None:
        nonlocal received
        received += message.get("body", b"")
        if b"input_json_delta" in received:
            seen_fragment.set()

    with anyio.fail_after(2):
        app = AnthropicMiddleware(upstream, buffer_tool_input=False)
        await drive(app, base_request(stream=True), client_send)
    assert received.count(b"input_json_delta") == 2 and b"message_stop" in received


def test_file_options_rank_below_the_environment() -> None:
    from toolcall_middleware.fronts.anthropic import AnthropicOptions

    file = {"model_map": {"claude-*": "file-model"}, "ping_interval": 3, "buffer_tool_input": True}
    options = AnthropicOptions.build({"TOOLCALL_ANTHROPIC_MODEL_MAP": "claude-*=env-model"}, file)
    assert options.model_map == {"claude-*": "env-model"}
    assert (options.ping_interval, options.buffer_tool_input) == (3.0, True)


@pytest.mark.parametrize(
    ("raw", "value"), [("auto", "auto"), ("AUTO", "auto"), ("0", False), ("true", True)]
)
def test_buffer_tool_input_from_the_environment(raw: str, value: object) -> None:
    from toolcall_middleware.fronts.anthropic import AnthropicOptions

    options = AnthropicOptions.build({"TOOLCALL_ANTHROPIC_BUFFER_TOOL_INPUT": raw})
    assert options.buffer_tool_input == value
    assert AnthropicOptions.build({}).buffer_tool_input == "auto"


@pytest.mark.parametrize(
    ("file", "message"),
    [
        ({"model_mapp": {}}, r"unknown \[anthropic\] option\(s\): model_mapp"),
        ({"ping_interval": "soon"}, "ping_interval must be a number"),
        ({"max_body_bytes": 0}, "max_body_bytes must be a positive integer"),
        ({"buffer_tool_input": "yes"}, "buffer_tool_input must be true, false or 'auto'"),
        ({"model_map": {"a": 1}}, "model_map must map"),
    ],
)
def test_bad_file_options(file: dict[str, Any], message: str) -> None:
    from toolcall_middleware.fronts.anthropic import AnthropicOptions

    with pytest.raises(ConfigError, match=message):
        AnthropicOptions.build({}, file)


# --- upstream_fields --------------------------------------------------------------------------

NO_SPECIAL = {"skip_special_tokens": False}


async def test_upstream_fields_reach_a_streaming_upstream_request() -> None:
    upstream = ScriptedApp([stream_reply(HELLO)])
    app = AnthropicMiddleware(upstream, upstream_fields={**NO_SPECIAL, "chat_template_kwargs": {}})
    response = await request(app, base_request(stream=True))
    (body,) = upstream.upstream_bodies
    assert body["skip_special_tokens"] is False and body["chat_template_kwargs"] == {}
    # The translated fields are all still there.
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert ("message_stop", {"type": "message_stop"}) in response.events()


async def test_upstream_fields_reach_a_non_streaming_upstream_request() -> None:
    upstream = ScriptedApp([json_reply(completion())])
    app = AnthropicMiddleware(upstream, upstream_fields=NO_SPECIAL)
    response = await request(app, base_request())
    (body,) = upstream.upstream_bodies
    assert body["skip_special_tokens"] is False and "stream" not in body
    assert response.json()["content"] == [{"type": "text", "text": "Hello"}]


async def test_upstream_fields_override_translated_values() -> None:
    upstream = ScriptedApp([json_reply(completion())])
    app = AnthropicMiddleware(
        upstream,
        model_map={"claude-*": "mapped-model"},
        upstream_fields={"max_tokens": 64, "temperature": 0.2},
    )
    await request(app, base_request(temperature=1.0))
    (body,) = upstream.upstream_bodies
    assert (body["max_tokens"], body["temperature"]) == (64, 0.2)  # the request said 256, 1.0
    assert body["model"] == "mapped-model"


async def test_upstream_fields_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLCALL_ANTHROPIC_UPSTREAM_FIELDS", '{"skip_special_tokens": false}')
    upstream = ScriptedApp([stream_reply(HELLO), stream_reply(HELLO)])
    await request(AnthropicMiddleware(upstream), base_request(stream=True))
    await request(AnthropicMiddleware(upstream, upstream_fields={"top_k": 5}), base_request())
    env_body, keyword_body = upstream.upstream_bodies
    assert env_body["skip_special_tokens"] is False
    # A keyword value replaces the environment's object whole, like every option.
    assert keyword_body["top_k"] == 5 and "skip_special_tokens" not in keyword_body


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{not json", "TOOLCALL_ANTHROPIC_UPSTREAM_FIELDS is not valid JSON"),
        ('["skip_special_tokens"]', "TOOLCALL_ANTHROPIC_UPSTREAM_FIELDS must be an object"),
        ("false", "TOOLCALL_ANTHROPIC_UPSTREAM_FIELDS must be an object"),
        (
            '{"stream": false, "skip_special_tokens": false}',
            r"TOOLCALL_ANTHROPIC_UPSTREAM_FIELDS cannot set stream \(fields the Anthropic front",
        ),
        ('{"n": 2, "messages": []}', "UPSTREAM_FIELDS cannot set messages, n "),
    ],
)
def test_bad_upstream_fields_in_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    monkeypatch.setenv("TOOLCALL_ANTHROPIC_UPSTREAM_FIELDS", value)
    with pytest.raises(ConfigError, match=message):
        AnthropicMiddleware(ScriptedApp())


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("skip_special_tokens=false", "upstream_fields must be an object of request fields"),
        ({"tools": []}, r"upstream_fields cannot set tools \("),
        ({"stream_options": {"include_usage": False}}, "upstream_fields cannot set stream_options"),
        ({"seed": {1, 2}}, "upstream_fields must hold JSON values under string keys"),
        ({1: True}, "upstream_fields must hold JSON values under string keys"),
    ],
)
def test_bad_upstream_fields_keyword(value: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        AnthropicMiddleware(ScriptedApp(), upstream_fields=value)


def test_upstream_fields_in_the_file_table() -> None:
    from toolcall_middleware.fronts.anthropic import AnthropicOptions

    options = AnthropicOptions.build({}, {"upstream_fields": NO_SPECIAL})
    assert options.upstream_fields == NO_SPECIAL
    with pytest.raises(ConfigError, match="upstream_fields must be an object"):
        AnthropicOptions.build({}, {"upstream_fields": "skip_special_tokens"})
    with pytest.raises(ConfigError, match="upstream_fields cannot set stream"):
        AnthropicOptions.build({}, {"upstream_fields": {"stream": True}})
