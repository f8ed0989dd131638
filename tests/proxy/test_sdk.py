"""The official openai SDK, over real HTTP, through the proxy to a recorded upstream."""

from __future__ import annotations

from typing import Any

import anyio
import openai
import pytest
from fake_upstream import FakeUpstream

from toolcall_middleware.replay import Recording, find_recording

STREAMS_WITH_CALLS = [
    "kimi_k2-reasoning-two-calls",
    "kimi_k2-content-calls",
    "kimi_k2-mixed-packet",
    "kimi_k2-split-fields",
    "kimi_k2-long-write",
    "kimi_k2-truncated",
]


def recording(name: str) -> Recording:
    return Recording.load(find_recording(name))


def client(base: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=base + "/v1", api_key="sk-test", max_retries=0)


def as_expected(message: Any, finish_reason: str | None) -> dict[str, Any]:
    extra = message.model_extra or {}
    return {
        "content": message.content,
        "reasoning": extra.get("reasoning_content", extra.get("reasoning")),
        "tool_calls": [
            {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
            for c in message.tool_calls or ()
        ],
        "finish_reason": finish_reason,
    }


@pytest.mark.parametrize("name", STREAMS_WITH_CALLS)
def test_stream_helper_assembles_the_recorded_tool_calls(proxy: str, name: str) -> None:
    rec = recording(name)
    req = rec.request

    async def run() -> Any:
        async with (
            client(proxy) as sdk,
            sdk.chat.completions.stream(
                model=req["model"],
                messages=req["messages"],
                tools=req["tools"],
                extra_headers={"x-recording": name},
            ) as stream,
        ):
            async for _ in stream:
                pass
            # The snapshot, not get_final_completion(): that one raises on finish_reason length.
            return stream.current_completion_snapshot

    completion = anyio.run(run)
    choice = completion.choices[0]
    expected = dict(rec.expected or {})
    got = as_expected(choice.message, choice.finish_reason)
    assert got["tool_calls"] == expected["tool_calls"]
    assert got["finish_reason"] == expected["finish_reason"]
    assert (got["content"] or "") == (expected.get("content") or "")
    if expected.get("reasoning") is not None:
        assert got["reasoning"] == expected["reasoning"]
    for value in (got["content"] or "", got["reasoning"] or ""):
        assert "<|tool_call" not in value


def test_non_streaming_completion_is_rewritten(proxy: str) -> None:
    rec = recording("kimi_k2-nonstream")
    req = rec.request

    async def run() -> Any:
        async with client(proxy) as sdk:
            return await sdk.chat.completions.create(
                model=req["model"],
                messages=req["messages"],
                tools=req["tools"],
                extra_headers={"x-recording": "kimi_k2-nonstream"},
            )

    completion = anyio.run(run)
    choice = completion.choices[0]
    expected = dict(rec.expected or {})
    got = as_expected(choice.message, choice.finish_reason)
    assert got["tool_calls"] == expected["tool_calls"]
    assert got["finish_reason"] == expected["finish_reason"] == "tool_calls"


def test_upstream_error_reaches_the_sdk_as_its_own_error(proxy: str) -> None:
    rec = recording("kimi_k2-upstream-error")
    req = rec.request

    async def run() -> None:
        async with client(proxy) as sdk:
            await sdk.chat.completions.create(
                model=req["model"],
                messages=req["messages"],
                tools=req["tools"],
                stream=True,
                extra_headers={"x-recording": "kimi_k2-upstream-error"},
            )

    with pytest.raises(openai.APIStatusError) as caught:
        anyio.run(run)
    assert caught.value.status_code == rec.status
    assert caught.value.response.content == rec.body


def test_models_list_passes_through(proxy: str, upstream: FakeUpstream) -> None:
    async def run() -> list[str]:
        async with client(proxy) as sdk:
            return [m.id async for m in sdk.models.list()]

    assert anyio.run(run) == ["moonshotai/Kimi-K2-Instruct"]
