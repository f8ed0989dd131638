"""The SSE path, sans-I/O: body bytes in, the bytes a client is sent out.

Each behaviour is checked with the fast path on and off: what goes out never depends on it.
"""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest

from native_support import FakeReport, error_of
from toolcall_middleware.chunk_rewriter import ChunkRewriter
from toolcall_middleware.parsers import ParserContext, Tool, create_parser, parser_triggers
from toolcall_middleware.sse_rewriter import MAX_TENTATIVE_EVENTS, SSERewriter

SB, CB = "<|tool_calls_section_begin|>", "<|tool_call_begin|>"
DONE = b"data: [DONE]\n\n"

pytestmark = pytest.mark.parametrize("fast", [True, False], ids=["fast", "decoded"])


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-t",
        "object": "chat.completion.chunk",
        "created": 7,
        "model": "k2",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def spaced(delta: dict[str, Any], newline: str = "\n") -> bytes:
    """An event as Python's json writes it: not what orjson would re-encode it as."""
    return f"data: {json.dumps(chunk(delta))}{newline}{newline}".encode()


def kimi(fast: bool, report: FakeReport | None = None, **options: Any) -> SSERewriter:
    context = ParserContext((Tool("bash", {"properties": {"command": {}}}),))
    max_held = options.pop("max_held_bytes", 10 * 1024)
    rewriter = ChunkRewriter(
        lambda: create_parser("kimi_k2", context),
        max_held_bytes=max_held,
        report=report or FakeReport(),
    )
    return SSERewriter(
        rewriter,
        parser_triggers("kimi_k2"),
        fast_path=fast,
        report=report or FakeReport(),
        **options,
    )


def contents(out: bytes) -> list[str]:
    """The content of each event in ``out``."""
    return [
        json.loads(e[6:])["choices"][0]["delta"]["content"]
        for e in out.decode().split("\n\n")
        if e.startswith("data: {")
    ]


def run(stream: SSERewriter, bodies: list[bytes]) -> bytes:
    return b"".join([stream.feed(b) for b in bodies]) + stream.close()


def test_what_the_rewrite_leaves_alone_goes_out_byte_for_byte(fast: bool) -> None:
    bodies = [
        b": keep-alive\n\n",
        b"event: delta\nid: 7\n" + spaced({"content": "Hi"}),
        spaced({"content": " there"}),
        b"data: not json\n\n",
        b'data:{"choices":[]}\n\n',
        spaced({}) + b"data: [DONE] \n\n",
    ]
    assert run(kimi(fast), bodies) == b"".join(bodies)


def test_text_held_as_a_possible_marker_goes_out_as_it_came_once_it_is_text(fast: bool) -> None:
    bodies = [spaced({"content": "Let me check <"}), spaced({"content": "b> first."}), DONE]
    stream = kimi(fast)
    assert stream.feed(bodies[0]) == b""  # held: "<" may start a marker
    assert stream.held
    assert stream.feed(bodies[1]) == bodies[0] + bodies[1]  # the originals, as they came
    assert stream.feed(bodies[2]) + stream.close() == DONE


def test_events_held_too_long_go_out_rewritten(fast: bool) -> None:
    stream = kimi(fast)
    out = stream.feed(spaced({"content": "Hi <|tool"}))
    for _ in range(MAX_TENTATIVE_EVENTS + 1):  # nothing resolves the held "<|tool"
        out += stream.feed(spaced({}))
    events = [json.loads(e[6:]) for e in out.decode().split("\n\n") if e]
    assert events[0]["choices"][0]["delta"] == {"content": "Hi "}  # without the held text
    assert len(events) == MAX_TENTATIVE_EVENTS + 2


def test_markup_goes_out_as_tool_calls_in_the_streams_own_line_ending(fast: bool) -> None:
    bodies = [
        spaced({"content": f"Sure.{SB}{CB}functions.bash:0<|tool_call_argument_begin|>"}, "\r\n"),
        b"data: [DONE]\r\n\r\n",
    ]
    out = run(kimi(fast), bodies)
    assert out.endswith(b"data: [DONE]\r\n\r\n") and b"\n\n" not in out.replace(b"\r\n", b"")
    events = [json.loads(e[6:]) for e in out.decode().split("\r\n\r\n") if e.startswith("data: {")]
    assert [e["choices"][0]["delta"] for e in events] == [
        {"content": "Sure."},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "functions.bash:0",
                    "type": "function",
                    "function": {"name": "bash", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]},
    ]  # closed at the end


def test_a_rewrite_that_fails_forwards_the_rest_as_it_came(fast: bool) -> None:
    report = FakeReport()
    stream = kimi(fast, report)
    chunk_rewrite = ChunkRewriter.chunk

    def failing(self: ChunkRewriter, chunk: dict[str, Any]) -> Any:
        if chunk["choices"][0]["delta"].get("content") == "<B":
            raise RuntimeError("a bug")
        return chunk_rewrite(self, chunk)

    bodies = [
        spaced({"content": "A"}),
        spaced({"content": "<B"}),
        spaced({"content": f"C{SB}"}),
        DONE,
    ]
    with mock.patch.object(ChunkRewriter, "chunk", failing):
        assert run(stream, bodies) == b"".join(bodies)  # the markup in C included
    assert report.fallbacks == ["rewrite-error"]


def test_past_a_cap_an_error_event_ends_the_stream_and_the_rest_is_dropped(fast: bool) -> None:
    report = FakeReport()
    stream = kimi(fast, report, max_held_bytes=256)
    out = stream.feed(spaced({"content": f"Sure.{SB}{CB}functions."}))
    while not stream.ended:
        out += stream.feed(spaced({"content": "x" * 200}))
    assert out.endswith(b"\n\ndata: [DONE]\n\n")
    assert error_of(out)["code"] == "tool_call_limit_exceeded"
    assert stream.feed(spaced({"content": "more"})) == b"" and stream.close() == b""
    assert report.fallbacks == ["limit-exceeded"]


def test_a_keep_alive_releases_held_events_without_the_held_text(fast: bool) -> None:
    stream = kimi(fast)
    assert stream.feed(spaced({"content": "Let me check <"})) == b""
    # "<" may still begin a marker (even a special token may come in pieces): it waits.
    out = stream.feed(b": keep-alive\n\n")
    assert out.endswith(b"\n\n: keep-alive\n\n") and contents(out) == ["Let me check "]
    assert not stream.held
    assert contents(stream.feed(spaced({"content": "b>"}))) == ["<b>"]


def test_an_upstream_error_event_ends_the_stream_after_text_held_back(fast: bool) -> None:
    """Markup held for a call that never ended is not sent after the error, nor anything."""
    error = b'data: {"error": {"message": "upstream went away", "type": "server_error"}}\n\n'
    bodies = [
        spaced({"content": "hello <"}),
        spaced({"reasoning_content": f"{SB} functions.ba"}),
        error,
        spaced({"content": "after"}),
        DONE,
    ]
    out = run(kimi(fast), bodies)
    assert out.endswith(error)
    assert b"functions.ba" not in out and b"after" not in out and b"hello" in out
