"""Bounded memory and request-body rules for the Gemini front, by the same measures as the
other fronts (``tests/fronts``): whatever the upstream sends, the front holds at most its
``max_upstream_bytes`` (plus one read); a client that leaves mid-upload sends nothing on."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Iterable

import anyio
import orjson
import pytest

from fronts.asgi import RecordingApp, call
from fronts.test_memory import CAP, JSON_40MB, SSE_16MB, endless_upstream, peak_of
from toolcall_middleware.asgi import ASGIApp, Receive, Scope, Send
from toolcall_middleware.fronts.gemini import GeminiMiddleware
from toolcall_middleware.fronts.gemini.stream import LARGE, dump

from .helpers import check_array, stream_path, user

pytestmark = pytest.mark.anyio

DOC = {"contents": [user("hi")]}


def sse_upstream(pieces: Callable[[], Iterable[bytes]]) -> ASGIApp:
    """An upstream that streams what ``pieces()`` yields, one body message each (made as they
    are sent, so the test itself holds none of it)."""

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
        for piece in pieces():
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


@pytest.mark.parametrize("upstream", [JSON_40MB, SSE_16MB], ids=["json-40MB", "sse-event-16MB"])
@pytest.mark.parametrize(
    "path", [stream_path(), "/v1beta/models/m:generateContent"], ids=["stream", "whole"]
)
async def test_oversized_upstream_answers_stay_under_the_cap(
    upstream: tuple[bytes, bytes, int], path: str
) -> None:
    app = GeminiMiddleware(endless_upstream(*upstream), max_upstream_bytes=CAP)
    with anyio.fail_after(30):
        peak, sent = await peak_of(app, path, DOC)
    assert peak < 3 * CAP, f"peak {peak / 2**20:.1f} MiB"
    body = b"".join(m.get("body", b"") for m in sent[1:])
    assert sent[-1]["more_body"] is False
    assert f"over {CAP} bytes".encode() in body
    if path.endswith(":generateContent"):
        assert sent[0]["status"] >= 500
    else:
        assert orjson.loads(body)[-1]["error"]["status"] == "INTERNAL"  # the array form


async def test_endless_call_arguments_stay_under_the_cap() -> None:
    """One call whose arguments never end: held whole until the call ends, so capped."""
    head = (
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1",'
        b'"type":"function","function":{"name":"f","arguments":"{\\"a\\": \\""}}]}}]}\n\n'
    )
    piece = (
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":'
        b'{"arguments":"' + b"x" * 60000 + b'"}}]}}]}\n\n'
    )

    upstream = sse_upstream(lambda: [head, *(piece for _ in range(300))])  # 18 MB

    app = GeminiMiddleware(upstream, max_upstream_bytes=CAP)
    with anyio.fail_after(30):
        peak, sent = await peak_of(app, stream_path(), DOC)
    assert peak < 3 * CAP, f"peak {peak / 2**20:.1f} MiB"
    checked = check_array(b"".join(m.get("body", b"") for m in sent[1:]))
    assert checked.error is not None
    message = checked.error["error"]["message"]
    assert f"tool-call arguments exceeded the limit of {CAP} bytes" in message
    assert checked.responses == []  # nothing of the call went out


async def test_client_that_leaves_mid_upload_sends_nothing_on() -> None:
    inner = RecordingApp()
    body = orjson.dumps({"contents": [user("x" * 4000)]})
    pieces = [body[i : i + 1000] for i in range(0, len(body), 1000)]
    sent = await call(GeminiMiddleware(inner), stream_path(), pieces[:2], disconnect=True)
    assert inner.calls == [] and sent == []


def text_events(total: int) -> ASGIApp:
    """An upstream that streams ``total`` bytes of text in small, valid events."""
    piece = b'data: {"choices":[{"index":0,"delta":{"content":"' + b"x" * 60000 + b'"}}]}\n\n'
    return sse_upstream(lambda: (piece for _ in range(total // 60000)))


async def test_a_whole_answer_is_capped_too() -> None:
    """Not streaming, the front holds the answer for its one response: an endless answer in
    small events ends with an error at the cap, not with the process out of memory."""
    app = GeminiMiddleware(text_events(24 * 1024 * 1024), max_upstream_bytes=CAP)
    with anyio.fail_after(30):
        peak, sent = await peak_of(app, "/v1beta/models/m:generateContent", DOC)
    assert peak < 3 * CAP, f"peak {peak / 2**20:.1f} MiB"
    body = b"".join(m.get("body", b"") for m in sent[1:])
    assert sent[0]["status"] == 500
    assert orjson.loads(body)["error"]["message"] == f"upstream answer over {CAP} bytes"


async def test_a_large_call_goes_out_whole_within_bounds() -> None:
    """A call of almost the cap goes out whole. Its arguments are parsed once when the call ends
    (the core's one policy, with orjson, which takes about 13 bytes per character of a large
    string while it reads); the front's own encoding of it adds no more (see below)."""
    args = orjson.dumps({"content": "y" * (CAP - 100)}).decode()
    events = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "write", "arguments": ""},
                            }
                        ]
                    },
                }
            ]
        },
        *(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {"index": 0, "function": {"arguments": args[i : i + 50000]}}
                            ]
                        },
                    }
                ]
            }
            for i in range(0, len(args), 50000)
        ),
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    body = b"".join(b"data: " + orjson.dumps(e) + b"\n\n" for e in events)

    upstream = sse_upstream(lambda: (body[i : i + 65536] for i in range(0, len(body), 65536)))

    app = GeminiMiddleware(upstream, max_upstream_bytes=CAP)
    with anyio.fail_after(30):
        peak, sent = await peak_of(app, stream_path(), DOC, keep_tail=None)  # the call, whole
    assert peak < 16 * CAP, f"peak {peak / 2**20:.1f} MiB"
    checked = check_array(b"".join(m.get("body", b"") for m in sent[1:]))
    calls = [
        p["functionCall"]
        for r in checked.responses
        for p in r["candidates"][0]["content"]["parts"]
        if "functionCall" in p
    ]
    assert calls == [{"id": "c1", "name": "write", "args": orjson.loads(args)}]


def test_large_parts_are_encoded_without_orjsons_buffer() -> None:
    text = "é" * CAP
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        data = dump({"functionCall": {"args": {"content": text}}}, len(text))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 * len(text.encode()), f"peak {peak / 2**20:.1f} MiB"
    assert orjson.loads(data)["functionCall"]["args"]["content"] == text
    assert dump({"a": "\u2028"}, 0) == dump({"a": "\u2028"}, LARGE) == b'{"a":"\\u2028"}'
