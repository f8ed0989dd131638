"""Requests nested hundreds deep (tool schemas, tool inputs): handled, or a 400 naming the
problem; never a 500 with a traceback, and the upstream never sees what it cannot take."""

from __future__ import annotations

import orjson
import pytest

from toolcall_middleware import AnthropicMiddleware, ResponsesMiddleware

from .asgi import RecordingApp, call, status_and_json

pytestmark = pytest.mark.anyio


def nested_schema(depth: int) -> bytes:
    """A JSON schema ``depth`` objects deep (two JSON levels each), written out directly:
    encoders refuse to build such documents."""
    return (
        b'{"type": "object", "properties": {"a": ' * depth + b'{"type": "string"}' + (b"}}" * depth)
    )


def deep_value(depth: int) -> bytes:
    return b'{"a": ' * depth + b"1" + b"}" * depth


def messages_request(messages: bytes, tools: bytes) -> bytes:
    return (
        b'{"model": "claude-x", "max_tokens": 10, "messages": '
        + messages
        + b', "tools": '
        + tools
        + b"}"
    )


HI = b'[{"role": "user", "content": "hi"}]'


@pytest.mark.parametrize("depth", [130, 300, 500, 2000])
async def test_anthropic_deep_tool_schema_is_a_400(depth: int) -> None:
    inner = RecordingApp()
    body = messages_request(HI, b'[{"name": "f", "input_schema": ' + nested_schema(depth) + b"}]")
    status, doc = status_and_json(await call(AnthropicMiddleware(inner), "/v1/messages", [body]))
    assert status == 400 and inner.calls == []
    assert doc["error"]["type"] == "invalid_request_error"
    assert "deep" in doc["error"]["message"] or "depth limit" in doc["error"]["message"]


async def test_anthropic_deep_tool_use_input_is_passed_as_text() -> None:
    inner = RecordingApp()
    history = (
        b'[{"role": "user", "content": "go"}, {"role": "assistant", "content": [{"type": '
        b'"tool_use", "id": "toolu_1", "name": "f", "input": ' + deep_value(300) + b"}]}, "
        b'{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", '
        b'"content": "done"}]}]'
    )
    body = messages_request(history, b'[{"name": "f", "input_schema": {}}]')
    sent = await call(AnthropicMiddleware(inner), "/v1/messages", [body])
    assert len(inner.calls) == 1
    upstream = orjson.loads(inner.calls[0])
    arguments = upstream["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert arguments.count("{") == 300
    assert sent[0]["status"] == 200


@pytest.mark.parametrize("depth", [130, 300, 500, 2000])
async def test_responses_deep_tool_schema_is_a_400(depth: int) -> None:
    inner = RecordingApp()
    body = (
        b'{"model": "m", "input": "x", "tools": [{"type": "function", "name": "f", '
        b'"parameters": ' + nested_schema(depth) + b"}]}"
    )
    status, doc = status_and_json(await call(ResponsesMiddleware(inner), "/v1/responses", [body]))
    assert status == 400 and inner.calls == []
    assert doc["error"]["type"] == "invalid_request_error"
    assert "deep" in doc["error"]["message"] or "depth limit" in doc["error"]["message"]


async def test_responses_deep_call_arguments_pass_as_text() -> None:
    inner = RecordingApp()
    arguments = orjson.dumps(deep_value(300).decode())
    body = (
        b'{"model": "m", "input": [{"role": "user", "content": "go"}, {"type": '
        b'"function_call", "call_id": "c1", "name": "f", "arguments": ' + arguments + b"}, "
        b'{"type": "function_call_output", "call_id": "c1", "output": "ok"}]}'
    )
    sent = await call(ResponsesMiddleware(inner), "/v1/responses", [body])
    assert sent[0]["status"] == 200 and len(inner.calls) == 1
