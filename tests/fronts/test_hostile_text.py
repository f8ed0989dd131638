"""Upstream text that orjson refuses through every front: lone surrogate escapes (``\\ud83d``
alone, ``\\udc00`` alone), a valid pair, NUL. Nothing is lost: each lone surrogate reaches the
client as U+FFFD (docs/clients.md, "Text no encoder writes"), every event stays JSON that a
strict parser reads (the checkers parse each one with orjson), and the official SDKs assemble
the answer. Each front is driven through its ASGI interface, over the upstream directly and
over the chat path. A client's request holding lone surrogate escapes reaches the upstream as
strict JSON, each as U+FFFD."""

from __future__ import annotations

import json
from typing import Any

import anyio
import orjson
import pytest
from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

from anthropic_api.helpers import (
    USAGE,
    Reply,
    ScriptedApp,
    call_delta,
    chunk,
    stream_reply,
)
from anthropic_api.helpers import request as anthropic_request
from anthropic_api.helpers import sdk_client as anthropic_client
from gemini_api.helpers import check_sse
from gemini_api.helpers import request as gemini_request
from gemini_api.helpers import sdk_client as gemini_client
from responses_api.helpers import CheckedApp as ResponsesChecked
from responses_api.helpers import parse_sse as parse_responses
from responses_api.helpers import sdk_client as responses_client
from toolcall_middleware import (
    AnthropicMiddleware,
    GeminiMiddleware,
    ResponsesMiddleware,
    ToolCallMiddleware,
    lenient_json,
)
from toolcall_middleware.asgi import ASGIApp

# What the upstream writes, piece by piece: lone halves, a valid pair, NUL.
REASONING = ["think \ud83d", "\udc00 pair \U0001f600", " nul \x00."]
CONTENT = ["say \udc00", " \ud83d and \U0001f600", " end\x00"]
# Arguments whose chunks carry the lone halves in the JSON text itself (a gateway cutting the
# string), and a NUL the model escaped inside the arguments' JSON.
ARGUMENTS = ['{"command": "echo \ud83d', "\udc00 \U0001f600 \\u0000", '"}']
R = "\ufffd"
CALL_ID = "call_1"


def read_back(pieces: list[str]) -> str:
    """The text a client gets for ``pieces`` sent one by one: each lone surrogate as U+FFFD
    (two halves side by side in one piece are written as a pair of escapes, which JSON reads
    as one character)."""
    return "".join(lenient_json.loads_well_formed(lenient_json.dumps(p)) for p in pieces)


# Streamed, each piece on its own: the halves stay apart.
STREAMED = {
    "reasoning": f"think {R}{R} pair \U0001f600 nul \x00.",
    "content": f"say {R} {R} and \U0001f600 end\x00",
    "input": {"command": f"echo {R}{R} \U0001f600 \x00"},
}
# One message: "\ud83d" then "\udc00" is a valid pair (U+1F400).
WHOLE = {
    "reasoning": "think \U0001f400 pair \U0001f600 nul \x00.",
    "content": f"say {R} {R} and \U0001f600 end\x00",
    "input": {"command": "echo \U0001f400 \U0001f600 \x00"},
}


def event(doc: dict[str, Any], ascii_only: bool = False) -> bytes:
    """One SSE event as an upstream writes it: compact JSON, a lone surrogate as its escape
    (``ascii_only``: every non-ASCII character escaped, a pair as two escapes)."""
    data = (
        json.dumps(doc, separators=(",", ":")).encode() if ascii_only else lenient_json.dumps(doc)
    )
    return b"data: " + data + b"\n\n"


def stream_events() -> list[bytes]:
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"reasoning": t, "reasoning_content": t}) for t in REASONING]
    chunks += [chunk({"content": t}) for t in CONTENT]
    chunks.append(chunk(call_delta(0, id=CALL_ID, name="bash", args="")))
    chunks += [chunk(call_delta(0, args=a)) for a in ARGUMENTS]
    chunks += [chunk(None, "tool_calls"), chunk(usage=USAGE)]
    # The pair both ways: as UTF-8 (orjson's form) and as two escapes.
    return [event(c, ascii_only=i % 2 == 1) for i, c in enumerate(chunks)] + [b"data: [DONE]\n\n"]


def completion() -> bytes:
    message = {
        "role": "assistant",
        "reasoning_content": "".join(REASONING),
        "content": "".join(CONTENT),
        "tool_calls": [
            {
                "id": CALL_ID,
                "type": "function",
                "function": {"name": "bash", "arguments": "".join(ARGUMENTS)},
            }
        ],
    }
    return lenient_json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": USAGE,
        }
    )


def upstream(stream: bool, chat_path: bool) -> ASGIApp:
    reply = (
        Reply(200, stream_events()) if stream else Reply(200, [completion()], b"application/json")
    )
    app: ASGIApp = ScriptedApp([reply])
    return ToolCallMiddleware(app, metrics=False) if chat_path else app


def test_the_upstream_really_sends_what_orjson_refuses() -> None:
    refused = 0
    for data in [*stream_events()[:-1], completion()]:
        try:
            orjson.loads(data.removeprefix(b"data: "))
        except orjson.JSONDecodeError:
            refused += 1
    assert refused >= 6


PATHS = [pytest.param(False, id="direct"), pytest.param(True, id="chat-path")]
BASH_SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}}


@pytest.mark.parametrize("chat_path", PATHS)
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "create"])
@pytest.mark.anyio
async def test_anthropic(stream: bool, chat_path: bool) -> None:
    client = anthropic_client(AnthropicMiddleware(upstream(stream, chat_path)))
    request: Any = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "go"}],
        "tools": [{"name": "bash", "input_schema": BASH_SCHEMA}],
    }
    if stream:
        async with client.messages.stream(**request) as events:
            message = await events.get_final_message()
    else:
        message = await client.messages.create(**request)
    blocks = [
        (
            b.type,
            getattr(b, "thinking", None) or getattr(b, "text", None) or getattr(b, "input", None),
        )
        for b in message.content
    ]
    want = STREAMED if stream else WHOLE
    assert blocks == [
        ("thinking", want["reasoning"]),
        ("text", want["content"]),
        ("tool_use", want["input"]),
    ]
    assert message.stop_reason == "tool_use"


@pytest.mark.parametrize("chat_path", PATHS)
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "create"])
@pytest.mark.anyio
async def test_responses(stream: bool, chat_path: bool) -> None:
    client = responses_client(ResponsesMiddleware(upstream(stream, chat_path)))
    request: Any = {
        "model": "m",
        "input": "go",
        "tools": [{"type": "function", "name": "bash", "parameters": BASH_SCHEMA}],
    }
    if stream:
        async with client.responses.stream(**request) as events:
            deltas = [e.delta async for e in events if e.type.endswith(".delta")]
            response = await events.get_final_response()
        assert "".join(deltas) == read_back(REASONING + CONTENT + ARGUMENTS)
    else:
        response = await client.responses.create(**request)
    items = response.model_dump()["output"]
    assert [i["type"] for i in items] == ["reasoning", "message", "function_call"]
    want = STREAMED if stream else WHOLE
    assert "".join(p["text"] for p in items[0]["content"]) == want["reasoning"]
    assert "".join(p["text"] for p in items[1]["content"]) == want["content"]
    assert json.loads(items[2]["arguments"]) == want["input"]
    assert response.status == "completed"


@pytest.mark.parametrize("chat_path", PATHS)
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "create"])
@pytest.mark.anyio
async def test_gemini(stream: bool, chat_path: bool) -> None:
    client = gemini_client(GeminiMiddleware(upstream(stream, chat_path))).aio
    tool = types.Tool(
        function_declarations=[
            types.FunctionDeclaration(name="bash", parameters_json_schema=BASH_SCHEMA)
        ]
    )
    config = types.GenerateContentConfig(
        tools=[tool], thinking_config=types.ThinkingConfig(include_thoughts=True)
    )
    if stream:
        responses = [
            r
            async for r in await client.models.generate_content_stream(
                model="gemini-2.5-pro", contents="go", config=config
            )
        ]
    else:
        responses = [
            await client.models.generate_content(
                model="gemini-2.5-pro", contents="go", config=config
            )
        ]
    parts = [p for r in responses for p in r.candidates[0].content.parts]  # type: ignore
    thought = "".join(p.text or "" for p in parts if p.thought)
    text = "".join(p.text or "" for p in parts if not p.thought)
    calls = [(p.function_call.name, p.function_call.args) for p in parts if p.function_call]
    want = STREAMED if stream else WHOLE
    assert (thought, text, calls) == (want["reasoning"], want["content"], [("bash", want["input"])])


# --- any text, in any pieces ---------------------------------------------------------------

HALVES = st.sampled_from(["\ud83d", "\ude00", "\udc00", "\U0001f600", "\x00", "a", '"', "\\"])


async def _texts(pieces: list[str]) -> dict[str, str]:
    """The text each front's client gets for an upstream streaming ``pieces`` as content,
    every event checked by the front's checker with a strict parser."""

    def app() -> ASGIApp:
        return ScriptedApp(
            [stream_reply([*(event(chunk({"content": p})) for p in pieces), chunk(None, "stop")])]
        )

    got: dict[str, str] = {}
    anthropic = await anthropic_request(
        AnthropicMiddleware(app()),
        {
            "model": "m",
            "max_tokens": 10,
            "stream": True,
            "messages": [{"role": "user", "content": "go"}],
        },
    )
    got["anthropic"] = "".join(
        d["delta"].get("text", "") for k, d in anthropic.events() if k == "content_block_delta"
    )
    responses = await anthropic_request(
        ResponsesMiddleware(app()),
        {"model": "m", "stream": True, "input": "go"},
        "/v1/responses",
        checked=ResponsesChecked,
    )
    got["responses"] = "".join(
        d["delta"]
        for _, d in parse_responses(responses.body)
        if d["type"] == "response.output_text.delta"
    )
    gemini = await gemini_request(
        GeminiMiddleware(app()),
        {"contents": [{"parts": [{"text": "go"}]}]},
        "/v1beta/models/m:streamGenerateContent",
        query=b"alt=sse",
    )
    got["gemini"] = "".join(
        p["text"]
        for r in check_sse(gemini.body).responses
        for p in r["candidates"][0]["content"]["parts"]
    )
    return got


@settings(max_examples=40, deadline=None)
@given(pieces=st.lists(st.text(HALVES, min_size=1, max_size=4), min_size=1, max_size=5))
def test_any_text_arrives_with_its_lone_surrogates_replaced(pieces: list[str]) -> None:
    want = read_back(pieces)
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in want)
    got = anyio.run(_texts, pieces)
    assert got == {"anthropic": want, "responses": want, "gemini": want}


# --- the client's request --------------------------------------------------------------------

# JavaScript's JSON.stringify writes a lone surrogate as its escape: a client whose history
# holds half an emoji (a tool's output cut in UTF-16 units) sends it with every later turn.
CLIENT_TEXT = "cut \ud83d|\udc00 pair \U0001f600"
CLIENT_WANT = f"cut {R}|{R} pair \U0001f600"
REQUESTS = {
    "anthropic": (
        "/v1/messages",
        AnthropicMiddleware,
        {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": CLIENT_TEXT}]},
    ),
    "responses": ("/v1/responses", ResponsesMiddleware, {"model": "m", "input": CLIENT_TEXT}),
    "gemini": (
        "/v1beta/models/m:generateContent",
        GeminiMiddleware,
        {"contents": [{"role": "user", "parts": [{"text": CLIENT_TEXT}]}]},
    ),
}
ANSWER = {
    "id": "c",
    "object": "chat.completion",
    "created": 1,
    "model": "m",
    "usage": USAGE,
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
}


async def _ask(front: str, body: bytes) -> tuple[int, ScriptedApp]:
    path, middleware, _ = REQUESTS[front]
    upstream = ScriptedApp([Reply(200, [orjson.dumps(ANSWER)], b"application/json")])
    if front == "gemini":
        response: Any = await gemini_request(middleware(upstream), None, path, raw=body)
    else:
        response = await anthropic_request(middleware(upstream), None, path, raw=body)
    return response.status, upstream


@pytest.mark.anyio
@pytest.mark.parametrize("front", sorted(REQUESTS))
async def test_a_lone_surrogate_from_the_client_goes_upstream_as_a_replacement(front: str) -> None:
    body = json.dumps(REQUESTS[front][2]).encode()  # every non-ASCII character escaped
    assert b"\\ud83d|\\udc00" in body
    status, upstream = await _ask(front, body)
    assert status == 200
    # The scripted upstream read the translated body with orjson: it is strict JSON.
    (sent,) = upstream.upstream_bodies
    texts = [m["content"] for m in sent["messages"] if m["role"] == "user"]
    assert texts == [CLIENT_WANT] or texts == [[{"type": "text", "text": CLIENT_WANT}]]


@pytest.mark.anyio
@pytest.mark.parametrize("front", sorted(REQUESTS))
async def test_nan_from_the_client_is_still_not_json(front: str) -> None:
    body = json.dumps({**REQUESTS[front][2], "temperature": float("nan")}).encode()
    status, upstream = await _ask(front, body)
    assert status == 400 and not upstream.calls
