"""``ResponseTranslator``: Chat chunks in, Responses events out, every sequence through the
checker of the spec's rules."""

from __future__ import annotations

from typing import Any

import orjson

from toolcall_middleware.fronts.core.failures import UpstreamFailure
from toolcall_middleware.fronts.responses import ResponseTranslator, translate_request
from toolcall_middleware.fronts.responses.reasoning import decode_reasoning

from .helpers import Event, check_events

SHELL = {
    "type": "function",
    "name": "shell",
    "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
}
USAGE = {
    "prompt_tokens": 812,
    "completion_tokens": 41,
    "total_tokens": 853,
    "completion_tokens_details": {"reasoning_tokens": 9},
}


def chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any
) -> dict[str, Any]:
    doc: dict[str, Any] = {"object": "chat.completion.chunk", "choices": [], **extra}
    if delta is not None or finish is not None:
        doc["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    return doc


def call(
    index: int, *, id: str | None = None, name: str | None = None, args: str = ""
) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": index, "function": {"arguments": args}}
    if id is not None:
        entry["id"] = id
    if name is not None:
        entry["function"]["name"] = name
    return {"tool_calls": [entry]}


def translator(tools: list[Any] = (SHELL,), **request: Any) -> ResponseTranslator:  # type: ignore[assignment]
    doc = {"model": "kimi-k2", "input": "hi", "tools": list(tools), **request}
    return ResponseTranslator(translate_request(doc), response_id="resp_7f3a")


def run(
    chunks: list[dict[str, Any]], t: ResponseTranslator | None = None, end: bool = True
) -> list[Event]:
    t = t or translator()
    events = t.start()
    for c in chunks:
        events += t.feed(c)
    if end:
        events += t.finish()
    events = wire(events)
    check_events(events)
    return events


def wire(events: list[Event]) -> list[Event]:
    """The events as a client reads them: their data encoded and decoded (a response's done
    output items are kept as their JSON)."""
    return [(kind, orjson.loads(orjson.dumps(data))) for kind, data in events]


def strip(events: list[Event]) -> list[dict[str, Any]]:
    return [{k: v for k, v in data.items() if k != "response"} for _, data in events]


def test_the_wire_spec_example_reasoning_then_one_call() -> None:
    events = run(
        [
            chunk({"reasoning_content": "List the files"}),
            chunk({"reasoning_content": " first."}),
            chunk(call(0, id="call_01", name="shell")),
            chunk(call(0, args='{"cmd":')),
            chunk(call(0, args='"ls"}')),
            chunk(None, "tool_calls"),
            chunk(usage=USAGE),
        ]
    )
    reasoning = {
        "type": "reasoning",
        "id": "rs_7f3a_0",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "List the files first."}],
        "encrypted_content": None,
        "status": "completed",
    }
    call_item = {
        "type": "function_call",
        "id": "fc_7f3a_1",
        "call_id": "call_01",
        "name": "shell",
        "arguments": '{"cmd":"ls"}',
        "status": "completed",
    }
    ids0 = {"item_id": "rs_7f3a_0", "output_index": 0}
    ids1 = {"item_id": "fc_7f3a_1", "output_index": 1}
    assert strip(events)[2:] == [
        {
            "type": "response.output_item.added",
            "sequence_number": 2,
            "output_index": 0,
            "item": {**reasoning, "content": [], "status": "in_progress"},
        },
        {
            "type": "response.content_part.added",
            "sequence_number": 3,
            **ids0,
            "content_index": 0,
            "part": {"type": "reasoning_text", "text": ""},
        },
        {
            "type": "response.reasoning_text.delta",
            "sequence_number": 4,
            **ids0,
            "content_index": 0,
            "delta": "List the files",
        },
        {
            "type": "response.reasoning_text.delta",
            "sequence_number": 5,
            **ids0,
            "content_index": 0,
            "delta": " first.",
        },
        {
            "type": "response.reasoning_text.done",
            "sequence_number": 6,
            **ids0,
            "content_index": 0,
            "text": "List the files first.",
        },
        {
            "type": "response.content_part.done",
            "sequence_number": 7,
            **ids0,
            "content_index": 0,
            "part": {"type": "reasoning_text", "text": "List the files first."},
        },
        {
            "type": "response.output_item.done",
            "sequence_number": 8,
            "output_index": 0,
            "item": reasoning,
        },
        {
            "type": "response.output_item.added",
            "sequence_number": 9,
            "output_index": 1,
            "item": {**call_item, "arguments": "", "status": "in_progress"},
        },
        {
            "type": "response.function_call_arguments.delta",
            "sequence_number": 10,
            **ids1,
            "delta": '{"cmd":',
        },
        {
            "type": "response.function_call_arguments.delta",
            "sequence_number": 11,
            **ids1,
            "delta": '"ls"}',
        },
        {
            "type": "response.function_call_arguments.done",
            "sequence_number": 12,
            **ids1,
            "arguments": '{"cmd":"ls"}',
        },
        {
            "type": "response.output_item.done",
            "sequence_number": 13,
            "output_index": 1,
            "item": call_item,
        },
        {"type": "response.completed", "sequence_number": 14},
    ]
    final = events[-1][1]["response"]
    assert final["status"] == "completed" and final["output"] == [reasoning, call_item]
    assert final["usage"] == {
        "input_tokens": 812,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 41,
        "output_tokens_details": {"reasoning_tokens": 9},
        "total_tokens": 853,
    }
    assert final["tools"] == [SHELL] and final["model"] == "kimi-k2"


def test_text_after_a_call_opens_a_new_message_item() -> None:
    events = run(
        [
            chunk({"content": "Checking."}),
            chunk(call(0, id="c1", name="shell", args="{}")),
            chunk({"content": "Done."}),
            chunk(None, "stop"),
        ]
    )
    output = events[-1][1]["response"]["output"]
    assert [(o["type"], o["id"]) for o in output] == [
        ("message", "msg_7f3a_0"),
        ("function_call", "fc_7f3a_1"),
        ("message", "msg_7f3a_2"),
    ]
    assert [o["content"][0]["text"] for o in output if o["type"] == "message"] == [
        "Checking.",
        "Done.",
    ]


def test_call_without_upstream_id_gets_one_and_empty_arguments_are_an_object() -> None:
    events = run([chunk(call(0, name="shell")), chunk(None, "tool_calls")])
    (item,) = events[-1][1]["response"]["output"]
    assert item["call_id"] == "call_7f3a_1" and item["arguments"] == "{}"


def test_length_is_incomplete_and_content_filter_too() -> None:
    events = run([chunk({"content": "cut"}), chunk(None, "length")])
    final = events[-1][1]["response"]
    assert events[-1][0] == "response.incomplete"
    assert final["incomplete_details"] == {"reason": "max_output_tokens"}
    events = run([chunk({"content": "x"}), chunk(None, "content_filter")])
    assert events[-1][1]["response"]["incomplete_details"] == {"reason": "content_filter"}


def test_a_partial_usage_is_sent_as_none() -> None:
    events = run([chunk({"content": "x"}), chunk(None, "stop"), chunk(usage={"prompt_tokens": 3})])
    assert events[-1][1]["response"]["usage"] is None


def test_no_finish_reason_is_response_failed_and_an_open_call_is_never_done() -> None:
    events = run([chunk(call(0, id="c1", name="shell", args='{"cmd": "rm'))])
    kinds = [k for k, _ in events]
    assert kinds[-1] == "response.failed" and "response.output_item.done" not in kinds
    assert events[-1][1]["response"]["error"]["code"] == "server_error"


def test_mid_stream_error_chunk_and_context_length() -> None:
    t = translator()
    events = run(
        [
            chunk({"content": "a"}),
            {"error": {"message": "maximum context length is 8192", "code": 400}},
        ],
        t,
    )
    assert events[-1][1]["response"]["error"] == {
        "code": "context_length_exceeded",
        "message": "maximum context length is 8192",
    }
    assert t.feed(chunk({"content": "more"})) == [] and t.finish() == []


def test_fail_after_text_closes_the_text_item() -> None:
    t = translator()
    events = t.start() + t.feed(chunk({"content": "a"}))
    events = wire(events + t.fail(UpstreamFailure("rate_limit", "slow down")))
    check_events(events)
    assert [k for k, _ in events][-2:] == ["response.output_item.done", "response.failed"]
    assert events[-1][1]["response"]["error"]["code"] == "rate_limit_exceeded"


def test_reasoning_as_summary() -> None:
    t = ResponseTranslator(translate_request({"model": "m", "input": "x"}), reasoning_as="summary")
    events = run([chunk({"reasoning": "think"}), chunk({"content": "ok"}), chunk(None, "stop")], t)
    kinds = [k for k, _ in events]
    assert "response.reasoning_summary_part.added" in kinds
    assert "response.reasoning_summary_text.delta" in kinds
    item = events[-1][1]["response"]["output"][0]
    assert item["summary"] == [{"type": "summary_text", "text": "think"}]
    assert item["content"] == []


def test_encrypted_reasoning_when_included_round_trips() -> None:
    t = translator(include=["reasoning.encrypted_content"])
    chunks = [chunk({"reasoning_content": "secret plan"}), chunk({"content": "done"})]
    events = run([*chunks, chunk(None, "stop")], t)
    item, message = events[-1][1]["response"]["output"]
    assert message["content"][0]["text"] == "done"  # (a message item has no reasoning)
    assert item["encrypted_content"].startswith("tcm1.")
    assert decode_reasoning(item["encrypted_content"]) == "secret plan"
    assert decode_reasoning("gAAAAB-foreign") is None


def test_custom_tool_call_is_sent_whole_with_its_input_unwrapped() -> None:
    apply_patch = {
        "type": "custom",
        "name": "apply_patch",
        "description": "Patch files.",
        "format": {"type": "grammar", "syntax": "lark", "definition": "start: x"},
    }
    t = translator([apply_patch])
    events = run(
        [
            chunk(call(0, id="c9", name="apply_patch", args='{"input": "*** Begin')),
            chunk(call(0, args=' Patch"}')),
            chunk(None, "tool_calls"),
        ],
        t,
    )
    kinds = [k for k, _ in events]
    assert kinds[2:-1] == [
        "response.output_item.added",
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
        "response.output_item.done",
    ]
    item = events[-2][1]["item"]
    assert item == {
        "type": "custom_tool_call",
        "id": "ctc_7f3a_0",
        "call_id": "c9",
        "name": "apply_patch",
        "input": "*** Begin Patch",
    }


def test_custom_tool_call_with_arguments_that_are_not_the_wrapper_passes_the_raw_text() -> None:
    t = translator([{"type": "custom", "name": "apply_patch"}])
    events = run(
        [
            chunk(call(0, id="c9", name="apply_patch", args="*** Begin Patch")),
            chunk(None, "tool_calls"),
        ],
        t,
    )
    assert events[-2][1]["item"]["input"] == "*** Begin Patch"


def test_namespaced_call_carries_its_namespace_again() -> None:
    tools = [
        {
            "type": "namespace",
            "name": "mcp__fs",
            "tools": [{"type": "function", "name": "read", "parameters": {"type": "object"}}],
        }
    ]
    events = run(
        [chunk(call(0, id="c1", name="mcp__fs__read", args="{}")), chunk(None, "tool_calls")],
        translator(tools),
    )
    item = events[-2][1]["item"]
    assert (item["name"], item["namespace"]) == ("read", "mcp__fs")


def test_refusal_is_a_refusal_part() -> None:
    events = run([chunk({"refusal": "I can't."}), chunk(None, "stop")])
    (item,) = events[-1][1]["response"]["output"]
    assert item["content"] == [{"type": "refusal", "refusal": "I can't."}]
