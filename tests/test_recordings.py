"""Every recording in sse_logs/ replayed through the middleware gives its expected result."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import openai
import orjson
import pytest

from helpers import message_of, recordings, sdk_client
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.completion import chunks_from_sse, completion_from_sse
from toolcall_middleware.replay import Recording, recording_app, request_body, run_app

MARKERS = (
    "<|tool_call",
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "<｜tool",
    "｜DSML｜",
    "]<]minimax[>[",
    "mm:think>",
    "<seed:tool_call>",
    "seed:think>",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "<minimax:tool_call>",
    "<arg_key>",
    "<tool_calls",
    "<tool_sep",
    ":opensource>",
    "<|channel|>",
    "<|call|>",
)


def expected_calls(expected: dict[str, Any]) -> list[tuple[str | None, str, str]]:
    return [(c.get("id"), c["name"], c["arguments"]) for c in expected["tool_calls"]]


def id_matches(expected: str | None, actual: str) -> bool:
    if expected is not None and expected.startswith("re:"):  # a generated id of a given form
        return re.fullmatch(expected[3:], actual) is not None
    return actual.startswith("call_") if expected is None else actual == expected


async def replay(recording: Recording) -> tuple[int, bytes]:
    app = ToolCallMiddleware(recording_app(recording), provider=recording.meta.get("provider"))
    status, _, bodies = await run_app(app, request_body(recording))
    return status, b"".join(bodies)


def assert_no_markup(message: dict[str, Any], expected: dict[str, Any]) -> None:
    """No markup in the text fields but what the expected text itself quotes (a call written
    out in the thinking is the model's text)."""
    quoted = (expected.get("content") or "") + (expected.get("reasoning") or "")
    markers = [m for m in MARKERS if m not in quoted]
    for field in ("content", "reasoning", "reasoning_content"):
        value = message.get(field) or ""
        assert not any(m in value for m in markers), (field, value[:200])


@pytest.mark.anyio
@pytest.mark.parametrize("path", recordings(), ids=lambda p: p.stem)
async def test_recording_gives_its_expected_result(path: Path) -> None:
    recording = Recording.load(path)
    expected = recording.expected
    assert expected is not None
    status, body = await replay(recording)
    assert status == expected.get("status", 200)
    if expected.get("byte_identical"):
        assert body == recording.body
    if "tool_calls" not in expected:
        return
    completion = completion_from_sse(body) if recording.is_sse else orjson.loads(body)
    message = message_of(completion)
    calls = message.get("tool_calls") or []
    assert len(calls) == len(expected["tool_calls"])
    for call, (want_id, name, arguments) in zip(calls, expected_calls(expected), strict=True):
        assert id_matches(want_id, call["id"])
        assert (call["type"], call["function"]["name"]) == ("function", name)
        assert call["function"]["arguments"] == arguments
    assert (message.get("content") or "") == (expected.get("content") or "")
    if expected.get("reasoning") is not None:
        reasoning = message.get("reasoning_content", message.get("reasoning"))
        assert reasoning == expected["reasoning"]
    assert completion["choices"][0]["finish_reason"] == expected["finish_reason"]
    assert_no_markup(message, expected)


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path",
    [
        p
        for p in recordings()
        if Recording.load(p).is_sse
        and (Recording.load(p).expected or {}).get("tool_calls") is not None
    ],
    ids=lambda p: p.stem,
)
async def test_openai_sdk_stream_helper_assembles_the_recording(path: Path) -> None:
    recording = Recording.load(path)
    expected = recording.expected
    assert expected is not None
    client = sdk_client(
        ToolCallMiddleware(recording_app(recording), provider=recording.meta.get("provider"))
    )
    request = recording.request
    async with client.chat.completions.stream(
        model=request["model"],
        messages=request["messages"],
        tools=request["tools"],
    ) as stream:
        argument_events = 0
        async for event in stream:
            if event.type == "tool_calls.function.arguments.delta":
                argument_events += 1
        try:
            final: Any = await stream.get_final_completion()
        except openai.LengthFinishReasonError as exc:  # the SDK refuses to parse a cut-off reply
            final = exc.completion
    choice = final.choices[0]
    calls = choice.message.tool_calls or []
    assert [(c.function.name, c.function.arguments) for c in calls] == [
        (name, arguments) for _, name, arguments in expected_calls(expected)
    ]
    pairs = zip(calls, expected_calls(expected), strict=True)
    assert all(id_matches(want, c.id) for c, (want, _, _) in pairs)
    assert (choice.message.content or "") == (expected.get("content") or "")
    assert choice.finish_reason == expected["finish_reason"]
    if calls:
        assert argument_events >= len(calls)
    dumped = choice.message.model_dump()
    extra = choice.message.model_extra or {}
    assert_no_markup({**dumped, **extra}, expected)
    if expected.get("reasoning") is not None:
        assert extra.get("reasoning_content", extra.get("reasoning")) == expected["reasoning"]


@pytest.mark.anyio
async def test_reasoning_and_reasoning_content_both_keep_the_text() -> None:
    recording = Recording.load(recordings("kimi_k2-reasoning-two-calls")[0])
    _, body = await replay(recording)
    message = message_of(completion_from_sse(body))
    assert message["reasoning"] == message["reasoning_content"]
    assert message["reasoning"].startswith("The user wants to find the asm headers.")


@pytest.mark.anyio
async def test_a_200_kb_argument_flows_in_pieces() -> None:
    recording = Recording.load(recordings("kimi_k2-long-write")[0])
    _, body = await replay(recording)
    pieces = [
        entry["function"]["arguments"]
        for chunk in chunks_from_sse(body)
        for choice in chunk["choices"]
        for entry in choice["delta"].get("tool_calls", ())
        if "id" not in entry
    ]
    assert len(pieces) > 1000  # one piece per upstream delta, none held until the end
    assert max(map(len, pieces)) <= 200  # a delta, plus whitespace held from the one before
    assert len("".join(pieces)) > 200_000
