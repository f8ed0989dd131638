"""``upstream_fields`` through a real ``toolcall serve`` process on loopback: the environment and
config file forms reach the upstream on the chat path and through the API fronts; bad values
stop ``serve`` at start with exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import orjson
import pytest
from fake_upstream import MODEL, FakeUpstream
from servers import free_port

from toolcall_middleware.config import ConfigError, load_serve_config

TOOLS: Any = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLCALL_")}
    return {**env, **extra}


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "toolcall_middleware.cli", "serve", *args]


@contextmanager
def toolcall_serve(upstream: str, tmp_path: Path, *args: str, **env: str) -> Iterator[str]:
    """``toolcall serve`` in its own process in front of ``upstream``; yields its base URL."""
    port = free_port()
    with open(tmp_path / "serve.log", "wb") as log:
        process = subprocess.Popen(
            serve_command("--upstream", upstream, "--port", str(port), *args),
            env=clean_env(**env),
            stdout=log,
            stderr=log,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "toolcall serve did not start"
            time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(15)


def upstream_bodies(upstream: FakeUpstream, since: int) -> list[dict[str, Any]]:
    with upstream.seen.lock:
        requests = upstream.seen.requests[since:]
    return [orjson.loads(r["body"]) for r in requests if r["path"] == "/v1/chat/completions"]


def through_chat_and_messages(url: str, upstream: FakeUpstream) -> list[dict[str, Any]]:
    """One chat completion (openai SDK) and one Messages request (anthropic SDK) through the
    proxy; the bodies the upstream got. Both clients get the recording's two repaired calls."""
    since = len(upstream.seen.requests)
    chat = openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0)
    with chat.chat.completions.stream(
        model=MODEL, tools=TOOLS, messages=[{"role": "user", "content": "Find the asm headers"}]
    ) as events:
        final = events.get_final_completion()
    assert len(final.choices[0].message.tool_calls or ()) == 2
    messages = anthropic.Anthropic(base_url=url, api_key="k", max_retries=0)
    message = messages.messages.create(
        model="claude-any",
        max_tokens=256,
        tools=[{"name": "bash", "input_schema": {"type": "object"}}],
        messages=[{"role": "user", "content": "Find the asm headers"}],
    )
    assert [b.type for b in message.content].count("tool_use") == 2
    return upstream_bodies(upstream, since)


def test_environment_form(upstream: FakeUpstream, tmp_path: Path) -> None:
    with toolcall_serve(
        upstream.url,
        tmp_path,
        TOOLCALL_UPSTREAM_FIELDS='{"skip_special_tokens": false, "top_k": 1}',
        TOOLCALL_UPSTREAM_FIELDS_BY_MODEL='{"moonshotai/Kimi-*": {"top_k": 20}}',
        TOOLCALL_ANTHROPIC_MODEL_MAP=f"claude-*={MODEL}",
    ) as url:
        chat, messages = through_chat_and_messages(url, upstream)
    for body in (chat, messages):
        assert body["model"] == MODEL
        assert body["skip_special_tokens"] is False and body["top_k"] == 20


CONFIG = f"""
[upstream_fields]
skip_special_tokens = false
max_tokens = 1000

[upstream_fields_by_model."moonshotai/Kimi-*"]
chat_template_kwargs = {{ thinking = true }}

[anthropic]
model_map = {{ "claude-*" = "{MODEL}" }}
upstream_fields = {{ max_tokens = 64 }}
"""


def test_config_file_form(upstream: FakeUpstream, tmp_path: Path) -> None:
    path = tmp_path / "toolcall.toml"
    path.write_text(CONFIG)
    with toolcall_serve(upstream.url, tmp_path, "--config", str(path)) as url:
        chat, messages = through_chat_and_messages(url, upstream)
    for body in (chat, messages):
        assert body["skip_special_tokens"] is False
        assert body["chat_template_kwargs"] == {"thinking": True}
    assert chat["max_tokens"] == 1000
    assert messages["max_tokens"] == 64  # the [anthropic] table's own value wins for its API


@pytest.mark.parametrize(
    ("file", "env", "message"),
    [
        (
            "",
            {"TOOLCALL_UPSTREAM_FIELDS": "{skip_special_tokens: false}"},
            "TOOLCALL_UPSTREAM_FIELDS is not valid JSON",
        ),
        (
            "",
            {"TOOLCALL_UPSTREAM_FIELDS": '["skip_special_tokens"]'},
            "TOOLCALL_UPSTREAM_FIELDS must be an object of request fields",
        ),
        (
            "[upstream_fields]\nstream = false\n",
            {},
            "config option upstream_fields cannot set stream",
        ),
        (
            'upstream_fields = "skip_special_tokens"\n',
            {},
            "config option upstream_fields must be an object",
        ),
        (
            '[upstream_fields_by_model]\n"kimi-*" = "no"\n',
            {},
            "config option upstream_fields_by_model must map model names or patterns",
        ),
        (
            '[upstream_fields_by_model."kimi-*"]\nmodel = "x"\n',
            {},
            "upstream_fields_by_model ['kimi-*'] cannot set model",
        ),
    ],
)
def test_bad_values_stop_serve_with_status_2(
    tmp_path: Path, file: str, env: dict[str, str], message: str
) -> None:
    path = tmp_path / "toolcall.toml"
    path.write_text(file)
    result = subprocess.run(
        serve_command("--config", str(path), "--port", str(free_port())),
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stderr.strip().count("\n") == 0  # one line, no traceback


def test_environment_replaces_the_file_table_whole(tmp_path: Path) -> None:
    path = tmp_path / "toolcall.toml"
    path.write_text(CONFIG)
    env = {"TOOLCALL_UPSTREAM_FIELDS": '{"top_k": 5}'}
    options = load_serve_config({}, env=env, config_file=path).options
    assert options.upstream_fields == {"top_k": 5}
    assert options.upstream_fields_by_model == {
        "moonshotai/Kimi-*": {"chat_template_kwargs": {"thinking": True}}
    }
    # A bad table in the file is refused even when the environment overrides it.
    path.write_text("[upstream_fields]\nmessages = []\n")
    with pytest.raises(ConfigError, match="upstream_fields cannot set messages"):
        load_serve_config({}, env=env, config_file=path)
