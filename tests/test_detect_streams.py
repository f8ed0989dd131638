"""Repairs on defaults: under provider="auto" the model name chooses a family and the stream's
markers the format in it, through the middleware as a client meets it."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from helpers import body_app, chunk, message_of, request_json, sdk_client, sse, through
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.completion import completion_from_sse
from toolcall_middleware.parsers import formats

pytestmark = pytest.mark.anyio

BASH = [("bash", '{"command": "ls -la"}')]
CODER = formats()["qwen3_coder"].write_calls(BASH)  # type: ignore[misc]
HERMES = formats()["hermes"].write_calls(BASH)  # type: ignore[misc]
TAGS = formats()["qwen_xml"].write_calls(BASH)  # type: ignore[misc]


def deltas(text: str, size: int = 3) -> list[str]:
    """``text`` cut the way a detokenizer sends it: a few characters at a time."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def stream_of(text: str, model: str) -> bytes:
    chunks = [chunk({"content": piece}, model=model) for piece in deltas(text)]
    return sse(*chunks, chunk({}, "stop", model=model), "[DONE]")


async def repaired(text: str, model: str, **options: Any) -> tuple[dict[str, Any], str]:
    """The message and finish_reason a client assembles from a stream of ``text``."""
    app = ToolCallMiddleware(body_app([stream_of(text, model)]), metrics=False, **options)
    completion = completion_from_sse(await through(app, request_json(model=model)))
    return message_of(completion), completion["choices"][0]["finish_reason"]


def calls(message: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or []
    ]


@pytest.mark.parametrize("model", ["qwen3", "qwen3-max", "Qwen/Qwen3-235B-A22B", "my-coder"])
async def test_qwen3_coder_xml_is_repaired_whatever_the_qwen_name(model: str) -> None:
    message, finish = await repaired(f"Listing.\n{CODER}", model)
    assert calls(message) == [("bash", {"command": "ls -la"})]
    assert (message["content"], finish) == ("Listing.\n", "tool_calls")


async def test_hermes_json_under_a_qwen3_coder_name() -> None:
    message, finish = await repaired(f"Listing.\n{HERMES}", "qwen3-coder-plus")
    assert calls(message) == [("bash", {"command": "ls -la"})]
    assert (message["content"], finish) == ("Listing.\n", "tool_calls")


@pytest.mark.parametrize("model", ["qwen3-max", "kimi-k2", "deepseek-chat", "gpt-4o"])
async def test_tool_tags_are_repaired_whatever_the_name(model: str) -> None:
    message, finish = await repaired(f"I'll list it.\n\n{TAGS}", model)
    assert calls(message) == [("bash", {"command": "ls -la"})]
    assert (message["content"], finish) == ("I'll list it.\n\n", "tool_calls")


async def test_an_explicit_provider_still_reads_only_its_format() -> None:
    message, finish = await repaired(f"Listing.\n{CODER}", "qwen3", provider="hermes")
    assert (message["content"], message.get("tool_calls"), finish) == (
        f"Listing.\n{CODER}",
        None,
        "stop",
    )
    overridden = {"qwen3": "hermes"}  # the override map is as explicit
    message, _ = await repaired(f"Listing.\n{CODER}", "qwen3", provider_overrides=overridden)
    assert message.get("tool_calls") is None


async def test_an_html_answer_beside_a_tool_named_table_comes_out_as_it_came() -> None:
    text = "The page:\n\n```html\n<table>\n  <tr><td>1</td></tr>\n</table>\n```\nDone."
    stream = stream_of(text, "qwen3-max")
    app = ToolCallMiddleware(body_app([stream]), metrics=False)
    body = request_json(model="qwen3-max", tools=("table", "bash"))
    out = await through(app, body)
    assert out == stream  # byte for byte: nothing in it was markup


async def test_the_openai_sdk_assembles_the_call_of_a_short_qwen_name() -> None:
    app = ToolCallMiddleware(body_app([stream_of(f"Listing.\n{CODER}", "qwen3")]), metrics=False)
    async with sdk_client(app) as client:
        request = orjson.loads(request_json(model="qwen3"))
        async with client.chat.completions.stream(
            model="qwen3", messages=request["messages"], tools=request["tools"]
        ) as stream:
            final = await stream.get_final_completion()
    (call,) = final.choices[0].message.tool_calls or []
    assert (call.function.name, call.function.arguments) == ("bash", '{"command": "ls -la"}')
    assert final.choices[0].finish_reason == "tool_calls"


async def test_a_whole_body_is_repaired_by_family_too() -> None:
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "qwen3",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": f"Listing.\n{CODER}"},
                "finish_reason": "stop",
            }
        ],
    }
    upstream = body_app(
        [orjson.dumps(completion)], headers=[(b"content-type", b"application/json")]
    )
    app = ToolCallMiddleware(upstream, metrics=False)
    out = orjson.loads(await through(app, request_json(model="qwen3", stream=False)))
    assert calls(message_of(out)) == [("bash", {"command": "ls -la"})]
    assert out["choices"][0]["finish_reason"] == "tool_calls"
