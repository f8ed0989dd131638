"""The sans-I/O stream translator: OpenAI chunk dicts in, Anthropic events out. Every event
sequence here goes through the invariant checker."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcall_middleware.fronts.anthropic import StreamTranslator
from toolcall_middleware.fronts.anthropic.message import assemble, translate_completion
from toolcall_middleware.fronts.anthropic.stream import Event
from toolcall_middleware.fronts.anthropic.thinking import SIGNATURE
from toolcall_middleware.fronts.core.ids import decode
from toolcall_middleware.parsers.jsonscan import ValueEnd

from .helpers import USAGE, call_delta, check_events, chunk


def run(chunks: list[dict[str, Any]], **kw: Any) -> list[Event]:
    t = StreamTranslator("claude-x", **kw)
    events = t.start()
    for c in chunks:
        events += t.feed(c)
    events += t.finish()
    check_events(events)
    return events


def message(chunks: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    return assemble(run(chunks, **kw))


def kinds(events: list[Event]) -> list[str]:
    return [k for k, _ in events]


def test_text_only_stream() -> None:
    events = run(
        [
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Hel"}),
            chunk({"content": "lo"}),
            chunk(None, "stop"),
            chunk(usage=USAGE),
        ]
    )
    assert kinds(events) == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    msg = assemble(events)
    assert msg["content"] == [{"type": "text", "text": "Hello"}]
    assert msg["stop_reason"] == "end_turn"


def test_empty_content_never_opens_a_block() -> None:
    events = run([chunk({"role": "assistant", "content": ""}), chunk(None, "stop")])
    assert "content_block_start" not in kinds(events)


def test_thinking_then_text_with_our_signature() -> None:
    msg = message(
        [
            chunk({"reasoning_content": "Let me "}),
            chunk({"reasoning_content": "think."}),
            chunk({"content": "Done."}),
            chunk(None, "stop"),
        ]
    )
    assert msg["content"] == [
        {"type": "thinking", "thinking": "Let me think.", "signature": SIGNATURE},
        {"type": "text", "text": "Done."},
    ]


def test_reasoning_and_reasoning_content_with_the_same_text_count_once() -> None:
    msg = message(
        [
            chunk({"reasoning": "abc", "reasoning_content": "abc"}),
            chunk({"reasoning": "d"}),
            chunk(None, "stop"),
        ]
    )
    assert msg["content"][0]["thinking"] == "abcd"


def test_tool_call_streams_fragments_as_they_arrive() -> None:
    t = StreamTranslator("m")
    t.start()
    first = t.feed(chunk(call_delta(0, id="call_1", name="bash", args="")))
    assert kinds(first) == ["content_block_start"]
    assert first[0][1]["content_block"] == {
        "type": "tool_use",
        "id": "call_1",
        "name": "bash",
        "input": {},
    }
    piece = t.feed(chunk(call_delta(0, args='{"command": "l')))
    assert piece == [
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": '{"command": "l'},
            },
        )
    ]


def test_kimi_id_is_encoded_and_decodes_back() -> None:
    msg = message(
        [
            chunk(call_delta(0, id="functions.bash:0", name="bash", args='{"command": "ls"}')),
            chunk(None, "tool_calls"),
        ]
    )
    block = msg["content"][0]
    assert block["id"] != "functions.bash:0" and decode(block["id"]) == "functions.bash:0"
    assert block["input"] == {"command": "ls"}
    assert msg["stop_reason"] == "tool_use"


def test_missing_id_gets_a_generated_one() -> None:
    msg = message([chunk(call_delta(0, name="bash", args="{}")), chunk(None, "tool_calls")])
    assert msg["content"][0]["id"].startswith("toolu_")


def test_text_then_two_sequential_calls() -> None:
    msg = message(
        [
            chunk({"content": "Running."}),
            chunk(call_delta(0, id="a", name="bash", args='{"command": "ls"}')),
            chunk(call_delta(1, id="b", name="read", args='{"path": ')),
            chunk(call_delta(1, args='"x"}')),
            chunk(None, "tool_calls"),
        ]
    )
    assert [(b["type"], b.get("id"), b.get("input")) for b in msg["content"]] == [
        ("text", None, None),
        ("tool_use", "a", {"command": "ls"}),
        ("tool_use", "b", {"path": "x"}),
    ]


def test_second_call_starts_live_once_the_first_is_complete() -> None:
    t = StreamTranslator("m")
    t.start()
    t.feed(chunk(call_delta(0, id="a", name="f", args='{"x": 1}')))
    started = t.feed(chunk(call_delta(1, id="b", name="g", args="")))
    assert kinds(started) == ["content_block_stop", "content_block_start"]
    assert started[1][1]["content_block"]["id"] == "b"


def test_interleaved_parallel_calls_are_buffered_into_sequential_blocks() -> None:
    msg = message(
        [
            chunk(call_delta(0, id="a", name="f", args="")),
            chunk(call_delta(1, id="b", name="g", args="")),
            chunk(call_delta(0, args='{"x": ')),
            chunk(call_delta(1, args='{"y": ')),
            chunk(call_delta(0, args="1}")),
            chunk(call_delta(1, args="2}")),
            chunk(None, "tool_calls"),
        ]
    )
    assert [(b["id"], b["name"], b["input"]) for b in msg["content"]] == [
        ("a", "f", {"x": 1}),
        ("b", "g", {"y": 2}),
    ]


def test_buffered_call_flushes_when_the_open_call_completes() -> None:
    t = StreamTranslator("m")
    t.start()
    t.feed(chunk(call_delta(0, id="a", name="f", args='{"x": ')))
    assert t.feed(chunk(call_delta(1, id="b", name="g", args='{"y": 2}'))) == []
    out = t.feed(chunk(call_delta(0, args="1}")))
    assert kinds(out) == [
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
    ]
    assert out[3][1]["delta"]["partial_json"] == '{"y": 2}'


def test_several_entries_for_one_call_in_one_chunk() -> None:
    entries = [
        {"index": 0, "id": "a", "type": "function", "function": {"name": "f"}},
        {"index": 0, "function": {"arguments": '{"k": "v"}'}},
    ]
    msg = message([chunk({"tool_calls": entries}), chunk(None, "tool_calls")])
    assert msg["content"] == [{"type": "tool_use", "id": "a", "name": "f", "input": {"k": "v"}}]


def test_arguments_before_name_are_held() -> None:
    msg = message(
        [
            chunk(call_delta(0, args='{"a": 1}')),
            chunk(call_delta(0, id="c", name="f")),
            chunk(None, "tool_calls"),
        ]
    )
    assert msg["content"] == [{"type": "tool_use", "id": "c", "name": "f", "input": {"a": 1}}]


def test_call_without_name_is_dropped() -> None:
    t = StreamTranslator("m")
    events = (
        t.start()
        + t.feed(chunk(call_delta(0, args="{}")))
        + t.feed(chunk(None, "stop"))
        + t.finish()
    )
    check_events(events)
    assert "content_block_start" not in kinds(events) and t.dropped_calls == 1
    assert assemble(events)["stop_reason"] == "end_turn"


def test_repeated_id_and_name_are_not_duplicated() -> None:
    msg = message(
        [
            chunk(call_delta(0, id="a", name="f", args='{"q": ')),
            chunk(call_delta(0, id="a", name="f", args='"z"}')),
            chunk(None, "tool_calls"),
        ]
    )
    assert msg["content"] == [{"type": "tool_use", "id": "a", "name": "f", "input": {"q": "z"}}]


def test_shorthand_entry_and_object_arguments() -> None:
    msg = message(
        [
            chunk({"tool_calls": [{"index": 0, "id": "a", "name": "f", "arguments": {"n": 1}}]}),
            chunk(None, "tool_calls"),
        ]
    )
    assert msg["content"][0]["input"] == {"n": 1}


def test_fragments_after_a_closed_call_are_dropped() -> None:
    t = StreamTranslator("m")
    events = t.start()
    events += t.feed(chunk(call_delta(0, id="a", name="f", args='{"x": 1}')))
    events += t.feed(chunk({"content": "after"}))
    events += t.feed(chunk(call_delta(0, args='{"x": 1}')))  # a gateway resending the arguments
    events += t.feed(chunk(None, "tool_calls")) + t.finish()
    check_events(events)
    assert t.dropped_fragments == 1
    assert assemble(events)["content"][0]["input"] == {"x": 1}


def test_reasoning_after_a_call_opens_a_new_thinking_block() -> None:
    msg = message(
        [
            chunk({"reasoning_content": "first"}),
            chunk(call_delta(0, id="a", name="f", args="{}")),
            chunk({"reasoning_content": "then"}),
            chunk({"content": "ok"}),
            chunk(None, "tool_calls"),
        ]
    )
    assert [b["type"] for b in msg["content"]] == ["thinking", "tool_use", "thinking", "text"]


def test_no_argument_call() -> None:
    msg = message(
        [
            chunk(call_delta(0, id="a", name="now", args="")),
            chunk(call_delta(1, id="b", name="f", args="{}")),
            chunk(None, "tool_calls"),
        ]
    )
    assert [(b["name"], b["input"]) for b in msg["content"]] == [("now", {}), ("f", {})]


@pytest.mark.parametrize(
    ("finish", "tool", "expected"),
    [
        ("stop", False, "end_turn"),
        ("stop", True, "tool_use"),
        ("tool_calls", True, "tool_use"),
        ("length", False, "max_tokens"),
        ("length", True, "max_tokens"),
        ("content_filter", False, "refusal"),
        ("eos_token", False, "end_turn"),
        ("model_length", True, "max_tokens"),
        ("sensitive", False, "refusal"),
    ],
)
def test_stop_reason_mapping(finish: str, tool: bool, expected: str) -> None:
    chunks = [chunk({"content": "x"})]
    if tool:
        chunks.append(chunk(call_delta(0, id="a", name="f", args="{}")))
    assert message([*chunks, chunk(None, finish)])["stop_reason"] == expected


def test_stop_sequence_reported_by_vllm() -> None:
    msg = message(
        [chunk({"content": "a"}), chunk(None, "stop", stop_reason="END")], stop_sequences=("END",)
    )
    assert (msg["stop_reason"], msg["stop_sequence"]) == ("stop_sequence", "END")


def test_usage_mapping_with_cached_tokens() -> None:
    events = run([chunk({"content": "a"}), chunk(None, "stop"), chunk(usage=USAGE)], input_tokens=7)
    assert events[0][1]["message"]["usage"]["input_tokens"] == 7
    delta = next(d for k, d in events if k == "message_delta")
    assert delta["usage"] == {
        "input_tokens": 20,
        "output_tokens": 30,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 100,
    }


def test_deepseek_cache_hit_tokens() -> None:
    usage = {"prompt_tokens": 50, "completion_tokens": 5, "prompt_cache_hit_tokens": 40}
    usage_out = message([chunk({"content": "a"}), chunk(None, "stop"), chunk(usage=usage)])["usage"]
    assert (usage_out["input_tokens"], usage_out["cache_read_input_tokens"]) == (10, 40)


def test_usage_on_the_finish_chunk() -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 2}
    assert (
        message([chunk({"content": "a"}), chunk(None, "stop", usage=usage)])["usage"][
            "output_tokens"
        ]
        == 2
    )


def test_output_tokens_estimated_without_upstream_usage() -> None:
    events = run([chunk({"content": "x" * 40}), chunk(None, "stop")])
    delta = next(d for k, d in events if k == "message_delta")
    assert delta["usage"] == {"output_tokens": 10}


def test_end_without_finish_reason_is_an_error_event() -> None:
    events = run([chunk({"content": "partial"})])
    assert events[-1] == (
        "error",
        {
            "type": "error",
            "error": {
                "type": "api_error",
                "message": "upstream stream ended before the response was complete",
            },
        },
    )


def test_midstream_error_chunk() -> None:
    events = run(
        [
            chunk({"content": "a"}),
            {"error": {"message": "Overloaded", "type": "overloaded", "code": 529}},
            chunk({"content": "ignored"}),
        ]
    )
    assert events[-1][1]["error"] == {"type": "overloaded_error", "message": "Overloaded"}
    assert sum(1 for k, _ in events if k == "content_block_delta") == 1


def test_other_choices_are_ignored() -> None:
    other = chunk({"content": "B"})
    other["choices"][0]["index"] = 1
    assert message([chunk({"content": "A"}), other, chunk(None, "stop")])["content"] == [
        {"type": "text", "text": "A"}
    ]


def test_non_streaming_completion() -> None:
    completion = {
        "id": "chatcmpl-9",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Checking.",
                    "reasoning_content": "need weather",
                    "tool_calls": [
                        {
                            "id": "functions.get_weather:0",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        },
                        {
                            "id": "call_2",
                            "type": "function",
                            "function": {"name": "now", "arguments": ""},
                        },
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": USAGE,
    }
    msg = translate_completion(completion, "claude-x", input_tokens=3)
    assert msg["model"] == "claude-x" and msg["type"] == "message" and msg["role"] == "assistant"
    assert msg["content"] == [
        {"type": "thinking", "thinking": "need weather", "signature": SIGNATURE},
        {"type": "text", "text": "Checking."},
        {
            "type": "tool_use",
            "id": "toolu_tcm_functions_2eget_5fweather_3a0",
            "name": "get_weather",
            "input": {"city": "Paris"},
        },
        {"type": "tool_use", "id": "call_2", "name": "now", "input": {}},
    ]
    assert msg["stop_reason"] == "tool_use" and msg["usage"]["cache_read_input_tokens"] == 100


def test_non_streaming_invalid_arguments_are_wrapped() -> None:
    completion = {
        "choices": [
            {
                "message": {
                    "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{oops"}}]
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    assert translate_completion(completion, "m")["content"][0]["input"] == {"input": "{oops"}


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(
    value=st.dictionaries(st.text(max_size=5), JSON_VALUES, max_size=4),
    cuts=st.lists(st.integers(0, 200), max_size=6),
)
def test_json_end_detects_completion_at_any_cut(value: dict[str, Any], cuts: list[int]) -> None:
    import json

    text = json.dumps(value, indent=1)
    points = sorted({c for c in cuts if c < len(text)})
    scanner = ValueEnd()
    previous = 0
    complete = False
    for point in [*points, len(text)]:
        assert not complete
        complete = scanner.scan(text[previous:point], 0) != -1
        previous = point
    assert complete


def test_json_end_is_not_fooled_by_brackets_in_strings() -> None:
    scanner = ValueEnd()
    assert scanner.scan('{"a": "}\\"', 0) == -1
    assert scanner.scan('\\\\"', 0) == -1
    assert scanner.scan(', "b": [1, {}]}', 0) != -1


def test_buffered_tool_input_is_sent_whole_at_the_end_of_the_call() -> None:
    t = StreamTranslator("m", buffer_tool_input=True)
    events = t.start()
    first = t.feed(chunk(call_delta(0, id="a", name="f", args='{"x": ')))
    assert kinds(first) == ["content_block_start"]
    assert t.feed(chunk(call_delta(0, args="1}"))) == []
    events += first + t.feed(chunk({"content": "after"}))
    events += t.feed(chunk(None, "tool_calls")) + t.finish()
    check_events(events)
    deltas = [d["delta"] for k, d in events if k == "content_block_delta" and d["index"] == 0]
    assert deltas == [{"type": "input_json_delta", "partial_json": '{"x": 1}'}]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ('{"x": 1', {"input": '{"x": 1'}),
        ("[1, 2]", {"input": "[1, 2]"}),
        ("", {}),
        ('{"ok": true}', {"ok": True}),
    ],
)
def test_buffered_tool_input_is_always_a_json_object(args: str, expected: dict[str, Any]) -> None:
    chunks = [chunk(call_delta(0, id="a", name="f", args=args)), chunk(None, "tool_calls")]
    assert message(chunks, buffer_tool_input=True)["content"][0]["input"] == expected
