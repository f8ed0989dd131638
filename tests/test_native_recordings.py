"""The native tool_calls recordings (``openai-*``) and the Kimi ones, in both modes.

Each ``openai-*`` recording states what a client must end up with when streaming
(``expected``) and with ``mode="buffered"`` (``expected_buffered``). Here they are replayed
through the middleware and judged three ways: the raw chunks against the contract in
docs/clients.md, the assembled message, and the official ``openai`` SDK's stream helper.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import orjson
import pytest

from helpers import recordings, sdk_client
from native_support import calls_of, client_view
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.completion import chunks_from_sse, completion_from_sse
from toolcall_middleware.replay import Recording, recording_app, request_body, run_app

pytestmark = pytest.mark.anyio

NATIVE = recordings("openai-")
STREAMED = [p for p in NATIVE if Recording.load(p).is_sse]
MODES = ("stream", "buffered")


def expectation(recording: Recording, mode: str) -> dict[str, Any]:
    meta = recording.meta
    expected = meta["expected_buffered"] if mode == "buffered" else meta["expected"]
    assert isinstance(expected, dict)
    return expected


def matches(actual: list[tuple[str, str, str]], expected: dict[str, Any]) -> None:
    want = expected["tool_calls"]
    assert [(n, a) for _, n, a in actual] == [(c["name"], c["arguments"]) for c in want]
    for (call_id, _, _), call in zip(actual, want, strict=True):
        assert call_id == call["id"] if call["id"] is not None else call_id.startswith("call_")
    assert len({i for i, _, _ in actual}) == len(actual)  # ids are unique


async def replay(recording: Recording, mode: str) -> bytes:
    app = ToolCallMiddleware(recording_app(recording), mode=mode, metrics=False)
    _, _, bodies = await run_app(app, request_body(recording))
    return b"".join(bodies)


def test_every_native_quirk_has_a_recording() -> None:
    names = {p.stem for p in NATIVE}
    assert {
        "openai-index-reuse",
        "openai-first-index-one",
        "openai-indexless",
        "openai-same-index-twice",
        "openai-changing-ids",
        "openai-repeated-id-name",
        "openai-late-id",
        "openai-arguments-shapes",
        "openai-kilo-shorthand",
        "openai-interleaved",
        "openai-native-then-markup",
        "openai-malformed",
        "openai-nonstream-quirks",
        "openai-nonstream-malformed",
    } <= names


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", STREAMED, ids=lambda p: p.stem)
async def test_streamed_recording_meets_the_contract_and_its_expectation(
    path: Path, mode: str
) -> None:
    recording = Recording.load(path)
    expected = expectation(recording, mode)
    body = await replay(recording, mode)
    chunks = list(chunks_from_sse(body))
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    entries = [e for c in chunks for ch in c["choices"] for e in ch["delta"].get("tool_calls", ())]
    matches(client_view(entries), expected)  # client_view asserts the entry contract
    completion = completion_from_sse(body)
    message = completion["choices"][0]["message"]
    assert (message.get("content") or "") == (expected["content"] or "")
    assert completion["choices"][0]["finish_reason"] == expected["finish_reason"]
    assert completion["usage"]["total_tokens"] > 0  # the usage chunk survived
    assert body.endswith(b"data: [DONE]\n\n")
    if mode == "buffered":
        # One entry per call, whole, and no call before the last text.
        assert len(entries) == len(expected["tool_calls"])
        positions = [
            i for i, c in enumerate(chunks) for ch in c["choices"] if ch["delta"].get("tool_calls")
        ]
        texts = [
            i for i, c in enumerate(chunks) for ch in c["choices"] if ch["delta"].get("content")
        ]
        assert not texts or not positions or max(texts) < min(positions)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", STREAMED, ids=lambda p: p.stem)
async def test_openai_sdk_stream_helper_assembles_the_recording(path: Path, mode: str) -> None:
    recording = Recording.load(path)
    expected = expectation(recording, mode)
    client = sdk_client(ToolCallMiddleware(recording_app(recording), mode=mode, metrics=False))
    request = recording.request
    async with client.chat.completions.stream(
        model=request["model"],
        messages=request["messages"],
        tools=request["tools"],
    ) as stream:
        done_events = []
        async for event in stream:
            if event.type == "tool_calls.function.arguments.done":
                done_events.append((event.name, event.arguments))
        final = await stream.get_final_completion()
    choice = final.choices[0]
    actual = [
        (c.id, c.function.name, c.function.arguments) for c in choice.message.tool_calls or []
    ]
    matches(actual, expected)
    assert done_events == [(c["name"], c["arguments"]) for c in expected["tool_calls"]]
    assert (choice.message.content or "") == (expected["content"] or "")
    assert choice.finish_reason == expected["finish_reason"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", [p for p in NATIVE if p not in STREAMED], ids=lambda p: p.stem)
async def test_non_streaming_recording_gives_its_expectation(path: Path, mode: str) -> None:
    recording = Recording.load(path)
    expected = expectation(recording, mode)
    completion = orjson.loads(await replay(recording, mode))
    choice = completion["choices"][0]
    message = choice["message"]
    matches(calls_of(message), expected)
    assert all(set(c) == {"id", "type", "function"} for c in message["tool_calls"])
    assert message["content"] == expected["content"]
    assert choice["finish_reason"] == expected["finish_reason"]


@pytest.mark.parametrize("path", [p for p in NATIVE if p not in STREAMED], ids=lambda p: p.stem)
async def test_openai_sdk_parses_the_non_streaming_response(path: Path) -> None:
    recording = Recording.load(path)
    expected = expectation(recording, "buffered")
    client = sdk_client(
        ToolCallMiddleware(recording_app(recording), mode="buffered", metrics=False)
    )
    request = recording.request
    final = await client.chat.completions.create(
        model=request["model"], messages=request["messages"], tools=request["tools"]
    )
    actual = [
        (c.id, c.function.name, c.function.arguments)
        for c in final.choices[0].message.tool_calls or []
    ]
    matches(actual, expected)
    assert all(isinstance(orjson.loads(a), dict) for _, _, a in actual)


# The Kimi recordings in buffered mode: the same calls, whole; the cut-off call is wrapped.
BUFFERED_KIMI_OVERRIDES = {
    "kimi_k2-truncated": [
        {
            "id": "functions.write_file:0",
            "name": "write_file",
            "arguments": '{"input":"{\\"path\\": \\"notes.md\\", \\"content\\": '
            '\\"# Notes\\\\n\\\\nFirst"}',
        }
    ],
}
KIMI_STREAMED = [
    p
    for p in recordings("kimi_k2-")
    if Recording.load(p).is_sse and (Recording.load(p).expected or {}).get("tool_calls") is not None
]


@pytest.mark.parametrize("path", KIMI_STREAMED, ids=lambda p: p.stem)
async def test_kimi_recordings_in_buffered_mode(path: Path) -> None:
    recording = Recording.load(path)
    assert recording.expected is not None
    expected = dict(recording.expected)
    expected["tool_calls"] = BUFFERED_KIMI_OVERRIDES.get(path.stem, expected["tool_calls"])
    body = await replay(recording, "buffered")
    entries = [
        e
        for c in chunks_from_sse(body)
        for ch in c["choices"]
        for e in ch["delta"].get("tool_calls", ())
    ]
    assert len(entries) == len(expected["tool_calls"])  # each call in one whole entry
    matches(client_view(entries), expected)
    completion = completion_from_sse(body)
    assert (completion["choices"][0]["message"].get("content") or "") == (expected["content"] or "")
    assert completion["choices"][0]["finish_reason"] == expected["finish_reason"]


async def test_buffered_kimi_truncated_call_still_reaches_the_sdk() -> None:
    recording = Recording.load(recordings("kimi_k2-truncated")[0])
    client = sdk_client(
        ToolCallMiddleware(recording_app(recording), mode="buffered", metrics=False)
    )
    request = recording.request
    async with client.chat.completions.stream(
        model=request["model"],
        messages=request["messages"],
        tools=request["tools"],
    ) as stream:
        async for _ in stream:
            pass
        with pytest.raises(openai.LengthFinishReasonError) as caught:
            await stream.get_final_completion()
    (call,) = caught.value.completion.choices[0].message.tool_calls or []
    assert orjson.loads(call.function.arguments) == {
        "input": '{"path": "notes.md", "content": "# Notes\\n\\nFirst'
    }


@pytest.mark.parametrize("mode", MODES)
async def test_a_canonical_stream_leaves_byte_for_byte_in_stream_mode(mode: str) -> None:
    recording = Recording.load(recordings("openai-canonical")[0])
    body = await replay(recording, mode)
    assert (body == recording.body) is (mode == "stream")


async def test_argument_continuations_for_a_renumbered_call_are_rewritten() -> None:
    recording = Recording.load(recordings("openai-first-index-one")[0])
    body = await replay(recording, "stream")
    indexes = [
        e["index"]
        for c in chunks_from_sse(body)
        for ch in c["choices"]
        for e in ch["delta"].get("tool_calls", ())
    ]
    assert indexes == [0, 0, 0, 1, 1]
