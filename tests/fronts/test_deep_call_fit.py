"""A call whose id names no function goes to the one offered tool its arguments fit, however
deep the arguments nest: the fit reads only the object's own keys, without recursion
(``parsers.names.tool_for_arguments``). 10,000 levels, past any stack, through the chat path
(streamed, buffered, whole) and the fronts."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from anthropic_api.helpers import Reply, ScriptedApp, chunk, json_reply
from toolcall_middleware import AnthropicMiddleware, ToolCallMiddleware
from toolcall_middleware.asgi import ASGIApp

from .clients import http_client, seen

pytestmark = pytest.mark.anyio

DEPTH = 10_000
ARGUMENTS = '{"command": "ls", "x": ' + "[" * DEPTH + "]" * DEPTH + "}"
#: Kimi K2 markup whose call id, ``0``, names no function.
MARKUP = (
    "<|tool_calls_section_begin|><|tool_call_begin|>0<|tool_call_argument_begin|>"
    + ARGUMENTS
    + "<|tool_call_end|><|tool_calls_section_end|>"
)
TOOL = {"type": "object", "properties": {"command": {"type": "string"}, "x": {"type": "array"}}}


def upstream(stream: bool, mode: str = "stream") -> ASGIApp:
    if stream:
        size = len(MARKUP) // 30 + 1
        pieces = [MARKUP[i : i + size] for i in range(0, len(MARKUP), size)]
        chunks = [chunk({"reasoning_content": p}) for p in pieces] + [chunk(None, "stop")]
        reply = Reply(200, [b"data: " + orjson.dumps(c) + b"\n\n" for c in chunks])
    else:
        message = {"role": "assistant", "content": MARKUP}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        reply = json_reply({"id": "c", "object": "chat.completion", "choices": [choice]})
    return ToolCallMiddleware(ScriptedApp([reply]), provider="kimi_k2", mode=mode, metrics=False)


@pytest.fixture(autouse=True)
def one_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every client offers one tool, ``bash``, whose schema the deep arguments fit."""
    from . import clients

    monkeypatch.setattr(clients, "TOOL_SCHEMA", TOOL)


@pytest.mark.parametrize(
    ("api", "stream", "mode"),
    [
        ("chat", True, "stream"),
        ("chat", True, "buffered"),
        ("chat", False, "stream"),
        ("responses", True, "stream"),
        ("responses", False, "stream"),
    ],
)
async def test_the_call_goes_to_the_tool_its_arguments_fit(
    api: str, stream: bool, mode: str
) -> None:
    result = await seen(api, upstream(stream, mode), stream=stream)
    assert result.error is None
    ((name, arguments),) = result.calls
    if mode == "buffered":  # checked, and no JSON parser takes them: wrapped, as the policy says
        assert (name, orjson.loads(arguments)) == ("bash", {"input": ARGUMENTS})
    else:
        assert (name, arguments) == ("bash", ARGUMENTS)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_gemini_gets_the_call_its_arguments_wrapped(stream: bool) -> None:
    # Arguments no JSON parser takes whole (orjson stops at 1024 levels) reach Gemini, whose
    # call needs an object, as {"input": the text} (the one policy: ``calls.arguments_object``).
    result = await seen("gemini", upstream(stream), stream=stream)
    ((name, arguments),) = result.calls
    assert (name, arguments) == ("bash", {"input": ARGUMENTS})


async def test_anthropic_gets_the_call() -> None:
    # (Read from the wire: the anthropic SDK's own parsers stop far short of 10,000 levels.)
    app = AnthropicMiddleware(upstream(True), buffer_tool_input=False)
    tools = [{"name": "bash", "input_schema": TOOL}]
    doc: dict[str, Any] = {"model": "m", "max_tokens": 9, "messages": [], "tools": tools}
    doc["messages"].append({"role": "user", "content": "hi"})
    async with http_client(app) as http:
        body = (await http.post("/v1/messages", json={**doc, "stream": True})).content
    events = [orjson.loads(line[6:]) for line in body.split(b"\n") if line.startswith(b"data: ")]
    (start,) = [e for e in events if e["type"] == "content_block_start"]
    assert start["content_block"]["name"] == "bash"
    pieces = [e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta"]
    assert "".join(pieces) == ARGUMENTS
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
