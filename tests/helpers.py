"""Shared test helpers: scripted upstream apps, direct ASGI driving, SDK clients."""

from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx2
import openai

from toolcall_middleware.asgi import Message, Receive, Scope, Send
from toolcall_middleware.completion import chunks_from_sse
from toolcall_middleware.replay import Recording, logs_dir, run_app

LOGS = logs_dir()


def recordings(prefix: str = "") -> list[Path]:
    return sorted(LOGS.glob(f"{prefix}*.log"))


def chunk(
    delta: dict[str, Any], finish: str | None = None, index: int = 0, model: str = "kimi-k2"
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-t",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [{"index": index, "delta": delta, "finish_reason": finish}],
    }


def sse(*objects: Any) -> bytes:
    out = []
    for obj in objects:
        data = obj if isinstance(obj, str) else json.dumps(obj, separators=(",", ":"))
        out.append(f"data: {data}\n\n")
    return "".join(out).encode()


def request_json(
    model: str = "kimi-k2",
    tools: Iterable[str] = ("bash",),
    stream: bool = True,
    properties: dict[str, Any] | None = None,
) -> bytes:
    """A chat request offering ``tools``, each with ``properties`` (a ``command`` string)."""
    if properties is None:
        properties = {"command": {"type": "string"}}
    return json.dumps(
        {
            "model": model,
            "stream": stream,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": n,
                        "parameters": {"type": "object", "properties": properties},
                    },
                }
                for n in tools
            ],
        }
    ).encode()


def body_app(
    pieces: list[bytes], status: int = 200, headers: list[tuple[bytes, bytes]] | None = None
) -> Any:
    """An upstream that sends ``pieces`` as separate body messages."""
    hdrs = headers if headers is not None else [(b"content-type", b"text/event-stream")]

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": status, "headers": hdrs})
        for piece in pieces:
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


async def through(app: Any, body: bytes, path: str = "/v1/chat/completions") -> bytes:
    _, _, bodies = await run_app(app, body, path)
    return b"".join(bodies)


def sdk_client(app: Any) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key="test",
        base_url="http://upstream.test/v1",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app)),
    )


def message_of(completion: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = completion["choices"][0]["message"]
    return message


__all__ = [
    "LOGS",
    "Message",
    "Recording",
    "body_app",
    "chunk",
    "cut_at",
    "message_of",
    "recordings",
    "request_json",
    "restream",
    "sdk_client",
    "sse",
    "through",
]


def cut_at(whole: Any, points: Iterable[int]) -> list[Any]:
    """``whole`` (str or bytes) cut at ``points`` (taken modulo its length + 1)."""
    bounds = sorted({0, len(whole), *(p % (len(whole) + 1) for p in points)})
    return [whole[a:b] for a, b in pairwise(bounds)]


def segments(recording: Recording) -> list[tuple[tuple[str, ...], str]]:
    """The recording's model text: runs of deltas with the same text fields, joined."""
    out: list[tuple[tuple[str, ...], str]] = []
    for data in chunks_from_sse(recording.body):
        for choice in data.get("choices") or ():
            delta = choice["delta"]
            fields = tuple(
                f
                for f in ("reasoning", "reasoning_content", "content")
                if isinstance(delta.get(f), str) and "role" not in delta
            )
            if not fields or not delta[fields[0]]:
                continue
            if out and out[-1][0] == fields:
                out[-1] = (fields, out[-1][1] + delta[fields[0]])
            else:
                out.append((fields, delta[fields[0]]))
    return out


def restream(recording: Recording, points: list[int]) -> bytes:
    """The recording's model text cut at ``points`` (markers split, several per delta), one
    delta per piece, as a stream ending in ``stop`` and ``[DONE]``."""
    model = recording.request["model"]
    chunks: list[Any] = [chunk({"role": "assistant", "content": ""}, model=model)]
    for fields, text in segments(recording):
        chunks += [
            chunk(dict.fromkeys(fields, piece), model=model) for piece in cut_at(text, points)
        ]
    chunks += [chunk({}, "stop", model=model), "[DONE]"]
    return sse(*chunks)
