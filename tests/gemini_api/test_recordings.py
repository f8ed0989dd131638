"""End to end: the google-genai SDK -> GeminiMiddleware -> ToolCallMiddleware (``stream`` and
``buffered`` modes) -> every recorded upstream in sse_logs/ with tool calls (every markup
format, and the native quirks), through ``generate_content`` and ``generate_content_stream``.

The request offers the recording's own tools; the SDK's view is compared with the recording's
expected result: thoughts = reasoning, text = content, one whole ``functionCall`` per call with
the upstream's id and the parsed arguments, and the finish reason. Every stream goes through
the framing checker, and in every streamed response each call arrives whole, in one chunk."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from google.genai import types

from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.fronts.gemini import GeminiMiddleware
from toolcall_middleware.replay import Recording, logs_dir, recording_app

from .helpers import CheckedApp, sdk_client

pytestmark = pytest.mark.anyio

FINISH = {
    "tool_calls": types.FinishReason.STOP,
    "stop": types.FinishReason.STOP,
    "length": types.FinishReason.MAX_TOKENS,
}
RECORDINGS = sorted(logs_dir().glob("*.log"))
WITH_CALLS = [p for p in RECORDINGS if (Recording.load(p).expected or {}).get("tool_calls")]
MODES = ("stream", "buffered")


def expectation(recording: Recording, mode: str) -> dict[str, Any]:
    if mode == "buffered" and "expected_buffered" in recording.meta:
        expected = recording.meta["expected_buffered"]
    else:
        expected = recording.expected
    assert isinstance(expected, dict)
    return expected


def gemini_tools(recording: Recording) -> list[types.Tool]:
    declarations = [
        types.FunctionDeclaration(
            name=tool["function"]["name"],
            description=tool["function"].get("description", ""),
            parameters_json_schema=tool["function"].get("parameters") or {"type": "object"},
        )
        for tool in recording.request.get("tools", ())
    ]
    return [types.Tool(function_declarations=declarations)]


def app_for(recording: Recording, mode: str) -> CheckedApp:
    provider = recording.meta.get("provider")  # a few recordings name theirs
    core = ToolCallMiddleware(recording_app(recording), provider=provider, mode=mode, metrics=False)
    return CheckedApp(GeminiMiddleware(core, default_model=recording.request["model"]))


def id_matches(want: str | None, call_id: str) -> bool:
    if want is None:
        return call_id.startswith("call_")
    if want.startswith("re:"):
        return re.fullmatch(want[3:], call_id) is not None
    return call_id == want


def arguments(text: str) -> Any:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {"input": text}
    return value if isinstance(value, dict) else {"input": text}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", WITH_CALLS, ids=lambda p: p.stem)
async def test_recording_through_the_google_genai_sdk(path: Path, mode: str, stream: bool) -> None:
    recording = Recording.load(path)
    expected = expectation(recording, mode)
    checked = app_for(recording, mode)
    client = sdk_client(checked, checked=False)
    config = types.GenerateContentConfig(
        tools=gemini_tools(recording), thinking_config=types.ThinkingConfig(include_thoughts=True)
    )
    kwargs: Any = {"model": "gemini-2.5-pro", "contents": "go", "config": config}
    if stream:
        responses = [r async for r in await client.aio.models.generate_content_stream(**kwargs)]
        assert len(checked.streams) == 1  # checked: framing, whole calls, finish at the end
    else:
        responses = [await client.aio.models.generate_content(**kwargs)]
    parts = [p for r in responses for p in r.candidates[0].content.parts or ()]  # type: ignore
    thoughts = "".join(p.text or "" for p in parts if p.thought)
    text = "".join(p.text or "" for p in parts if not p.thought and not p.function_call)
    calls = [p.function_call for p in parts if p.function_call]
    assert thoughts == (expected.get("reasoning") or "")
    assert text == (expected.get("content") or "")
    assert responses[-1].candidates[0].finish_reason == FINISH[expected["finish_reason"]]  # type: ignore
    assert len(calls) == len(expected["tool_calls"])
    truncated = expected["finish_reason"] == "length"
    for call, want in zip(calls, expected["tool_calls"], strict=True):
        assert call is not None and call.name == want["name"]
        assert call.id is not None and id_matches(want.get("id"), call.id)
        assert isinstance(call.args, dict)
        if not truncated:
            assert call.args == arguments(want["arguments"])
    assert len({c.id for c in calls}) == len(calls)


async def test_every_format_has_a_recording_with_calls() -> None:
    formats = {p.stem.split("-")[0] for p in WITH_CALLS}
    assert {
        "kimi_k2",
        "qwen3_coder",
        "hermes",
        "deepseek",
        "glm45",
        "gpt_oss",
        "llama3_json",
        "minimax_m2",
        "mistral",
        "qwen_xml",
        "openai",
    } <= formats
