"""The ASGI layer, driven directly (no HTTP client): routes, the upstream request, both stream
framings, whole calls, error mapping before and after the stream starts, options."""

from __future__ import annotations

from typing import Any

import anyio
import orjson
import pytest

from toolcall_middleware.config import ConfigError
from toolcall_middleware.fronts.gemini import GeminiMiddleware

from .helpers import (
    BASH_TOOL,
    USAGE,
    Reply,
    ScriptedApp,
    base_request,
    call_delta,
    check_sse,
    chunk,
    json_reply,
    request,
    stream_path,
    stream_reply,
)

pytestmark = pytest.mark.anyio

HELLO = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": "Hel"}),
    chunk({"content": "lo"}),
    chunk(None, "stop"),
    chunk(usage=USAGE),
]
AGENT = [
    chunk({"reasoning_content": "**Listing**\n\nI should run ls."}),
    chunk({"content": "Let me look."}),
    chunk(call_delta(0, id="functions.run_shell_command:0", name="run_shell_command", args="")),
    chunk(call_delta(0, args='{"comm')),
    chunk(call_delta(0, args='and": "ls"}')),
    chunk(call_delta(1, id="call_2", name="run_shell_command", args='{"command": "pwd"}')),
    chunk(None, "tool_calls"),
    chunk(usage={**USAGE, "completion_tokens_details": {"reasoning_tokens": 9}}),
]


def completion(content: str = "Hello", finish: str = "stop", **message: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, **message},
                "finish_reason": finish,
            }
        ],
        "usage": USAGE,
    }


def parts_of(responses: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for r in responses for p in r["candidates"][0]["content"]["parts"]]


@pytest.mark.parametrize("version", ["v1beta", "v1", "v1alpha"])
async def test_stream_on_every_version_with_sse_framing(version: str) -> None:
    upstream = ScriptedApp([stream_reply(HELLO)])
    app = GeminiMiddleware(upstream)
    response = await request(app, base_request(), stream_path(version=version), query=b"alt=sse")
    assert response.status == 200
    assert response.headers[b"content-type"].startswith(b"text/event-stream")
    checked = check_sse(response.body)
    assert [p["text"] for p in parts_of(checked.responses)] == ["Hel", "lo", ""]
    last = checked.responses[-1]
    assert last["candidates"][0]["finishReason"] == "STOP"
    assert last["usageMetadata"] == {
        "promptTokenCount": 120,
        "candidatesTokenCount": 30,
        "totalTokenCount": 150,
        "cachedContentTokenCount": 100,
    }
    assert {r["modelVersion"] for r in checked.responses} == {"gemini-2.5-pro"}
    scope, body = upstream.calls[0]
    assert scope["path"] == "/v1/chat/completions" and scope["query_string"] == b""
    assert body == {
        "model": "gemini-2.5-pro",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }


async def test_stream_without_alt_is_one_json_array() -> None:
    app = GeminiMiddleware(ScriptedApp([stream_reply(HELLO)]))
    response = await request(app, base_request(), stream_path())
    assert response.headers[b"content-type"].startswith(b"application/json")
    doc = orjson.loads(response.body)
    assert response.body.startswith(b'[{"candidates"') and b"\n,{" in response.body
    assert [p["text"] for p in parts_of(doc)] == ["Hel", "lo", ""]
    assert doc[-1]["candidates"][0]["finishReason"] == "STOP"


async def test_model_with_a_slash_and_the_model_map() -> None:
    upstream = ScriptedApp([stream_reply(HELLO) for _ in range(4)])
    app = GeminiMiddleware(
        upstream, model_map={"gemini-*": "moonshotai/Kimi-K2-Instruct"}, default_model="fallback"
    )
    for path in (
        stream_path("moonshotai/Kimi-K2-Instruct"),
        stream_path("gemini-3-flash-preview"),
        stream_path("models/gemini-2.5-flash"),
    ):
        response = await request(app, base_request(), path, query=b"alt=sse")
        assert response.status == 200
    models = [body["model"] for _, body in upstream.calls]
    assert models == ["fallback", "moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Instruct"]
    response = await request(
        app, base_request(), stream_path("moonshotai/Kimi-K2-Instruct"), query=b"alt=sse"
    )
    assert check_sse(response.body).responses[0]["modelVersion"] == "moonshotai/Kimi-K2-Instruct"


async def test_a_call_is_sent_whole_when_it_ends() -> None:
    app = GeminiMiddleware(ScriptedApp([stream_reply(AGENT)]))
    doc = base_request(
        tools=[BASH_TOOL], generationConfig={"thinkingConfig": {"includeThoughts": True}}
    )
    response = await request(app, doc, stream_path(), query=b"alt=sse")
    parts = parts_of(check_sse(response.body).responses)
    assert parts[0] == {"text": "**Listing**\n\nI should run ls.", "thought": True}
    assert parts[1] == {"text": "Let me look."}
    calls = [p for p in parts if "functionCall" in p]
    assert [c["functionCall"] for c in calls] == [
        {
            "id": "functions.run_shell_command:0",
            "name": "run_shell_command",
            "args": {"command": "ls"},
        },
        {"id": "call_2", "name": "run_shell_command", "args": {"command": "pwd"}},
    ]
    assert "thoughtSignature" in calls[0] and "thoughtSignature" not in calls[1]
    assert parts[-1] == {"text": ""}
    usage = orjson.loads(response.body.split(b"data: ")[-1])["usageMetadata"]
    assert usage["thoughtsTokenCount"] == 9 and usage["candidatesTokenCount"] == 21


async def test_thoughts_are_dropped_unless_asked_for() -> None:
    app = GeminiMiddleware(ScriptedApp([stream_reply(AGENT)]))
    response = await request(app, base_request(tools=[BASH_TOOL]), stream_path(), query=b"alt=sse")
    parts = parts_of(check_sse(response.body).responses)
    assert not any(p.get("thought") for p in parts)
    assert parts[0] == {"text": "Let me look."}


async def test_call_arguments_are_held_until_the_call_ends() -> None:
    """The upstream pauses in the middle of a call's arguments: the client has the text before
    it, and nothing of the call, until the call is over."""
    gate = anyio.Event()
    received = bytearray()
    seen_text = anyio.Event()
    head = [
        chunk({"content": "Running."}),
        chunk(call_delta(0, id="c1", name="run_shell_command", args='{"command": "l')),
    ]
    tail = [chunk(call_delta(0, args='s"}')), chunk(None, "tool_calls")]

    async def upstream(scope: Any, receive: Any, send: Any) -> None:
        while (await receive()).get("more_body"):
            pass
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        for piece in stream_reply(head, done=False).body:
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await gate.wait()
        for piece in stream_reply(tail).body:
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def send(message: Any) -> None:
        received.extend(message.get("body", b""))
        if b"Running." in received:
            seen_text.set()

    async def receive() -> Any:
        return {
            "type": "http.request",
            "body": orjson.dumps(base_request(tools=[BASH_TOOL])),
            "more_body": False,
        }

    scope = {
        "type": "http",
        "method": "POST",
        "path": stream_path(),
        "headers": [],
        "query_string": b"alt=sse",
    }
    async with anyio.create_task_group() as tg:
        tg.start_soon(GeminiMiddleware(upstream), scope, receive, send)
        with anyio.fail_after(5):
            await seen_text.wait()
        assert b"functionCall" not in received
        gate.set()
    calls = [
        p["functionCall"]
        for p in parts_of(check_sse(bytes(received)).responses)
        if "functionCall" in p
    ]
    assert calls == [{"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}}]


async def test_invalid_call_arguments_become_an_input_object() -> None:
    broken = [
        chunk(call_delta(0, id="c1", name="run_shell_command", args='{"command": ls}')),
        chunk(None, "tool_calls"),
    ]
    app = GeminiMiddleware(ScriptedApp([stream_reply(broken)]))
    response = await request(app, base_request(tools=[BASH_TOOL]), stream_path(), query=b"alt=sse")
    (call,) = [p for p in parts_of(check_sse(response.body).responses) if "functionCall" in p]
    assert call["functionCall"]["args"] == {"input": '{"command": ls}'}


@pytest.mark.parametrize(
    ("finish", "reason"),
    [
        ("stop", "STOP"),
        ("tool_calls", "STOP"),
        ("length", "MAX_TOKENS"),
        ("content_filter", "SAFETY"),
        ("something_new", "OTHER"),
        ("repetition", "OTHER"),
        ("eos", "STOP"),
        ("max_tokens", "MAX_TOKENS"),
    ],
)
async def test_finish_reasons(finish: str, reason: str) -> None:
    app = GeminiMiddleware(
        ScriptedApp([stream_reply([chunk({"content": "x"}), chunk(None, finish)])])
    )
    response = await request(app, base_request(), stream_path(), query=b"alt=sse")
    last = check_sse(response.body).responses[-1]
    assert last["candidates"][0]["finishReason"] == reason
    # No usage from the upstream: the local estimates stand in.
    assert last["usageMetadata"]["promptTokenCount"] > 0


async def test_generate_content_is_one_response() -> None:
    message = {
        "reasoning_content": "thinking",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "run_shell_command", "arguments": '{"command": "ls"}'},
            }
        ],
    }
    upstream = ScriptedApp([json_reply(completion("Checking.", "tool_calls", **message))])
    app = GeminiMiddleware(upstream)
    doc = base_request(
        tools=[BASH_TOOL], generationConfig={"thinking_config": {"include_thoughts": True}}
    )
    response = await request(app, doc)
    assert response.status == 200
    body = response.json()
    candidate = body["candidates"][0]
    assert candidate["finishReason"] == "STOP"
    parts = candidate["content"]["parts"]
    assert parts[:2] == [{"text": "thinking", "thought": True}, {"text": "Checking."}]
    assert parts[2]["functionCall"] == {
        "id": "c1",
        "name": "run_shell_command",
        "args": {"command": "ls"},
    }
    assert body["usageMetadata"]["totalTokenCount"] == 150
    assert "stream" not in upstream.calls[0][1]


async def test_upstream_json_when_a_stream_was_asked_is_streamed() -> None:
    app = GeminiMiddleware(ScriptedApp([json_reply(completion("Hello"))]))
    response = await request(app, base_request(), stream_path(), query=b"alt=sse")
    parts = parts_of(check_sse(response.body).responses)
    assert parts == [{"text": "Hello"}, {"text": ""}]


async def test_line_separators_are_escaped() -> None:
    text = "a\u2028b\u2029c\u0085d"
    app = GeminiMiddleware(
        ScriptedApp([stream_reply([chunk({"content": text}), chunk(None, "stop")])])
    )
    response = await request(app, base_request(), stream_path(), query=b"alt=sse")
    assert b"\\u2028" in response.body and b"\\u2029" in response.body
    assert b"\\u0085" in response.body
    assert parts_of(check_sse(response.body).responses)[0]["text"] == text
    whole = await request(
        GeminiMiddleware(ScriptedApp([json_reply(completion(text))])), base_request()
    )
    assert "\u2028".encode() not in whole.body
    assert whole.json()["candidates"][0]["content"]["parts"][0]["text"] == text


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code", "name"),
    [
        (400, 400, "INVALID_ARGUMENT"),
        (401, 401, "UNAUTHENTICATED"),
        (402, 403, "PERMISSION_DENIED"),
        (403, 403, "PERMISSION_DENIED"),
        (404, 404, "NOT_FOUND"),
        (413, 400, "INVALID_ARGUMENT"),
        (422, 400, "INVALID_ARGUMENT"),
        (429, 429, "RESOURCE_EXHAUSTED"),
        (500, 500, "INTERNAL"),
        (502, 503, "UNAVAILABLE"),
        (503, 503, "UNAVAILABLE"),
        (504, 504, "DEADLINE_EXCEEDED"),
        (529, 503, "UNAVAILABLE"),
    ],
)
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_upstream_error_statuses(status: int, code: int, name: str, stream: bool) -> None:
    upstream = ScriptedApp(
        [json_reply({"error": {"message": "nope"}}, status, headers=[(b"retry-after", b"7")])]
    )
    path = stream_path() if stream else "/v1beta/models/m:generateContent"
    response = await request(GeminiMiddleware(upstream), base_request(), path, query=b"alt=sse")
    assert response.status == code
    assert response.json() == {
        "error": {"code": code, "message": f"upstream returned HTTP {status}: nope", "status": name}
    }
    assert response.headers[b"retry-after"] == b"7"


async def test_context_length_error_stays_a_400() -> None:
    message = "This model's maximum context length is 131072 tokens."
    upstream = ScriptedApp([json_reply({"object": "error", "message": message}, 400)])
    response = await request(
        GeminiMiddleware(upstream), base_request(), stream_path(), query=b"alt=sse"
    )
    assert response.status == 400 and message in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(200, [b"not json"], b"application/json"), "upstream sent invalid JSON"),
        (Reply(200, [b"<html>"], b"text/html"), "unexpected content-type"),
        (
            Reply(200, [b"x"], b"application/json", headers=[(b"content-encoding", b"gzip")]),
            "compressed response",
        ),
    ],
)
async def test_unusable_upstream_answers(reply: Reply, message: str) -> None:
    response = await request(GeminiMiddleware(ScriptedApp([reply])), base_request())
    assert response.status >= 500 and message in response.json()["error"]["message"]


async def test_midstream_error_is_the_bare_error_object_in_its_own_write() -> None:
    error = {"error": {"message": "upstream overloaded", "type": "overloaded_error"}}
    app = GeminiMiddleware(
        ScriptedApp([stream_reply([chunk({"content": "par"}), error], done=False)])
    )
    response = await request(app, base_request(), stream_path(), query=b"alt=sse")
    assert response.status == 200
    checked = check_sse(response.body, response.writes)
    assert parts_of(checked.responses) == [{"text": "par"}]
    assert checked.error == {
        "error": {"code": 503, "message": "upstream overloaded", "status": "UNAVAILABLE"}
    }
    assert response.writes[-2] == orjson.dumps(checked.error)


async def test_midstream_error_in_one_upstream_write_with_the_text_before_it() -> None:
    """The error event and the text before it arrive in one body message: the client still
    gets the error object in a read of its own."""
    error = {"error": {"message": "boom", "code": 500}}
    body = b"".join(stream_reply([chunk({"content": "par"}), error], done=False).body)
    app = GeminiMiddleware(ScriptedApp([Reply(200, [body])]))
    response = await request(app, base_request(), stream_path(), query=b"alt=sse")
    checked = check_sse(response.body, response.writes)
    assert checked.error is not None and checked.error["error"]["status"] == "INTERNAL"


async def test_truncated_upstream_stream_ends_with_an_error() -> None:
    app = GeminiMiddleware(ScriptedApp([stream_reply([chunk({"content": "par"})], done=False)]))
    response = await request(app, base_request(), stream_path(), query=b"alt=sse")
    checked = check_sse(response.body, response.writes)
    assert checked.error is not None
    assert "ended before the response was complete" in checked.error["error"]["message"]


async def test_upstream_app_raising_midstream() -> None:
    reply = Reply(
        200, sse_body_of([chunk({"content": "par"})]), raise_after=RuntimeError("connection reset")
    )
    response = await request(
        GeminiMiddleware(ScriptedApp([reply])), base_request(), stream_path(), query=b"alt=sse"
    )
    checked = check_sse(response.body, response.writes)
    assert checked.error is not None and "connection reset" in checked.error["error"]["message"]


async def test_midstream_error_in_the_array_form_is_its_last_element() -> None:
    error = {"error": {"message": "boom"}}
    app = GeminiMiddleware(
        ScriptedApp([stream_reply([chunk({"content": "par"}), error], done=False)])
    )
    response = await request(app, base_request(), stream_path())
    doc = orjson.loads(response.body)
    assert doc[0]["candidates"][0]["content"]["parts"] == [{"text": "par"}]
    assert doc[-1] == {"error": {"code": 500, "message": "boom", "status": "INTERNAL"}}


async def test_non_streaming_midstream_error_becomes_an_http_error() -> None:
    error = {"error": {"message": "rate limited", "code": 429}}
    upstream = ScriptedApp([stream_reply([chunk({"content": "par"}), error], done=False)])
    response = await request(GeminiMiddleware(upstream), base_request())
    assert response.status == 429
    assert response.json()["error"]["status"] == "RESOURCE_EXHAUSTED"


def sse_body_of(chunks: list[dict[str, Any]]) -> list[bytes]:
    return list(stream_reply(chunks, done=False).body)


# --- routes, keys, listing --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "query"),
    [
        ("POST", "/v1/chat/completions", b""),
        ("GET", "/v1/models", b""),
        ("GET", "/v1/models/gpt-4o", b""),
        ("POST", "/v1/messages", b""),
        ("GET", "/v2/models", b""),
        ("POST", "/v1beta/modelsx:generateContent", b""),
    ],
)
async def test_other_requests_pass_through_untouched(method: str, path: str, query: bytes) -> None:
    upstream = ScriptedApp([json_reply({"ok": True})])
    response = await request(GeminiMiddleware(upstream), None, path, method=method, query=query)
    assert response.json() == {"ok": True}
    assert upstream.calls[0][0]["path"] == path


async def test_unknown_action_is_a_gemini_404() -> None:
    upstream = ScriptedApp()
    response = await request(
        GeminiMiddleware(upstream), base_request(), "/v1beta/models/m:embedContent"
    )
    assert response.status == 404 and response.json()["error"]["status"] == "NOT_FOUND"
    assert upstream.calls == []


@pytest.mark.parametrize(
    ("version", "headers", "query"),
    [
        ("v1beta", [], b""),
        ("v1alpha", [], b""),
        ("v1", [(b"x-goog-api-key", b"k")], b""),
        ("v1", [(b"x-goog-api-client", b"google-genai-sdk/3.4.0")], b""),
        ("v1", [], b"key=k"),
    ],
)
async def test_model_listing(
    version: str, headers: list[tuple[bytes, bytes]], query: bytes
) -> None:
    upstream = ScriptedApp()
    app = GeminiMiddleware(
        upstream, model_map={"gemini-*": "kimi", "gemini-2.5-pro": "kimi"}, default_model="qwen3"
    )
    listing = await request(
        app, None, f"/{version}/models", method="GET", headers=headers, query=query
    )
    names = [m["name"] for m in listing.json()["models"]]
    assert names == ["models/gemini-2.5-pro", "models/qwen3"]
    assert listing.json()["nextPageToken"] == ""
    one = await request(
        app,
        None,
        f"/{version}/models/moonshotai/Kimi-K2",
        method="GET",
        headers=headers,
        query=query,
    )
    model = one.json()
    assert model["name"] == "models/moonshotai/Kimi-K2"
    assert model["supportedGenerationMethods"] == [
        "generateContent",
        "streamGenerateContent",
        "countTokens",
    ]
    assert "qwen3" in model["description"]
    assert upstream.calls == []


async def test_count_tokens_is_local() -> None:
    upstream = ScriptedApp()
    app = GeminiMiddleware(upstream, context_scale=2)
    doc = {"contents": [{"role": "user", "parts": [{"text": "hello " * 100}]}]}
    response = await request(app, doc, "/v1beta/models/gemini-2.5-pro:countTokens")
    small = await request(
        GeminiMiddleware(upstream), doc, "/v1beta/models/gemini-2.5-pro:countTokens"
    )
    assert response.json()["totalTokens"] == 2 * small.json()["totalTokens"] > 150
    wrapped = await request(
        GeminiMiddleware(upstream),
        {"generateContentRequest": {"model": "models/gemini-2.5-pro", **doc, "tools": [BASH_TOOL]}},
        "/v1beta/models/gemini-2.5-pro:countTokens",
    )
    assert wrapped.json()["totalTokens"] > small.json()["totalTokens"]
    assert upstream.calls == []


async def test_count_tokens_of_a_lone_function_response() -> None:
    """gemini-cli counts the new turn alone: function responses without their calls."""
    doc = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "run_shell_command__c1",
                            "name": "run_shell_command",
                            "response": {"output": "x" * 400},
                        }
                    },
                    {"inlineData": {"mimeType": "application/pdf", "data": "AAAA"}},
                ],
            }
        ]
    }
    response = await request(GeminiMiddleware(ScriptedApp()), doc, "/v1beta/models/m:countTokens")
    assert response.status == 200 and response.json()["totalTokens"] > 100


async def test_api_key_header_becomes_bearer_and_gemini_headers_stay_behind() -> None:
    upstream = ScriptedApp([stream_reply(HELLO)])
    headers = [
        (b"x-goog-api-key", b"sk-up"),
        (b"x-goog-api-client", b"genai-js/1.30.0"),
        (b"user-agent", b"GeminiCLI/0.61.0"),
    ]
    await request(
        GeminiMiddleware(upstream), base_request(), stream_path(), query=b"alt=sse", headers=headers
    )
    sent = dict(upstream.calls[0][0]["headers"])
    assert sent[b"authorization"] == b"Bearer sk-up"
    assert b"x-goog-api-key" not in sent and b"x-goog-api-client" not in sent
    assert sent[b"user-agent"] == b"GeminiCLI/0.61.0"


@pytest.mark.parametrize(
    ("options", "headers", "query", "bearer"),
    [
        ({}, [(b"x-goog-api-key", b"")], b"alt=sse", None),  # gemini-cli's gateway: an empty key
        ({}, [], b"alt=sse&key=from-query", b"Bearer from-query"),
        (
            {"api_key": "configured"},
            [(b"x-goog-api-key", b"client")],
            b"alt=sse",
            b"Bearer configured",
        ),
        (
            {"api_key": "configured"},
            [(b"authorization", b"Bearer client")],
            b"alt=sse",
            b"Bearer configured",
        ),
        ({}, [(b"authorization", b"Bearer own")], b"alt=sse", b"Bearer own"),
    ],
)
async def test_upstream_key(
    options: dict[str, Any], headers: list[tuple[bytes, bytes]], query: bytes, bearer: bytes | None
) -> None:
    upstream = ScriptedApp([stream_reply(HELLO)])
    await request(
        GeminiMiddleware(upstream, **options),
        base_request(),
        stream_path(),
        query=query,
        headers=headers,
    )
    sent = [v for k, v in upstream.calls[0][0]["headers"] if k == b"authorization"]
    assert sent == ([bearer] if bearer else [])


# --- options ------------------------------------------------------------------------------------


async def test_options_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLCALL_GEMINI_MODEL_MAP", "gemini-*=kimi-k2")
    monkeypatch.setenv("TOOLCALL_GEMINI_UPSTREAM_FIELDS", '{"skip_special_tokens": false}')
    monkeypatch.setenv(
        "TOOLCALL_GEMINI_THINKING_OFF",
        '{"qwen*": {"chat_template_kwargs": {"enable_thinking": false}}}',
    )
    upstream = ScriptedApp([stream_reply(HELLO)])
    app = GeminiMiddleware(upstream, default_model="qwen3")
    doc = base_request(generationConfig={"thinkingConfig": {"thinkingBudget": 0}})
    await request(app, doc, stream_path("gemini-2.5-flash-lite"), query=b"alt=sse")
    await request(app, doc, stream_path("other"), query=b"alt=sse")
    first, second = (body for _, body in upstream.calls)
    assert first["model"] == "kimi-k2" and first["skip_special_tokens"] is False
    assert "chat_template_kwargs" not in first
    assert second["chat_template_kwargs"] == {"enable_thinking": False}


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("TOOLCALL_GEMINI_CONTEXT_SCALE", "0", "context_scale"),
        ("TOOLCALL_GEMINI_CONTEXT_SCALE", "x", "TOOLCALL_GEMINI_CONTEXT_SCALE"),
        ("TOOLCALL_GEMINI_UPSTREAM_FIELDS", '{"stream": false}', "cannot set stream"),
        ("TOOLCALL_GEMINI_THINKING_OFF", '{"q": 1}', "THINKING_OFF must map"),
        ("TOOLCALL_GEMINI_THOUGHT_SIGNATURES", "maybe", "THOUGHT_SIGNATURES"),
        ("TOOLCALL_GEMINI_MAX_BODY_BYTES", "0", "max_body_bytes"),
    ],
)
def test_bad_environment_fails_at_construction(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=message):
        GeminiMiddleware(ScriptedApp())


def test_unknown_option_is_rejected() -> None:
    with pytest.raises(TypeError, match="unknown gemini option"):
        GeminiMiddleware(ScriptedApp(), ping_interval=3)
