"""``unknown_tools`` applies to native ``tool_calls`` as to calls parsed from markup: a call to
a tool the request did not offer is dropped, or reaches the client as text, on the chat path
(streamed, buffered, whole) and through every front; the calls that remain keep dense
indexes and the answer its finish."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from anthropic_api.helpers import ScriptedApp, call_delta, chunk, json_reply, stream_reply
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.asgi import ASGIApp

from .clients import APIS, seen

pytestmark = pytest.mark.anyio

UNKNOWN_ARGS = '{"path": "/"}'
BASH_ARGS = '{"command": "ls"}'
AS_TEXT = '{"name": "rm_rf", "arguments": ' + UNKNOWN_ARGS + "}"


def upstream(stream: bool, calls: list[tuple[str, str]]) -> ScriptedApp:
    """Native calls, in order, each in pieces when streamed, then ``tool_calls``."""
    if not stream:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
                for i, (n, a) in enumerate(calls)
            ],
        }
        choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
        doc = {"id": "c", "object": "chat.completion", "created": 1, "model": "m"}
        return ScriptedApp([json_reply({**doc, "choices": [choice]})])
    chunks = []
    for i, (name, arguments) in enumerate(calls):
        chunks.append(chunk(call_delta(i, id=f"call_{i}", name=name, args="")))
        half = len(arguments) // 2
        chunks += [
            chunk(call_delta(i, args=arguments[:half])),
            chunk(call_delta(i, args=arguments[half:])),
        ]
    return ScriptedApp([stream_reply([*chunks, chunk(None, "tool_calls")])])


def chat_path(app: ScriptedApp, policy: str, mode: str = "stream") -> ASGIApp:
    return ToolCallMiddleware(app, unknown_tools=policy, mode=mode, metrics=False)


def arguments(value: Any) -> Any:
    return orjson.loads(value) if isinstance(value, str) else value


TOOL_END = {
    "chat": "tool_calls",
    "responses": "completed",
    "anthropic": "tool_use",
    "gemini": "STOP",
}
TEXT_END = {"chat": "stop", "responses": "completed", "anthropic": "end_turn", "gemini": "STOP"}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("api", APIS)
async def test_a_native_call_to_a_tool_not_offered_is_dropped(api: str, stream: bool) -> None:
    app = upstream(stream, [("rm_rf", UNKNOWN_ARGS), ("bash", BASH_ARGS)])
    result = await seen(api, chat_path(app, "drop"), stream=stream)
    assert [(n, arguments(a)) for n, a in result.calls] == [("bash", {"command": "ls"})]
    assert "rm_rf" not in result.text
    assert (result.end, result.error) == (TOOL_END[api], None)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("api", APIS)
async def test_a_native_call_to_a_tool_not_offered_reaches_the_client_as_text(
    api: str, stream: bool
) -> None:
    app = upstream(stream, [("rm_rf", UNKNOWN_ARGS), ("bash", BASH_ARGS)])
    result = await seen(api, chat_path(app, "text"), stream=stream)
    assert result.text == AS_TEXT
    assert [(n, arguments(a)) for n, a in result.calls] == [("bash", {"command": "ls"})]
    assert result.error is None


@pytest.mark.parametrize("policy", ["drop", "text"])
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("api", APIS)
async def test_an_answer_whose_only_call_is_not_offered_ends_as_text(
    api: str, stream: bool, policy: str
) -> None:
    app = upstream(stream, [("rm_rf", UNKNOWN_ARGS)])
    result = await seen(api, chat_path(app, policy), stream=stream)
    assert result.calls == []
    assert result.text == (AS_TEXT if policy == "text" else "")
    assert (result.end, result.error) == (TEXT_END[api], None)


@pytest.mark.parametrize("policy", ["drop", "text"])
async def test_buffered_mode_applies_it_too(policy: str) -> None:
    app = upstream(True, [("bash", BASH_ARGS), ("rm_rf", UNKNOWN_ARGS), ("bash", "{}")])
    result = await seen("chat", chat_path(app, policy, "buffered"))
    assert [n for n, _ in result.calls] == ["bash", "bash"]
    assert result.text == (AS_TEXT if policy == "text" else "")


async def test_forward_passes_them_as_before() -> None:
    app = upstream(True, [("rm_rf", UNKNOWN_ARGS), ("bash", BASH_ARGS)])
    result = await seen("chat", chat_path(app, "forward"))
    assert [n for n, _ in result.calls] == ["rm_rf", "bash"]
