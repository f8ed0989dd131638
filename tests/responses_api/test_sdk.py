"""The official openai SDK's ``client.responses.stream()`` and ``.create()`` over every recording
in sse_logs/ that has calls, every format, both modes of the chat path under the front.

The reference for each run is what the chat path itself gives for the same recording in the
same mode (judged against the recordings' own expectations elsewhere), plus, in stream mode,
the recording's expected calls directly: the front must carry every call, text and reasoning
over exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from helpers import recordings
from toolcall_middleware import ResponsesMiddleware, ToolCallMiddleware
from toolcall_middleware.completion import completion_from_sse
from toolcall_middleware.replay import Recording, recording_app, request_body, run_app

from .helpers import TERMINAL, responses_request, sdk_client

pytestmark = pytest.mark.anyio

WITH_CALLS = [
    p
    for p in recordings()
    if Recording.load(p).status == 200 and ((Recording.load(p).expected or {}).get("tool_calls"))
]
MODES = ("stream", "buffered")


def chat_app(recording: Recording, mode: str) -> Any:
    return ToolCallMiddleware(
        recording_app(recording), provider=recording.meta.get("provider"), mode=mode, metrics=False
    )


async def chat_reference(recording: Recording, mode: str) -> dict[str, Any]:
    """The assembled message the chat path gives a chat client."""
    _, _, bodies = await run_app(chat_app(recording, mode), request_body(recording))
    body = b"".join(bodies)
    completion = completion_from_sse(body) if recording.is_sse else orjson.loads(body)
    choice = completion["choices"][0]
    return {**choice["message"], "finish_reason": choice["finish_reason"]}


def output_view(output: list[dict[str, Any]]) -> dict[str, Any]:
    texts, reasoning, calls = [], [], []
    for item in output:
        if item["type"] == "message":
            texts += [p["text"] for p in item["content"] if p["type"] == "output_text"]
        elif item["type"] == "reasoning":
            reasoning += [p["text"] for p in item["content"]]
        elif item["type"] == "function_call":
            calls.append((item["call_id"], item["name"], item["arguments"]))
    return {"content": "".join(texts), "reasoning": "".join(reasoning), "calls": calls}


def assert_same(
    view: dict[str, Any], reference: dict[str, Any], recording: Recording, mode: str
) -> None:
    ref_calls = [
        (c["id"], c["function"]["name"], c["function"]["arguments"])
        for c in reference.get("tool_calls") or ()
    ]
    assert [(n, a) for _, n, a in view["calls"]] == [(n, a) for _, n, a in ref_calls]
    ids = [i for i, _, _ in view["calls"]]
    assert all(ids) and len(set(ids)) == len(ids)
    # The recording's own expectation for this mode (native ones state both modes).
    expected = recording.meta.get("expected_buffered") if mode == "buffered" else None
    expected = expected or recording.expected or {}
    if mode == "stream" or "expected_buffered" in recording.meta:
        assert [(n, a) for _, n, a in view["calls"]] == [
            (c["name"], c["arguments"]) for c in expected["tool_calls"]
        ]
        for call_id, want in zip(ids, expected["tool_calls"], strict=True):
            if want.get("id") and not want["id"].startswith("re:"):
                assert call_id == want["id"]  # the upstream's own id, unchanged
    assert view["content"] == (reference.get("content") or "")
    reasoning = reference.get("reasoning_content", reference.get("reasoning")) or ""
    assert view["reasoning"] == reasoning


def terminal_status(reference: dict[str, Any]) -> str:
    return "incomplete" if reference["finish_reason"] == "length" else "completed"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", WITH_CALLS, ids=lambda p: p.stem)
async def test_responses_stream_over_the_recording(path: Path, mode: str) -> None:
    recording = Recording.load(path)
    reference = await chat_reference(recording, mode)
    client = sdk_client(ResponsesMiddleware(chat_app(recording, mode)))
    # Asked as Codex asks: reasoning returned encrypted too, nothing stored.
    doc = {
        **responses_request(recording.request),
        "include": ["reasoning.encrypted_content"],
        "store": False,
    }
    deltas = 0
    async with client.responses.stream(**doc) as stream:
        async for event in stream:
            deltas += event.type == "response.function_call_arguments.delta"
            last = event
        assert last.type in TERMINAL
        if last.type == "response.completed":
            final = (await stream.get_final_response()).model_dump()
        else:
            final = last.response.model_dump()
    assert final["status"] == terminal_status(reference)
    view = output_view(final["output"])
    assert_same(view, reference, recording, mode)
    assert deltas >= len(view["calls"])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", WITH_CALLS, ids=lambda p: p.stem)
async def test_responses_create_over_the_recording(path: Path, mode: str) -> None:
    recording = Recording.load(path)
    reference = await chat_reference(recording, mode)
    client = sdk_client(ResponsesMiddleware(chat_app(recording, mode)))
    response = await client.responses.create(**responses_request(recording.request))
    final = response.model_dump()
    assert final["status"] == terminal_status(reference)
    assert final["object"] == "response" and final["id"].startswith("resp_")
    assert_same(output_view(final["output"]), reference, recording, mode)
    if final["status"] == "incomplete":
        assert final["incomplete_details"] == {"reason": "max_output_tokens"}
