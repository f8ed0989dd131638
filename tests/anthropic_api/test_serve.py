"""``toolcall serve`` serves both APIs: the Anthropic SDK through the whole proxy app (front,
AnthropicMiddleware, ToolCallMiddleware, upstream proxy), its ``[anthropic]`` config table, and
the OpenAI API still beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import httpx2
import orjson
import pytest

from toolcall_middleware.cli import main
from toolcall_middleware.config import ConfigError, load_serve_config
from toolcall_middleware.proxy.app import create_proxy_app
from toolcall_middleware.replay import Recording, logs_dir

from .helpers import sdk_client

pytestmark = pytest.mark.anyio

KIMI = Recording.load(logs_dir() / "kimi_k2-reasoning-two-calls.log")
BASH: Any = [
    {
        "name": "bash",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
    }
]


async def test_bundled_replay_through_the_anthropic_sdk() -> None:
    app = create_proxy_app(load_serve_config({"replay_pace": 0.0}, env={}))
    client = sdk_client(app)
    async with client.messages.stream(
        model="kimi_k2-reasoning-two-calls",  # the bundled replay picks the recording by model
        max_tokens=1024,
        messages=[{"role": "user", "content": "Find the asm headers"}],
        tools=BASH,
    ) as stream:
        message = await stream.get_final_message()
    assert [b.type for b in message.content] == ["thinking", "tool_use", "tool_use"]
    assert [b.input for b in message.content if b.type == "tool_use"] == [
        {"command": "ls -la /usr/include | grep asm"},
        {"command": "find /usr/include -name '*.h' -path '*asm*' | head -20"},
    ]
    assert message.stop_reason == "tool_use"


async def test_the_openai_api_is_still_served() -> None:
    app = create_proxy_app(load_serve_config({"replay_pace": 0.0}, env={}))
    request = {**KIMI.request, "model": "kimi_k2-reasoning-two-calls"}
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://t"
    ) as http:
        response = await http.post("/v1/chat/completions", json=request)
        healthz = await http.get("/healthz")
    assert response.status_code == 200 and b'"tool_calls"' in response.content
    assert b"<|tool_call" not in response.content
    assert healthz.status_code == 200


def upstream(seen: list[httpx.Request]) -> httpx.MockTransport:
    async def body() -> Any:
        yield KIMI.body

    async def handler(request: httpx.Request) -> httpx.Response:
        await request.aread()
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    return httpx.MockTransport(handler)


async def test_config_file_model_map_and_the_upstream_request(tmp_path: Path) -> None:
    config = tmp_path / "toolcall.toml"
    config.write_text(
        '[anthropic]\nmodel_map = { "claude-*" = "moonshotai/Kimi-K2.5-TEE" }\nping_interval = 5\n'
    )
    seen: list[httpx.Request] = []
    serve = load_serve_config({"upstream": "http://model.test:8000"}, env={}, config_file=config)
    app = create_proxy_app(serve, transport=upstream(seen))
    client = sdk_client(app)
    message = await client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=100,
        messages=[{"role": "user", "content": "go"}],
        tools=BASH,
    )
    assert [b.id for b in message.content if b.type == "tool_use"] == [
        "toolu_tcm_functions_2ebash_3a15",
        "toolu_tcm_functions_2ebash_3a16",
    ]
    (request,) = seen
    assert str(request.url) == "http://model.test:8000/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer test-key"  # the SDK's x-api-key
    assert "anthropic-version" not in request.headers and "x-api-key" not in request.headers
    assert orjson.loads(request.content)["model"] == "moonshotai/Kimi-K2.5-TEE"


def test_a_bad_anthropic_table_stops_serve_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "toolcall.toml"
    config.write_text("[anthropic]\nping_intervall = 5\n")
    with pytest.raises(ConfigError, match="ping_intervall"):
        create_proxy_app(load_serve_config({}, env={}, config_file=config))
    assert main(["serve", "--config", str(config), "--port", "1"]) == 2
    assert "unknown [anthropic] option(s): ping_intervall" in capsys.readouterr().err
    config.write_text('anthropic = "claude"\n')
    with pytest.raises(ConfigError, match="must be a table"):
        load_serve_config({}, env={}, config_file=config)


async def test_config_file_upstream_fields_reach_the_upstream(tmp_path: Path) -> None:
    """The Claude Code setup of docs/anthropic.md for Kimi on vLLM: the [anthropic] table's
    upstream_fields go out with the request, through ToolCallMiddleware and the proxy."""
    config = tmp_path / "toolcall.toml"
    config.write_text(
        '[anthropic]\nmodel_map = { "claude-*" = "moonshotai/Kimi-K2-Instruct" }\n'
        "upstream_fields = { skip_special_tokens = false }\n"
    )
    seen: list[httpx.Request] = []
    serve = load_serve_config({"upstream": "http://model.test:8000"}, env={}, config_file=config)
    client = sdk_client(create_proxy_app(serve, transport=upstream(seen)))
    async with client.messages.stream(
        model="claude-sonnet-4-6",
        max_tokens=100,
        messages=[{"role": "user", "content": "go"}],
        tools=BASH,
    ) as stream:
        message = await stream.get_final_message()
    assert [b.type for b in message.content] == ["thinking", "tool_use", "tool_use"]
    (request,) = seen
    sent = orjson.loads(request.content)
    assert sent["skip_special_tokens"] is False and sent["stream"] is True
    assert sent["model"] == "moonshotai/Kimi-K2-Instruct"


def test_bad_upstream_fields_in_the_file_stop_serve_at_start(tmp_path: Path) -> None:
    config = tmp_path / "toolcall.toml"
    config.write_text('[anthropic]\nupstream_fields = "skip_special_tokens=false"\n')
    with pytest.raises(ConfigError, match="upstream_fields must be an object"):
        create_proxy_app(load_serve_config({}, env={}, config_file=config))
    config.write_text("[anthropic]\nupstream_fields = { n = 2 }\n")
    with pytest.raises(ConfigError, match=r"upstream_fields cannot set n \("):
        create_proxy_app(load_serve_config({}, env={}, config_file=config))
