"""Request translation and validation, one rule per test, on the sans-I/O ``translate_request``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolcall_middleware.fronts.responses import (
    RequestOptions,
    ResponsesError,
    translate_request,
)
from toolcall_middleware.fronts.responses.reasoning import encode_reasoning

SHELL = {"type": "function", "name": "shell", "parameters": {"type": "object"}}


def body(**doc: Any) -> dict[str, Any]:
    return translate_request({"model": "m", "input": "hi", **doc}).body


def messages(items: Any, **doc: Any) -> list[dict[str, Any]]:
    return body(input=items, **doc)["messages"]


def error(doc: dict[str, Any]) -> ResponsesError:
    with pytest.raises(ResponsesError) as info:
        translate_request({"model": "m", "input": "hi", **doc})
    return info.value


def test_string_input_is_one_user_message() -> None:
    assert body() == {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def test_instructions_and_developer_items_make_one_leading_system_message() -> None:
    items = [
        {"role": "developer", "content": [{"type": "input_text", "text": "permissions"}]},
        {"role": "user", "content": [{"type": "input_text", "text": "go"}]},
        {"type": "message", "role": "developer", "content": "AGENTS.md"},
        {"role": "user", "content": "again"},
    ]
    assert messages(items, instructions="You are Codex.") == [
        {"role": "system", "content": "You are Codex.\n\npermissions\n\nAGENTS.md"},
        {"role": "user", "content": "go"},
        {"role": "user", "content": "again"},
    ]
    doc = {"model": "m", "input": items, "instructions": "You are Codex."}
    out = translate_request(doc, RequestOptions(mid_system="user")).body["messages"]
    assert out[0] == {"role": "system", "content": "You are Codex.\n\npermissions"}
    assert out[2] == {"role": "user", "content": "[developer]\nAGENTS.md"}


def test_a_codex_turn_with_reasoning_calls_and_outputs() -> None:
    items = [
        {"role": "user", "content": "list"},
        {
            "type": "reasoning",
            "summary": [],
            "content": [{"type": "reasoning_text", "text": "use ls"}],
            "encrypted_content": None,
        },
        {
            "type": "function_call",
            "call_id": "functions.shell:0",
            "name": "shell",
            "arguments": '{"cmd": "ls"}',
        },
        {"type": "function_call", "call_id": "c2", "name": "shell", "arguments": ""},
        {"type": "function_call_output", "call_id": "functions.shell:0", "output": "a.txt"},
        {
            "type": "function_call_output",
            "call_id": "c2",
            "output": [
                {"type": "input_text", "text": "line 1"},
                {"type": "input_text", "text": "line 2"},
            ],
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Found a.txt"}],
        },
        {"type": "web_search_call", "id": "ws_1"},
        {"role": "user", "content": "thanks"},
    ]
    assert messages(items, tools=[SHELL]) == [
        {"role": "user", "content": "list"},
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": "use ls",
            "tool_calls": [
                {
                    "id": "functions.shell:0",
                    "type": "function",
                    "function": {"name": "shell", "arguments": '{"cmd": "ls"}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "shell", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "functions.shell:0", "content": "a.txt"},
        {"role": "tool", "tool_call_id": "c2", "content": "line 1\nline 2"},
        {"role": "assistant", "content": "Found a.txt"},
        {"role": "user", "content": "thanks"},
    ]


def test_our_encrypted_reasoning_comes_back_as_reasoning_content() -> None:
    items = [
        {"role": "user", "content": "x"},
        {"type": "reasoning", "summary": [], "encrypted_content": encode_reasoning("plan")},
        {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA-foreign"},
        {"role": "assistant", "content": "ok"},
    ]
    assert messages(items)[1] == {"role": "assistant", "content": "ok", "reasoning_content": "plan"}


def test_custom_and_namespaced_calls_in_history() -> None:
    items = [
        {"role": "user", "content": "patch"},
        {
            "type": "custom_tool_call",
            "call_id": "p1",
            "name": "apply_patch",
            "input": "*** Begin Patch",
        },
        {
            "type": "function_call",
            "call_id": "p2",
            "name": "read",
            "namespace": "mcp__fs",
            "arguments": "{}",
        },
        {"type": "custom_tool_call_output", "call_id": "p1", "output": "done"},
        {"type": "function_call_output", "call_id": "p2", "output": "text"},
    ]
    calls = messages(items)[1]["tool_calls"]
    assert [c["function"] for c in calls] == [
        {"name": "apply_patch", "arguments": json.dumps({"input": "*** Begin Patch"})},
        {"name": "mcp__fs__read", "arguments": "{}"},
    ]


def test_images_of_tool_outputs_follow_in_one_user_message() -> None:
    image = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}
    items = [
        {"role": "user", "content": "look"},
        {"type": "function_call", "call_id": "c1", "name": "view", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": [{"type": "input_text", "text": "here"}, image],
        },
    ]
    out = messages(items)
    assert out[2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "here\n[image attached in the next message]",
    }
    assert out[3] == {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}],
    }


def test_images_of_tool_outputs_survive_a_developer_item_after_them() -> None:
    image = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}
    items = [
        {"role": "user", "content": "look"},
        {"type": "function_call", "call_id": "c1", "name": "view", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": [image]},
        {"role": "developer", "content": "note"},
        {"role": "user", "content": "and?"},
    ]
    out = messages(items)
    assert [m["role"] for m in out] == ["system", "user", "assistant", "tool", "user", "user"]
    assert out[4]["content"][0]["type"] == "image_url"


def test_user_images_with_detail() -> None:
    content = [
        {"type": "input_text", "text": "what"},
        {"type": "input_image", "image_url": "https://x/y.png", "detail": "low"},
    ]
    assert messages([{"role": "user", "content": content}])[0]["content"] == [
        {"type": "text", "text": "what"},
        {"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "low"}},
    ]


def test_tools_flat_custom_namespace_and_hosted() -> None:
    tools = [
        {
            "type": "function",
            "name": "shell",
            "description": "Run",
            "parameters": None,
            "strict": False,
        },
        {
            "type": "custom",
            "name": "apply_patch",
            "description": "Patch.",
            "format": {"type": "grammar", "syntax": "lark", "definition": "start: x"},
        },
        {
            "type": "namespace",
            "name": "mcp__fs",
            "tools": [
                {
                    "type": "function",
                    "name": "read",
                    "parameters": {
                        "$schema": "http://json-schema.org/draft-07/schema#",
                        "type": "object",
                        "properties": {"uri": {"type": "string", "format": "uri"}},
                    },
                }
            ],
        },
        {"type": "web_search"},
        {"type": "local_shell"},
    ]
    out = body(tools=tools, tool_choice="auto", parallel_tool_calls=True)
    functions = [t["function"] for t in out["tools"]]
    assert functions[0] == {
        "name": "shell",
        "description": "Run",
        "strict": False,
        "parameters": {"type": "object", "properties": {}},
    }
    assert functions[1]["name"] == "apply_patch"
    assert functions[1]["parameters"]["required"] == ["input"]
    assert "start: x" in functions[1]["description"]
    assert functions[2] == {
        "name": "mcp__fs__read",
        "parameters": {"type": "object", "properties": {"uri": {"type": "string"}}},
    }
    assert (out["tool_choice"], out["parallel_tool_calls"]) == ("auto", True)


def test_only_hosted_tools_leave_no_tools_and_no_tool_choice() -> None:
    out = body(tools=[{"type": "web_search"}], tool_choice="auto", parallel_tool_calls=False)
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(out)


def test_tool_choice_forms() -> None:
    tools = [SHELL, {"type": "function", "name": "read"}]
    assert body(tools=tools, tool_choice={"type": "function", "name": "read"})["tool_choice"] == {
        "type": "function",
        "function": {"name": "read"},
    }
    out = body(
        tools=tools,
        tool_choice={
            "type": "allowed_tools",
            "mode": "required",
            "tools": [{"type": "function", "name": "read"}],
        },
    )
    assert out["tool_choice"] == "required"
    assert [t["function"]["name"] for t in out["tools"]] == ["read"]


def test_other_fields() -> None:
    out = body(
        max_output_tokens=100,
        temperature=0.5,
        top_p=0.9,
        reasoning={"effort": "xhigh"},
        text={
            "format": {
                "type": "json_schema",
                "name": "r",
                "schema": {"type": "object"},
                "strict": True,
            }
        },
        stream=True,
        store=False,
        include=["reasoning.encrypted_content"],
        prompt_cache_key="k",
        metadata={"a": "b"},
        safety_identifier="u1",
    )
    assert out["max_tokens"] == 100 and out["reasoning_effort"] == "high"
    assert (out["temperature"], out["top_p"], out["user"]) == (0.5, 0.9, "u1")
    assert out["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "r", "schema": {"type": "object"}, "strict": True},
    }
    assert out["stream"] is True and out["stream_options"] == {"include_usage": True}
    assert "reasoning_effort" not in body(reasoning={"effort": "none"})


def test_model_map_and_upstream_fields() -> None:
    options = RequestOptions(
        model_map={"gpt-*": "kimi"},
        default_model=None,
        upstream_fields={"skip_special_tokens": False},
    )
    out = translate_request({"model": "gpt-5-codex", "input": "x"}, options)
    assert out.body["model"] == "kimi" and out.body["skip_special_tokens"] is False
    assert out.model == "gpt-5-codex"


@pytest.mark.parametrize(
    ("doc", "param", "words"),
    [
        ({"model": 3}, "model", "field required"),
        ({"input": 5}, "input", "a string or a list"),
        (
            {"input": [{"role": "user", "content": [{"type": "input_file", "file_id": "f"}]}]},
            "input[0].content[0].type",
            "input_file",
        ),
        (
            {"input": [{"role": "user", "content": [{"type": "input_image", "file_id": "f"}]}]},
            "input[0].content[0].image_url",
            "file_id is not supported",
        ),
        (
            {"input": [{"role": "user", "content": [{"type": "input_audio"}]}]},
            "input[0].content[0].type",
            "input_audio",
        ),
        ({"input": [{"role": "wizard", "content": "x"}]}, "input[0].role", "must be"),
        ({"input": [{"type": "item_reference", "id": "msg_1"}]}, "input[0].type", "stored"),
        (
            {
                "input": [
                    {"role": "user", "content": "x"},
                    {"type": "function_call_output", "call_id": "nope", "output": "x"},
                ]
            },
            "input[1].call_id",
            "nope",
        ),
        (
            {
                "input": [
                    {"role": "user", "content": "x"},
                    {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                ]
            },
            "input",
            "c1",
        ),
        (
            {
                "input": [
                    {"role": "user", "content": "x"},
                    {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                    {"role": "user", "content": "y"},
                ]
            },
            "input",
            "c1",
        ),
        (
            {"input": [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": 1}]},
            "input[0].arguments",
            "string",
        ),
        ({"temperature": "hot"}, "temperature", "number"),
        ({"max_output_tokens": 0}, "max_output_tokens", "integer"),
        ({"stream": "yes"}, "stream", "boolean"),
        ({"instructions": ["a"]}, "instructions", "string"),
        ({"tools": [{"type": "function"}]}, "tools[0].name", "field required"),
        ({"tools": [{"type": "bogus", "name": "x"}]}, "tools[0].type", "bogus"),
        ({"tools": [SHELL, SHELL]}, "tools[1].name", "unique"),
        (
            {
                "tools": [
                    {
                        "type": "namespace",
                        "name": "a",
                        "tools": [{"type": "function", "name": "b"}],
                    },
                    {"type": "function", "name": "a__b"},
                ]
            },
            "tools[1].name",
            "unique",
        ),
        (
            {"tools": [SHELL], "tool_choice": {"type": "function", "name": "other"}},
            "tool_choice.name",
            "other",
        ),
        (
            {"tools": [{"type": "web_search"}], "tool_choice": {"type": "web_search"}},
            "tool_choice",
            "hosted",
        ),
        ({"text": {"format": {"type": "yaml"}}}, "text.format.type", "json_schema"),
        ({"reasoning": {"effort": "extreme"}}, "reasoning.effort", "extreme"),
        ({"background": True}, "background", "not supported"),
        ({"conversation": "conv_1"}, "conversation", "not supported"),
        ({"prompt": {"id": "p"}}, "prompt", "not supported"),
        ({"include": "everything"}, "include", "list"),
    ],
)
def test_bad_requests_name_the_field(doc: dict[str, Any], param: str, words: str) -> None:
    exc = error(doc)
    assert (exc.status, exc.type, exc.param) == (400, "invalid_request_error", param)
    assert words in exc.message and exc.message.startswith(param)


def test_previous_response_id_is_not_found() -> None:
    exc = error({"previous_response_id": "resp_1"})
    assert exc.body()["error"] == {
        "message": "previous_response_id is not supported by this stateless server; send the "
        "whole conversation in input",
        "type": "invalid_request_error",
        "param": "previous_response_id",
        "code": "previous_response_not_found",
    }
