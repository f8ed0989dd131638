"""Prometheus counters (each test has its own registry) and the ``GET /metrics`` endpoint."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from prometheus_client import CollectorRegistry

from helpers import body_app, chunk, request_json, sse, through
from native_support import get
from toolcall_middleware import ToolCallMiddleware, metrics
from toolcall_middleware.replay import run_app

pytestmark = pytest.mark.anyio

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
KIMI = "moonshotai/Kimi-K2-Instruct-0905"


def value(registry: CollectorRegistry, name: str, **labels: str) -> float:
    return registry.get_sample_value(name, labels) or 0.0


def native(index: int, **fields: Any) -> dict[str, Any]:
    return chunk({"tool_calls": [{"index": index, **fields}]}, model="gpt-4.1")


MALFORMED_STREAM = sse(
    native(0, id="a", type="function", function={"name": "write", "arguments": '{"x": '}),
    native(1, id="n", function={"arguments": "{}"}),  # never named
    native(2, id="b", type="function", function={"name": "get_time", "arguments": "{}"}),
    chunk({}, "tool_calls", model="gpt-4.1"),
    "[DONE]",
)


async def test_stream_mode_counts_calls_malformed_and_dropped() -> None:
    registry = CollectorRegistry()
    app = ToolCallMiddleware(body_app([MALFORMED_STREAM]), "openai", registry=registry)
    await through(app, request_json("gpt-4.1", ("write", "get_time")))
    assert value(registry, "toolcall_tool_calls_total", provider="openai", source="native") == 2
    assert (
        value(
            registry,
            "toolcall_tool_calls_malformed_total",
            provider="openai",
            stage="stream",
            reason="invalid_json",
        )
        == 1
    )
    assert (
        value(
            registry,
            "toolcall_tool_calls_malformed_total",
            provider="openai",
            stage="stream",
            reason="missing_name",
        )
        == 1
    )
    assert (
        value(
            registry,
            "toolcall_fallbacks_total",
            provider="openai",
            stage="stream",
            action="dropped",
        )
        == 1
    )
    assert (
        value(registry, "toolcall_responses_rewritten_total", provider="openai", stage="stream")
        == 1
    )


async def test_buffered_mode_counts_wrapped_calls() -> None:
    registry = CollectorRegistry()
    app = ToolCallMiddleware(
        body_app([MALFORMED_STREAM]), "openai", registry=registry, mode="buffered"
    )
    await through(app, request_json("gpt-4.1", ("write", "get_time")))
    assert value(registry, "toolcall_tool_calls_total", provider="openai", source="native") == 2
    assert (
        value(
            registry,
            "toolcall_fallbacks_total",
            provider="openai",
            stage="stream",
            action="wrapped",
        )
        == 1
    )
    assert (
        value(
            registry,
            "toolcall_fallbacks_total",
            provider="openai",
            stage="stream",
            action="dropped",
        )
        == 1
    )


async def test_parsed_calls_and_text_fallbacks_are_counted_per_provider() -> None:
    registry = CollectorRegistry()
    body = sse(
        chunk({"content": f"A{SB}{CB}functions.bash:0{AB}" + '{"command": "ls"}' + CE}),
        chunk({"content": f"{SE} then {CB}functions.bash"}),
        chunk({}, "stop"),
        "[DONE]",
    )
    app = ToolCallMiddleware(body_app([body]), registry=registry)
    await through(app, request_json(KIMI))
    assert value(registry, "toolcall_tool_calls_total", provider="kimi_k2", source="parsed") == 1
    assert (
        value(
            registry,
            "toolcall_fallbacks_total",
            provider="kimi_k2",
            stage="stream",
            action="passed-as-text",
        )
        == 1
    )


async def test_untouched_streams_are_not_counted_as_rewritten() -> None:
    registry = CollectorRegistry()
    body = sse(chunk({"content": "Paris."}), chunk({}, "stop"), "[DONE]")
    app = ToolCallMiddleware(body_app([body]), registry=registry)
    assert await through(app, request_json(KIMI)) == body
    assert (
        value(registry, "toolcall_responses_rewritten_total", provider="kimi_k2", stage="stream")
        == 0
    )


async def test_json_responses_are_counted_in_the_json_stage() -> None:
    registry = CollectorRegistry()
    completion = {
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c",
                            "type": "function",
                            "function": {"name": "f", "arguments": "nope"},
                        },
                        {"id": "d", "type": "function", "function": {"name": "g"}},
                    ],
                },
            }
        ]
    }
    app = ToolCallMiddleware(
        body_app([orjson.dumps(completion)], headers=[(b"content-type", b"application/json")]),
        "openai",
        registry=registry,
        mode="buffered",
    )
    await through(app, request_json("gpt-4.1", ("f", "g"), stream=False))
    assert value(registry, "toolcall_tool_calls_total", provider="openai", source="native") == 1
    assert (
        value(
            registry,
            "toolcall_tool_calls_malformed_total",
            provider="openai",
            stage="json",
            reason="missing_arguments",
        )
        == 1
    )
    assert (
        value(
            registry, "toolcall_fallbacks_total", provider="openai", stage="json", action="wrapped"
        )
        == 1
    )
    assert (
        value(registry, "toolcall_responses_rewritten_total", provider="openai", stage="json") == 1
    )


async def test_limit_exceeded_is_counted() -> None:
    registry = CollectorRegistry()
    body = sse(chunk({"content": f"{SB}{CB}" + "h" * 3000}), chunk({}, "stop"), "[DONE]")
    app = ToolCallMiddleware(body_app([body]), registry=registry, max_held_bytes=1000)
    assert b"tool_call_limit_exceeded" in await through(app, request_json(KIMI))
    assert (
        value(
            registry,
            "toolcall_fallbacks_total",
            provider="kimi_k2",
            stage="stream",
            action="limit-exceeded",
        )
        == 1
    )


def test_metrics_can_be_switched_off_and_share_a_registry() -> None:
    registry = CollectorRegistry()
    one = ToolCallMiddleware(body_app([]), registry=registry)
    two = ToolCallMiddleware(body_app([]), registry=registry)  # no duplicate-timeseries error
    assert one.metrics is two.metrics is not None
    assert ToolCallMiddleware(body_app([]), registry=registry, metrics=False).metrics is None


async def test_metrics_endpoint_serves_the_registry() -> None:
    registry = CollectorRegistry()
    await through(
        ToolCallMiddleware(body_app([MALFORMED_STREAM]), "openai", registry=registry),
        request_json("gpt-4.1", ("write", "get_time")),
    )
    app = metrics.metrics_app(registry)
    status, headers, bodies = await get(app)
    text = b"".join(bodies).decode()
    assert status == 200 and dict(headers)[b"content-type"].startswith(b"text/plain")
    assert 'toolcall_tool_calls_total{provider="openai",source="native"} 2.0' in text
    status, _, _ = await run_app(app, b"", "/metrics")  # run_app sends a POST
    assert status == 405


async def test_without_prometheus_client_everything_still_works(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(metrics, "prometheus_client", None)
    app = ToolCallMiddleware(body_app([MALFORMED_STREAM]))
    assert app.metrics is None
    out = await through(app, request_json("gpt-4.1", ("write", "get_time")))
    assert b'"finish_reason":"tool_calls"' in out
    status, _, bodies = await get(metrics.metrics_app())
    assert status == 501 and b"prometheus-client" in b"".join(bodies)
