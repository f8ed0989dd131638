"""What a client's official SDK sees of an answer, on the chat path and on every front.

``seen(api, upstream, stream=...)`` puts the API's front (none for ``chat``) before an upstream
ASGI app that speaks Chat Completions, asks it through the official SDK (``openai`` for chat and
Responses, ``anthropic``, ``google-genai``) and returns what the SDK gave: the text, the calls,
how the answer ended, or the error it raised. Every front's stream also goes through its own
event-sequence checker (the ``CheckedApp`` of each API's tests).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anthropic
import httpx2
import openai
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from anthropic_api.helpers import CheckedApp as AnthropicChecked
from gemini_api.helpers import TLS
from gemini_api.helpers import CheckedApp as GeminiChecked
from responses_api.helpers import CheckedApp as ResponsesChecked
from toolcall_middleware import AnthropicMiddleware, GeminiMiddleware, ResponsesMiddleware
from toolcall_middleware.asgi import ASGIApp

APIS = ("chat", "responses", "anthropic", "gemini")
FRONTS = APIS[1:]

TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"command": {"type": "string"}},
}


@dataclass
class Seen:
    """What the client got: ``end`` is how the answer ended in the API's own words (a finish
    reason, a status and its reason, a stop reason), ``error`` what the SDK raised or the
    failed response's error, text as the SDK assembled it."""

    text: str = ""
    reasoning: str = ""
    calls: list[tuple[str, Any]] = field(default_factory=list)
    end: str | None = None
    error: str | None = None
    status: int | None = None  # the HTTP status of an error the SDK raised
    #: The error's type in its API's words (Anthropic's ``error.type``, Gemini's ``status``).
    kind: str | None = None


def http_client(app: ASGIApp) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://test")


def _error(seen: Seen, exc: Exception) -> Seen:
    seen.error = f"{type(exc).__name__}: {exc}"
    seen.status = getattr(exc, "status_code", None) or getattr(exc, "code", None)
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        seen.kind = error.get("type") if isinstance(error, dict) else None
    status = getattr(exc, "status", None)
    if isinstance(status, str):
        seen.kind = status
    return seen


async def seen(
    api: str,
    upstream: ASGIApp,
    *,
    stream: bool = True,
    tools: bool = True,
    front: Callable[[ASGIApp], ASGIApp] | None = None,
) -> Seen:
    """Ask ``api`` (``chat`` or a front before ``upstream``) one question through its SDK.
    ``front`` builds the front (default: the API's middleware with its defaults)."""
    if api == "chat":
        return await _chat(upstream, stream, tools)
    if api == "responses":
        app = (front or ResponsesMiddleware)(upstream)
        return await _responses(ResponsesChecked(app), stream, tools)
    if api == "anthropic":
        app = (front or AnthropicMiddleware)(upstream)
        return await _anthropic(AnthropicChecked(app), stream, tools)
    app = (front or GeminiMiddleware)(upstream)
    return await _gemini(GeminiChecked(app), stream, tools)


async def _chat(app: ASGIApp, stream: bool, tools: bool) -> Seen:
    client = openai.AsyncOpenAI(
        api_key="k", base_url="http://test/v1", max_retries=0, http_client=http_client(app)
    )
    kwargs: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    if tools:
        kwargs["tools"] = [
            {"type": "function", "function": {"name": "bash", "parameters": TOOL_SCHEMA}}
        ]
    out = Seen()
    try:
        if not stream:
            completion = await client.chat.completions.create(**kwargs)
            choice = completion.choices[0]
            out.text = choice.message.content or ""
            out.calls = [
                (c.function.name, c.function.arguments)  # type: ignore[union-attr]
                for c in choice.message.tool_calls or ()
            ]
            out.end = choice.finish_reason
            return out
        arguments: dict[int, list[str]] = {}
        names: dict[int, str] = {}
        async for chunk in await client.chat.completions.create(stream=True, **kwargs):
            for choice in chunk.choices:
                out.text += choice.delta.content or ""
                for call in choice.delta.tool_calls or ():
                    function = call.function
                    if function is not None and function.name:
                        names[call.index] = function.name
                    if function is not None and function.arguments:
                        arguments.setdefault(call.index, []).append(function.arguments)
                if choice.finish_reason is not None:
                    out.end = choice.finish_reason
        out.calls = [(names[i], "".join(arguments.get(i, ()))) for i in sorted(names)]
    except openai.APIError as exc:
        return _error(out, exc)
    return out


async def _responses(app: ASGIApp, stream: bool, tools: bool) -> Seen:
    client = openai.AsyncOpenAI(
        api_key="k", base_url="http://test/v1", max_retries=0, http_client=http_client(app)
    )
    kwargs: dict[str, Any] = {"model": "m", "input": "hi"}
    if tools:
        kwargs["tools"] = [{"type": "function", "name": "bash", "parameters": TOOL_SCHEMA}]
    out = Seen()
    try:
        if stream:
            response = None
            async for event in await client.responses.create(stream=True, **kwargs):
                if event.type == "response.output_text.delta":
                    out.text += event.delta
                elif event.type == "response.reasoning_text.delta":
                    out.reasoning += event.delta
                elif event.type == "response.output_item.done":
                    item = event.item
                    if item.type == "function_call":
                        out.calls.append((item.name, item.arguments))
                elif event.type in (
                    "response.completed",
                    "response.incomplete",
                    "response.failed",
                ):
                    response = event.response
            assert response is not None, "no terminal event"
        else:
            response = await client.responses.create(**kwargs)
            out.text = response.output_text
            out.calls = [
                (item.name, item.arguments)
                for item in response.output
                if item.type == "function_call"
            ]
    except openai.APIError as exc:
        return _error(out, exc)
    out.end = response.status
    if response.incomplete_details is not None:
        out.end = f"{response.status}: {response.incomplete_details.reason}"
    if response.error is not None:
        out.error = f"{response.error.code}: {response.error.message}"
    return out


async def _anthropic(app: ASGIApp, stream: bool, tools: bool) -> Seen:
    client = anthropic.AsyncAnthropic(
        api_key="k", base_url="http://test", max_retries=0, http_client=http_client(app)
    )
    kwargs: dict[str, Any] = {
        "model": "m",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "hi"}],
    }
    if tools:
        kwargs["tools"] = [{"name": "bash", "input_schema": TOOL_SCHEMA}]
    out = Seen()
    try:
        if stream:
            async with client.messages.stream(**kwargs) as events:
                message = await events.get_final_message()
        else:
            message = await client.messages.create(**kwargs)
    except anthropic.APIError as exc:
        return _error(out, exc)
    for block in message.content:
        if block.type == "text":
            out.text += block.text
        elif block.type == "thinking":
            out.reasoning += block.thinking
        elif block.type == "tool_use":
            out.calls.append((block.name, block.input))
    out.end = message.stop_reason
    return out


async def _gemini(app: ASGIApp, stream: bool, tools: bool) -> Seen:
    transport = httpx2.ASGITransport(app=app)
    options = genai_types.HttpOptions(
        base_url="http://test",
        api_version="v1beta",
        async_client_args={"transport": transport, "verify": TLS},
    )
    client = genai.Client(api_key="k", http_options=options)
    config = genai_types.GenerateContentConfig(
        tools=[
            genai_types.Tool(
                function_declarations=[
                    genai_types.FunctionDeclaration(name="bash", parameters_json_schema=TOOL_SCHEMA)
                ]
            )
        ]
        if tools
        else None,
        thinking_config=genai_types.ThinkingConfig(include_thoughts=True),
    )
    out = Seen()
    try:
        if stream:
            responses: Sequence[genai_types.GenerateContentResponse] = [
                r
                async for r in await client.aio.models.generate_content_stream(
                    model="m", contents="hi", config=config
                )
            ]
        else:
            responses = [
                await client.aio.models.generate_content(model="m", contents="hi", config=config)
            ]
    except genai_errors.APIError as exc:
        return _error(out, exc)
    for response in responses:
        for candidate in response.candidates or ():
            for part in (candidate.content.parts if candidate.content else None) or ():
                if part.function_call is not None:
                    out.calls.append((part.function_call.name, part.function_call.args))
                elif part.thought:
                    out.reasoning += part.text or ""
                else:
                    out.text += part.text or ""
            if candidate.finish_reason is not None:
                out.end = candidate.finish_reason.value
    return out
