"""``ChatReader``'s fast path against its rule (``fronts/core/fast_path.py``): reading an event
from its bytes (``read_fast``), or from what the chat path handed of it (``read_handed``),
gives the events ``feed`` gives for the decoded chunk and leaves the reader where ``feed`` does,
or declines."""

from __future__ import annotations

import itertools
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from toolcall_middleware.fronts.core import ArgsDelta, ChatReader, Event, ReasoningDelta, TextDelta
from toolcall_middleware.fronts.core.reader import ARGUMENTS, CONTENT, NOTHING, REASONING
from toolcall_middleware.sse import SSEDecoder

from .hostile import event_lists, handed_of


def read(bodies: list[bytes], way: str, **limits: Any) -> tuple[list[Any], Any]:
    """The core events for these events, each read ``way``: ``feed`` (decoded), ``bytes``
    (``read_fast``, else decoded) or ``handed`` (``read_handed``, else decoded); an exception
    ends the list (``feed`` lets a limit reached while text closes a call escape)."""
    ids = itertools.count()
    reader = ChatReader(lambda: f"gen_{next(ids)}", **limits)
    out: list[Any] = []
    try:
        _read(reader, bodies, way, out)
    except Exception as exc:
        out.append(("raised", repr(exc)))
    state = (reader.answer_size, reader.dropped_calls, reader.dropped_fragments, reader.done)
    return out, state


def _read(reader: ChatReader, bodies: list[bytes], way: str, out: list[Event]) -> None:
    for body in bodies:
        found = None
        if way == "bytes":
            found = reader.read_fast(body)
        elif way == "handed":
            handed = handed_of(body)
            found = reader.read_handed(handed) if handed is not None else None
        if found is not None:
            kind, text = found
            if kind == REASONING:
                out.append(ReasoningDelta(text))
            elif kind == CONTENT:
                out.append(TextDelta(text))
            elif kind == ARGUMENTS:
                index = reader.open_call_index
                assert index is not None
                out.append(ArgsDelta(index, text))
            else:
                assert kind == NOTHING
            continue
        for sse in SSEDecoder().feed(body):  # as the responder reads what is not one line
            try:
                chunk = orjson.loads(sse.data or b"")
            except orjson.JSONDecodeError:
                continue
            if type(chunk) is dict:
                if way == "bytes":
                    reader.learn(sse.data or b"", chunk)
                out += reader.feed(chunk)
    out += reader.finish()


LIMITS = [
    {},
    {"max_arguments_bytes": 40},
    {"max_answer_bytes": 40},
    {"max_arguments_bytes": 25, "max_answer_bytes": 60},
]


@pytest.mark.parametrize("limits", LIMITS, ids=str)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies=event_lists())
def test_reading_fast_gives_what_feeding_gives(limits: dict[str, Any], bodies: list[bytes]) -> None:
    general = read(bodies, "feed", **limits)
    assert read(bodies, "bytes", **limits) == general
    assert read(bodies, "handed", **limits) == general


def chunk_event(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    doc = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        **extra,
    }
    return b"data: " + orjson.dumps(doc) + b"\n\n"


START = {
    "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}
    ]
}
ARGS = {"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 1}'}}]}
USAGE = {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}


@pytest.mark.parametrize(
    "delta", [{"reasoning": "x", "reasoning_content": "x"}, {"content": "x"}, ARGS], ids=str
)
@pytest.mark.parametrize("ending", ["finish", "finish-ab", "usage", "error", "done"])
def test_the_usual_delta_in_a_chunk_that_also_ends_or_counts_takes_the_general_path(
    delta: dict[str, Any], ending: str
) -> None:
    # Its head is the template's, its tail is not (or the answer is over): feed's business.
    same = chunk_event(delta)
    other = {
        "finish": chunk_event(delta, "stop"),
        "finish-ab": chunk_event(delta, "ab"),  # as long as null: only the bytes differ
        "usage": chunk_event(delta, usage=USAGE),
        "error": b'data: {"error": {"message": "boom"}}\n\n',
        "done": chunk_event({}, "stop"),
    }[ending]
    bodies = [
        chunk_event({"content": "a"}),
        same,
        *([chunk_event(START)] if delta is ARGS else []),
        same,
        other,
        same,
        same,
    ]
    general = read(bodies, "feed")
    assert read(bodies, "bytes") == general
    assert read(bodies, "handed") == general
