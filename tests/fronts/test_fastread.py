"""``ChatReader``'s fast path against its rule (``fronts/core/fastpath.py``): reading an event
from its bytes (``read_fast``), or from what the chat path handed of it (``read_handed``),
gives the events ``feed`` gives for the decoded chunk and leaves the reader where ``feed`` does,
or declines."""

from __future__ import annotations

import itertools
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from toolcall_middleware.fronts.core import CallArgs, ChatReader, Event, ReasoningDelta, TextDelta
from toolcall_middleware.fronts.core.fastpath import ARGUMENTS, CONTENT, NOTHING, REASONING
from toolcall_middleware.handoff import Handed
from toolcall_middleware.sse import SSEDecoder

from .hostile import event_lists

#: How ``ChunkTemplate.text`` names the text fields of a delta that holds one text.
TEXT_FIELDS = {
    ("content",),
    ("reasoning",),
    ("reasoning_content",),
    ("reasoning", "reasoning_content"),
    ("reasoning_content", "reasoning"),
}


def handed_of(body: bytes) -> Handed | None:
    """What a chat path may hand of this event under the handoff rule, if anything."""
    if (
        not body.startswith(b"data: {")
        or body.count(b"\n") != 2
        or b"\r" in body
        or not body.endswith(b"\n\n")
    ):
        return None
    try:
        chunk = orjson.loads(body[6:-2])
    except orjson.JSONDecodeError:
        return None
    try:
        (choice,) = chunk["choices"]  # one choice, of a chunk without usage, not finished
        if "usage" in chunk or choice.get("finish_reason") is not None:
            return None
    except (TypeError, KeyError, ValueError, AttributeError):
        return None
    index, delta = choice.get("index", 0), choice.get("delta")
    if type(index) is not int or type(delta) is not dict:
        return None
    fields, values = tuple(delta), list(delta.values())
    if fields in TEXT_FIELDS and type(values[0]) is str and values.count(values[0]) == len(values):
        return index, fields, values[0]
    return index, None, delta


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
                out.append(CallArgs(index, text))
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
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
