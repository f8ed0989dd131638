"""The middleware driven through real ASGI messages."""

from __future__ import annotations

import json

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import body_app, chunk, cut_at, message_of, recordings, request_json, sse, through
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.asgi import Message, Receive, Scope, Send
from toolcall_middleware.completion import chunks_from_sse, completion_from_sse
from toolcall_middleware.replay import Recording, body_pieces, recording_app, request_body, run_app

pytestmark = pytest.mark.anyio

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
CALL_TEXT = f'Checking.{SB}{CB}functions.bash:0{AB}{{"command": "ls"}}{CE}{SE}'
CALL_STREAM = sse(
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": CALL_TEXT}),
    chunk({}, "stop"),
    "[DONE]",
)


async def test_markup_becomes_tool_calls() -> None:
    body = await through(ToolCallMiddleware(body_app([CALL_STREAM])), request_json())
    message = message_of(completion_from_sse(body))
    assert message["content"] == "Checking."
    assert message["tool_calls"][0]["function"] == {
        "name": "bash",
        "arguments": '{"command": "ls"}',
    }
    assert body.endswith(b"data: [DONE]\n\n")


@pytest.mark.parametrize(
    ("method", "path", "status", "headers", "request_body"),
    [
        ("GET", "/v1/chat/completions", 200, [(b"content-type", b"text/event-stream")], None),
        ("POST", "/v1/completions", 200, [(b"content-type", b"text/event-stream")], None),
        ("POST", "/v1/chat/completions", 500, [(b"content-type", b"text/event-stream")], None),
        (
            "POST",
            "/v1/chat/completions",
            200,
            [(b"content-type", b"text/event-stream"), (b"content-encoding", b"gzip")],
            None,
        ),
        ("POST", "/v1/chat/completions", 200, [(b"content-type", b"text/plain")], None),
        (
            "POST",
            "/v1/chat/completions",
            200,
            [(b"content-type", b"text/event-stream")],
            json.dumps({"model": "kimi-k2", "stream": True}).encode(),
        ),
    ],
    ids=["get", "other-path", "error-status", "gzip", "text-plain", "no-tools"],
)
async def test_passes_through_byte_for_byte(
    method: str,
    path: str,
    status: int,
    headers: list[tuple[bytes, bytes]],
    request_body: bytes | None,
) -> None:
    headers = [*headers, (b"content-length", str(len(CALL_STREAM)).encode())]
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    body = request_body if request_body is not None else request_json()
    received = iter([{"type": "http.request", "body": body, "more_body": False}])

    async def receive() -> Message:
        return next(received)

    app = ToolCallMiddleware(body_app([CALL_STREAM], status, headers))
    scope: Scope = {"type": "http", "method": method, "path": path, "headers": []}
    await app(scope, receive, send)
    assert sent[0]["headers"] == headers
    assert sent[0]["status"] == status
    assert b"".join(m.get("body", b"") for m in sent[1:]) == CALL_STREAM


async def test_request_body_in_several_messages_is_replayed_unchanged() -> None:
    body = request_json()
    seen: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(await receive())

        async def drained() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        await body_app([CALL_STREAM])(scope, drained, send)

    parts = [body[:10], body[10:25], body[25:]]
    messages = iter(
        [{"type": "http.request", "body": p, "more_body": i < 2} for i, p in enumerate(parts)]
    )

    async def receive() -> Message:
        return next(messages)

    out: list[Message] = []

    async def send(message: Message) -> None:
        out.append(message)

    scope: Scope = {"type": "http", "method": "POST", "path": "/chat/completions", "headers": []}
    await ToolCallMiddleware(app)(scope, receive, send)
    assert seen == [{"type": "http.request", "body": body, "more_body": False}]
    assert b'"tool_calls"' in b"".join(m.get("body", b"") for m in out)


async def test_sse_drops_content_length_and_json_recomputes_it() -> None:
    headers = [(b"content-type", b"text/event-stream"), (b"content-length", b"999")]
    _, sse_headers, _ = await run_app(
        ToolCallMiddleware(body_app([CALL_STREAM], 200, headers)), request_json()
    )
    assert all(k != b"content-length" for k, _ in sse_headers)

    completion = {
        "id": "x",
        "object": "chat.completion",
        "model": "kimi-k2",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": CALL_TEXT},
                "finish_reason": "stop",
            }
        ],
    }
    raw = json.dumps(completion).encode()
    json_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(raw)).encode()),
    ]
    _, out_headers, bodies = await run_app(
        ToolCallMiddleware(body_app([raw[:20], raw[20:]], 200, json_headers)),
        request_json(stream=False),
    )
    body = b"".join(bodies)
    assert dict(out_headers)[b"content-length"] == str(len(body)).encode()
    result = json.loads(body)
    assert result["choices"][0]["finish_reason"] == "tool_calls"
    assert result["choices"][0]["message"]["content"] == "Checking."


async def test_unknown_asgi_messages_pass_through() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await send({"type": "http.response.debug", "info": {"x": 1}})
        await send({"type": "http.response.body", "body": CALL_STREAM, "more_body": False})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request", "body": request_json(), "more_body": False}

    scope: Scope = {"type": "http", "method": "POST", "path": "/v1/chat/completions"}
    await ToolCallMiddleware(app)(scope, receive, send)
    assert {"type": "http.response.debug", "info": {"x": 1}} in sent


async def test_lifespan_and_websocket_scopes_reach_the_app() -> None:
    seen: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope["type"])

    async def receive() -> Message:
        return {"type": "lifespan.startup"}

    async def send(message: Message) -> None:
        pass

    for kind in ("lifespan", "websocket"):
        await ToolCallMiddleware(app)({"type": kind, "path": "/"}, receive, send)
    assert seen == ["lifespan", "websocket"]


async def test_each_choice_has_its_own_parser() -> None:
    stream = sse(
        chunk({"content": f"A{SB}{CB}functions.bash:0{AB}"}, index=0),
        chunk({"content": f"B{SB}{CB}functions.bash:5{AB}"}, index=1),
        chunk({"content": '{"command": "a"}'}, index=0),
        chunk({"content": '{"command": "b"}'}, index=1),
        chunk({"content": f"{CE}{SE}"}, "stop", index=0),
        chunk({"content": f"{CE}{SE}"}, "stop", index=1),
        "[DONE]",
    )
    completion = completion_from_sse(
        await through(ToolCallMiddleware(body_app([stream])), request_json())
    )
    first, second = (c["message"] for c in completion["choices"])
    assert (first["content"], second["content"]) == ("A", "B")
    assert [(c["id"], c["function"]["arguments"]) for c in first["tool_calls"]] == [
        ("functions.bash:0", '{"command": "a"}')
    ]
    assert [(c["id"], c["function"]["arguments"]) for c in second["tool_calls"]] == [
        ("functions.bash:5", '{"command": "b"}')
    ]
    assert [c["finish_reason"] for c in completion["choices"]] == ["tool_calls", "tool_calls"]


async def test_first_argument_fragment_leaves_before_the_upstream_finishes_the_call() -> None:
    release = anyio.Event()
    seen_by_client = anyio.Event()
    head = sse(
        chunk({"content": f"{SB}{CB}functions.bash:0{AB}"}), chunk({"content": '{"command": "ls'})
    )
    tail = sse(chunk({"content": f' -la"}}{CE}{SE}'}), chunk({}, "stop"), "[DONE]")

    async def upstream(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await send({"type": "http.response.body", "body": head, "more_body": True})
        await release.wait()  # the call is still open upstream
        await send({"type": "http.response.body", "body": tail, "more_body": False})

    received = bytearray()

    async def send(message: Message) -> None:
        received.extend(message.get("body", b""))
        if b'"arguments":"{\\"command\\": \\"ls"' in received and not release.is_set():
            seen_by_client.set()

    async def receive() -> Message:
        return {"type": "http.request", "body": request_json(), "more_body": False}

    scope: Scope = {"type": "http", "method": "POST", "path": "/v1/chat/completions"}
    async with anyio.create_task_group() as tg:
        tg.start_soon(ToolCallMiddleware(upstream), scope, receive, send)
        with anyio.fail_after(5):
            await seen_by_client.wait()
        release.set()
    assert b'"finish_reason":"tool_calls"' in received


LONG = Recording.load(recordings("kimi_k2-mixed-packet")[0])


async def _replay_pieces(recording: Recording, pieces: list[bytes]) -> bytes:
    app = ToolCallMiddleware(
        body_app(pieces, recording.status, [(k.encode(), v.encode()) for k, v in recording.headers])
    )
    return await through(app, request_body(recording))


async def test_every_single_byte_cut_gives_identical_output() -> None:
    body = LONG.body
    whole = await _replay_pieces(LONG, [body])
    for i in range(len(body) + 1):
        assert await _replay_pieces(LONG, [body[:i], body[i:]]) == whole


TWO_CALLS = Recording.load(recordings("kimi_k2-reasoning-two-calls")[0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(TWO_CALLS.body)), max_size=40))
def test_any_byte_cuts_give_identical_output(points: list[int]) -> None:
    whole, cut = anyio.run(_both, cut_at(TWO_CALLS.body, points))
    assert cut == whole


async def _both(pieces: list[bytes]) -> tuple[bytes, bytes]:
    events = body_pieces(TWO_CALLS)
    return (await _replay_pieces(TWO_CALLS, events), await _replay_pieces(TWO_CALLS, pieces))


MODEL_TEXT = (
    "Thinking about it… ✓ <|tool_calls_section_begin|> <|tool_call_begin|>functions.bash:0"
    '<|tool_call_argument_begin|>{"command": "echo \'héllo ✓\'"}<|tool_call_end|>'
    "<|tool_call_begin|>functions.bash:1<|tool_call_argument_begin|>{}<|tool_call_end|>"
    "<|tool_calls_section_end|> All done <3"
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=len(MODEL_TEXT)), max_size=30),
    st.sampled_from(["content", "reasoning_content"]),
)
def test_any_character_cut_of_the_model_text_gives_the_same_message(
    points: list[int],
    field: str,
) -> None:
    deltas = cut_at(MODEL_TEXT, points)
    stream = sse(*(chunk({field: d}) for d in deltas), chunk({}, "stop"), "[DONE]")
    body = anyio.run(through, ToolCallMiddleware(body_app([stream])), request_json())
    message = message_of(completion_from_sse(body))
    assert message[field] == "Thinking about it… ✓  All done <3"
    assert [(c["id"], c["function"]["arguments"]) for c in message["tool_calls"]] == [
        ("functions.bash:0", '{"command": "echo \'héllo ✓\'"}'),
        ("functions.bash:1", "{}"),
    ]


async def test_stream_without_markup_is_byte_identical_even_with_held_back_text() -> None:
    stream = sse(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "a <"}),
        chunk({"content": "b> c <|"}),
        chunk({"content": "tool"}),
        chunk({"content": " end"}),
        chunk({}, "stop"),
        "[DONE]",
    )
    assert await through(ToolCallMiddleware(body_app([stream])), request_json()) == stream


async def test_held_back_text_at_the_end_of_the_stream_is_kept() -> None:
    stream = sse(chunk({"content": "x <|tool"}), "[DONE]")
    body = await through(ToolCallMiddleware(body_app([stream])), request_json())
    assert body == stream


async def test_recording_app_replays_bytes_exactly() -> None:
    recording = Recording.load(recordings("kimi_k2-plain-answer")[0])
    _, _, bodies = await run_app(recording_app(recording), b"{}")
    assert b"".join(bodies) == recording.body


async def test_other_delta_keys_survive_a_rewritten_finish() -> None:
    stream = sse(chunk({"content": CALL_TEXT}), chunk({"role": "assistant"}, "stop"), "[DONE]")
    body = await through(ToolCallMiddleware(body_app([stream])), request_json())
    last = [c for c in chunks_from_sse(body) if c["choices"]][-1]["choices"][0]
    assert last["finish_reason"] == "tool_calls"
    assert last["delta"] == {"role": "assistant"}


@pytest.mark.parametrize("held", [False, True], ids=["nothing-held", "text-held"])
async def test_an_upstream_error_event_is_the_last_body_message(held: bool) -> None:
    """The error event ends the response with ``more_body`` false, whether or not it could go
    as it came; what the app sends after it is dropped."""
    error = b'data: {"error": {"message": "upstream went away", "type": "server_error"}}\n\n'
    before = sse(chunk({"content": "hello <" if held else "hello"}))
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request", "body": request_json(), "more_body": False}

    app = body_app([before, error, sse(chunk({"content": "after"}))])
    scope: Scope = {"type": "http", "method": "POST", "path": "/v1/chat/completions"}
    await ToolCallMiddleware(app, "kimi_k2", metrics=False)(scope, receive, send)
    bodies = [m for m in sent if m["type"] == "http.response.body"]
    assert [m.get("more_body", False) for m in bodies] == [True] * (len(bodies) - 1) + [False]
    whole = b"".join(m["body"] for m in bodies)
    assert whole.endswith(error) and b"after" not in whole
    assert message_of(completion_from_sse(whole))["content"] == ("hello " if held else "hello")
