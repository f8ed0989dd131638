from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import cut_at
from toolcall_middleware.sse import SSEDecoder, encode_chunks, encode_event, parse_event

STREAM = (
    b'\xef\xbb\xbfdata: {"a": 1}\n\n'
    b": ping\n\n"
    b"event: message\nid: 7\nretry: 100\ndata: line one\ndata: line two\n\n"
    b"data: caf\xc3\xa9 \xe2\x9c\x93\r\n\r\n"
    b"data: [DONE]\r\r"
    b"data\n\n"
)


def decode(pieces: list[bytes]) -> list[tuple[bytes, bytes | None, tuple[bytes, ...]]]:
    decoder = SSEDecoder()
    events = []
    for piece in pieces:
        events += decoder.feed(piece)
    events += decoder.close()
    return [(e.raw, e.data, e.fields) for e in events]


def test_fields_comments_multiline_bom_and_line_endings() -> None:
    events = decode([STREAM])
    assert [data for _, data, _ in events] == [
        b'{"a": 1}',
        None,
        b"line one\nline two",
        "café ✓".encode(),
        b"[DONE]",
        b"",
    ]
    assert events[1][2] == (b": ping",)
    assert events[2][2] == (b"event: message", b"id: 7", b"retry: 100")
    assert b"".join(raw for raw, _, _ in events) == STREAM


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=20))
def test_any_byte_cut_gives_the_same_events(points: list[int]) -> None:
    assert decode(cut_at(STREAM, points)) == decode([STREAM])


def test_every_single_byte_cut() -> None:
    whole = decode([STREAM])
    for i in range(len(STREAM) + 1):
        assert decode([STREAM[:i], STREAM[i:]]) == whole


def test_cr_at_end_of_a_read_waits_for_the_next_byte() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x\r") == []
    assert decoder.feed(b"\n\r") == []
    events = decoder.feed(b"\n")
    assert [e.data for e in events] == [b"x"]
    assert decoder.newline == b"\r\n"


def test_unterminated_last_event_is_delivered_at_close() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: tail") == []
    assert [e.data for e in decoder.close()] == [b"tail"]


def test_encode_round_trips_through_the_decoder() -> None:
    raw = encode_event(b"a\nb", (b"event: x",), b"\r\n")
    assert raw == b"event: x\r\ndata: a\r\ndata: b\r\n\r\n"
    event = parse_event(raw)
    assert (event.data, event.event_type) == (b"a\nb", b"x")


_LINE = st.sampled_from(
    [
        b'data: {"a": 1}',
        b"data:x",
        b"data",
        b": ping",
        b"event: e",
        b"id: 7",
        b"",
        b"data: caf\xc3\xa9",
    ]
)
_END = st.sampled_from([b"\n", b"\r\n", b"\r"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_LINE, _END), max_size=30),
    st.lists(st.integers(min_value=0, max_value=1000), max_size=30),
)
def test_any_stream_cut_anywhere_gives_the_events_of_the_whole(
    lines: list[tuple[bytes, bytes]], points: list[int]
) -> None:
    stream = b"".join(line + end for line, end in lines)
    whole = decode([stream])
    assert b"".join(raw for raw, _, _ in whole) == stream  # nothing lost, nothing added
    assert decode(cut_at(stream, points)) == whole
    assert decode([stream[i : i + 1] for i in range(len(stream))]) == whole


def test_chunks_are_encoded_as_events_in_the_streams_line_ending() -> None:
    assert encode_chunks([{"a": 1}, {"b": "é"}]) == (b'data: {"a":1}\n\ndata: {"b":"\xc3\xa9"}\n\n')
    # Other lines go on each event, comments on the first only.
    assert encode_chunks([{"a": 1}, {"b": 2}], (b": note", b"event: x"), b"\r\n") == (
        b': note\r\nevent: x\r\ndata: {"a":1}\r\n\r\nevent: x\r\ndata: {"b":2}\r\n\r\n'
    )
    # What only the standard library writes (a lone surrogate) still goes, escaped.
    assert encode_chunks([{"c": "\ud83d"}]) == b'data: {"c":"\\ud83d"}\n\n'
    assert encode_chunks([]) == b""
