"""``toolcall serve`` serves the Responses API on the same port as the others: the openai SDK
through the whole proxy app, over loopback to a real server, and the ``[responses]`` table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import openai
import orjson
import pytest

from proxy.servers import serve_in_thread, start_proxy
from toolcall_middleware import ResponsesMiddleware
from toolcall_middleware.cli import main
from toolcall_middleware.config import ConfigError, load_serve_config
from toolcall_middleware.proxy.app import create_proxy_app
from toolcall_middleware.replay import Recording, logs_dir, recording_app

from .helpers import sdk_client

pytestmark = pytest.mark.anyio

KIMI = Recording.load(logs_dir() / "kimi_k2-reasoning-two-calls.log")
BASH: Any = [
    {
        "type": "function",
        "name": "bash",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    }
]
CALLS = [
    ("bash", '{"command":  "ls -la /usr/include | grep asm"}'),
    ("bash", "{\"command\": \"find /usr/include -name '*.h' -path '*asm*' | head -20\"}"),
]


async def test_bundled_replay_through_the_responses_api() -> None:
    app = create_proxy_app(load_serve_config({"replay_pace": 0.0}, env={}))
    async with sdk_client(app).responses.stream(
        model="kimi_k2-reasoning-two-calls",
        input="Find the asm headers",
        tools=BASH,
    ) as stream:
        response = await stream.get_final_response()
    assert [o.type for o in response.output] == ["reasoning", "function_call", "function_call"]
    assert [(o.name, o.arguments) for o in response.output[1:]] == CALLS  # type: ignore[union-attr]


def test_real_server_on_loopback_serves_all_three_apis() -> None:
    with serve_in_thread(recording_app(KIMI)) as upstream, start_proxy(upstream) as proxy:
        client = openai.OpenAI(base_url=proxy + "/v1", api_key="unused", max_retries=0)
        with client.responses.stream(model=KIMI.request["model"], input="go", tools=BASH) as stream:
            kinds = [event.type for event in stream]
            response = stream.get_final_response()
        chat = httpx.post(proxy + "/v1/chat/completions", json=KIMI.request)
        messages = httpx.post(
            proxy + "/v1/messages",
            json={
                "model": KIMI.request["model"],
                "max_tokens": 10,
                "messages": [{"role": "user", "content": "x"}],
                "tools": [{"name": "bash", "input_schema": BASH[0]["parameters"]}],
            },
        )
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert [(o.name, o.arguments) for o in response.output[1:]] == CALLS  # type: ignore[union-attr]
    assert chat.status_code == 200 and b'"tool_calls"' in chat.content
    assert messages.status_code == 200 and messages.json()["stop_reason"] == "tool_use"


def upstream(seen: list[httpx.Request]) -> httpx.MockTransport:
    async def body() -> Any:
        yield KIMI.body

    async def handler(request: httpx.Request) -> httpx.Response:
        await request.aread()
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    return httpx.MockTransport(handler)


async def test_config_file_table_and_the_upstream_request(tmp_path: Path) -> None:
    config = tmp_path / "toolcall.toml"
    config.write_text(
        '[responses]\nmodel_map = { "gpt-*" = "moonshotai/Kimi-K2.5-TEE" }\n'
        "upstream_fields = { skip_special_tokens = false }\n"
    )
    seen: list[httpx.Request] = []
    serve = load_serve_config({"upstream": "http://model.test:8000"}, env={}, config_file=config)
    client = sdk_client(create_proxy_app(serve, transport=upstream(seen)))
    response = await client.responses.create(model="gpt-5-codex", input="go", tools=BASH)
    assert [o.call_id for o in response.output if o.type == "function_call"] == [
        "functions.bash:15",
        "functions.bash:16",
    ]
    (request,) = seen
    assert str(request.url) == "http://model.test:8000/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer test-key"
    sent = orjson.loads(request.content)
    assert sent["model"] == "moonshotai/Kimi-K2.5-TEE" and sent["skip_special_tokens"] is False


def test_environment_wins_over_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "toolcall.toml"
    config.write_text('[responses]\nreasoning_as = "content"\nmax_body_bytes = 5\n')
    monkeypatch.setenv("TOOLCALL_RESPONSES_REASONING_AS", "summary")
    app = create_proxy_app(load_serve_config({}, env={}, config_file=config))
    front = app.app
    while not isinstance(front, ResponsesMiddleware):  # the fronts wrap one another
        front = front.app  # type: ignore[attr-defined]
    assert front.options.reasoning_as == "summary"  # type: ignore[attr-defined]
    assert front.options.max_body_bytes == 5  # type: ignore[attr-defined]


def test_a_bad_responses_table_stops_serve_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "toolcall.toml"
    config.write_text('[responses]\nreasoning_ass = "summary"\n')
    with pytest.raises(ConfigError, match="reasoning_ass"):
        create_proxy_app(load_serve_config({}, env={}, config_file=config))
    assert main(["serve", "--config", str(config), "--port", "1"]) == 2
    assert "unknown [responses] option(s): reasoning_ass" in capsys.readouterr().err
    config.write_text('[responses]\nreasoning_as = "both"\n')
    with pytest.raises(ConfigError, match="reasoning_as must be one of"):
        create_proxy_app(load_serve_config({}, env={}, config_file=config))
