"""``toolcall serve`` serves the Gemini API on the same port: the google-genai SDK through the
whole proxy app (front, GeminiMiddleware, AnthropicMiddleware, ToolCallMiddleware, upstream
proxy), its ``[gemini]`` config table, and the other APIs still beside it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import httpx2
import orjson
import pytest
from google.genai import types

from toolcall_middleware.cli import main
from toolcall_middleware.config import ConfigError, load_serve_config
from toolcall_middleware.proxy.app import create_proxy_app
from toolcall_middleware.replay import Recording, logs_dir

from .helpers import sdk_client

pytestmark = pytest.mark.anyio

KIMI = Recording.load(logs_dir() / "kimi_k2-reasoning-two-calls.log")
BASH = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="bash",
            parameters_json_schema={
                "type": "object",
                "properties": {"command": {"type": "string"}},
            },
        )
    ]
)
CONFIG = types.GenerateContentConfig(tools=[BASH])
EXPECTED_CALLS = [
    ("functions.bash:15", {"command": "ls -la /usr/include | grep asm"}),
    ("functions.bash:16", {"command": "find /usr/include -name '*.h' -path '*asm*' | head -20"}),
]


async def test_bundled_replay_through_the_google_genai_sdk() -> None:
    app = create_proxy_app(load_serve_config({"replay_pace": 0.0}, env={}))
    client = sdk_client(app)
    chunks = [
        c
        async for c in await client.aio.models.generate_content_stream(
            model="kimi_k2-reasoning-two-calls",  # the bundled replay picks the recording by model
            contents="Find the asm headers",
            config=CONFIG,
        )
    ]
    calls = [c for chunk in chunks for c in chunk.function_calls or ()]
    assert [(c.id, c.args) for c in calls] == EXPECTED_CALLS
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP  # type: ignore


async def test_the_openai_and_anthropic_apis_are_still_served() -> None:
    app = create_proxy_app(load_serve_config({"replay_pace": 0.0}, env={}))
    request = {**KIMI.request, "model": "kimi_k2-reasoning-two-calls"}
    messages = {
        "model": "kimi_k2-reasoning-two-calls",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "go"}],
    }
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://t"
    ) as http:
        chat = await http.post("/v1/chat/completions", json=request)
        anthropic = await http.post("/v1/messages", json=messages)
    assert chat.status_code == 200 and b'"tool_calls"' in chat.content
    assert anthropic.status_code == 200 and anthropic.json()["type"] == "message"


def upstream(seen: list[httpx.Request]) -> httpx.MockTransport:
    async def body(data: bytes) -> AsyncIterator[bytes]:
        yield data

    async def handler(request: httpx.Request) -> httpx.Response:
        await request.aread()
        seen.append(request)
        if request.url.path == "/v1/models":
            listing = orjson.dumps({"object": "list", "data": [{"id": "kimi"}]})
            return httpx.Response(
                200, headers={"content-type": "application/json"}, content=body(listing)
            )
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=body(KIMI.body)
        )

    return httpx.MockTransport(handler)


async def test_config_file_gemini_table_and_the_upstream_request(tmp_path: Path) -> None:
    """The gemini-cli setup of docs/gemini.md: the [gemini] table maps every Gemini model id to the
    upstream model and adds upstream_fields; the SDK's key reaches the upstream as Bearer."""
    config = tmp_path / "toolcall.toml"
    config.write_text(
        '[gemini]\nmodel_map = { "gemini-*" = "moonshotai/Kimi-K2-Instruct" }\n'
        'default_model = "moonshotai/Kimi-K2-Instruct"\n'
        "upstream_fields = { skip_special_tokens = false }\n"
    )
    seen: list[httpx.Request] = []
    serve = load_serve_config({"upstream": "http://model.test:8000"}, env={}, config_file=config)
    app = create_proxy_app(serve, transport=upstream(seen))
    response = await sdk_client(app, "v1beta").aio.models.generate_content(
        model="gemini-3-flash-preview", contents="go", config=CONFIG
    )
    assert [(c.id, c.args) for c in response.function_calls or ()] == EXPECTED_CALLS
    (request,) = seen
    assert str(request.url) == "http://model.test:8000/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer test-key"  # the SDK's x-goog-api-key
    assert "x-goog-api-key" not in request.headers
    sent = orjson.loads(request.content)
    assert sent["model"] == "moonshotai/Kimi-K2-Instruct" and sent["skip_special_tokens"] is False
    # An OpenAI client's GET /v1/models still reaches the upstream.
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://t"
    ) as http:
        listing = await http.get("/v1/models", headers={"authorization": "Bearer x"})
    assert listing.json()["data"] == [{"id": "kimi"}]


async def test_environment_wins_over_the_gemini_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "toolcall.toml"
    config.write_text('[gemini]\ndefault_model = "from-file"\n')
    monkeypatch.setenv("TOOLCALL_GEMINI_DEFAULT_MODEL", "from-env")
    seen: list[httpx.Request] = []
    serve = load_serve_config({"upstream": "http://model.test:8000"}, env={}, config_file=config)
    client = sdk_client(create_proxy_app(serve, transport=upstream(seen)))
    await client.aio.models.generate_content(model="gemini-2.5-pro", contents="go", config=CONFIG)
    assert orjson.loads(seen[0].content)["model"] == "from-env"


def test_a_bad_gemini_table_stops_serve_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "toolcall.toml"
    config.write_text("[gemini]\nmodel_mapp = {}\n")
    with pytest.raises(ConfigError, match="model_mapp"):
        create_proxy_app(load_serve_config({}, env={}, config_file=config))
    assert main(["serve", "--config", str(config), "--port", "1"]) == 2
    assert "unknown [gemini] option(s): model_mapp" in capsys.readouterr().err
    config.write_text("[gemini]\ncontext_scale = -1\n")
    with pytest.raises(ConfigError, match="context_scale"):
        create_proxy_app(load_serve_config({}, env={}, config_file=config))
