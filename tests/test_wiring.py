"""Options that reach the parsers through the middleware: unknown_tools, id styles, replay."""

from __future__ import annotations

import json
import re

import pytest

from helpers import body_app, chunk, message_of, request_json, sse, through
from toolcall_middleware import ConfigError, Options, ToolCallMiddleware
from toolcall_middleware.cli import main
from toolcall_middleware.completion import completion_from_sse

pytestmark = pytest.mark.anyio

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
TWO = (
    f'Hi.{SB}{CB}functions.bash:0{AB}{{"command": "ls"}}{CE}'
    f'{CB}functions.rm_rf:1{AB}{{"path": "/"}}{CE}{SE}'
)
STREAM = sse(chunk({"content": TWO}), chunk({}, "stop"), "[DONE]")


async def calls_with(**options: object) -> tuple[list[str], str]:
    app = ToolCallMiddleware(body_app([STREAM]), provider="kimi_k2", **options)
    message = message_of(completion_from_sse(await through(app, request_json(tools=["bash"]))))
    return [c["function"]["name"] for c in message.get("tool_calls") or []], message["content"]


async def test_unknown_tools_are_forwarded_by_default() -> None:
    assert await calls_with() == (["bash", "rm_rf"], "Hi.")


async def test_unknown_tools_drop() -> None:
    assert await calls_with(unknown_tools="drop") == (["bash"], "Hi.")


async def test_unknown_tools_as_text() -> None:
    names, content = await calls_with(unknown_tools="text")
    assert names == ["bash"]
    assert content.startswith("Hi.")
    assert json.loads(content[3:]) == {"name": "rm_rf", "arguments": {"path": "/"}}


def test_unknown_tools_option_is_validated() -> None:
    with pytest.raises(ConfigError, match="unknown_tools"):
        Options(unknown_tools="ignore")  # type: ignore[arg-type]
    assert Options.from_env({"TOOLCALL_UNKNOWN_TOOLS": "drop"}).unknown_tools == "drop"


async def test_mistral_markup_found_by_sniffing_gets_mistral_ids() -> None:
    text = '[TOOL_CALLS]bash{"command": "ls"}'
    stream = sse(chunk({"content": text}, model="my-model"), chunk({}, "stop"), "[DONE]")
    app = ToolCallMiddleware(body_app([stream]))  # auto: the name says nothing, so sniff
    message = message_of(completion_from_sse(await through(app, request_json(model="my-model"))))
    (call,) = message["tool_calls"]
    assert re.fullmatch(r"[A-Za-z0-9]{9}", call["id"])
    assert call["function"]["arguments"] == '{"command": "ls"}'


def test_replay_uses_the_provider_a_recording_names(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    assert main(["replay", "qwen_xml-content-calls", "--summary"]) == 0
    summary = json.loads(capsysbinary.readouterr().out)
    assert summary["tool_calls"], summary
    assert "<" not in (summary["content"] or "")
