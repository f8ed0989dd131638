"""Upstreams that misbehave on purpose: bounds that must hold whatever the bytes look like.

Time bounds are ratios of two sizes measured in one run (CPU time of this process), never
absolute times: linear work grows 8x from one size to the next, work that re-scans what it holds
grows 64x.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import orjson
import pytest

from helpers import body_app, chunk, request_json, sse, through
from native_support import endless_upstream, error_of
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.completion import completion_from_sse
from toolcall_middleware.config import load_serve_config
from toolcall_middleware.proxy.app import create_proxy_app
from toolcall_middleware.replay import run_app

pytestmark = pytest.mark.anyio

SMALL, LARGE = 64 * 1024, 512 * 1024  # 8x apart
READ = 150  # bytes per read of a trickling upstream
#: Linear work grows 8x between the sizes; re-scanning what is held grows 64x. The margin
#: covers a shared machine's noise.
MAX_RATIO = 24


def large_event(size: int, newline: bytes = b"\n") -> bytes:
    """One chunk whose content is ``size`` characters of plain text."""
    data = orjson.dumps(chunk({"content": "lorem ipsum " * (size // 12)}))
    return (b"data: " + data + b"\n\n" + b"data: [DONE]\n\n").replace(b"\n", newline)


def trickled(body: bytes) -> list[bytes]:
    return [body[i : i + READ] for i in range(0, len(body), READ)]


async def cpu_ratio(run: Callable[[int], Awaitable[None]]) -> float:
    """CPU time of ``run(LARGE)`` over ``run(SMALL)``, the best of three each."""

    async def best(size: int) -> float:
        times = []
        for _ in range(3):
            started = time.process_time()
            await run(size)
            times.append(time.process_time() - started)
        return min(times)

    await run(SMALL)  # warm up imports and caches
    return await best(LARGE) / max(await best(SMALL), 1e-6)


@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
async def test_a_large_event_in_small_reads_costs_time_linear_in_its_bytes(
    newline: bytes,
) -> None:
    async def run(size: int) -> None:
        body = large_event(size, newline)
        app = ToolCallMiddleware(
            body_app(trickled(body)), "kimi_k2", metrics=False, max_buffered_bytes=2 * LARGE
        )
        status, _, bodies = await run_app(app, request_json())
        assert status == 200 and b"".join(bodies) == body  # plain text: byte for byte

    assert await cpu_ratio(run) < MAX_RATIO


async def test_the_proxy_path_is_linear_in_the_bytes_of_a_trickling_upstream() -> None:
    """``toolcall serve``'s app, its upstream answering in 150-byte reads."""

    async def handler(request: httpx.Request) -> httpx.Response:
        size = int(orjson.loads(await request.aread())["model"])
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream"},
            stream=_Pieces(trickled(large_event(size))),
        )

    config = load_serve_config({"upstream": "http://upstream.test", "access_log": False}, env={})
    app = create_proxy_app(config, transport=httpx.MockTransport(handler))

    async def run(size: int) -> None:
        body = request_json(model=str(size))
        status, _, bodies = await run_app(
            app,
            body,
            headers=[
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(body)),
            ],
        )
        assert status == 200 and b"".join(bodies) == large_event(size)

    assert await cpu_ratio(run) < MAX_RATIO


class _Pieces(httpx.AsyncByteStream):
    def __init__(self, pieces: list[bytes]) -> None:
        self._pieces = pieces

    async def __aiter__(self) -> Any:
        for piece in self._pieces:
            yield piece


DEEP = "[" * 10_000 + "]" * 10_000  # past the stack of any recursive decoder
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"


def calls_and_text(body: bytes) -> tuple[list[tuple[str, str]], str]:
    message = completion_from_sse(body)["choices"][0]["message"]
    calls = [
        (c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", ())
    ]
    return calls, message.get("content") or ""


async def test_kimi_arguments_nested_ten_thousand_deep_choose_their_tool_and_stream() -> None:
    # A client-style id names no tool, so the arguments' keys pick one of the two.
    arguments = '{"path": ' + DEEP + "}"
    pieces = [f"Hi {CB}call_9{AB}", arguments[:7000], arguments[7000:], CE]
    body = sse(*(chunk({"content": p}) for p in pieces), chunk({}, "stop"), "[DONE]")
    app = ToolCallMiddleware(body_app([body]), "kimi_k2", metrics=False)
    request = orjson.loads(request_json(tools=("bash", "read")))
    request["tools"][0]["function"]["parameters"]["properties"] = {"path": {"type": "array"}}
    out = await through(app, orjson.dumps(request))
    assert calls_and_text(out) == ([("bash", arguments)], "Hi ")


@pytest.mark.parametrize(
    "value, converted",
    [
        (DEEP, orjson.dumps(DEEP).decode()),  # kept whole, as a string
        ("9" * 5000, "9" * 5000),  # past int()'s 4300 digits
    ],
    ids=["nested 10,000 deep", "5000 digits"],
)
async def test_xml_values_no_converter_can_take_stay_whole(value: str, converted: str) -> None:
    markup = f"<tool_call>\n<function=bash>\n<parameter=n>\n{value}\n</parameter>\n</function>"
    body = sse(chunk({"content": "Run it." + markup}), chunk({}, "stop"), "[DONE]")
    kind = "array" if value.startswith("[") else "integer"
    app = ToolCallMiddleware(body_app([body]), "qwen3_coder", metrics=False)
    out = await through(app, request_json(properties={"n": {"type": kind}}))
    assert calls_and_text(out) == ([("bash", '{"n": ' + converted + "}")], "Run it.")


@pytest.mark.parametrize(
    "shape",
    [
        {"choices": "x"},
        {"choices": [None, 3]},
        {"choices": [{"index": 0, "delta": "abc"}]},
        {"choices": [{"index": [1], "delta": {"content": 5}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": ["x", {"index": "a", "function": 7}]}}]},
    ],
    ids=[
        "choices a string",
        "choices not objects",
        "delta a string",
        "index a list",
        "tool_calls entries of any type",
    ],
)
async def test_chunks_of_any_shape_never_take_the_response_or_the_hook_down(
    shape: dict[str, Any],
) -> None:
    completions: list[dict[str, Any]] = []
    body = sse(shape, chunk({"content": "still here"}, "stop"), "[DONE]")
    app = ToolCallMiddleware(
        body_app([body]),
        "kimi_k2",
        metrics=False,
        on_complete=lambda request, response: completions.append(response),
    )
    out = await through(app, request_json())
    assert out.endswith(b"data: [DONE]\n\n") and b"still here" in out
    assert completions[0]["choices"][0]["message"]["content"] == "still here"


async def test_an_event_that_never_ends_in_small_reads_is_cut_with_memory_under_the_cap() -> None:
    cap = 256 * 1024
    first = b'data: {"choices": [{"index": 0, "delta": {"content": "'
    app = ToolCallMiddleware(
        endless_upstream(first, b"x" * READ, 20 * cap // READ, [0]),
        "kimi_k2",
        metrics=False,
        max_buffered_bytes=cap,
    )
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        status, _, bodies = await run_app(app, request_json())
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert status == 200 and error_of(b"".join(bodies))["code"] == "tool_call_limit_exceeded"
    assert peak < 1.5 * cap  # one buffer for the event, grown in place
