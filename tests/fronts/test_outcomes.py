"""How an upstream's finish reason reaches each client (``fronts/core/finish.py``,
docs/outcomes.md): only a generation that ended as the model meant it is a success; one the
server failed or aborted is the API's error; one cut, filtered or stopped for a reason nobody
knows is the API's incomplete answer. Asked through each API's official SDK, streamed and not,
with the chat path's middleware in between, as ``toolcall serve`` runs them."""

from __future__ import annotations

from typing import Any

import pytest

from anthropic_api.helpers import ScriptedApp, call_delta, chunk, json_reply, stream_reply
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.asgi import ASGIApp
from toolcall_middleware.fronts.core.finish import OUTCOMES, outcome

from .clients import APIS, seen

pytestmark = pytest.mark.anyio

USAGE = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}

#: finish_reason -> what each API's client gets: ``Seen.end``, or ``! <status>`` for the error
#: the SDK raised (streamed on Responses: ``response.failed``).
EXPECTED: dict[str, dict[str, str]] = {
    "stop": {
        "chat": "stop",
        "responses": "completed",
        "anthropic": "end_turn",
        "gemini": "STOP",
    },
    "length": {
        "chat": "length",
        "responses": "incomplete: max_output_tokens",
        "anthropic": "max_tokens",
        "gemini": "MAX_TOKENS",
    },
    "content_filter": {
        "chat": "content_filter",
        "responses": "incomplete: content_filter",
        "anthropic": "refusal",
        "gemini": "SAFETY",
    },
    "eos_token": {
        "chat": "eos_token",
        "responses": "completed",
        "anthropic": "end_turn",
        "gemini": "STOP",
    },
    "error": {
        "chat": "error",
        "responses": "! 500",
        "anthropic": "! api_error",
        "gemini": "! 500",
    },
    "abort": {
        "chat": "abort",
        "responses": "! 500",
        "anthropic": "! api_error",
        "gemini": "! 500",
    },
    "insufficient_system_resource": {
        "chat": "insufficient_system_resource",
        "responses": "! 503",
        "anthropic": "! overloaded_error",
        "gemini": "! 503",
    },
    "repetition": {
        "chat": "repetition",
        "responses": "incomplete: repetition",
        "anthropic": "! api_error",
        "gemini": "OTHER",
    },
    "never_heard_of": {
        "chat": "never_heard_of",
        "responses": "incomplete: never_heard_of",
        "anthropic": "! api_error",
        "gemini": "OTHER",
    },
}


def upstream(finish: str, stream: bool, call: bool = False) -> ASGIApp:
    """The chat path before an upstream that says ``hi`` (and, with ``call``, starts a call)
    and ends with ``finish``."""
    if stream:
        chunks = [chunk({"role": "assistant", "content": "hi"})]
        if call:
            chunks.append(chunk(call_delta(0, id="call_1", name="bash", args='{"command": "rm')))
        chunks += [chunk(None, finish), chunk(usage=USAGE)]
        reply = stream_reply(chunks)
    else:
        message: dict[str, Any] = {"role": "assistant", "content": "hi"}
        if call:
            function = {"name": "bash", "arguments": '{"command": "rm'}
            message["tool_calls"] = [{"id": "call_1", "type": "function", "function": function}]
        reply = json_reply(
            {
                "id": "c",
                "object": "chat.completion",
                "created": 1,
                "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": USAGE,
            }
        )
    return ToolCallMiddleware(ScriptedApp([reply]), metrics=False)


def ended(api: str, result: Any) -> str:
    if result.end is not None and result.status is None and api != "responses":
        return str(result.end)
    if api == "responses" and result.error is None:
        return str(result.end)
    assert result.error, result
    if api == "anthropic":  # (streaming, the error event comes with the stream's 200)
        return f"! {result.kind}"
    return f"! {result.status}"


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("finish", list(EXPECTED))
async def test_each_finish_reason_reaches_the_client_as_its_api_says(
    finish: str, api: str, stream: bool
) -> None:
    result = await seen(api, upstream(finish, stream), stream=stream)
    expected = EXPECTED[finish][api]
    if api == "responses" and stream and expected.startswith("!"):
        # Streaming, the Responses API fails inside the stream: response.failed.
        assert result.end == "failed"
        code = "server_is_overloaded" if expected == "! 503" else "server_error"
        assert result.error is not None and result.error.startswith(code)
        assert repr(finish) in result.error
        assert result.text == "hi"
        return
    assert ended(api, result) == expected
    if expected.startswith("!"):
        assert result.error is not None and repr(finish) in result.error
    else:
        assert result.text == "hi"


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("api", APIS[1:])
@pytest.mark.parametrize("finish", ["error", "abort"])
async def test_a_call_open_when_the_generation_failed_never_reaches_a_client(
    finish: str, api: str, stream: bool
) -> None:
    result = await seen(api, upstream(finish, stream, call=True), stream=stream)
    assert result.calls == []
    assert result.error is not None and repr(finish) in result.error


def test_the_table_covers_the_documented_reasons() -> None:
    # vLLM's, SGLang's and OpenAI's own values, and what the rest of the table maps.
    for reason in ("stop", "length", "tool_calls", "content_filter", "function_call"):
        assert outcome(reason) != "failed"
    assert outcome("error") == outcome("abort") == "failed"
    assert outcome("STOP") == "complete"  # case does not matter
    assert outcome("something a server made up") == "incomplete"
    assert set(OUTCOMES.values()) == {
        "complete",
        "length",
        "content_filter",
        "failed",
        "incomplete",
    }
