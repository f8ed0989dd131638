"""The three ways in: add_middleware on a FastAPI app, the replay example, the replay CLI."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import sdk_client
from toolcall_middleware import ConfigError, Options, ToolCallMiddleware
from toolcall_middleware.cli import main

ROOT = Path(__file__).resolve().parents[1]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


@pytest.fixture
def examples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))


@pytest.mark.anyio
@pytest.mark.usefixtures("examples")
async def test_fastapi_add_middleware_example_with_the_openai_sdk() -> None:
    app = importlib.import_module("examples.fastapi_app").app
    async with sdk_client(app).chat.completions.stream(
        model="kimi-k2",
        messages=[{"role": "user", "content": "weather?"}],
        tools=TOOLS,
    ) as stream:
        final = await stream.get_final_completion()
    choice = final.choices[0]
    assert choice.finish_reason == "tool_calls"
    call = (choice.message.tool_calls or [])[0]
    assert (call.id, call.function.name, call.function.arguments) == (
        "functions.get_weather:0",
        "get_weather",
        '{"city": "Paris"}',
    )
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert (choice.message.model_extra or {})["reasoning_content"] == "Let me check. "


@pytest.mark.anyio
@pytest.mark.usefixtures("examples")
async def test_replay_example_serves_recordings_by_model_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLCALL_REPLAY_PACE", "0")
    module = importlib.reload(importlib.import_module("examples.replay_upstream"))
    client = sdk_client(module.app)
    async with client.chat.completions.stream(
        model="kimi_k2-content-calls",
        messages=[{"role": "user", "content": "hi"}],
        tools=TOOLS,
    ) as stream:
        final = await stream.get_final_completion()
    assert [c.function.arguments for c in final.choices[0].message.tool_calls or []] == [
        '{"city": "Beijing"}',
        '{"city": "Shanghai"}',
    ]
    models = await client.models.list()
    assert "kimi_k2-reasoning-two-calls" in [m.id for m in models.data]


def test_replay_summary_of_the_default_recording(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    assert main(["replay", "--summary"]) == 0
    summary = json.loads(capsysbinary.readouterr().out)
    assert [c["id"] for c in summary["tool_calls"]] == ["functions.bash:15", "functions.bash:16"]
    assert summary["finish_reason"] == "tool_calls"
    assert "<|" not in summary["reasoning"]


def test_replay_of_a_bare_capture_with_an_explicit_provider(
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    capture = tmp_path / "capture.log"
    text = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.ls:0"
        "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"
    )
    body = {
        "id": "c",
        "object": "chat.completion.chunk",
        "model": "my-private-model",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}],
    }
    capture.write_text(f"data: {json.dumps(body)}\n\ndata: [DONE]\n\n")
    assert main(["replay", str(capture), "--provider", "kimi_k2", "--summary"]) == 0
    summary = json.loads(capsysbinary.readouterr().out)
    assert summary["tool_calls"] == [{"id": "functions.ls:0", "name": "ls", "arguments": "{}"}]
    assert summary["finish_reason"] == "tool_calls"


def test_replay_errors_are_clear(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "no-such-recording"]) == 2
    assert "no such recording" in capsys.readouterr().err
    assert main(["replay", "--provider", "bogus"]) == 2
    assert "provider 'bogus'" in capsys.readouterr().err


def test_console_script_prints_the_repaired_stream() -> None:
    script = Path(sys.executable).with_name("toolcall")
    out = subprocess.run([str(script), "replay"], capture_output=True, check=True, timeout=60)
    assert b'"tool_calls":[{"index":0,"id":"functions.bash:15"' in out.stdout
    assert out.stdout.endswith(b"data: [DONE]\n\n")


def test_options_come_from_the_environment_and_kwargs_win() -> None:
    env = {
        "TOOLCALL_PROVIDER": "kimi_k2",
        "TOOLCALL_PATHS": "/a, /b",
        "TOOLCALL_PROVIDER_OVERRIDES": "my-alias=kimi_k2",
        "TOOLCALL_REWRITE_WITHOUT_TOOLS": "yes",
    }
    options = Options.from_env(env)
    assert options == Options(
        provider="kimi_k2",
        paths=("/a", "/b"),
        provider_overrides={"my-alias": "kimi_k2"},
        rewrite_without_tools=True,
    )
    assert Options.from_env(env, provider="openai").provider == "openai"
    assert Options.from_env(
        {"TOOLCALL_PROVIDER_OVERRIDES": '{"x": "kimi_k2"}'}
    ).provider_overrides == {"x": "kimi_k2"}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TOOLCALL_PROVIDER": "nope"}, "provider 'nope'"),
        ({"TOOLCALL_REWRITE_WITHOUT_TOOLS": "maybe"}, "true or false"),
        ({"TOOLCALL_PROVIDER_OVERRIDES": "novalue"}, "model=provider"),
        ({"TOOLCALL_PROVIDER_OVERRIDES": "a=nope"}, "provider_overrides['a']"),
        ({"TOOLCALL_PATHS": "no-slash"}, "starting with '/'"),
    ],
)
def test_invalid_options_fail_at_construction(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Options.from_env(env)


def test_vllm_style_construction_with_the_app_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLCALL_PROVIDER", "kimi_k2")

    async def app(scope: object, receive: object, send: object) -> None:
        pass

    middleware = ToolCallMiddleware(app)  # type: ignore[arg-type]
    assert middleware.options.provider == "kimi_k2"
    with pytest.raises(TypeError, match="unknown option"):
        ToolCallMiddleware(app, no_such_option=1)  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_replay_app_stops_when_the_client_disconnects() -> None:
    import anyio

    from toolcall_middleware.asgi import Message
    from toolcall_middleware.replay import replay_app

    app = replay_app(pace=0.01)
    sent: list[Message] = []
    gone = anyio.Event()

    async def receive() -> Message:
        if not sent:
            body = json.dumps({"model": "kimi_k2-long-write", "stream": True}).encode()
            return {"type": "http.request", "body": body, "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)
        if len(sent) == 5:
            gone.set()

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/chat/completions",
        "headers": [],
        "query_string": b"",
    }
    with anyio.fail_after(5):
        await app(scope, receive, send)
    assert 5 <= len(sent) < 20  # the long recording has over 2000 events
