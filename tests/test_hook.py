"""The completion hook: ``on_complete(request, response)`` after every response."""

from __future__ import annotations

import logging
import threading
from typing import Any

import orjson
import pytest

from helpers import body_app, chunk, recordings, request_json, sse, through
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.replay import Recording, recording_app, request_body, run_app

pytestmark = pytest.mark.anyio

TWO_CALLS = Recording.load(recordings("kimi_k2-reasoning-two-calls")[0])


async def test_sync_hook_gets_the_request_and_the_assembled_completion() -> None:
    seen: list[tuple[dict[str, Any], dict[str, Any], str]] = []

    def hook(request: dict[str, Any], response: dict[str, Any]) -> None:
        seen.append((request, response, threading.current_thread().name))

    app = ToolCallMiddleware(recording_app(TWO_CALLS), on_complete=hook, metrics=False)
    await through(app, request_body(TWO_CALLS))
    ((request, response, thread),) = seen
    assert request == TWO_CALLS.request
    assert thread != threading.main_thread().name  # a sync hook does not block the loop
    assert response["object"] == "chat.completion"
    assert response["id"] == "chatcmpl-8c3707e154df23bb"
    assert response["usage"]["prompt_tokens"] == 43206
    (choice,) = response["choices"]
    assert choice["finish_reason"] == "tool_calls"
    message = choice["message"]
    assert message["reasoning"] == message["reasoning_content"]
    assert message["reasoning"].startswith("The user wants to find the asm headers.")
    expected = (TWO_CALLS.expected or {})["tool_calls"]
    assert [
        (c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]
    ] == [(c["id"], c["name"], c["arguments"]) for c in expected]


async def test_async_hook_runs_after_the_response_is_complete() -> None:
    events: list[str] = []

    async def hook(request: dict[str, Any], response: dict[str, Any]) -> None:
        events.append("hook:" + response["choices"][0]["finish_reason"])

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and not message.get("more_body"):
            events.append("end of body")

    body = sse(chunk({"content": "Hi"}), chunk({}, "stop"), "[DONE]")
    app = ToolCallMiddleware(body_app([body]), on_complete=hook, metrics=False)
    scope = {"type": "http", "method": "POST", "path": "/v1/chat/completions"}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": request_json(), "more_body": False}

    await app(scope, receive, send)
    assert events == ["end of body", "hook:stop"]


async def test_non_streaming_hook_gets_the_rewritten_completion() -> None:
    recording = Recording.load(recordings("kimi_k2-nonstream")[0])
    seen: list[dict[str, Any]] = []
    app = ToolCallMiddleware(
        recording_app(recording), on_complete=lambda req, resp: seen.append(resp), metrics=False
    )
    body = await through(app, request_body(recording))
    assert seen == [orjson.loads(body)]
    assert seen[0]["choices"][0]["message"]["tool_calls"][0]["id"] == "functions.bash:0"


async def test_a_failing_hook_is_logged_and_never_reaches_the_client(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(request: dict[str, Any], response: dict[str, Any]) -> None:
        raise RuntimeError("database is down")

    plain = await through(
        ToolCallMiddleware(recording_app(TWO_CALLS), metrics=False), request_body(TWO_CALLS)
    )
    app = ToolCallMiddleware(recording_app(TWO_CALLS), on_complete=broken, metrics=False)
    with caplog.at_level(logging.ERROR, logger="toolcall_middleware"):
        status, _, bodies = await run_app(app, request_body(TWO_CALLS))
    assert status == 200 and b"".join(bodies) == plain
    assert any("on_complete hook failed" in r.message and r.exc_info for r in caplog.records)


async def test_requests_without_tools_reach_the_hook_untouched() -> None:
    seen: list[dict[str, Any]] = []
    body = sse(
        chunk({"content": "<|tool_calls_section_begin|> is just text here"}),
        chunk({}, "stop"),
        "[DONE]",
    )
    request = orjson.dumps({"model": "kimi-k2", "stream": True, "messages": []})
    app = ToolCallMiddleware(
        body_app([body]), on_complete=lambda q, r: seen.append(r), metrics=False
    )
    assert await through(app, request) == body
    assert (
        seen[0]["choices"][0]["message"]["content"]
        == "<|tool_calls_section_begin|> is just text here"
    )


async def test_error_responses_do_not_call_the_hook() -> None:
    seen: list[Any] = []
    app = ToolCallMiddleware(
        body_app(
            [b'{"error": {"message": "bad"}}'],
            status=400,
            headers=[(b"content-type", b"application/json")],
        ),
        on_complete=lambda q, r: seen.append(r),
        metrics=False,
    )
    await through(app, request_json())
    assert seen == []


async def test_a_stream_ended_by_a_limit_reaches_the_hook_with_the_error() -> None:
    seen: list[dict[str, Any]] = []
    markup = "<|tool_calls_section_begin|><|tool_call_begin|>"
    body = sse(chunk({"content": "Hm. " + markup + "h" * 3000}), chunk({}, "stop"), "[DONE]")
    app = ToolCallMiddleware(
        body_app([body]),
        on_complete=lambda q, r: seen.append(r),
        max_held_bytes=1000,
        metrics=False,
    )
    await through(app, request_json())
    (response,) = seen
    assert response["errors"][0]["code"] == "tool_call_limit_exceeded"
    assert response["choices"][0]["message"]["content"] == "Hm. "
