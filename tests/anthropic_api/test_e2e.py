"""End to end: the official ``anthropic`` SDK -> AnthropicMiddleware -> ToolCallMiddleware ->
every recorded upstream in sse_logs/ (the native ones are its ``openai-*``), in both
``messages.stream`` and ``messages.create``.

The Anthropic request is built from the recording's own request (its tools, its model reached
through the model map), and the assembled message is compared with the recording's expected
result: thinking = reasoning, text = content, one tool_use per call with the encoded id and the
parsed arguments, and the stop_reason the finish_reason maps to.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anthropic
import orjson
import pytest

from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.fronts.anthropic import AnthropicMiddleware
from toolcall_middleware.fronts.core.ids import decode, encode
from toolcall_middleware.replay import Recording, logs_dir, recording_app
from toolcall_middleware.request import read_body, replay_receive

from .helpers import TOOL_ID, sdk_client

pytestmark = pytest.mark.anyio

STOP_REASONS = {"tool_calls": "tool_use", "stop": "end_turn", "length": "max_tokens"}
RECORDINGS = sorted(logs_dir().glob("*.log"))
ANSWERS = [p for p in RECORDINGS if "tool_calls" in (Recording.load(p).expected or {})]
ERRORS = [p for p in RECORDINGS if (Recording.load(p).expected or {}).get("status", 200) >= 400]


def anthropic_tools(recording: Recording) -> list[dict[str, Any]]:
    tools = []
    for tool in recording.request.get("tools", ()):
        function = tool["function"]
        tools.append(
            {
                "name": function["name"],
                "description": function.get("description", ""),
                "input_schema": function.get("parameters") or {"type": "object"},
            }
        )
    return tools


def middleware(recording: Recording, **options: Any) -> AnthropicMiddleware:
    model_map = {"claude-*": recording.request["model"]}
    provider = recording.meta.get("provider")  # a few recordings name theirs
    core = ToolCallMiddleware(recording_app(recording), provider=provider)
    return AnthropicMiddleware(core, model_map=model_map, **options)


def id_matches(want: str | None, client_id: str) -> bool:
    """The client id decodes to the upstream's id (or to a generated id of the given form)."""
    upstream_id = decode(client_id)
    if want is None:
        return upstream_id.startswith("call_")
    if want.startswith("re:"):
        return re.fullmatch(want[3:], upstream_id) is not None
    return client_id == encode(want) and upstream_id == want


async def ask(recording: Recording, stream: bool) -> tuple[Any, list[str]]:
    app = middleware(recording)
    client = sdk_client(app)
    kwargs: Any = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "go"}],
        "tools": anthropic_tools(recording),
    }
    if not stream:
        return await client.messages.create(**kwargs), []
    async with client.messages.stream(**kwargs) as events:
        types = [event.type async for event in events]
        return await events.get_final_message(), types


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "create"])
@pytest.mark.parametrize("path", ANSWERS, ids=lambda p: p.stem)
async def test_recording_through_the_anthropic_sdk(path: Path, stream: bool) -> None:
    recording = Recording.load(path)
    expected = recording.expected
    assert expected is not None
    message, event_types = await ask(recording, stream)
    blocks = message.content
    thinking = "".join(b.thinking for b in blocks if b.type == "thinking")
    text = "".join(b.text for b in blocks if b.type == "text")
    calls = [b for b in blocks if b.type == "tool_use"]
    assert thinking == (expected.get("reasoning") or "")
    assert text == (expected.get("content") or "")
    assert message.stop_reason == STOP_REASONS[expected["finish_reason"]]
    truncated = expected["finish_reason"] == "length"
    assert len(calls) == len(expected["tool_calls"])
    for call, want in zip(calls, expected["tool_calls"], strict=True):
        assert call.name == want["name"]
        assert id_matches(want.get("id"), call.id)
        assert TOOL_ID.fullmatch(call.id)
        if not truncated and _is_object(want["arguments"]):
            assert call.input == orjson.loads(want["arguments"])
        assert isinstance(call.input, dict)  # malformed arguments too (openai-malformed*)
    if stream and calls:
        assert "input_json" in event_types


def _is_object(arguments: str) -> bool:
    try:
        return isinstance(orjson.loads(arguments), dict)
    except orjson.JSONDecodeError:
        return False


@pytest.mark.parametrize(
    "path", [p for p in ANSWERS if "long-write" in p.stem], ids=lambda p: p.stem
)
async def test_a_long_argument_streams_in_pieces(path: Path) -> None:
    recording = Recording.load(path)
    app = middleware(recording, buffer_tool_input=False)  # the SDK's own default is buffered
    client = sdk_client(app)
    pieces = 0
    async with client.messages.stream(
        model="claude-sonnet-4-6",
        max_tokens=4096,
        messages=[{"role": "user", "content": "go"}],
        tools=anthropic_tools(recording),  # type: ignore[arg-type]
    ) as events:
        async for event in events:
            if event.type == "input_json":
                pieces += 1
        message = await events.get_final_message()
    assert pieces > 1000
    assert len(orjson.dumps(message.content[-1].input)) > 200_000


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "create"])
@pytest.mark.parametrize("path", ERRORS, ids=lambda p: p.stem)
async def test_recorded_upstream_error(path: Path, stream: bool) -> None:
    recording = Recording.load(path)
    upstream_message = orjson.loads(recording.body)["error"]["message"]
    app = middleware(recording)
    client = sdk_client(app)
    kwargs: Any = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "go"}],
        "tools": anthropic_tools(recording),
    }
    with pytest.raises(anthropic.BadRequestError) as info:
        if stream:
            async with client.messages.stream(**kwargs) as events:
                await events.get_final_message()
        else:
            await client.messages.create(**kwargs)
    assert info.value.status_code == 400
    assert upstream_message in str(info.value)


async def test_multi_turn_kimi_round_trip_through_the_core() -> None:
    """Turn 1: Kimi's ``functions.bash:15`` reaches the client encoded. Turn 2: the client
    returns it in tool_use and tool_result; the upstream sees Kimi's own ids again."""
    recording = Recording.load(logs_dir() / "kimi_k2-reasoning-two-calls.log")
    seen: list[Any] = []

    async def upstream(scope: Any, receive: Any, send: Any) -> None:
        body, early = await read_body(receive)
        seen.append(orjson.loads(body))
        await recording_app(recording)(scope, replay_receive(body, early, receive), send)

    app = AnthropicMiddleware(
        ToolCallMiddleware(upstream), model_map={"claude-*": recording.request["model"]}
    )
    client = sdk_client(app)
    tools: Any = anthropic_tools(recording)
    history: Any = [{"role": "user", "content": "find the asm headers"}]
    first = await client.messages.create(
        model="claude-sonnet-4-6", max_tokens=1024, tools=tools, messages=history
    )
    tool_uses = [b for b in first.content if b.type == "tool_use"]
    assert [b.id for b in tool_uses] == [
        "toolu_tcm_functions_2ebash_3a15",
        "toolu_tcm_functions_2ebash_3a16",
    ]
    history.append(
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]}
    )
    history.append(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": b.id, "content": "asm/"} for b in tool_uses
            ],
        }
    )
    async with client.messages.stream(
        model="claude-sonnet-4-6", max_tokens=1024, tools=tools, messages=history
    ) as events:
        await events.get_final_message()
    second = seen[1]["messages"]
    assert [c["id"] for c in second[1]["tool_calls"]] == ["functions.bash:15", "functions.bash:16"]
    assert second[1]["reasoning_content"] == recording.expected["reasoning"]  # type: ignore[index]
    assert [(m["role"], m["tool_call_id"]) for m in second[2:]] == [
        ("tool", "functions.bash:15"),
        ("tool", "functions.bash:16"),
    ]
    assert seen[1]["model"] == recording.request["model"]


async def test_usage_of_a_recorded_native_upstream() -> None:
    recording = Recording.load(logs_dir() / "openai-deepseek-reasoning-call.log")
    message, _ = await ask(recording, stream=True)
    usage = message.usage
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.output_tokens) == (44, 768, 41)
