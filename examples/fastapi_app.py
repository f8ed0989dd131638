"""Adding the middleware to your own FastAPI app that proxies or serves a model. From the
checkout:

    python3 -m venv .venv && .venv/bin/pip install -e '.[examples]'
    .venv/bin/uvicorn examples.fastapi_app:app --port 8080

Here the "model" is a canned Kimi K2 stream whose tool calls arrive as special tokens in
``reasoning_content``; clients see clean OpenAI ``tool_calls``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from toolcall_middleware import ToolCallMiddleware

app = FastAPI()
app.add_middleware(ToolCallMiddleware, provider="kimi_k2")

PIECES = [
    "Let me check.",
    " <|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "functions.get_weather:0",
    "<|tool_call_argument_begin|>",
    '{"city": ',
    '"Paris"}',
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
]


async def kimi_stream(model: str) -> AsyncIterator[bytes]:
    def chunk(delta: dict[str, str], finish: str | None = None) -> bytes:
        body = {
            "id": "chatcmpl-demo",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + orjson.dumps(body) + b"\n\n"

    yield chunk({"role": "assistant", "content": ""})
    for piece in PIECES:
        yield chunk({"reasoning_content": piece})
    yield chunk({}, "stop")
    yield b"data: [DONE]\n\n"


@app.post("/v1/chat/completions")
async def chat(request: Request) -> StreamingResponse:
    payload = await request.json()
    return StreamingResponse(
        kimi_stream(payload.get("model", "kimi-k2")), media_type="text/event-stream"
    )
