"""Memory bounds: past a cap the client gets an OpenAI error event and a clean end of stream.

The assertions are on the buffers themselves (what parsers, the normaliser, the assembler and
the SSE decoder hold), checked after every piece of a hostile stream.
"""

from __future__ import annotations

from typing import Any

import openai
import orjson
import pytest

from helpers import body_app, chunk, request_json, sdk_client, sse, through
from native_support import FakeReport, endless_upstream, error_of
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.chunk_rewriter import ChunkRewriter
from toolcall_middleware.completion import chunks_from_sse
from toolcall_middleware.limits import CHECK_EVERY
from toolcall_middleware.parsers import ParserContext, Tool, create_parser
from toolcall_middleware.replay import run_app
from toolcall_middleware.sse_rewriter import SSERewriter

pytestmark = pytest.mark.anyio

SB, CB, AB = "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>"
KIMI = "moonshotai/Kimi-K2-Instruct-0905"


def kimi_rewriter(tools: tuple[str, ...] = ("bash",), **options: Any) -> ChunkRewriter:
    context = ParserContext(tuple(Tool(n, {"properties": {"command": {}}}) for n in tools))
    return ChunkRewriter(lambda: create_parser("kimi_k2", context), **options)


def drive(
    stream: SSERewriter, first: bytes, piece: bytes, count: int, measure: Any
) -> tuple[bytes, int]:
    """Feed a hostile stream; the output and the largest buffer ``measure`` saw."""
    out = [stream.feed(first)]
    largest = measure()
    for _ in range(count):
        out.append(stream.feed(piece))
        largest = max(largest, measure())
    out.append(stream.close())
    return b"".join(out), largest


def test_a_call_header_that_never_ends_is_cut_at_the_held_cap() -> None:
    rewriter = kimi_rewriter(max_held_bytes=4096)
    report = FakeReport()
    stream = SSERewriter(rewriter, "<", report=report)
    first = sse(chunk({"content": f"Let me check.{SB}{CB}functions."}))
    piece = sse(chunk({"content": "x" * 100}))

    def held() -> int:
        return sum(getattr(c.parser, "held", 0) for c in rewriter._choices.values())

    body, largest = drive(stream, first, piece, 500, held)
    # Never more than the cap, plus the text fed between two measurements, plus one delta.
    assert largest <= 4096 + CHECK_EVERY + 100
    assert stream.ended and report.fallbacks == ["limit-exceeded"]
    assert "held-back" in error_of(body)["message"]
    text = "".join(
        ch["delta"].get("content") or ""
        for c in chunks_from_sse(body)
        if "choices" in c
        for ch in c["choices"]
    )
    assert text == "Let me check."  # the markup never leaked as text


def test_native_arguments_without_a_name_are_held_only_up_to_the_cap() -> None:
    rewriter = ChunkRewriter(lambda: create_parser("openai", ParserContext()), max_held_bytes=2048)
    stream = SSERewriter(rewriter, "")
    piece = sse(chunk({"tool_calls": [{"index": 0, "function": {"arguments": "y" * 64}}]}))

    def held() -> int:
        return sum(c.native.held for c in rewriter._choices.values())

    body, largest = drive(stream, b"", piece, 200, held)
    assert largest <= 2048 + 64  # native entries are measured on every chunk
    error_of(body)


def test_a_buffered_call_that_never_closes_is_cut_at_the_buffered_cap() -> None:
    rewriter = ChunkRewriter(
        lambda: create_parser("openai", ParserContext()), mode="buffered", max_buffered_bytes=8192
    )
    stream = SSERewriter(rewriter, "")
    first = sse(
        chunk({"content": "Writing."}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c",
                        "type": "function",
                        "function": {"name": "write", "arguments": '{"a": "'},
                    }
                ]
            }
        ),
    )
    piece = sse(chunk({"tool_calls": [{"index": 0, "function": {"arguments": "z" * 256}}]}))
    body, largest = drive(stream, first, piece, 100, lambda: rewriter._budget.used)
    assert largest <= 8192 + 256
    assert "buffered tool calls" in error_of(body)["message"]
    assert b"Writing." in body and b'"tool_calls"' not in body


def test_stream_mode_arguments_flow_without_a_cap_and_the_kept_copy_stays_bounded() -> None:
    rewriter = ChunkRewriter(
        lambda: create_parser("openai", ParserContext()), max_buffered_bytes=4096
    )
    report = FakeReport()
    stream = SSERewriter(rewriter, "", report=report)
    first = sse(
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "c",
                        "type": "function",
                        "function": {"name": "write", "arguments": '{"a": "'},
                    }
                ]
            }
        )
    )
    piece = sse(chunk({"tool_calls": [{"index": 0, "function": {"arguments": "z" * 256}}]}))

    def kept() -> int:
        return sum(
            sum(map(len, call.parts or ()))
            for choice in rewriter._choices.values()
            for call in choice.calls._open.values()
        )

    body, largest = drive(stream, first, piece, 100, kept)
    assert 0 < largest <= 4096
    assert not stream.ended and b'"error"' not in body
    arguments = "".join(
        e["function"]["arguments"]
        for c in chunks_from_sse(body)
        for ch in c["choices"]
        for e in ch["delta"].get("tool_calls", ())
    )
    assert arguments == '{"a": "' + "z" * 25600


def test_interleaved_calls_queue_only_up_to_the_buffered_cap() -> None:
    rewriter = ChunkRewriter(
        lambda: create_parser("openai", ParserContext()), max_buffered_bytes=4096
    )
    stream = SSERewriter(rewriter, "")
    first = sse(
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"open": "'}},
                    {"index": 1, "id": "b", "function": {"name": "g", "arguments": '{"q": "'}},
                ]
            }
        )
    )
    piece = sse(chunk({"tool_calls": [{"index": 1, "function": {"arguments": "q" * 128}}]}))

    def queued() -> int:
        return sum(c.native.queued for c in rewriter._choices.values())

    body, largest = drive(stream, first, piece, 100, queued)
    assert largest <= 4096 + 128
    error_of(body)


def test_kimi_arguments_held_to_choose_a_tool_count_against_the_buffered_cap() -> None:
    rewriter = kimi_rewriter(("bash", "write_file"), max_buffered_bytes=4096)
    stream = SSERewriter(rewriter, "<")
    first = sse(chunk({"content": f"{SB}{CB}call_9{AB}" + '{"command": "'}))  # foreign id
    piece = sse(chunk({"content": "w" * 128}))

    def deferred() -> int:
        return sum(getattr(c.parser, "held_arguments", 0) for c in rewriter._choices.values())

    body, largest = drive(stream, first, piece, 100, deferred)
    assert largest <= 4096 + CHECK_EVERY + 128
    error_of(body)


def test_an_sse_event_that_never_ends_is_cut_at_the_buffered_cap() -> None:
    stream = SSERewriter(kimi_rewriter(), "<", max_event_bytes=4096)
    body, largest = drive(
        stream,
        b'data: {"choices": [{"delta": {"content": "',
        b"v" * 100,
        200,
        lambda: stream._decoder.buffered,
    )
    assert largest <= 4096 + 100
    assert "unterminated SSE event" in error_of(body)["message"]


async def test_the_middleware_ends_the_response_and_discards_the_rest_of_the_upstream() -> None:
    sent = [0]
    upstream = endless_upstream(
        sse(chunk({"content": f"Hi.{SB}{CB}functions.bash"})),
        sse(chunk({"content": "_" * 200})),
        300,
        sent,
    )
    app = ToolCallMiddleware(upstream, max_held_bytes=1024, metrics=False)
    status, _, bodies = await run_app(app, request_json(KIMI))
    assert status == 200 and sent[0] == 300  # the app ran to its end, unhindered
    whole = b"".join(bodies)
    error_of(whole)
    # Nothing after the error: the response was completed once, then everything was dropped.
    cut = next(i for i, b in enumerate(bodies) if b.endswith(b"data: [DONE]\n\n"))
    assert all(b == b"" for b in bodies[cut + 1 :]) and len(bodies) <= cut + 1


async def test_the_openai_sdk_raises_an_api_error_at_the_error_event() -> None:
    body = sse(
        chunk({"content": f"{SB}{CB}functions.bash"}),
        chunk({"content": "x" * 3000}),
        chunk({}, "stop"),
        "[DONE]",
    )
    client = sdk_client(ToolCallMiddleware(body_app([body]), max_held_bytes=1024, metrics=False))
    with pytest.raises(openai.APIError, match="exceeded the limit"):
        async with client.chat.completions.stream(
            model=KIMI,
            messages=[{"role": "user", "content": "hi"}],
            tools=[{"type": "function", "function": {"name": "bash", "parameters": {}}}],
        ) as stream:
            async for _ in stream:
                pass


async def test_a_json_body_over_the_cap_passes_through_untouched() -> None:
    message = {"role": "assistant", "content": f"{SB}{CB}functions.bash:0{AB}" + "{}" + " " * 5000}
    body = orjson.dumps({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
    pieces = [body[:3000], body[3000:]]
    app = ToolCallMiddleware(
        body_app(pieces, headers=[(b"content-type", b"application/json")]),
        max_buffered_bytes=2048,
        metrics=False,
    )
    out = await through(app, request_json(KIMI, stream=False))
    assert out == body
