"""Every path that reads a request body: a size limit with a 413 in that API's error shape, and
a client that leaves mid-upload sends nothing on (its partial body never reaches the app)."""

from __future__ import annotations

import orjson
import pytest

from toolcall_middleware import AnthropicMiddleware, ResponsesMiddleware, ToolCallMiddleware
from toolcall_middleware.config import ConfigError

from .asgi import RecordingApp, call, status_and_json

pytestmark = pytest.mark.anyio

CHAT = orjson.dumps(
    {
        "model": "m",
        "messages": [{"role": "user", "content": "x" * 4000}],
        "tools": [{"type": "function", "function": {"name": "bash"}}],
    }
)
RESPONSES = orjson.dumps({"model": "m", "input": "x" * 4000})
MESSAGES = orjson.dumps(
    {
        "model": "claude-x",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "x" * 4000}],
    }
)


def pieces(body: bytes, size: int = 1000) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


async def test_chat_body_over_the_limit_is_413_in_openai_shape() -> None:
    inner = RecordingApp()
    sent = await call(
        ToolCallMiddleware(inner, max_body_bytes=2000), "/v1/chat/completions", pieces(CHAT)
    )
    status, doc = status_and_json(sent)
    assert status == 413 and inner.calls == []
    assert doc["error"]["code"] == "request_too_large"
    assert doc["error"]["type"] == "invalid_request_error"
    assert "2000 bytes" in doc["error"]["message"]


async def test_chat_body_within_the_limit_reaches_the_app_whole() -> None:
    inner = RecordingApp()
    app = ToolCallMiddleware(inner, max_body_bytes=len(CHAT))
    sent = await call(app, "/v1/chat/completions", pieces(CHAT))
    assert sent[0]["status"] == 200 and inner.calls == [CHAT]


def test_chat_body_limit_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLCALL_MAX_BODY_BYTES", "1234")
    assert ToolCallMiddleware(RecordingApp()).options.max_body_bytes == 1234
    monkeypatch.setenv("TOOLCALL_MAX_BODY_BYTES", "0")
    with pytest.raises(ConfigError, match="max_body_bytes"):
        ToolCallMiddleware(RecordingApp())


@pytest.mark.parametrize(
    ("make", "path", "body"),
    [
        (ToolCallMiddleware, "/v1/chat/completions", CHAT),
        (AnthropicMiddleware, "/v1/messages", MESSAGES),
        (ResponsesMiddleware, "/v1/responses", RESPONSES),
    ],
)
async def test_client_that_leaves_mid_upload_sends_nothing_on(
    make: type, path: str, body: bytes
) -> None:
    inner = RecordingApp()
    sent = await call(make(inner), path, pieces(body)[:2], disconnect=True)
    assert inner.calls == [] and sent == []


async def test_anthropic_body_over_the_limit_is_413_in_anthropic_shape() -> None:
    inner = RecordingApp()
    sent = await call(
        AnthropicMiddleware(inner, max_body_bytes=2000), "/v1/messages", pieces(MESSAGES)
    )
    status, doc = status_and_json(sent)
    assert status == 413 and inner.calls == []
    assert doc == {
        "type": "error",
        "error": {"type": "request_too_large", "message": "request body is larger than 2000 bytes"},
    }


async def test_responses_body_over_the_limit_is_413_in_openai_shape() -> None:
    inner = RecordingApp()
    sent = await call(
        ResponsesMiddleware(inner, max_body_bytes=2000), "/v1/responses", pieces(RESPONSES)
    )
    status, doc = status_and_json(sent)
    assert status == 413 and inner.calls == []
    assert doc["error"]["code"] == "request_too_large" and doc["error"]["type"]
