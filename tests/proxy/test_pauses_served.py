"""Held text during an upstream pause, end to end: the openai SDK, ``toolcall serve`` and an
upstream, all real servers on loopback."""

from __future__ import annotations

import threading
import time

import anyio
import openai
import orjson
from servers import serve_in_thread, start_proxy
from starlette.types import Receive, Scope, Send

PAUSE = 1.0


def event(delta: dict[str, str], finish: str | None = None) -> bytes:
    chunk = {
        "id": "chatcmpl-p",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "Qwen/Qwen3-8B",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + orjson.dumps(chunk) + b"\n\n"


class PausingUpstream:
    """Writes text ending in "<", is silent for ``PAUSE``, then a Hermes call."""

    def __init__(self) -> None:
        self.resumed = threading.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        for piece in (
            event({"role": "assistant", "content": "Let me"}),
            event({"content": " check <"}),
        ):
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await anyio.sleep(PAUSE)
        self.resumed.set()
        call = '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>'
        for piece in (event({"content": call[1:]}), event({}, "stop"), b"data: [DONE]\n\n"):
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def test_text_before_a_held_marker_start_reaches_the_sdk_during_the_pause() -> None:
    upstream = PausingUpstream()
    seen_during_pause: list[str] = []

    async def run(base: str) -> tuple[str, list[tuple[str, str]]]:
        sdk = openai.AsyncOpenAI(base_url=base + "/v1", api_key="sk-test", max_retries=0)
        async with (
            sdk,
            sdk.chat.completions.stream(
                model="Qwen/Qwen3-8B",
                messages=[{"role": "user", "content": "hi"}],
                tools=[{"type": "function", "function": {"name": "bash", "parameters": {}}}],
            ) as stream,
        ):
            async for item in stream:
                if item.type == "content.delta" and not upstream.resumed.is_set():
                    seen_during_pause.append(item.delta)
            final = await stream.get_final_completion()
        message = final.choices[0].message
        calls = [(c.function.name, c.function.arguments) for c in message.tool_calls or ()]
        return message.content or "", calls

    with serve_in_thread(upstream) as url, start_proxy(url, access_log=False) as proxy:
        started = time.monotonic()
        content, calls = anyio.run(run, proxy)
    assert "".join(seen_during_pause) == "Let me check "  # the "<" may begin <tool_call>
    assert (content, calls) == ("Let me check ", [("bash", '{"command": "ls"}')])
    assert time.monotonic() - started >= PAUSE
