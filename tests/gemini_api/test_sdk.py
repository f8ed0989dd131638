"""The official ``google-genai`` SDK is the judge: ``generate_content``,
``generate_content_stream``, ``count_tokens`` and ``models.get`` against the middleware over a
scripted OpenAI-compatible upstream, every stream through the framing checker."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import errors, types

from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.fronts.gemini import GeminiMiddleware

from .helpers import USAGE, ScriptedApp, call_delta, chunk, json_reply, sdk_client, stream_reply

pytestmark = pytest.mark.anyio

SHELL = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="run_shell_command",
            description="Run a shell command",
            parameters=types.Schema(
                type=types.Type.OBJECT,
                properties={"command": types.Schema(type=types.Type.STRING)},
                required=["command"],
            ),
        )
    ]
)
THINKING = types.GenerateContentConfig(
    tools=[SHELL], thinking_config=types.ThinkingConfig(include_thoughts=True)
)
KIMI_ID = "functions.run_shell_command:0"
AGENT = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"reasoning_content": "The user wants the files. "}),
    chunk({"reasoning_content": "I'll list them."}),
    chunk({"content": "Let me look."}),
    chunk(call_delta(0, id=KIMI_ID, name="run_shell_command", args="")),
    chunk(call_delta(0, args='{"command"')),
    chunk(call_delta(0, args=': "ls -la"}')),
    chunk(call_delta(1, id="call_b", name="run_shell_command", args='{"command": "pwd"}')),
    chunk(None, "tool_calls"),
    chunk(usage=USAGE),
]
AGENT_MESSAGE = {
    "role": "assistant",
    "content": "Let me look.",
    "reasoning_content": "The user wants the files. I'll list them.",
    "tool_calls": [
        {
            "id": KIMI_ID,
            "type": "function",
            "function": {"name": "run_shell_command", "arguments": '{"command": "ls -la"}'},
        },
        {
            "id": "call_b",
            "type": "function",
            "function": {"name": "run_shell_command", "arguments": '{"command": "pwd"}'},
        },
    ],
}
DONE = [chunk({"content": "Two files."}), chunk(None, "stop"), chunk(usage=USAGE)]


def completion(message: dict[str, Any], finish: str = "tool_calls") -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "usage": USAGE,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


def check_agent_turn(response: types.GenerateContentResponse) -> None:
    parts = response.candidates[0].content.parts  # type: ignore[index,union-attr]
    assert parts is not None
    assert [p.text for p in parts if p.thought] == ["The user wants the files. I'll list them."]
    assert "".join(p.text or "" for p in parts if not p.thought) == "Let me look."
    calls = response.function_calls
    assert calls is not None
    assert [(c.id, c.name, c.args) for c in calls] == [
        (KIMI_ID, "run_shell_command", {"command": "ls -la"}),
        ("call_b", "run_shell_command", {"command": "pwd"}),
    ]


async def test_generate_content() -> None:
    upstream = ScriptedApp([json_reply(completion(AGENT_MESSAGE))])
    client = sdk_client(GeminiMiddleware(upstream))
    response = await client.aio.models.generate_content(
        model="gemini-2.5-pro", contents="list files", config=THINKING
    )
    check_agent_turn(response)
    assert response.candidates[0].finish_reason == types.FinishReason.STOP  # type: ignore[index]
    assert response.usage_metadata is not None
    assert response.usage_metadata.prompt_token_count == 120
    assert response.usage_metadata.cached_content_token_count == 100
    assert response.model_version == "gemini-2.5-pro"
    scope, body = upstream.calls[0]
    assert scope["path"] == "/v1/chat/completions"
    assert body["tools"][0]["function"]["parameters"] == {
        "type": "object",
        "properties": {"command": {"type": "string"}},
        "required": ["command"],
    }


@pytest.mark.parametrize("version", ["v1", "v1beta", "v1alpha"])
async def test_generate_content_stream(version: str) -> None:
    client = sdk_client(GeminiMiddleware(ScriptedApp([stream_reply(AGENT)])), version)
    chunks = [
        c
        async for c in await client.aio.models.generate_content_stream(
            model="gemini-2.5-pro", contents="list files", config=THINKING
        )
    ]
    calls = [c for ch in chunks for c in ch.function_calls or ()]
    assert [(c.id, c.args) for c in calls] == [
        (KIMI_ID, {"command": "ls -la"}),
        ("call_b", {"command": "pwd"}),
    ]
    thoughts = "".join(
        p.text or "" for ch in chunks for p in ch.candidates[0].content.parts or () if p.thought
    )  # type: ignore
    assert thoughts == "The user wants the files. I'll list them."
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP  # type: ignore
    assert chunks[-1].usage_metadata.total_token_count == 150  # type: ignore[union-attr]
    assert len({c.response_id for c in chunks}) == 1


async def test_two_turn_function_call_round_trip() -> None:
    """The SDK sends the model turn back as it got it (ids, signature) with the function
    responses: the upstream sees its own ids, the reasoning, and tool messages in call order."""
    upstream = ScriptedApp([stream_reply(AGENT), stream_reply(DONE)])
    client = sdk_client(GeminiMiddleware(upstream))
    history: list[Any] = [types.Content(role="user", parts=[types.Part(text="list files")])]
    chunks = [
        c
        async for c in await client.aio.models.generate_content_stream(
            model="gemini-2.5-pro",
            contents=history,
            config=types.GenerateContentConfig(tools=[SHELL]),
        )
    ]
    model_parts = [
        p
        for ch in chunks
        for p in ch.candidates[0].content.parts or ()  # type: ignore
        if p.text or p.function_call
    ]
    calls = [p.function_call for p in model_parts if p.function_call]
    assert model_parts[1].thought_signature  # carried on the first call
    history.append(types.Content(role="model", parts=model_parts))
    history.append(
        types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(
                        id=c.id, name=c.name, response={"output": f"out {i}"}
                    )
                )
                for i, c in reversed(list(enumerate(calls)))  # answered in the other order
            ],
        )
    )
    second = await client.aio.models.generate_content(
        model="gemini-2.5-pro", contents=history, config=types.GenerateContentConfig(tools=[SHELL])
    )
    assert second.text == "Two files."
    sent = upstream.upstream_bodies[1]["messages"]
    assert sent[0] == {"role": "user", "content": "list files"}
    assert sent[1] == AGENT_MESSAGE
    assert sent[2:] == [
        {"role": "tool", "tool_call_id": KIMI_ID, "content": "out 0"},
        {"role": "tool", "tool_call_id": "call_b", "content": "out 1"},
    ]


async def test_count_tokens() -> None:
    upstream = ScriptedApp()
    client = sdk_client(GeminiMiddleware(upstream))
    small = await client.aio.models.count_tokens(model="gemini-2.5-pro", contents="hello")
    large = await client.aio.models.count_tokens(
        model="gemini-2.5-pro", contents="hello world " * 200
    )
    assert 0 < small.total_tokens < 10 < 400 < large.total_tokens  # type: ignore[operator]
    assert upstream.calls == []


async def test_models_get_and_list() -> None:
    app = GeminiMiddleware(ScriptedApp(), model_map={"gemini-2.5-pro": "kimi-k2"})
    client = sdk_client(app)
    model = await client.aio.models.get(model="gemini-2.5-pro")
    assert model.name == "models/gemini-2.5-pro"
    assert model.supported_actions == ["generateContent", "streamGenerateContent", "countTokens"]
    names = [m.name async for m in await client.aio.models.list()]
    assert names == ["models/gemini-2.5-pro"]


@pytest.mark.parametrize(
    ("status", "exception", "code"),
    [
        (400, errors.ClientError, 400),
        (401, errors.ClientError, 401),
        (404, errors.ClientError, 404),
        (429, errors.ClientError, 429),
        (500, errors.ServerError, 500),
        (503, errors.ServerError, 503),
    ],
)
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_upstream_errors_raise_the_sdk_error(
    status: int, exception: type[errors.APIError], code: int, stream: bool
) -> None:
    upstream = ScriptedApp([json_reply({"error": {"message": "nope"}}, status)])
    client = sdk_client(GeminiMiddleware(upstream))
    with pytest.raises(exception) as info:
        if stream:
            async for _ in await client.aio.models.generate_content_stream(model="m", contents="x"):
                pass
        else:
            await client.aio.models.generate_content(model="m", contents="x")
    assert info.value.code == code and "nope" in str(info.value)


async def test_midstream_error_raises_a_server_error() -> None:
    error = {"error": {"message": "upstream crashed", "type": "server_error"}}
    upstream = ScriptedApp([stream_reply([chunk({"content": "par"}), error], done=False)])
    client = sdk_client(GeminiMiddleware(upstream))
    seen = []
    with pytest.raises(errors.ServerError, match="upstream crashed"):
        async for response in await client.aio.models.generate_content_stream(
            model="m", contents="x"
        ):
            seen.append(response.text)
    assert seen == ["par"]


async def test_validation_error_raises_a_client_error() -> None:
    upstream = ScriptedApp()
    client = sdk_client(GeminiMiddleware(upstream))
    with pytest.raises(errors.ClientError) as info:
        await client.aio.models.generate_content(
            model="m", contents="x", config=types.GenerateContentConfig(candidate_count=3)
        )
    assert info.value.code == 400 and info.value.status == "INVALID_ARGUMENT"
    assert "candidateCount" in str(info.value)
    assert upstream.calls == []


async def test_json_response_for_gemini_cli_utility_calls() -> None:
    """gemini-cli's side requests (routing, loop checks) want JSON text back."""
    answer = '{"next_speaker": "user", "reasoning": "done"}'
    upstream = ScriptedApp(
        [json_reply(completion({"role": "assistant", "content": answer}, "stop"))]
    )
    client = sdk_client(GeminiMiddleware(upstream, default_model="kimi-k2"))
    schema = {
        "type": "object",
        "properties": {"next_speaker": {"type": "string"}, "reasoning": {"type": "string"}},
    }
    response = await client.aio.models.generate_content(
        model="gemini-2.5-flash-lite",
        contents="who speaks next?",
        config=types.GenerateContentConfig(
            response_mime_type="application/json",
            response_json_schema=schema,
            thinking_config=types.ThinkingConfig(thinking_budget=0),
        ),
    )
    assert response.text == answer
    body = upstream.upstream_bodies[0]
    assert body["model"] == "kimi-k2"
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": schema},
    }


@pytest.mark.parametrize(
    ("model", "budget", "text"),
    [
        # Kimi K3's template opens its think channel; Hy3's opens its block when asked to
        # think (gemini-cli's thinking budget asks): the answer starts in the reasoning.
        (
            "moonshotai/Kimi-K3",
            0,
            "Route.<|close|>think<|sep|><|open|>response<|sep|>{ANSWER}<|close|>response<|sep|>"
            "<|close|>message<|sep|>",
        ),
        ("tencent/Hy3", 1, "Route.</think:opensource>\n{ANSWER}"),
    ],
)
async def test_json_response_of_a_model_that_starts_in_its_reasoning(
    model: str, budget: int, text: str
) -> None:
    """The side requests offer no tools; the reasoning before the JSON is split off all the
    same, so the SDK parses the answer (gemini-cli retried them, for minutes, otherwise)."""
    answer = '{"model_choice": "flash"}'
    upstream = ScriptedApp(
        [stream_reply([chunk({"content": text.replace("{ANSWER}", answer)}), chunk(None, "stop")])]
    )
    client = sdk_client(GeminiMiddleware(ToolCallMiddleware(upstream), default_model=model))
    schema = {"type": "object", "properties": {"model_choice": {"type": "string"}}}
    response = await client.aio.models.generate_content(
        model="gemini-2.5-flash-lite",
        contents="which model?",
        config=types.GenerateContentConfig(
            response_mime_type="application/json",
            response_json_schema=schema,
            thinking_config=types.ThinkingConfig(thinking_budget=budget),
        ),
    )
    assert response.parsed == {"model_choice": "flash"}
    assert "tools" not in upstream.upstream_bodies[0]
