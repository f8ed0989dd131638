"""Debug capture: a bounded ring buffer and ``GET /debug/tool-calls``."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from helpers import body_app, chunk, request_json, sse, through
from native_support import get
from toolcall_middleware import ToolCallMiddleware, debug
from toolcall_middleware.debug import DebugCapture, debug_app

pytestmark = pytest.mark.anyio

KEY = "vllm-platform-admin-key-2026"
AUTH = [(b"x-admin-key", KEY.encode())]


def filled(count: int, max_entries: int = 200) -> DebugCapture:
    capture = DebugCapture(max_entries)
    for n in range(count):
        capture.record("stream", "openai", "m", orjson.dumps({"n": n}), [{"out": n}])
    return capture


async def fetch(app: Any, query: bytes = b"", headers: Any = AUTH) -> tuple[int, Any]:
    status, _, bodies = await get(app, "/debug/tool-calls", query, headers)
    return status, orjson.loads(b"".join(bodies))


async def test_no_key_configured_means_not_found() -> None:
    assert (await fetch(debug_app(filled(3), "")))[0] == 404
    assert (await fetch(debug_app(None, KEY)))[0] == 404


async def test_missing_key_is_401_and_wrong_key_is_403() -> None:
    app = debug_app(filled(3), KEY)
    status, body = await fetch(app, headers=[])
    assert status == 401 and body["error"]["type"] == "authentication_error"
    for wrong in (b"nope", KEY.encode()[:-1], KEY.encode() + b"x", b""):
        assert (await fetch(app, headers=[(b"x-admin-key", wrong)]))[0] == 403


async def test_the_key_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[bytes, bytes]] = []
    real = debug.hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(debug.hmac, "compare_digest", spy)
    assert (await fetch(debug_app(filled(1), KEY)))[0] == 200
    assert compared == [(KEY.encode(), KEY.encode())]


async def test_limit_defaults_to_50_is_capped_by_the_maximum_and_returns_the_newest() -> None:
    app = debug_app(filled(120, max_entries=100), KEY)
    status, body = await fetch(app)
    assert status == 200 and body["count"] == 50 and body["total"] == 100 and body["max"] == 100
    assert [e["raw"]["n"] for e in body["entries"]] == list(range(70, 120))
    _, body = await fetch(app, b"limit=5")
    assert [e["raw"]["n"] for e in body["entries"]] == [115, 116, 117, 118, 119]
    assert body["entries"][0]["output"] == [{"out": 115}]
    _, body = await fetch(app, b"limit=1000")
    assert body["count"] == 100  # capped by TOOL_CALL_DEBUG_MAX
    assert (await fetch(app, b"limit=ten"))[0] == 400


async def test_clear_empties_the_buffer_after_reading() -> None:
    capture = filled(10)
    app = debug_app(capture, KEY)
    _, body = await fetch(app, b"limit=3&clear=true")
    assert body["count"] == 3 and body["cleared"] is True and len(capture) == 0
    _, body = await fetch(app)
    assert body["entries"] == [] and body["total"] == 0


async def test_only_get_is_allowed() -> None:
    from toolcall_middleware.replay import run_app

    status, _, _ = await run_app(debug_app(filled(1), KEY), b"", "/debug/tool-calls")
    assert status == 405


def test_the_ring_buffer_is_bounded_and_clips_large_payloads() -> None:
    capture = filled(500, max_entries=7)
    assert len(capture) == 7
    big = b'{"arguments": "' + b"x" * (debug.MAX_PAYLOAD * 2) + b'"}'
    capture.record("stream", "openai", "m", big, [])
    (entry,) = capture.recent(1)
    assert entry["raw"]["truncated"] is True and entry["raw"]["size"] == len(big)
    assert len(entry["raw"]["text"]) == debug.MAX_PAYLOAD


async def test_the_middleware_captures_tool_call_chunks_and_serves_them() -> None:
    call = chunk(
        {
            "tool_calls": [
                {
                    "index": 3,
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": {"a": 1}},
                }
            ]
        },
        model="gpt-4.1",
    )
    body = sse(
        chunk({"content": "plain text"}, model="gpt-4.1"),
        call,
        chunk({}, "stop", model="gpt-4.1"),
        "[DONE]",
    )
    app = ToolCallMiddleware(body_app([body]), "openai", admin_key=KEY, debug_max=10, metrics=False)
    await through(app, request_json("gpt-4.1", ("f",)))
    assert app.debug is not None and app.debug.max_entries == 10
    status, result = await fetch(app)
    assert status == 200
    entries = result["entries"]
    # The text-only chunk is not captured; the call chunk and the finish chunk are.
    assert [e["raw"]["choices"][0]["delta"].get("tool_calls") is not None for e in entries] == [
        True,
        False,
    ]
    first = entries[0]
    assert (first["stage"], first["provider"], first["model"]) == ("stream", "openai", "gpt-4.1")
    assert first["raw"] == call
    (sent,) = first["output"]
    assert sent["choices"][0]["delta"]["tool_calls"][0] == {
        "index": 0,
        "id": "c1",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a":1}'},
    }
    assert entries[1]["output"][-1]["choices"][0]["finish_reason"] == "tool_calls"


async def test_non_streaming_messages_are_captured_before_and_after() -> None:
    completion = {
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"index": 0, "type": "function", "name": "f", "arguments": {"a": 1}}
                    ],
                },
            }
        ]
    }
    app = ToolCallMiddleware(
        body_app([orjson.dumps(completion)], headers=[(b"content-type", b"application/json")]),
        admin_key=KEY,
        metrics=False,
    )
    await through(app, request_json("gpt-4.1", ("f",), stream=False))
    _, result = await fetch(app)
    (entry,) = result["entries"]
    assert entry["stage"] == "json"
    assert entry["raw"] == completion["choices"][0]["message"]
    assert entry["output"]["tool_calls"][0]["function"] == {"name": "f", "arguments": '{"a":1}'}


async def test_without_a_key_the_path_belongs_to_the_app_and_nothing_is_captured() -> None:
    app = ToolCallMiddleware(
        body_app([b"from the app"], headers=[(b"content-type", b"text/plain")]), metrics=False
    )
    assert app.debug is None
    status, _, bodies = await get(app, "/debug/tool-calls", b"", AUTH)
    assert status == 200 and b"".join(bodies) == b"from the app"


def test_debug_max_comes_from_the_seed_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOL_CALL_DEBUG_MAX", "33")
    monkeypatch.setenv("TOOLCALL_ADMIN_KEY", KEY)
    app = ToolCallMiddleware(body_app([]), metrics=False)
    assert app.debug is not None and app.debug.max_entries == 33


async def test_the_replay_example_serves_metrics_and_the_debug_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib
    from pathlib import Path

    from helpers import sdk_client

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1]))
    monkeypatch.setenv("TOOLCALL_REPLAY_PACE", "0")
    monkeypatch.setenv("TOOLCALL_ADMIN_KEY", KEY)
    module = importlib.reload(importlib.import_module("examples.replay_upstream"))
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    async with sdk_client(module.app).chat.completions.stream(
        model="openai-index-reuse",
        messages=[{"role": "user", "content": "hi"}],
        tools=tools,
    ) as stream:
        final = await stream.get_final_completion()
    assert len(final.choices[0].message.tool_calls or []) == 3
    status, _, bodies = await get(module.app, "/metrics")
    assert status == 200 and b"toolcall_tool_calls_total{" in b"".join(bodies)
    status, result = await fetch(module.app, b"limit=2")
    assert status == 200 and result["count"] == 2
    assert result["entries"][-1]["model"] == "openai-index-reuse"
    assert (await fetch(module.app, headers=[]))[0] == 401
