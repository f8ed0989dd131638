"""Every format's recordings, re-cut at random character points, through the whole middleware.

The recordings in sse_logs/ fix one cut of each model text; here the same texts arrive cut
anywhere (markers split, several markers per delta) and must assemble to the same message.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import body_app, chunk, message_of, recordings, restream, sse, through
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.completion import chunks_from_sse, completion_from_sse
from toolcall_middleware.parsers import formats
from toolcall_middleware.replay import Recording

FORMAT_STREAMS = [
    p
    for p in recordings()
    # openai-*: native tool_calls, not model text (tests/test_native_recordings.py)
    if not p.stem.startswith(("kimi_k2-", "openai-")) and Recording.load(p).is_sse
]


def check(recording: Recording, body: bytes) -> None:
    expected = recording.expected
    assert expected is not None
    message = message_of(completion_from_sse(body))
    calls = [
        (c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or ()
    ]
    assert calls == [(c["name"], c["arguments"]) for c in expected["tool_calls"]]
    assert (message.get("content") or "") == (expected.get("content") or "")
    if expected.get("reasoning") is not None:
        reasoning = message.get("reasoning_content", message.get("reasoning"))
        assert reasoning == expected["reasoning"]


@pytest.mark.parametrize("path", FORMAT_STREAMS, ids=lambda p: p.stem)
@settings(max_examples=15, deadline=None)
@given(points=st.lists(st.integers(min_value=0, max_value=2000), max_size=40))
def test_any_cut_of_a_recorded_text_gives_its_expected_message(
    path: Path, points: list[int]
) -> None:
    recording = Recording.load(path)
    app = ToolCallMiddleware(
        body_app([restream(recording, points)]), provider=recording.meta.get("provider")
    )
    request = json.dumps({**recording.request, "stream": True}).encode()
    check(recording, anyio.run(through, app, request))


def test_every_format_has_content_and_reasoning_recordings() -> None:
    names = {p.stem for p in recordings()}
    # (Kimi's recordings have scenarios of their own: scripts/make_kimi_logs.py.)
    for fmt in (n for n, f in formats().items() if f.markup_pieces and n != "kimi_k2"):
        assert {f"{fmt}-content-calls", f"{fmt}-reasoning-calls", f"{fmt}-nonstream"} <= names


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("model", "deltas", "content"),
    [
        (
            "openai/gpt-oss-20b",
            ["<|channel|>", "final", "<|message|>", "Hi", " there", "<|return|>"],
            "Hi there",
        ),
        (
            "deepseek-chat",
            ["A", "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "B", " C"],
            "AB C",
        ),
        ("MiniMax-M2", ["x ", "<minimax:tool_call>", "\n", "</minimax:tool_call>", "y"], "x y"),
    ],
)
async def test_markup_dropped_without_a_call_never_reaches_the_client(
    model: str, deltas: list[str], content: str
) -> None:
    stream = sse(
        chunk({"role": "assistant", "content": ""}, model=model),
        *(chunk({"content": d}, model=model) for d in deltas),
        chunk({}, "stop", model=model),
        "[DONE]",
    )
    request = json.dumps(
        {
            "model": model,
            "stream": True,
            "messages": [],
            "tools": [{"type": "function", "function": {"name": "bash", "parameters": {}}}],
        }
    ).encode()
    body = await through(ToolCallMiddleware(body_app([stream])), request)
    assert message_of(completion_from_sse(body))["content"] == content
    assert b"<|" not in body and "<｜".encode() not in body and b"minimax:" not in body


@pytest.mark.anyio
async def test_a_call_without_arguments_gets_index_and_empty_object() -> None:
    model = "zai-org/GLM-4.6"
    deltas = ["<tool_call>", "get_time", "</tool_call>", "<tool_call>get_time</tool_call>"]
    stream = sse(
        *(chunk({"content": d}, model=model) for d in deltas),
        chunk({}, "stop", model=model),
        "[DONE]",
    )
    request = json.dumps(
        {
            "model": model,
            "stream": True,
            "messages": [],
            "tools": [{"type": "function", "function": {"name": "get_time", "parameters": {}}}],
        }
    ).encode()
    body = await through(ToolCallMiddleware(body_app([stream])), request)
    entries = [
        e
        for c in chunks_from_sse(body)
        for ch in c["choices"]
        for e in ch["delta"].get("tool_calls", ())
    ]
    assert sorted({e["index"] for e in entries}) == [0, 1]
    message = message_of(completion_from_sse(body))
    assert [c["function"]["arguments"] for c in message["tool_calls"]] == ["{}", "{}"]
