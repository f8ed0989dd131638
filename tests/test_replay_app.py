"""The bundled replay upstream as a client sees it: streamed or not as asked, its models
listed, an unknown model refused with the list of what exists."""

from __future__ import annotations

import json

import openai
import pytest

from helpers import sdk_client
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.replay import (
    Recording,
    as_requested,
    find_recording,
    recording_names,
    replay_app,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]
MESSAGES = [{"role": "user", "content": "Find the asm headers"}]


def repaired() -> openai.AsyncOpenAI:
    return sdk_client(ToolCallMiddleware(replay_app()))


@pytest.mark.anyio
async def test_a_non_streamed_request_for_a_streamed_recording_gets_its_json_form() -> None:
    client = repaired()
    completion = await client.chat.completions.create(
        model="kimi_k2-reasoning-two-calls",
        messages=MESSAGES,
        tools=TOOLS,  # type: ignore[arg-type]
    )
    async with client.chat.completions.stream(
        model="kimi_k2-reasoning-two-calls",
        messages=MESSAGES,
        tools=TOOLS,  # type: ignore[arg-type]
    ) as stream:
        streamed = await stream.get_final_completion()
    choice, streamed_choice = completion.choices[0], streamed.choices[0]
    assert choice.finish_reason == streamed_choice.finish_reason == "tool_calls"
    calls = [(c.id, c.function.name, c.function.arguments) for c in choice.message.tool_calls or []]
    assert calls == [
        (c.id, c.function.name, c.function.arguments)
        for c in streamed_choice.message.tool_calls or []
    ]
    assert [name for _, name, _ in calls] == ["bash", "bash"]
    assert all(json.loads(arguments)["command"] for _, _, arguments in calls)
    reasoning = (choice.message.model_extra or {})["reasoning_content"]
    assert reasoning and "<|" not in reasoning


@pytest.mark.anyio
async def test_a_streamed_request_for_a_json_recording_gets_it_as_a_stream() -> None:
    client = repaired()
    expected = Recording.load(find_recording("hermes-nonstream")).expected
    assert expected is not None
    async with client.chat.completions.stream(
        model="hermes-nonstream",
        messages=MESSAGES,
        tools=TOOLS,  # type: ignore[arg-type]
    ) as stream:
        final = await stream.get_final_completion()
    non_streamed = await client.chat.completions.create(
        model="hermes-nonstream",
        messages=MESSAGES,
        tools=TOOLS,  # type: ignore[arg-type]
    )
    for completion in (final, non_streamed):
        choice = completion.choices[0]
        assert choice.finish_reason == "tool_calls"
        assert [c.function.name for c in choice.message.tool_calls or []] == [
            c["name"] for c in expected["tool_calls"]
        ]
        assert "<tool_call>" not in (choice.message.content or "")


def test_an_error_recording_is_served_as_recorded_in_either_form() -> None:
    recording = Recording.load(find_recording("kimi_k2-upstream-error"))
    assert recording.status == 400 and not recording.is_sse
    assert as_requested(recording, stream=True) is recording
    assert as_requested(recording, stream=False) is recording


@pytest.mark.anyio
async def test_models_lists_every_recording_and_an_unknown_one_is_a_404_naming_them() -> None:
    client = repaired()
    listed = [m.id for m in (await client.models.list()).data]
    assert listed == recording_names()
    assert {"kimi_k2-reasoning-two-calls", "hermes-nonstream", "qwen_xml-content-calls"} <= set(
        listed
    )
    with pytest.raises(openai.NotFoundError) as raised:
        await client.chat.completions.create(
            model="gpt-4o",
            messages=MESSAGES,
            tools=TOOLS,  # type: ignore[arg-type]
        )
    error = raised.value.body
    assert isinstance(error, dict)
    assert error["code"] == "model_not_found" and error["param"] == "model"
    assert "'gpt-4o' is not one of the bundled recordings" in error["message"]
    assert all(name in error["message"] for name in listed)
