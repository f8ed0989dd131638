"""``upstream_fields`` on the chat path: set on every chat request the middleware forwards,
globally and per model, over the client's values, under an API front's own fields."""

from __future__ import annotations

from typing import Any

import httpx2
import orjson
import pytest

from helpers import chunk, sdk_client, sse
from toolcall_middleware import (
    AnthropicMiddleware,
    GeminiMiddleware,
    ResponsesMiddleware,
    ToolCallMiddleware,
)
from toolcall_middleware.asgi import Receive, Scope, Send
from toolcall_middleware.config import ConfigError, Options
from toolcall_middleware.request import read_body

pytestmark = pytest.mark.anyio

KIMI = "moonshotai/Kimi-K2-Instruct"
QWEN = "Qwen/Qwen2.5-7B-Instruct"  # writes Hermes calls, as the upstream below does
NO_SPECIAL = {"skip_special_tokens": False}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]
MESSAGES = [{"role": "user", "content": "list files"}]
HERMES_CALL = '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>'


class Upstream:
    """A chat server that records each request (path, headers, raw body) and answers chat
    completions with a Hermes call written as text, streamed or whole as asked."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[bytes, bytes], bytes]] = []

    def bodies(self) -> list[dict[str, Any]]:
        return [orjson.loads(body) for _, _, body in self.requests]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body, _ = await read_body(receive)
        self.requests.append((scope["path"], dict(scope["headers"]), body))
        try:
            stream = orjson.loads(body).get("stream") is True
        except (orjson.JSONDecodeError, AttributeError):
            stream = False
        if stream:
            out = sse(chunk({"content": HERMES_CALL}), chunk({}, "stop"), "[DONE]")
            kind = b"text/event-stream"
        else:
            message = {"role": "assistant", "content": HERMES_CALL}
            out = orjson.dumps(
                {
                    "id": "c",
                    "object": "chat.completion",
                    "created": 1,
                    "model": "m",
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                }
            )
            kind = b"application/json"
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-type", kind)]}
        )
        await send({"type": "http.response.body", "body": out})


async def chat(app: Any, model: str = KIMI, stream: bool = True, **extra: Any) -> list[Any]:
    """The tool calls the openai SDK gets for one chat request through ``app``."""
    client = sdk_client(app)
    request: dict[str, Any] = {
        "model": model,
        "messages": MESSAGES,
        "tools": TOOLS,
        "extra_body": extra or None,
    }
    if stream:
        async with client.chat.completions.stream(**request) as events:
            streamed = await events.get_final_completion()
        return list(streamed.choices[0].message.tool_calls or ())
    final = await client.chat.completions.create(**request)
    return list(final.choices[0].message.tool_calls or ())


async def test_global_fields_reach_the_upstream_and_the_calls_are_still_repaired() -> None:
    upstream = Upstream()
    app = ToolCallMiddleware(upstream, upstream_fields={**NO_SPECIAL, "top_k": 20})
    calls = await chat(app, QWEN, stream=True)
    calls += await chat(app, QWEN, stream=False)
    first, second = upstream.bodies()
    for body, stream in ((first, True), (second, False)):
        assert body["skip_special_tokens"] is False and body["top_k"] == 20
        # The client's own fields are all still there.
        assert body["model"] == QWEN and body["messages"] == MESSAGES
        assert body["tools"] == TOOLS and body.get("stream", False) is stream
    assert [(c.function.name, c.function.arguments) for c in calls] == [
        ("bash", '{"command": "ls"}'),
        ("bash", '{"command": "ls"}'),
    ]


async def test_the_upstream_gets_the_new_body_length() -> None:
    upstream = Upstream()
    await chat(ToolCallMiddleware(upstream, upstream_fields=NO_SPECIAL))
    ((_, headers, body),) = upstream.requests
    assert headers[b"content-length"] == str(len(body)).encode()


async def test_configured_fields_win_over_the_clients() -> None:
    upstream = Upstream()
    app = ToolCallMiddleware(
        upstream, upstream_fields={**NO_SPECIAL, "chat_template_kwargs": {"thinking": True}}
    )
    await chat(app, skip_special_tokens=True, chat_template_kwargs={"x": 1}, seed=7)
    (body,) = upstream.bodies()
    assert body["skip_special_tokens"] is False
    assert body["chat_template_kwargs"] == {"thinking": True}  # a top-level field, replaced whole
    assert body["seed"] == 7  # fields nobody configured stay the client's


async def test_fields_per_model_pattern_over_the_global_ones() -> None:
    upstream = Upstream()
    app = ToolCallMiddleware(
        upstream,
        upstream_fields={"top_k": 1, "seed": 1},
        upstream_fields_by_model={
            "moonshotai/*": {"top_k": 2, **NO_SPECIAL},
            "openai/gpt-oss-*": {"top_k": 3, **NO_SPECIAL},
            "moonshotai/Kimi-K2-Instruct": {"top_k": 4},  # an exact name wins over patterns
        },
    )
    for model in (
        KIMI,
        "moonshotai/Kimi-K2.5",
        "openai/gpt-oss-120b",
        "Qwen/Qwen3-8B",
        "MoonshotAI/Kimi-K2.5",
    ):
        await chat(app, model)
    exact, kimi, gpt_oss, qwen, other_case = upstream.bodies()
    assert exact["top_k"] == 4 and "skip_special_tokens" not in exact
    assert kimi["top_k"] == 2 and kimi["skip_special_tokens"] is False
    assert gpt_oss["top_k"] == 3 and gpt_oss["skip_special_tokens"] is False
    assert qwen["top_k"] == 1 and "skip_special_tokens" not in qwen
    assert other_case["top_k"] == 1  # patterns match case, as model names do
    assert {b["seed"] for b in (exact, kimi, gpt_oss, qwen)} == {1}  # global where unset


async def test_requests_without_tools_get_the_fields_too() -> None:
    upstream = Upstream()
    app = ToolCallMiddleware(upstream, upstream_fields=NO_SPECIAL)
    client = sdk_client(app)
    await client.chat.completions.create(model=KIMI, messages=MESSAGES)  # type: ignore[arg-type]
    (body,) = upstream.bodies()
    assert body["skip_special_tokens"] is False and "tools" not in body


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/embeddings", b'{"model": "e5", "input": "hi"}'),
        ("/v1/completions", b'{"model": "m", "prompt": "hi",  "max_tokens": 3}'),
        ("/v1/chat/completions", b"not json at all"),
        ("/v1/chat/completions", b'["a", "list"]'),
    ],
)
async def test_other_paths_and_bodies_that_are_no_object_pass_byte_for_byte(
    path: str, body: bytes
) -> None:
    upstream = Upstream()
    app = ToolCallMiddleware(
        upstream, upstream_fields=NO_SPECIAL, upstream_fields_by_model={"*": {"top_k": 1}}
    )
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://t") as client:
        await client.post(path, content=body, headers={"content-type": "application/json"})
    ((seen_path, headers, seen),) = upstream.requests
    assert (seen_path, seen) == (path, body)
    assert headers[b"content-length"] == str(len(body)).encode()


async def test_without_fields_the_body_is_replayed_unchanged() -> None:
    upstream = Upstream()
    raw = orjson.dumps(
        {"model": KIMI, "messages": MESSAGES, "tools": TOOLS}, option=orjson.OPT_INDENT_2
    )
    transport = httpx2.ASGITransport(app=ToolCallMiddleware(upstream))
    async with httpx2.AsyncClient(transport=transport, base_url="http://t") as client:
        await client.post("/v1/chat/completions", content=raw)
    assert upstream.requests[0][2] == raw


async def test_fields_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLCALL_UPSTREAM_FIELDS", '{"skip_special_tokens": false}')
    monkeypatch.setenv("TOOLCALL_UPSTREAM_FIELDS_BY_MODEL", '{"moonshotai/*": {"top_k": 5}}')
    upstream = Upstream()
    await chat(ToolCallMiddleware(upstream))
    await chat(ToolCallMiddleware(upstream, upstream_fields={"seed": 3}))
    env_body, keyword_body = upstream.bodies()
    assert env_body["skip_special_tokens"] is False and env_body["top_k"] == 5
    # A keyword value replaces the environment's object whole, like every option.
    assert keyword_body["seed"] == 3 and "skip_special_tokens" not in keyword_body
    assert keyword_body["top_k"] == 5


# --- under the API fronts -------------------------------------------------------------------

CHAT_FIELDS = {**NO_SPECIAL, "max_tokens": 100, "top_k": 1}


async def front_request(front: str, app: Any) -> None:
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://t") as client:
        if front == "anthropic":
            response = await client.post(
                "/v1/messages",
                json={
                    "model": KIMI,
                    "max_tokens": 256,
                    "messages": [{"role": "user", "content": "list files"}],
                },
            )
        elif front == "responses":
            response = await client.post("/v1/responses", json={"model": KIMI, "input": "hi"})
        else:
            response = await client.post(
                f"/v1beta/models/{KIMI}:generateContent",
                json={"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
            )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("front", "middleware"),
    [
        ("anthropic", AnthropicMiddleware),
        ("responses", ResponsesMiddleware),
        ("gemini", GeminiMiddleware),
    ],
)
async def test_chat_path_fields_reach_every_front_and_the_fronts_own_fields_win(
    front: str, middleware: Any
) -> None:
    upstream = Upstream()
    chat_path = ToolCallMiddleware(
        upstream, upstream_fields=CHAT_FIELDS, upstream_fields_by_model={KIMI: {"top_k": 2}}
    )
    await front_request(front, middleware(chat_path, upstream_fields={"max_tokens": 64}))
    await front_request(front, middleware(chat_path))
    own, plain = upstream.bodies()
    assert own["skip_special_tokens"] is False and own["top_k"] == 2  # the chat path's
    assert own["max_tokens"] == 64  # the front's own value, over the chat path's 100
    assert plain["max_tokens"] == 100  # without one, the chat path's value wins
    assert own["messages"] == plain["messages"] != []


async def test_gemini_thinking_off_keeps_its_fields_where_it_applies() -> None:
    upstream = Upstream()
    chat_path = ToolCallMiddleware(
        upstream, upstream_fields_by_model={KIMI: {"chat_template_kwargs": {"thinking": True}}}
    )
    app = GeminiMiddleware(
        chat_path, thinking_off={"moonshotai/*": {"chat_template_kwargs": {"thinking": False}}}
    )
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://t") as client:
        for budget in (0, 1024):
            response = await client.post(
                f"/v1beta/models/{KIMI}:generateContent",
                json={
                    "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                    "generationConfig": {"thinkingConfig": {"thinkingBudget": budget}},
                },
            )
            assert response.status_code == 200
    side, main = upstream.bodies()
    assert side["chat_template_kwargs"] == {"thinking": False}  # a side request: thinking off
    assert main["chat_template_kwargs"] == {"thinking": True}


# --- bad values -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"upstream_fields": "skip_special_tokens=false"},
            "upstream_fields must be an object of request fields",
        ),
        ({"upstream_fields": {"model": "x"}}, r"upstream_fields cannot set model \(fields the"),
        ({"upstream_fields": {"stream": False, "n": 2}}, "upstream_fields cannot set n, stream"),
        ({"upstream_fields": {"seed": {1}}}, "must hold JSON values"),
        (
            {"upstream_fields_by_model": {"kimi-*": "skip"}},
            "upstream_fields_by_model must map model names or patterns to request fields",
        ),
        ({"upstream_fields_by_model": [NO_SPECIAL]}, "upstream_fields_by_model must map"),
        (
            {"upstream_fields_by_model": {"kimi-*": {"tools": []}}},
            r"upstream_fields_by_model \['kimi-\*'\] cannot set tools",
        ),
    ],
)
def test_bad_values_fail_at_construction(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ToolCallMiddleware(Upstream(), **options)


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        (
            "TOOLCALL_UPSTREAM_FIELDS",
            "{skip_special_tokens: false}",
            "TOOLCALL_UPSTREAM_FIELDS is not valid JSON",
        ),
        ("TOOLCALL_UPSTREAM_FIELDS", "false", "TOOLCALL_UPSTREAM_FIELDS must be an object"),
        ("TOOLCALL_UPSTREAM_FIELDS", '{"messages": []}', "UPSTREAM_FIELDS cannot set messages"),
        (
            "TOOLCALL_UPSTREAM_FIELDS_BY_MODEL",
            '{"kimi-*": 1}',
            "TOOLCALL_UPSTREAM_FIELDS_BY_MODEL must map",
        ),
    ],
)
def test_bad_environment_values_name_the_variable(name: str, raw: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Options.from_env({name: raw})
