"""Request translation: one test per rule, on the sans-I/O ``translate_request``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolcall_middleware.fronts.anthropic import RequestOptions, translate_request
from toolcall_middleware.fronts.anthropic.request_messages import ERROR_PREFIX, IMAGE_NOTE
from toolcall_middleware.fronts.anthropic.thinking import SIGNATURE
from toolcall_middleware.fronts.core.ids import encode
from toolcall_middleware.fronts.core.models import map_model

from .helpers import base_request, user


def body(**extra: Any) -> dict[str, Any]:
    return translate_request(base_request(**extra)).body


def messages(msgs: list[dict[str, Any]], **extra: Any) -> list[dict[str, Any]]:
    return body(messages=msgs, **extra)["messages"]


def tool_turn(tool_id: str = "toolu_1", name: str = "bash", args: Any = None) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": args or {}}],
    }


def result(tool_id: str = "toolu_1", content: Any = "ok", **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **extra}


def test_minimal_request() -> None:
    assert body() == {
        "model": "claude-sonnet-4-6",
        "max_tokens": 256,
        "messages": [{"role": "user", "content": "hi"}],
    }


def test_system_string() -> None:
    assert messages([user("hi")], system="Be brief.")[0] == {
        "role": "system",
        "content": "Be brief.",
    }


def test_system_blocks_joined_and_cache_control_dropped() -> None:
    system = [
        {"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Use tools."},
    ]
    assert messages([user("hi")], system=system)[0] == {
        "role": "system",
        "content": "You are Claude Code.\nUse tools.",
    }


def test_system_role_inside_messages_joins_the_leading_system_message() -> None:
    """Claude Code 2.1 sends a system message after the first user turn; chat templates such
    as Qwen3's reject a system message that is not first."""
    msgs = [user("a"), {"role": "system", "content": [{"type": "text", "text": "note"}]}, user("b")]
    out = messages(msgs, system="Be brief.")
    assert [m["role"] for m in out] == ["system", "user", "user"]
    assert out[0]["content"] == "Be brief.\n\nnote"
    assert [m["role"] for m in messages(msgs)] == ["system", "user", "user"]


def test_system_role_inside_messages_as_a_user_message_by_option() -> None:
    msgs = [user("a"), {"role": "system", "content": "note"}, user("b")]
    doc = base_request(messages=msgs, system="Be brief.")
    out = translate_request(doc, RequestOptions(mid_system="user")).body
    assert out["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "a"},
        {"role": "user", "content": "[system]\nnote"},
        {"role": "user", "content": "b"},
    ]


def test_text_and_image_blocks() -> None:
    content = [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
        {"type": "text", "text": "What is this?"},
    ]
    assert messages([{"role": "user", "content": content}])[0]["content"] == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
        {"type": "text", "text": "What is this?"},
    ]


def test_single_text_block_becomes_a_string() -> None:
    msgs = [{"role": "user", "content": [{"type": "text", "text": "hello"}]}]
    assert messages(msgs)[0]["content"] == "hello"


def test_text_document_becomes_text() -> None:
    doc = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}}
    assert messages([{"role": "user", "content": [doc]}])[0]["content"] == "x"


def test_tool_use_becomes_tool_calls_with_json_arguments() -> None:
    msgs = [
        user("list"),
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Listing."},
                {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls ü"}},
            ],
        },
        {"role": "user", "content": [result()]},
    ]
    assistant = messages(msgs)[1]
    assert assistant == {
        "role": "assistant",
        "content": "Listing.",
        "tool_calls": [
            {
                "id": "toolu_1",
                "type": "function",
                "function": {"name": "bash", "arguments": '{"command": "ls ü"}'},
            }
        ],
    }
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"command": "ls ü"}


def test_tool_only_assistant_message_has_null_content() -> None:
    msgs = [user("go"), tool_turn(), {"role": "user", "content": [result()]}]
    assert messages(msgs)[1]["content"] is None


def test_tool_results_become_tool_messages_before_the_user_text() -> None:
    msgs = [
        user("go"),
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_a", "name": "bash", "input": {}},
                {"type": "tool_use", "id": "toolu_b", "name": "bash", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "here you go"},
                result("toolu_b", "B"),
                result("toolu_a", [{"type": "text", "text": "A1"}, {"type": "text", "text": "A2"}]),
            ],
        },
    ]
    out = messages(msgs)
    assert out[2:] == [
        {"role": "tool", "tool_call_id": "toolu_b", "content": "B"},
        {"role": "tool", "tool_call_id": "toolu_a", "content": "A1\nA2"},
        {"role": "user", "content": "here you go"},
    ]


def test_tool_result_is_error_prefixes_the_text() -> None:
    msgs = [
        user("go"),
        tool_turn(),
        {"role": "user", "content": [result(content="boom", is_error=True)]},
    ]
    assert messages(msgs)[-1] == {
        "role": "tool",
        "tool_call_id": "toolu_1",
        "content": ERROR_PREFIX + "boom",
    }


def test_tool_result_without_content_is_empty_text() -> None:
    block = {"type": "tool_result", "tool_use_id": "toolu_1"}
    msgs = [user("go"), tool_turn(), {"role": "user", "content": [block]}]
    assert messages(msgs)[-1]["content"] == ""


def test_images_inside_a_tool_result_go_to_a_following_user_message() -> None:
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "QQ=="},
    }
    content = [
        result(content=[{"type": "text", "text": "screenshot:"}, image]),
        {"type": "text", "text": "and?"},
    ]
    out = messages([user("go"), tool_turn(), {"role": "user", "content": content}])
    assert out[2] == {
        "role": "tool",
        "tool_call_id": "toolu_1",
        "content": "screenshot:\n" + IMAGE_NOTE,
    }
    assert out[3] == {
        "role": "user",
        "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,QQ=="}},
            {"type": "text", "text": "and?"},
        ],
    }


def test_mapped_tool_ids_map_back_to_the_upstream_id() -> None:
    client_id = encode("functions.bash:0")
    assert client_id != "functions.bash:0"
    msgs = [user("go"), tool_turn(client_id), {"role": "user", "content": [result(client_id)]}]
    out = messages(msgs)
    assert out[1]["tool_calls"][0]["id"] == "functions.bash:0"
    assert out[2]["tool_call_id"] == "functions.bash:0"


def test_our_thinking_becomes_reasoning_content_without_signature() -> None:
    msgs = [
        user("q"),
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": SIGNATURE},
                {"type": "text", "text": "answer"},
            ],
        },
        user("more"),
    ]
    assert messages(msgs)[1] == {
        "role": "assistant",
        "content": "answer",
        "reasoning_content": "hmm",
    }


def test_thinking_history_drop_option() -> None:
    doc = base_request(
        messages=[
            user("q"),
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": SIGNATURE},
                    {"type": "text", "text": "a"},
                ],
            },
            user("more"),
        ]
    )
    out = translate_request(doc, RequestOptions(thinking_history="drop")).body["messages"]
    assert out[1] == {"role": "assistant", "content": "a"}


def test_foreign_and_redacted_thinking_are_dropped() -> None:
    msgs = [
        user("q"),
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": "from real Claude",
                    "signature": "EqQBCkYIARgCKkB...",
                },
                {"type": "redacted_thinking", "data": "abc"},
                {"type": "text", "text": "a"},
            ],
        },
        user("more"),
    ]
    assert messages(msgs)[1] == {"role": "assistant", "content": "a"}


def test_tools_translated_with_schema_cleaning() -> None:
    tools = [
        {
            "name": "fetch",
            "description": "Fetch a URL",
            "input_schema": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {
                    "url": {"type": "string", "format": "uri"},
                    "format": {"type": "string", "enum": ["md", "html"]},
                    "when": {"type": "string", "format": "date-time"},
                },
                "required": ["url"],
                "additionalProperties": False,
            },
            "cache_control": {"type": "ephemeral"},
        }
    ]
    assert body(tools=tools)["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "fetch",
                "description": "Fetch a URL",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "url": {"type": "string"},
                        "format": {"type": "string", "enum": ["md", "html"]},
                        "when": {"type": "string", "format": "date-time"},
                    },
                    "required": ["url"],
                    "additionalProperties": False,
                },
            },
        }
    ]


TOOLS = [{"name": "bash", "input_schema": {"type": "object"}}]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ({"type": "auto"}, {"tool_choice": "auto"}),
        ({"type": "any"}, {"tool_choice": "required"}),
        ({"type": "none"}, {"tool_choice": "none"}),
        (
            {"type": "tool", "name": "bash"},
            {"tool_choice": {"type": "function", "function": {"name": "bash"}}},
        ),
        (
            {"type": "auto", "disable_parallel_tool_use": True},
            {"tool_choice": "auto", "parallel_tool_calls": False},
        ),
    ],
)
def test_tool_choice(choice: dict[str, Any], expected: dict[str, Any]) -> None:
    out = body(tools=TOOLS, tool_choice=choice)
    assert {k: out[k] for k in ("tool_choice", "parallel_tool_calls") if k in out} == expected


def test_tool_choice_without_tools_is_not_sent() -> None:
    assert "tool_choice" not in body(tool_choice={"type": "auto"})


def test_sampling_and_stop_parameters() -> None:
    out = body(temperature=0.2, top_p=0.9, top_k=40, stop_sequences=["END", "STOP"])
    assert (out["temperature"], out["top_p"], out["top_k"], out["stop"]) == (
        0.2,
        0.9,
        40,
        ["END", "STOP"],
    )
    assert translate_request(base_request(stop_sequences=["END"])).stop_sequences == ("END",)


def test_stream_requests_usage_upstream() -> None:
    out = body(stream=True)
    assert out["stream"] is True and out["stream_options"] == {"include_usage": True}
    assert "stream" not in body(stream=False)


def test_ignored_fields_do_not_reach_the_upstream() -> None:
    out = body(
        metadata={"user_id": "u"},
        thinking={"type": "enabled", "budget_tokens": 1024},
        service_tier="auto",
    )
    assert set(out) == {"model", "max_tokens", "messages"}


def test_model_map_exact_then_patterns_then_unchanged() -> None:
    model_map = {"claude-opus-4": "big", "claude-*haiku*": "small", "claude-*": "default"}
    assert map_model("claude-opus-4", model_map) == "big"
    assert map_model("claude-3-5-haiku-latest", model_map) == "small"
    assert map_model("claude-sonnet-4-6", model_map) == "default"
    assert map_model("gpt-4o", model_map) == "gpt-4o"
    chat = translate_request(base_request(), RequestOptions(model_map=model_map))
    assert chat.body["model"] == "default" and chat.model == "claude-sonnet-4-6"


def test_count_only_needs_no_max_tokens() -> None:
    doc = {"model": "m", "messages": [user("hello there")]}
    chat = translate_request(doc, count_only=True)
    assert chat.input_tokens > 0 and "max_tokens" not in chat.body


def test_content_document_and_search_result_become_text() -> None:
    doc = {
        "type": "document",
        "source": {"type": "content", "content": [{"type": "text", "text": "p1"}]},
    }
    search = {
        "type": "search_result",
        "source": "https://docs.example/a",
        "title": "A",
        "content": [{"type": "text", "text": "snippet"}],
    }
    msgs = [user("go"), tool_turn(), {"role": "user", "content": [result(content=[search]), doc]}]
    out = messages(msgs)
    assert out[2]["content"] == "A\nhttps://docs.example/a\nsnippet"
    assert out[3] == {"role": "user", "content": "p1"}
