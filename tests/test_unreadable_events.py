"""One event the rewrite cannot read goes as it came; the stream around it is still repaired.

An event whose choice index is a list (or an object, a string, a choice that is not an object)
names no choice the rewrite knows. It goes to the client byte for byte and is counted
(``passed-unread``); the markup before and after it still becomes tool calls.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from prometheus_client import CollectorRegistry

from helpers import body_app, chunk, message_of, request_json, sdk_client, sse, through
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.completion import chunks_from_sse, completion_from_sse

pytestmark = pytest.mark.anyio

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"


def kimi_call(n: int, command: str) -> list[str]:
    return [f"{SB}{CB}functions.bash:{n}{AB}", json.dumps({"command": command}), f"{CE}{SE}"]


def odd_chunk(shape: str) -> dict[str, Any]:
    odd = chunk({"content": "odd"})
    choice = odd["choices"][0]
    if shape == "choice":
        odd["choices"] = ["odd"]
    else:
        choice["index"] = {"list": [0], "object": {"i": 0}, "string": "0", "bool": True}[shape]
    return odd


SHAPES = ["list", "object", "string", "bool", "choice"]


def stream_with(odd: dict[str, Any]) -> list[bytes]:
    """Markup calls before and after ``odd``, one event per body message."""
    texts = ["Hi ", *kimi_call(0, "ls"), "odd", " then ", *kimi_call(1, "pwd")]
    events: list[Any] = [odd if t == "odd" else chunk({"content": t}) for t in texts]
    return [sse(e) for e in [*events, chunk({}, "stop"), "[DONE]"]]


def fallbacks(registry: CollectorRegistry, action: str) -> float:
    value = registry.get_sample_value(
        "toolcall_fallbacks_total", {"provider": "kimi_k2", "stage": "stream", "action": action}
    )
    return value or 0.0


@pytest.mark.parametrize("shape", SHAPES)
async def test_an_unreadable_event_goes_as_it_came_and_the_rest_is_repaired(shape: str) -> None:
    registry = CollectorRegistry()
    bodies = stream_with(odd_chunk(shape))
    app = ToolCallMiddleware(body_app(bodies), "kimi_k2", registry=registry)
    out = await through(app, request_json())
    assert bodies[4] in out  # byte for byte
    good = [c for c in chunks_from_sse(out) if type(c["choices"][0]) is dict]
    good = [c for c in good if type(c["choices"][0]["index"]) is int]
    message = message_of(completion_from_sse(b"".join(sse(c) for c in good)))
    calls = [(c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]]
    assert calls == [("bash", '{"command": "ls"}'), ("bash", '{"command": "pwd"}')]
    assert message["content"] == "Hi  then "
    assert b"<|tool" not in out
    assert fallbacks(registry, "passed-unread") == 1
    assert fallbacks(registry, "rewrite-error") == 0


async def test_the_openai_sdk_gets_both_calls_around_an_unreadable_event() -> None:
    app = ToolCallMiddleware(body_app(stream_with(odd_chunk("list"))), "kimi_k2", metrics=False)
    client = sdk_client(app)
    stream = await client.chat.completions.create(
        model="kimi-k2",
        messages=[{"role": "user", "content": "list, then print the directory"}],
        tools=[{"type": "function", "function": {"name": "bash", "parameters": {}}}],
        stream=True,
    )
    arguments: dict[int, str] = {}
    names: dict[int, str] = {}
    odd = []
    async for piece in stream:
        choice = piece.choices[0]
        if type(choice.index) is not int:
            odd.append(choice.delta.content)
            continue
        for call in choice.delta.tool_calls or ():
            arguments[call.index] = arguments.get(call.index, "") + (call.function.arguments or "")
            if call.function.name:
                names[call.index] = call.function.name
        assert "<|" not in (choice.delta.content or "")
    assert odd == ["odd"]  # as the upstream sent it: the SDK hands it on, index and all
    assert names == {0: "bash", 1: "bash"}
    assert [orjson.loads(arguments[i]) for i in (0, 1)] == [{"command": "ls"}, {"command": "pwd"}]


async def test_a_readable_index_given_as_null_is_the_first_choice() -> None:
    nulled = chunk({"content": " more"})
    nulled["choices"][0]["index"] = None
    registry = CollectorRegistry()
    texts = ["Hi", *kimi_call(0, "ls")]
    events = [chunk({"content": t}) for t in texts]
    bodies = [sse(e) for e in [*events, nulled, chunk({}, "stop"), "[DONE]"]]
    out = await through(
        ToolCallMiddleware(body_app(bodies), "kimi_k2", registry=registry), request_json()
    )
    message = message_of(completion_from_sse(out))
    assert message["content"] == "Hi more" and len(message["tool_calls"]) == 1
    assert fallbacks(registry, "passed-unread") == 0
