"""Fault containment: a rewrite that raises leaves the client with the upstream's own bytes.

The failing parser is registered for the test only (``monkeypatch`` removes it again).
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
import pytest
from prometheus_client import CollectorRegistry

from helpers import body_app, chunk, request_json, sse, through
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.events import CALL_END, CallArgs, CallStart, Event, Text
from toolcall_middleware.native_calls import NativeToolCalls
from toolcall_middleware.parsers import Format, ToolCallParser, descriptor

pytestmark = pytest.mark.anyio

SB, CB, AB = "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>"


class Flaky(ToolCallParser):
    """Turns ``CALL`` into a tool call, echoes other text, raises on ``BOOM`` (or, with
    ``at_finish``, at the end)."""

    at_finish = False

    def __init__(self, context: Any) -> None:
        pass

    def feed(self, text: str) -> list[Event]:
        if "BOOM" in text:
            raise RuntimeError("parser bug")
        if text == "CALL":
            return [CallStart("f", "call_flaky"), CallArgs("{}"), CALL_END]
        return [Text(text)] if text else []

    def finish(self) -> list[Event]:
        if self.at_finish:
            raise RuntimeError("parser bug at the end")
        return []


class FlakyAtFinish(Flaky):
    at_finish = True


@pytest.fixture
def flaky(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(descriptor._FORMATS, "test_flaky", Format("test_flaky", Flaky))
    monkeypatch.setitem(
        descriptor._FORMATS, "test_flaky_finish", Format("test_flaky_finish", FlakyAtFinish)
    )


def fallbacks(registry: CollectorRegistry, stage: str) -> float:
    return (
        registry.get_sample_value(
            "toolcall_fallbacks_total",
            {"provider": "test_flaky", "stage": stage, "action": "rewrite-error"},
        )
        or 0.0
    )


@pytest.mark.usefixtures("flaky")
async def test_a_parser_that_raises_midstream_leaves_the_rest_of_the_stream_original(
    caplog: pytest.LogCaptureFixture,
) -> None:
    before = [chunk({"content": "one "}), chunk({"content": "CALL"})]
    after = [
        chunk({"content": "BOOM"}),
        chunk({"content": "BOOM again"}),
        chunk({"content": "three"}),
        chunk({}, "stop"),
    ]
    original_tail = sse(*after, "[DONE]")
    body = sse(*before) + original_tail
    registry = CollectorRegistry()
    app = ToolCallMiddleware(body_app([body]), provider="test_flaky", registry=registry)
    with caplog.at_level(logging.ERROR, logger="toolcall_middleware"):
        out = await through(app, request_json())
    assert out.endswith(original_tail)  # from the failing event on: the upstream's bytes
    assert b'"id":"call_flaky"' in out  # before it: the rewrite
    assert [r.message for r in caplog.records].count(
        "tool-call rewrite failed; forwarding the rest of the stream as is"
    ) == 1
    assert fallbacks(registry, "stream") == 1


@pytest.mark.usefixtures("flaky")
async def test_a_parser_that_raises_at_the_end_still_ends_the_stream() -> None:
    body = sse(chunk({"content": "fine"}), chunk({}, "stop"), "[DONE]")
    registry = CollectorRegistry()
    app = ToolCallMiddleware(body_app([body]), provider="test_flaky_finish", registry=registry)
    out = await through(app, request_json())
    assert out.endswith(sse(chunk({}, "stop"), "[DONE]"))
    assert (
        registry.get_sample_value(
            "toolcall_fallbacks_total",
            {"provider": "test_flaky_finish", "stage": "stream", "action": "rewrite-error"},
        )
        == 1
    )


@pytest.mark.usefixtures("flaky")
async def test_a_parser_that_raises_on_a_json_response_leaves_the_body_original(
    caplog: pytest.LogCaptureFixture,
) -> None:
    completion = orjson.dumps(
        {
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "BOOM"},
                }
            ]
        }
    )
    registry = CollectorRegistry()
    seen: list[Any] = []
    app = ToolCallMiddleware(
        body_app(
            [completion],
            headers=[
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(completion)),
            ],
        ),
        provider="test_flaky",
        registry=registry,
        on_complete=lambda q, r: seen.append(r),
    )
    with caplog.at_level(logging.ERROR, logger="toolcall_middleware"):
        out = await through(app, request_json(stream=False))
    assert out == completion
    assert fallbacks(registry, "json") == 1
    assert any("JSON response failed" in r.message for r in caplog.records)
    assert seen == [orjson.loads(completion)]  # the hook sees what the client got


async def test_a_bug_in_the_native_normaliser_is_contained(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: NativeToolCalls, entries: Any) -> Any:
        raise KeyError("normaliser bug")

    monkeypatch.setattr(NativeToolCalls, "feed", broken)
    call = chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "c",
                    "type": "function",
                    "function": {"name": "f", "arguments": "{}"},
                }
            ]
        },
        model="gpt-4.1",
    )
    tail = sse(call, chunk({}, "tool_calls", model="gpt-4.1"), "[DONE]")
    body = sse(chunk({"content": "Hi"}, model="gpt-4.1")) + tail
    out = await through(
        ToolCallMiddleware(body_app([body]), metrics=False), request_json("gpt-4.1", ("f",))
    )
    assert out == body
