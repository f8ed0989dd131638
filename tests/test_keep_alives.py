"""Keep-alives between events change nothing a client assembles, on every format.

A keep-alive (or the idle timer, which calls the same release: ``tests/test_pauses.py``) sends
the events held for a possible marker's start, without that start; the characters that may
still be a marker wait for the next delta. So a marker split over several deltas with a
keep-alive between every two is still a marker, and the message is the one the stream gives
without keep-alives.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import body_app, message_of, recordings, restream, through
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.completion import completion_from_sse
from toolcall_middleware.replay import Recording
from toolcall_middleware.sse import SSEDecoder

KEEP_ALIVE = b": keep-alive\n\n"
STREAMS = [p for p in recordings() if Recording.load(p).is_sse]


def events_of(body: bytes) -> list[bytes]:
    decoder = SSEDecoder()
    return [e.raw for e in [*decoder.feed(body), *decoder.close()]]


def with_keep_alives(events: list[bytes], after: set[int] | None) -> list[bytes]:
    """``events`` with a keep-alive after those numbered in ``after`` (``None``: every one)."""
    out = []
    for i, event in enumerate(events):
        out.append(event)
        if after is None or i in after:
            out.append(KEEP_ALIVE)
    return out


def assembled(recording: Recording, bodies: list[bytes]) -> dict[str, Any]:
    """What a client assembles from the middleware's answer to ``bodies`` (call ids aside:
    the generated ones differ from run to run)."""
    app = ToolCallMiddleware(body_app(bodies), provider=recording.meta.get("provider"))
    request = json.dumps({**recording.request, "stream": True}).encode()
    completion = completion_from_sse(anyio.run(through, app, request))
    message = message_of(completion)
    calls = [
        (c["function"]["name"], c["function"]["arguments"]) for c in message.pop("tool_calls", ())
    ]
    return {**message, "calls": calls, "finish": completion["choices"][0]["finish_reason"]}


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
def test_a_keep_alive_after_every_event_changes_no_message(path: Path) -> None:
    recording = Recording.load(path)
    events = events_of(recording.body)
    expected = assembled(recording, events)
    assert assembled(recording, with_keep_alives(events, None)) == expected


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_keep_alives_anywhere_change_no_message(path: Path, data: st.DataObject) -> None:
    recording = Recording.load(path)
    events = events_of(recording.body)
    after = data.draw(st.sets(st.integers(0, len(events) - 1)))
    assert assembled(recording, with_keep_alives(events, after)) == assembled(recording, events)


MARKUP_STREAMS = [p for p in STREAMS if not p.stem.startswith("openai-")]


@pytest.mark.parametrize("path", MARKUP_STREAMS, ids=lambda p: p.stem)
@settings(max_examples=6, deadline=None)
@given(points=st.lists(st.integers(min_value=0, max_value=2000), max_size=60))
def test_markers_split_anywhere_with_keep_alives_between_all_deltas(
    path: Path, points: list[int]
) -> None:
    recording = Recording.load(path)
    events = events_of(restream(recording, points))
    assert assembled(recording, with_keep_alives(events, None)) == assembled(recording, events)


def test_a_kimi_section_marker_in_pieces_between_keep_alives_is_a_call() -> None:
    recording = Recording.load(next(p for p in STREAMS if p.stem == "kimi_k2-content-calls"))
    # Every character its own delta: every marker in pieces, a keep-alive after each.
    events = events_of(restream(recording, list(range(2000))))
    message = assembled(recording, with_keep_alives(events, None))
    assert message["calls"] == [
        (c["name"], c["arguments"]) for c in recording.expected["tool_calls"]
    ]
    assert "<|" not in (message.get("content") or "")
