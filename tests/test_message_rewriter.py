"""The non-streamed response: each choice's message rewritten in place, the finish with it."""

from __future__ import annotations

from typing import Any

from native_support import FakeReport, counter_ids
from toolcall_middleware.message_rewriter import rewrite_completion, rewrite_message
from toolcall_middleware.parsers import ParserContext, Tool, create_parser
from toolcall_middleware.think import ThinkConfig

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
TOOLS = (Tool("bash", {"properties": {"command": {}}}),)
KIMI_CALL = f'{SB}{CB}functions.bash:0{AB}{{"command": "ls"}}{CE}{SE}'


def kimi() -> Any:
    return create_parser("kimi_k2", ParserContext(TOOLS))


def completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-t",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}
        ],
    }


def test_markup_in_a_message_becomes_its_tool_calls_and_the_finish_follows() -> None:
    body = completion({"content": "Listing." + KIMI_CALL})
    captured: list[tuple[bytes, dict[str, Any]]] = []
    changed, calls = rewrite_completion(
        body, kimi, capture=lambda raw, m: captured.append((raw, dict(m)))
    )
    assert (changed, calls) == (True, 1)
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] == "Listing."
    assert choice["message"]["tool_calls"] == [
        {
            "id": "functions.bash:0",
            "type": "function",
            "function": {"name": "bash", "arguments": '{"command": "ls"}'},
        }
    ]
    assert len(captured) == 1 and b"tool_calls_section_begin" in captured[0][0]


def test_a_message_without_markup_is_left_as_it_came() -> None:
    body = completion({"content": "Just text."})
    assert rewrite_completion(body, kimi) == (False, 0)
    assert body == completion({"content": "Just text."})


def test_when_every_native_call_is_dropped_the_finish_is_stop() -> None:
    report = FakeReport()
    body = completion(
        {
            "content": "",
            "tool_calls": [{"id": "x", "type": "function", "function": {"arguments": "{}"}}],
        },
        "tool_calls",
    )
    changed, calls = rewrite_completion(body, kimi, buffered=True, report=report)
    assert (changed, calls) == (True, 0)
    assert body["choices"][0]["finish_reason"] == "stop"
    assert "tool_calls" not in body["choices"][0]["message"]
    assert report.reasons == ["missing_name"]


def test_a_think_block_in_the_content_goes_to_the_reasoning_field_the_message_uses() -> None:
    split = ThinkConfig(every=True)
    message = {"reasoning": "", "content": "<think>Then.</think>It is 4."}
    assert rewrite_message(message, kimi(), counter_ids(), think=split) == 0
    assert message == {"reasoning": "Then.", "content": "It is 4."}
    unnamed = {"content": "<think>Hmm.</think>Yes."}  # no field of its own: reasoning_content
    rewrite_message(unnamed, kimi(), counter_ids(), think=split)
    assert unnamed == {"content": "Yes.", "reasoning_content": "Hmm."}
    # Reasoning that came in its own field first: the upstream splits, the content stays.
    upstream = {"reasoning": "First.", "content": "<think>x</think>y"}
    rewrite_message(upstream, kimi(), counter_ids(), think=split)
    assert upstream == {"reasoning": "First.", "content": "<think>x</think>y"}
