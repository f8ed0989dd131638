"""An answer is over only once its last bytes exist. Numbers an upstream sends are carried or
clamped, never a reason the last event cannot be written; anything that still fails while the
end is built ends the answer with the API's error, streamed or not: never a stream that ends as
if it were whole, never a bare 500. Asked through each API's official SDK."""

from __future__ import annotations

import json
from typing import Any

import pytest

from anthropic_api.helpers import ScriptedApp, call_delta, chunk, json_reply, stream_reply
from toolcall_middleware import ResponsesMiddleware, ToolCallMiddleware
from toolcall_middleware.asgi import ASGIApp
from toolcall_middleware.fronts.anthropic import stream as anthropic_stream
from toolcall_middleware.fronts.core.numbers import MAX_COUNT
from toolcall_middleware.fronts.gemini import translator as gemini_translator
from toolcall_middleware.fronts.responses import stream as responses_stream

from .clients import FRONTS, http_client, seen

pytestmark = pytest.mark.anyio

SUCCESS = {"responses": "completed", "anthropic": "end_turn", "gemini": "STOP"}


def event(doc: dict[str, Any]) -> bytes:
    """One SSE event written by the standard library, which writes any integer."""
    return b"data: " + json.dumps(doc).encode() + b"\n\n"


def completion(message: dict[str, Any], usage: Any) -> bytes:
    return json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": usage,
        }
    ).encode()


def answer(stream: bool, usage: Any, delta: dict[str, Any] | None = None) -> ASGIApp:
    """An upstream that says ``hi`` (or ``delta``), stops, and sends ``usage``."""
    delta = delta or {"content": "hi"}
    if stream:
        chunks = [chunk(delta), chunk(None, "stop"), chunk(usage=usage)]
        reply = stream_reply([event(c) for c in chunks])
    else:
        reply = json_reply(None)
        reply.body = [completion({"role": "assistant", **_message(delta)}, usage)]
    return ScriptedApp([reply])


def _message(delta: dict[str, Any]) -> dict[str, Any]:
    if "tool_calls" not in delta:
        return delta
    (entry,) = delta["tool_calls"]
    return {"tool_calls": [{"id": entry["id"], "type": "function", "function": entry["function"]}]}


HUGE = 2**64 - 1
USAGES = {
    # The largest integer orjson reads; the total, summed, is past what it writes.
    "u64 max": {"prompt_tokens": HUGE, "completion_tokens": 5},
    "u64 max total": {"prompt_tokens": HUGE, "completion_tokens": 5, "total_tokens": HUGE},
    "past 64 bits": {"prompt_tokens": 2**64, "completion_tokens": 10**40, "total_tokens": 1},
    "negative": {"prompt_tokens": -3, "completion_tokens": -(2**70), "total_tokens": -1},
    "not integers": {"prompt_tokens": 1.5, "completion_tokens": "12", "total_tokens": True},
    "details past 64 bits": {
        "prompt_tokens": 3,
        "completion_tokens": 4,
        "total_tokens": 7,
        "prompt_tokens_details": {"cached_tokens": 2**65},
        "completion_tokens_details": {"reasoning_tokens": HUGE},
    },
}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("api", FRONTS)
@pytest.mark.parametrize("usage", list(USAGES))
async def test_any_usage_numbers_end_the_answer_as_a_success(
    usage: str, api: str, stream: bool
) -> None:
    upstream = ToolCallMiddleware(answer(stream, USAGES[usage]), metrics=False)
    result = await seen(api, upstream, stream=stream)
    assert (result.end, result.error, result.text) == (SUCCESS[api], None, "hi")


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_counts_are_clamped_to_what_every_json_client_reads(stream: bool) -> None:
    app = ResponsesMiddleware(answer(stream, USAGES["u64 max"]))
    body = {"model": "m", "input": "hi", "stream": stream}
    async with http_client(app) as http:  # the raw body, not the SDK's model of it
        raw = (await http.post("/v1/responses", json=body)).content
    usage = json.loads(raw.rsplit(b"data: ", 1)[-1] if stream else raw)
    usage = usage["response"]["usage"] if stream else usage["usage"]
    assert usage["input_tokens"] == MAX_COUNT
    assert usage["output_tokens"] == 5
    assert usage["total_tokens"] == MAX_COUNT + 5


DEEP_ARGS = '{"command": ' + '{"a": ' * 300 + "1" + "}" * 300 + "}"


@pytest.mark.parametrize(
    ("api", "stream"),
    # Not streamed Anthropic tool input: the anthropic SDK's stream helper reads it with a
    # parser of its own that stops at about 200 levels (and the front writes it as a string).
    [
        ("responses", True),
        ("responses", False),
        ("anthropic", False),
        ("gemini", True),
        ("gemini", False),
    ],
)
async def test_call_arguments_nested_past_the_encoders_limit_are_written(
    api: str, stream: bool
) -> None:
    # 300 levels: orjson reads them (its limit is 1024) but writes only 255.
    delta = call_delta(0, id="call_1", name="bash", args=DEEP_ARGS)
    upstream = ToolCallMiddleware(answer(stream, None, delta), metrics=False)
    result = await seen(api, upstream, stream=stream)
    assert result.error is None
    ((name, arguments),) = result.calls
    depth = 0
    value = json.loads(arguments)["command"] if isinstance(arguments, str) else arguments["command"]
    while isinstance(value, dict):
        value, depth = value["a"], depth + 1
    assert (name, depth, value) == ("bash", 300, 1)


#: The function each front builds its answer's last event with (its usage).
LAST_EVENT_BUILDERS = {
    "responses": (responses_stream, "usage_of"),
    "anthropic": (anthropic_stream, "map_usage"),
    "gemini": (gemini_translator, "usage_metadata"),
}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("api", FRONTS)
async def test_a_failure_while_the_last_event_is_built_is_the_apis_error(
    api: str, stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("cannot build the usage")

    module, name = LAST_EVENT_BUILDERS[api]
    monkeypatch.setattr(module, name, broken)
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    upstream = ToolCallMiddleware(answer(stream, usage), metrics=False)
    result = await seen(api, upstream, stream=stream)
    assert result.error is not None and "could not translate" in result.error
    if api == "responses" and stream:
        assert result.end == "failed" and result.error.startswith("server_error")
    else:
        assert result.kind != "end_turn"
        assert result.status in (200, 500)  # (an Anthropic error event comes with the 200)
        if api == "anthropic":
            assert result.kind == "api_error"
