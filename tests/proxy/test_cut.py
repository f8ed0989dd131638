"""``ResponseCut``: a stream is forwarded whole events at a time, and ends properly."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from toolcall_middleware.proxy.cut import MAX_HELD_FRAME, ResponseCut, last_event_end

SSE_START = {
    "type": "http.response.start",
    "status": 200,
    "headers": [(b"content-type", b"text/event-stream")],
}
NEWLINES = st.sampled_from([b"\n", b"\r\n", b"\r"])
EVENTS = st.lists(
    st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=20),
    min_size=1,
    max_size=6,
)


def body(message: Mapping[str, Any]) -> bytes:
    data = message["body"]
    assert isinstance(data, bytes)
    return data


def stream_of(texts: list[str], newline: bytes) -> bytes:
    return b"".join(b"data: " + t.encode() + newline + newline for t in texts)


def fed(cut: ResponseCut, data: bytes, splits: list[int]) -> list[bytes]:
    """What goes out for ``data`` sent in pieces cut at ``splits`` (more bodies to come)."""
    cut.feed(SSE_START)
    bounds = sorted({0, len(data), *(s % (len(data) + 1) for s in splits)})
    out = []
    for a, b in pairwise(bounds):
        sent = cut.feed({"type": "http.response.body", "body": data[a:b], "more_body": True})
        if sent is not None:
            out.append(body(sent))
    return out


@given(EVENTS, NEWLINES, st.lists(st.integers(0, 10_000), max_size=8))
def test_sse_goes_out_in_whole_events_however_it_is_read(
    texts: list[str], newline: bytes, splits: list[int]
) -> None:
    data = stream_of(texts, newline)
    out = fed(ResponseCut(), data, splits)
    assert b"".join(out) == data  # nothing lost, nothing added, in order
    for piece in out:
        assert last_event_end(piece) == len(piece)  # each piece ends on an event's end


@given(EVENTS, st.lists(st.integers(0, 10_000), max_size=8), st.integers(1, 40))
def test_a_cut_drops_the_partial_event_and_ends_with_an_error_event(
    texts: list[str], splits: list[int], partial: int
) -> None:
    data = stream_of(texts, b"\n")
    cut = ResponseCut()
    out = fed(cut, data + b'data: {"choices": ['[:partial], splits)
    ending = cut.ending()
    assert ending is not None and len(ending) == 1 and ending[0]["more_body"] is False
    assert b"".join(out) == data  # the partial event never went out
    event = body(ending[0])
    assert event.startswith(b"data: ") and event.endswith(b"\n\n")
    error = orjson.loads(event[6:])["error"]
    assert error["code"] == "server_shutting_down" and error["type"] == "service_unavailable"
    assert cut.ending() == []  # ended once


def test_before_the_response_a_cut_is_a_503_with_an_openai_error() -> None:
    ending = ResponseCut().ending()
    assert ending is not None
    start, end = ending
    assert start["status"] == 503 and (b"connection", b"close") in start["headers"]
    assert orjson.loads(body(end))["error"]["code"] == "server_shutting_down"


def test_a_json_body_cannot_end_properly_and_a_finished_one_needs_nothing() -> None:
    cut = ResponseCut()
    cut.feed(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    message = {"type": "http.response.body", "body": b'{"a":', "more_body": True}
    assert cut.feed(message) is message
    assert cut.ending() is None
    cut.feed({"type": "http.response.body", "body": b"1}", "more_body": False})
    assert cut.ending() == []


def test_a_stream_with_content_length_or_an_error_status_passes_as_it_comes() -> None:
    for start in (
        {**SSE_START, "headers": [*SSE_START["headers"], (b"content-length", b"9")]},  # type: ignore[list-item]
        {**SSE_START, "status": 500},
    ):
        cut = ResponseCut()
        cut.feed(start)
        message = {"type": "http.response.body", "body": b"data: x", "more_body": True}
        assert cut.feed(message) is message
        assert cut.ending() is None


def test_the_last_body_takes_what_is_held_and_an_unframed_stream_is_not_held() -> None:
    cut = ResponseCut()
    assert fed(cut, b"data: 1\n\ndata: 2", []) == [b"data: 1\n\n"]
    last = cut.feed({"type": "http.response.body", "body": b"\n\n", "more_body": False})
    assert last is not None and body(last) == b"data: 2\n\n" and cut.ending() == []
    unframed = ResponseCut()
    big = b"x" * (MAX_HELD_FRAME + 1)
    assert fed(unframed, big, []) == [big]
    ending = unframed.ending()
    assert ending is not None and body(ending[0]).startswith(b"\n\ndata: {")
