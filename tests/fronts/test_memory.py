"""Bounded memory per request: whatever the upstream sends, a front holds at most its configured
``max_upstream_bytes`` (plus one read) and answers with its API's own error.

The upstream sends one pre-built 64 KiB piece over and over, so the traced peak is what the
front holds, not what the test made."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

from toolcall_middleware import AnthropicMiddleware, ResponsesMiddleware
from toolcall_middleware.asgi import ASGIApp, Message, Receive, Scope, Send

from .asgi import call

pytestmark = pytest.mark.anyio

CAP = 1024 * 1024
PIECE = b"a" * 65536
MESSAGES = {"model": "claude-x", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}


def endless_upstream(content_type: bytes, head: bytes, total: int) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", content_type)],
            }
        )
        await send({"type": "http.response.body", "body": head, "more_body": True})
        for _ in range(total // len(PIECE)):
            await send({"type": "http.response.body", "body": PIECE, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


JSON_40MB = (b"application/json", b'{"choices": [{"message": {"content": "', 40 * 1024 * 1024)
SSE_16MB = (b"text/event-stream", b'data: {"choices": [{"delta": {"content": "', 16 * 1024 * 1024)

FRONTS: dict[str, tuple[Callable[..., ASGIApp], str, dict[str, Any]]] = {
    "anthropic": (AnthropicMiddleware, "/v1/messages", MESSAGES),
    "responses": (ResponsesMiddleware, "/v1/responses", {"model": "m", "input": "hi"}),
}


async def peak_of(
    app: ASGIApp, path: str, doc: dict[str, Any], keep_tail: int | None = 4096
) -> tuple[int, list[Message]]:
    """The traced peak of one request, and what was sent: each long body cut to its first and
    last ``keep_tail`` bytes, so that what the client received is not counted as what the front
    held (``None``: kept whole, and counted)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        sent = await call(app, path, [orjson.dumps(doc)], keep_tail=keep_tail)
        return tracemalloc.get_traced_memory()[1], sent
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("front", sorted(FRONTS))
@pytest.mark.parametrize("upstream", [JSON_40MB, SSE_16MB], ids=["json-40MB", "sse-event-16MB"])
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_oversized_upstream_answers_stay_under_the_cap(
    front: str, upstream: tuple[bytes, bytes, int], stream: bool
) -> None:
    make, path, doc = FRONTS[front]
    app = make(endless_upstream(*upstream), max_upstream_bytes=CAP)
    with anyio.fail_after(30):
        peak, sent = await peak_of(app, path, {**doc, "stream": stream})
    assert peak < 3 * CAP, f"peak {peak / 2**20:.1f} MiB"
    body = b"".join(m.get("body", b"") for m in sent[1:])
    assert sent[-1]["more_body"] is False
    assert f"over {CAP} bytes".encode() in body
    if not stream:
        assert sent[0]["status"] >= 500


def sse_upstream(events: Callable[[], Iterable[bytes]]) -> ASGIApp:
    """An upstream that streams ``events()`` (whole SSE events), one per body message."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        for event in events():
            await send({"type": "http.response.body", "body": event, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


def data_event(delta: dict[str, Any]) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    return b"data: " + orjson.dumps(chunk) + b"\n\n"


def text_forever(total: int) -> ASGIApp:
    """An upstream that streams 64 KiB text deltas, the same bytes each time, past ``total``."""
    event = data_event({"content": PIECE.decode()})
    return sse_upstream(lambda: itertools.repeat(event, total // len(PIECE)))


@pytest.mark.parametrize(
    ("front", "stream"),
    [("anthropic", False), ("responses", False), ("responses", True)],
)
async def test_an_answer_that_never_ends_is_cut_where_the_front_holds_it(
    front: str, stream: bool
) -> None:
    """The Responses API's final output, and a non-streaming reply, hold the whole answer."""
    make, path, doc = FRONTS[front]
    app = make(text_forever(40 * 1024 * 1024), max_upstream_bytes=CAP)
    with anyio.fail_after(30):
        peak, sent = await peak_of(app, path, {**doc, "stream": stream})
    # The Responses API repeats the whole text in four events at the end (output_text.done,
    # content_part.done, output_item.done, response.failed): the text is escaped once, and
    # the events are written one at a time as they are sent (``core.large``).
    assert peak < 5 * CAP, f"peak {peak / 2**20:.1f} MiB"
    body = b"".join(m.get("body", b"") for m in sent[1:])
    assert f"the upstream answer exceeded the limit of {CAP} bytes".encode() in body
    if stream:  # response.failed, whose error comes last
        assert body.endswith(
            b'"error":{"code":"server_error","message":"upstream answer: the '
            b'upstream answer exceeded the limit of 1048576 bytes"},'
            b'"incomplete_details":null,"previous_response_id":null,'
            b'"truncation":"disabled","usage":null}}\n\n'
        )
    else:
        assert sent[0]["status"] == 500


async def test_a_streamed_anthropic_answer_is_not_held_so_not_cut() -> None:
    make, path, doc = FRONTS["anthropic"]
    app = make(text_forever(8 * CAP), max_upstream_bytes=CAP)
    with anyio.fail_after(30):
        peak, sent = await peak_of(app, path, {**doc, "stream": True})
    body = b"".join(m.get("body", b"") for m in sent[1:])
    assert b"exceeded the limit" not in body
    assert sum(b"text_delta" in m.get("body", b"") for m in sent) == 8 * CAP // len(PIECE)
    assert peak < 3 * CAP


def queued_call_then_text(size: int) -> ASGIApp:
    """An upstream with two interleaved native calls of ``size`` characters of arguments each:
    the second's wait for the first to end, which text after the calls does."""
    first = '{"x": "' + "a" * (size - 7)
    deltas = [
        {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": first}}]},
        {
            "tool_calls": [
                {"index": 1, "id": "b", "function": {"name": "g", "arguments": "y" * size}}
            ]
        },
        {"content": "done"},
    ]
    return sse_upstream(lambda: [*map(data_event, deltas), b"data: [DONE]\n\n"])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
async def test_a_queued_call_that_passes_the_cap_fails_the_response_cleanly(stream: bool) -> None:
    # The Responses front caps the whole answer; the queued call's arguments count only when
    # text ends the calls, and passing the cap there ends the response with the API's own
    # error, as anywhere else (it used to escape as an exception and break the response).
    make, path, doc = FRONTS["responses"]
    app = make(queued_call_then_text(600), max_upstream_bytes=1024)
    sent = await call(app, path, [orjson.dumps({**doc, "stream": stream})])
    body = b"".join(m.get("body", b"") for m in sent[1:])
    assert sent[-1]["more_body"] is False
    assert b"upstream answer: the upstream answer exceeded the limit of 1024 bytes" in body
    assert b"LimitExceeded" not in body  # the front's verdict, not an exception's repr
    if stream:
        assert b"event: response.failed" in body
    else:
        assert sent[0]["status"] >= 500


def test_a_large_answer_costs_a_small_multiple_of_itself_on_every_front() -> None:
    """A 2 MiB answer, streamed and not, through each front in front of the chat path, in a
    fresh process (``memory_child.py``): a front that holds the answer (the Responses API's
    final output, a reply that is not streamed) holds it, its escape and the one event being
    written, about three times the answer; a stream that holds nothing stays flat."""
    child = Path(__file__).with_name("memory_child.py")
    done = subprocess.run(
        [sys.executable, str(child), str(2 * 1024 * 1024)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    peaks = json.loads(done.stdout)
    assert len(peaks) == 6
    for name, (peak, size) in peaks.items():
        holds = name != "anthropic stream" and name != "gemini stream"
        limit = 4 * size if holds else size // 8
        assert peak < limit, f"{name}: peak {peak / size:.1f}x the answer"
