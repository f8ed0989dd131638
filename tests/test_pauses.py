"""Held text and silence: what a pause of the upstream releases, with real timing.

A parser holds text that may start a marker (``hello <``) until the next delta. When the
upstream then pauses, the client must not be left waiting: after ``idle_release`` seconds, or at
once on a keep-alive, the held events go out without the held text (``hello ``), on every
format. The held text may still start a marker (a server may split even a special token over
deltas): it waits for the next delta, and a marker that continues after the pause is a marker.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
import orjson
import pytest

from helpers import chunk, request_json, sse
from toolcall_middleware import ConfigError, Options, ToolCallMiddleware
from toolcall_middleware.asgi import Message, Receive, Scope, Send
from toolcall_middleware.completion import completion_from_sse

pytestmark = pytest.mark.anyio

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
PAUSE = 0.5  # seconds the upstream is silent: long against the idle time below
IDLE = 0.05
KEEP_ALIVE = b": keep-alive\n\n"


def text(piece: str) -> bytes:
    return sse(chunk({"content": piece}))


class Run:
    """One request through the middleware: what the client got, and when."""

    def __init__(self) -> None:
        self.received: list[tuple[float, bytes]] = []
        self.resumed = 0.0  # when the upstream spoke again after its pause
        self._start = time.monotonic()

    def now(self) -> float:
        return time.monotonic() - self._start

    def before_resume(self) -> bytes:
        """What the client had been sent by the time the upstream resumed."""
        return b"".join(body for at, body in self.received if at < self.resumed)

    @property
    def body(self) -> bytes:
        return b"".join(body for _, body in self.received)


async def run(provider: str, before: list[bytes], after: list[bytes], **options: Any) -> Run:
    """Upstream sends ``before``, is silent for ``PAUSE``, then sends ``after`` and ends."""
    result = Run()

    async def upstream(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        for piece in before:
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await anyio.sleep(PAUSE)
        result.resumed = result.now()
        for piece in after:
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def receive() -> Message:
        return {"type": "http.request", "body": request_json(), "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.body":
            result.received.append((result.now(), message.get("body", b"")))

    app = ToolCallMiddleware(upstream, provider, metrics=False, **{"idle_release": IDLE, **options})
    scope: Scope = {"type": "http", "method": "POST", "path": "/v1/chat/completions"}
    with anyio.fail_after(10):
        await app(scope, receive, send)
    return result


def content_of(body: bytes) -> str:
    return str(completion_from_sse(body)["choices"][0]["message"].get("content") or "")


def calls_of(body: bytes) -> list[tuple[str, str]]:
    message = completion_from_sse(body)["choices"][0]["message"]
    return [
        (c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", ())
    ]


KIMI_CALL = [
    text(SB),
    text(CB),
    text("functions.bash:0"),
    text(AB),
    text('{"command": "ls"}'),
    text(CE),
    text(SE),
    sse(chunk({}, "stop")),
    b"data: [DONE]\n\n",
]
HERMES_CALL = [
    text('tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>'),
    sse(chunk({}, "stop")),
    b"data: [DONE]\n\n",
]


@pytest.mark.parametrize("provider", ["kimi_k2", "hermes"])
async def test_a_pause_sends_the_text_before_a_possible_marker_and_keeps_the_rest(
    provider: str,
) -> None:
    before, after = [text("Let me see."), text(" a <")], [text(" b"), b"data: [DONE]\n\n"]
    result = await run(provider, before, after)
    assert content_of(result.before_resume()) == "Let me see. a "
    assert content_of(result.body) == "Let me see. a < b"  # the "<" was text after all


async def test_a_special_token_split_by_a_pause_is_still_a_marker() -> None:
    before = [text("Let me see."), text(" a <|tool_calls")]
    after = [text("_section_begin|>"), *KIMI_CALL[1:]]
    result = await run("kimi_k2", before, after)
    assert content_of(result.before_resume()) == "Let me see. a "
    assert content_of(result.body) == "Let me see. a "
    assert calls_of(result.body) == [("bash", '{"command": "ls"}')]
    assert b"<|tool" not in result.body


async def test_a_stream_without_held_text_stays_byte_for_byte_across_a_pause() -> None:
    before, after = [text("Let me see."), text(" a <b>")], [text(" b"), b"data: [DONE]\n\n"]
    result = await run("kimi_k2", before, after)
    assert result.before_resume() == b"".join(before)
    assert result.body == b"".join(before + after)


async def test_formats_spelled_over_several_tokens_keep_holding_the_marker_start() -> None:
    result = await run("hermes", [text("Let me see."), text(" a <")], HERMES_CALL)
    # The text before the "<" goes out; the "<" may still begin <tool_call>, and it does.
    assert content_of(result.before_resume()) == "Let me see. a "
    assert content_of(result.body) == "Let me see. a "
    assert calls_of(result.body) == [("bash", '{"command": "ls"}')]


async def test_text_held_after_a_call_waits_out_a_pause_and_is_not_lost() -> None:
    call = [text(f"{SB}{CB}functions.bash:0{AB}"), text('{"command": "ls"}'), text(f"{CE}{SE}")]
    result = await run(
        "kimi_k2",
        [*call, text(" Then <")],
        [text(" more."), sse(chunk({}, "stop")), b"data: [DONE]\n\n"],
    )
    assert content_of(result.before_resume()) == " Then "
    assert content_of(result.body) == " Then < more."
    assert calls_of(result.body) == [("bash", '{"command": "ls"}')]


@pytest.mark.parametrize("provider", ["kimi_k2", "hermes"])
async def test_a_keep_alive_releases_held_events_and_goes_out_at_once(provider: str) -> None:
    # The idle time is longer than the pause: only the keep-alive can release anything.
    after = KIMI_CALL if provider == "kimi_k2" else HERMES_CALL
    result = await run(
        provider, [text("Let me see."), text(" a <"), KEEP_ALIVE], after, idle_release=30
    )
    early = result.before_resume()
    assert early.endswith(KEEP_ALIVE)  # forwarded, after what it released
    assert content_of(early) == "Let me see. a "
    assert calls_of(result.body) == [("bash", '{"command": "ls"}')]


async def test_with_no_idle_release_held_text_waits_for_the_next_event() -> None:
    result = await run("kimi_k2", [text("Let me see."), text(" a <")], KIMI_CALL, idle_release=0)
    assert content_of(result.before_resume()) == "Let me see."
    assert calls_of(result.body) == [("bash", '{"command": "ls"}')]


async def test_a_pause_inside_a_call_sends_nothing_and_breaks_nothing() -> None:
    start = [text(f"Hi {SB}{CB}functions.bash:0{AB}"), text('{"command": "l')]
    result = await run(
        "kimi_k2",
        start,
        [text('s <x"}'), text(f"{CE}{SE}"), sse(chunk({}, "stop")), b"data: [DONE]\n\n"],
    )
    early = result.before_resume()
    assert calls_of(early) == [("bash", '{"command": "l')]
    assert calls_of(result.body) == [("bash", '{"command": "ls <x"}')]
    assert orjson.loads(calls_of(result.body)[0][1]) == {"command": "ls <x"}


def test_idle_release_is_an_option_with_an_environment_default() -> None:
    assert Options().idle_release == 0.2
    assert Options.from_env({"TOOLCALL_IDLE_RELEASE": "0.5"}).idle_release == 0.5
    assert Options.from_env({"TOOLCALL_IDLE_RELEASE": "0"}).idle_release == 0
    with pytest.raises(ConfigError, match="idle_release"):
        Options(idle_release=-1)
    with pytest.raises(ConfigError, match="TOOLCALL_IDLE_RELEASE"):
        Options.from_env({"TOOLCALL_IDLE_RELEASE": "soon"})


async def test_the_completion_hook_sees_released_text_once() -> None:
    completions: list[dict[str, Any]] = []
    result = await run(
        "kimi_k2",
        [text("Let me see."), text(" a <")],
        KIMI_CALL,
        on_complete=lambda request, response: completions.append(response),
    )
    assert content_of(result.before_resume()) == "Let me see. a "
    message = completions[0]["choices"][0]["message"]
    assert message["content"] == "Let me see. a <"
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["bash"]
