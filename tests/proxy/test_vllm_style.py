"""Loading the middleware the way vLLM's OpenAI server does: by dotted path, class only.

vLLM's ``--middleware toolcall_middleware.ToolCallMiddleware`` resolves the string with importlib
and calls ``app.add_middleware(cls)`` with no options, so they must come from ``TOOLCALL_*``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import AsyncIterator
from typing import Any

import anyio
import openai
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse
from servers import serve_in_thread

from toolcall_middleware.replay import Recording, body_pieces, find_recording

RECORDING = Recording.load(find_recording("kimi_k2-content-calls"))
MODEL = "acme/house-finetune"  # a name that says nothing about its format


def build_vllm_like_app(middleware: list[str]) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> StreamingResponse:
        await request.json()

        async def stream() -> AsyncIterator[bytes]:
            for piece in body_pieces(RECORDING):
                yield piece

        return StreamingResponse(stream(), media_type="text/event-stream")

    # As vllm.entrypoints.openai.api_server.build_app does for --middleware:
    for path in middleware:
        module_path, object_name = path.rsplit(".", 1)
        imported = getattr(importlib.import_module(module_path), object_name)
        if inspect.isclass(imported):
            app.add_middleware(imported)
        elif inspect.iscoroutinefunction(imported):
            app.middleware("http")(imported)
        else:
            raise ValueError(f"Invalid middleware {path}")
    return app


def stream_once(base: str) -> Any:
    async def run() -> Any:
        sdk = openai.AsyncOpenAI(base_url=base + "/v1", api_key="x", max_retries=0)
        async with (
            sdk,
            sdk.chat.completions.stream(
                model=MODEL,
                messages=RECORDING.request["messages"],
                tools=RECORDING.request["tools"],
            ) as stream,
        ):
            async for _ in stream:
                pass
            return stream.current_completion_snapshot.choices[0]

    return anyio.run(run)


def test_middleware_by_dotted_path_takes_its_options_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLCALL_PROVIDER", "kimi_k2")
    app = build_vllm_like_app(["toolcall_middleware.ToolCallMiddleware"])
    with serve_in_thread(app) as url:
        choice = stream_once(url)
    expected = dict(RECORDING.expected or {})
    calls = [
        {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
        for c in choice.message.tool_calls or ()
    ]
    assert calls == expected["tool_calls"]
    assert choice.finish_reason == "tool_calls"


def test_an_environment_option_changes_what_the_middleware_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "openai" parses native tool_calls only; the default ("auto") would find the Kimi markup.
    monkeypatch.setenv("TOOLCALL_PROVIDER", "openai")
    app = build_vllm_like_app(["toolcall_middleware.ToolCallMiddleware"])
    with serve_in_thread(app) as url:
        choice = stream_once(url)
    assert not choice.message.tool_calls
    assert "<|tool_call" in (choice.message.content or "")
