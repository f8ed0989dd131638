"""Malformed markup through the whole middleware, judged by the openai SDK's stream accumulator.

Each case is a model text cut into deltas anywhere; the client must get the same message
whatever the cuts: no stray token, no tail of markup, no call it cannot run.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry

from helpers import body_app, chunk, cut_at, sdk_client, sse
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.detect import resolve_provider

TOOLS = {
    "bash": {
        "type": "object",
        "properties": {"command": {"type": "string"}},
        "required": ["command"],
    },
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
    "measure": {
        "type": "object",
        "properties": {
            "ratio": {"type": "float"},
            "count": {"type": "int"},
            "ok": {"type": "bool"},
            "options": {"type": "dict"},
            "tags": {"type": "list"},
            "label": {"type": "str"},
        },
    },
}


def upstream(model: str, field: str, text: str, points: list[int]) -> bytes:
    deltas = [chunk({field: piece}, model=model) for piece in cut_at(text, points) if piece]
    return sse(
        chunk({"role": "assistant", "content": ""}, model=model),
        *deltas,
        chunk({}, "stop", model=model),
        "[DONE]",
    )


async def accumulate(app: Any, model: str) -> Any:
    """The SDK's final message for a streamed request offering ``TOOLS``."""
    client = sdk_client(app)
    tools: Any = [
        {"type": "function", "function": {"name": n, "parameters": p}} for n, p in TOOLS.items()
    ]
    async with client.chat.completions.stream(
        model=model,
        messages=[{"role": "user", "content": "hi"}],
        tools=tools,
    ) as stream:
        async for _ in stream:
            pass
        try:
            final: Any = await stream.get_final_completion()
        except openai.LengthFinishReasonError as exc:
            final = exc.completion
    return final.choices[0]


def calls_of(choice: Any) -> list[tuple[str, Any]]:
    return [
        (c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls or ()
    ]


# model, field, text, expected content, expected calls, fallback action counted
CASES: dict[str, tuple[str, str, str, str, list[tuple[str, Any]], str | None]] = {
    "kimi stray tokens": (
        "moonshotai/Kimi-K2-Instruct",
        "content",
        "Checking.<|tool_calls_section_end|> <|tool_call_end|><|tool_calls_section_begin|>"
        '<|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command": "ls"}'
        "<|tool_call_end|><|tool_calls_section_end|> Done.<|tool_call_argument_begin|>",
        "Checking.  Done.",
        [("bash", {"command": "ls"})],
        "stray-dropped",
    ),
    "deepseek stray tokens": (
        "deepseek-ai/DeepSeek-V3.1",
        "content",
        "Sure<｜tool▁sep｜>.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
        '{"city": "Oslo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜tool▁calls▁end｜>',
        "Sure.",
        [("get_weather", {"city": "Oslo"})],
        "stray-dropped",
    ),
    "hermes closing tag twice and a brace too many": (
        "Qwen/Qwen2.5-7B-Instruct",
        "content",
        'I will run it.\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}}\n'
        "</tool_call></tool_call>",
        "I will run it.\n",
        [("bash", {"command": "ls"})],
        "stray-dropped",
    ),
    "gpt-oss ends with nothing open": (
        "openai/gpt-oss-20b",
        "content",
        "<|start|>assistant<|channel|>commentary to=functions.bash <|constrain|>json<|message|>"
        '{"command": "ls"}<|call|><|end|><|return|>',
        "",
        [("bash", {"command": "ls"})],
        "stray-dropped",
    ),
    "qwen3-coder values of types outside JSON Schema": (
        "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        "content",
        "<tool_call>\n<function=measure>\n<parameter=ratio>\n3.14\n</parameter>\n"
        "<parameter=count>\n7\n</parameter>\n<parameter=ok>\nTrue\n</parameter>\n"
        "<parameter=options>\n{'deep': [1, 2]}\n</parameter>\n<parameter=tags>\n"
        '["a"]\n</parameter>\n<parameter=label>\n2.0\n</parameter>\n</function>\n</tool_call>',
        "",
        [
            (
                "measure",
                {
                    "ratio": 3.14,
                    "count": 7,
                    "ok": True,
                    "options": {"deep": [1, 2]},
                    "tags": ["a"],
                    "label": "2.0",
                },
            )
        ],
        None,
    ),
    "a hermes lookalike in content stays text": (
        "Qwen/Qwen3-8B",
        "content",
        'Format: <tool_call>{"name": "bash", "arguments": oops}</tool_call> or '
        '{"name": "", "arguments": {}}.',
        'Format: <tool_call>{"name": "bash", "arguments": oops}</tool_call> or '
        '{"name": "", "arguments": {}}.',
        [],
        None,
    ),
    "a llama lookalike in content stays text": (
        "meta-llama/Llama-3.3-70B-Instruct",
        "content",
        'Use {"name": "bash", "parameters": [1]} or {"name": "0", "parameters": {}}.',
        'Use {"name": "bash", "parameters": [1]} or {"name": "0", "parameters": {}}.',
        [],
        None,
    ),
    "kimi ids that name no function: resolved by the arguments, or dropped": (
        "moonshotai/Kimi-K2-Instruct",
        "content",
        "<|tool_calls_section_begin|><|tool_call_begin|>0<|tool_call_argument_begin|>"
        '{"command": "ls"}<|tool_call_end|><|tool_call_begin|>call_3<|tool_call_argument_begin|>'
        '{"nope": 1}<|tool_call_end|><|tool_call_begin|>functions.bad.0'
        '<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_call_begin|>'
        'functions.bash<|tool_call_argument_begin|>{"command": "pwd"}<|tool_call_end|>'
        "<|tool_calls_section_end|>",
        "",
        [
            ("bash", {"command": "ls"}),
            ("get_weather", {"city": "Oslo"}),
            ("bash", {"command": "pwd"}),
        ],
        "dropped",
    ),
    "deepseek with an empty name": (
        "deepseek-ai/DeepSeek-V3.1",
        "content",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜><｜tool▁sep｜>{"city": "Oslo"}'
        '<｜tool▁call▁end｜><｜tool▁call▁begin｜>  <｜tool▁sep｜>{"x": 1}<｜tool▁call▁end｜>'
        "<｜tool▁calls▁end｜>",
        "",
        [("get_weather", {"city": "Oslo"})],
        "dropped",
    ),
    "mistral with a number for a name": (
        "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
        "content",
        '[TOOL_CALLS]0{"command": "ls"}[TOOL_CALLS]1{"a": 1}',
        "",
        [("bash", {"command": "ls"})],
        "dropped",
    ),
    "minimax with an empty name": (
        "acme/house-model",
        "content",
        '<minimax:tool_call><invoke name=""><parameter name="command">ls</parameter></invoke>'
        "</minimax:tool_call>",
        "",
        [("bash", {"command": "ls"})],
        None,
    ),
    "glm with a number for a name": (
        "zai-org/GLM-4.6",
        "content",
        "<tool_call>123<arg_key>city</arg_key><arg_value>Rome</arg_value></tool_call>"
        "<tool_call>7<arg_key>x</arg_key><arg_value>1</arg_value></tool_call>",
        "",
        [("get_weather", {"city": "Rome"})],
        "dropped",
    ),
    "qwen3-coder with a number for a name": (
        "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        "content",
        "<tool_call>\n<function=0>\n<parameter=command>\nls\n</parameter>\n</function>\n"
        "</tool_call>",
        "",
        [("bash", {"command": "ls"})],
        None,
    ),
    "gpt-oss with a number for a recipient": (
        "openai/gpt-oss-120b",
        "content",
        "<|start|>assistant<|channel|>commentary to=functions.0 <|constrain|>json<|message|>"
        '{"city": "Lima"}<|call|>',
        "",
        [("get_weather", {"city": "Lima"})],
        None,
    ),
    "a sniffed stream drops strays before its format is known": (
        "acme/house-model",
        "content",
        "One<|tool_call_end|> two<｜tool▁sep｜> three.",
        "One two three.",
        [],
        "stray-dropped",
    ),
}


@pytest.mark.parametrize("case", CASES)
@settings(max_examples=12, deadline=None)
@given(points=st.lists(st.integers(min_value=0, max_value=400), max_size=30))
def test_the_sdk_gets_clean_content_and_runnable_calls(case: str, points: list[int]) -> None:
    model, field, text, content, calls, action = CASES[case]
    registry = CollectorRegistry()
    app = ToolCallMiddleware(body_app([upstream(model, field, text, points)]), registry=registry)
    choice = anyio.run(accumulate, app, model)
    assert (choice.message.content or "") == content
    assert calls_of(choice) == calls
    assert choice.finish_reason == ("tool_calls" if calls else "stop")
    if action is not None:
        labels = {"provider": resolve_provider("auto", model), "stage": "stream", "action": action}
        assert (registry.get_sample_value("toolcall_fallbacks_total", labels) or 0) >= 1


def test_a_non_streaming_message_gets_the_same_repairs() -> None:
    model = "moonshotai/Kimi-K2-Instruct"
    text = CASES["kimi ids that name no function: resolved by the arguments, or dropped"][2]
    completion = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "Sure.<|tool_call_end|>" + text},
            }
        ],
    }
    app = ToolCallMiddleware(
        body_app(
            [json.dumps(completion).encode()], headers=[(b"content-type", b"application/json")]
        )
    )

    async def call() -> Any:
        client = sdk_client(app)
        tools: Any = [
            {"type": "function", "function": {"name": n, "parameters": p}} for n, p in TOOLS.items()
        ]
        return await client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "hi"}], tools=tools
        )

    choice = anyio.run(call).choices[0]
    assert choice.message.content == "Sure."
    assert calls_of(choice) == [
        ("bash", {"command": "ls"}),
        ("get_weather", {"city": "Oslo"}),
        ("bash", {"command": "pwd"}),
    ]
    assert choice.finish_reason == "tool_calls"


KIMI_SECTION = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0"
    '<|tool_call_argument_begin|>{"command": "ls"}<|tool_call_end|>'
    "<|tool_calls_section_end|>"
)
# model, [(fields, text)], options: reasoning field -> text, content, calls
SPLITS: dict[
    str,
    tuple[
        str,
        list[tuple[tuple[str, ...], str]],
        dict[str, Any],
        dict[str, str],
        str,
        list[tuple[str, Any]],
    ],
] = {
    "R1: the template opened the block, only </think> comes": (
        "deepseek-ai/DeepSeek-R1-0528",
        [(("content",), "2+2: add.\nSo 4.</think>\n\nIt is 4.")],
        {},
        {"reasoning_content": "2+2: add.\nSo 4."},
        "It is 4.",
        [],
    ),
    "a model nobody knows, whose content starts with <think>": (
        "acme/house-model",
        [(("content",), "\n<think>\nHmm.\n</think>\n\nHi <b>there</b>.")],
        {},
        {"reasoning_content": "Hmm.\n"},
        "Hi <b>there</b>.",
        [],
    ),
    "Kimi K2.5 opens its tool section inside the unclosed block": (
        "moonshotai/Kimi-K2.5",
        [(("content",), f"<think>Need the files. {KIMI_SECTION}Listing.</think>")],
        {},
        {"reasoning_content": "Need the files. "},
        "Listing.",
        [("bash", {"command": "ls"})],
    ),
    "Qwen3 thinks, then calls": (
        "Qwen/Qwen3-8B",
        [
            (
                ("content",),
                "<think>\nWeather.\n</think>\n\n<tool_call>\n"
                '{"name": "get_weather", "arguments": {"city": "Oslo"}}'
                "\n</tool_call>",
            )
        ],
        {},
        {"reasoning_content": "Weather.\n"},
        "",
        [("get_weather", {"city": "Oslo"})],
    ),
    "gpt-oss analysis channel": (
        "openai/gpt-oss-20b",
        [
            (
                ("content",),
                "<|channel|>analysis<|message|>Just greet."
                "<|end|><|start|>assistant<|channel|>final"
                "<|message|>Hello!<|return|>",
            )
        ],
        {},
        {"reasoning_content": "Just greet."},
        "Hello!",
        [],
    ),
    "keep leaves the content as it came": (
        "deepseek-ai/DeepSeek-R1",
        [(("content",), "Hmm.</think>It is 4.")],
        {"think_tags": "keep"},
        {},
        "Hmm.</think>It is 4.",
        [],
    ),
    "keep leaves gpt-oss analysis in the content, as it was": (
        "openai/gpt-oss-20b",
        [
            (
                ("content",),
                "<|channel|>analysis<|message|>Just greet."
                "<|end|><|start|>assistant<|channel|>final"
                "<|message|>Hello!<|return|>",
            )
        ],
        {"think_tags": "keep"},
        {},
        "Just greet.Hello!",
        [],
    ),
    "an upstream that splits itself is left alone": (
        "deepseek-ai/DeepSeek-R1",
        [(("reasoning_content",), "Add them."), (("content",), "It is 4, not <think>5</think>.")],
        {},
        {"reasoning_content": "Add them."},
        "It is 4, not <think>5</think>.",
        [],
    ),
    "reasoning follows the field the stream names": (
        "acme/house-model",
        [(("content", "reasoning"), ""), (("content",), "<think>Short.</think>Yes.")],
        {},
        {"reasoning": "Short."},
        "Yes.",
        [],
    ),
}


def split_upstream(
    model: str, parts: list[tuple[tuple[str, ...], str]], points: list[int]
) -> bytes:
    deltas: list[Any] = [chunk({"role": "assistant", "content": ""}, model=model)]
    for fields, text in parts:
        if not text:  # fields named with no text: null, as gateways send them
            deltas.append(chunk({f: None if f != "content" else "" for f in fields}, model=model))
        deltas += [
            chunk(dict.fromkeys(fields, piece), model=model)
            for piece in cut_at(text, points)
            if piece
        ]
    return sse(*deltas, chunk({}, "stop", model=model), "[DONE]")


@pytest.mark.parametrize("case", SPLITS)
@settings(max_examples=12, deadline=None)
@given(points=st.lists(st.integers(min_value=0, max_value=300), max_size=30))
def test_the_reasoning_split_through_the_sdk(case: str, points: list[int]) -> None:
    model, parts, options, reasoning, content, calls = SPLITS[case]
    app = ToolCallMiddleware(body_app([split_upstream(model, parts, points)]), **options)
    choice = anyio.run(accumulate, app, model)
    extra = choice.message.model_extra or {}
    assert {f: extra[f] for f in ("reasoning_content", "reasoning") if extra.get(f)} == reasoning
    assert (choice.message.content or "") == content
    assert calls_of(choice) == calls


@pytest.mark.parametrize("case", [c for c in SPLITS if "field" not in c])
def test_the_reasoning_split_of_a_non_streaming_message(case: str) -> None:
    model, parts, options, reasoning, content, calls = SPLITS[case]
    message: dict[str, Any] = {"role": "assistant"}
    for fields, text in parts:
        for field in fields:
            message[field] = (message.get(field) or "") + text
    completion = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
    }
    app = ToolCallMiddleware(
        body_app(
            [json.dumps(completion).encode()], headers=[(b"content-type", b"application/json")]
        ),
        **options,
    )

    async def call() -> Any:
        tools: Any = [
            {"type": "function", "function": {"name": n, "parameters": p}} for n, p in TOOLS.items()
        ]
        return await sdk_client(app).chat.completions.create(
            model=model, messages=[{"role": "user", "content": "hi"}], tools=tools
        )

    choice = anyio.run(call).choices[0]
    extra = choice.message.model_extra or {}
    assert {f: extra[f] for f in ("reasoning_content", "reasoning") if extra.get(f)} == reasoning
    assert (choice.message.content or "") == content
    assert calls_of(choice) == calls


def test_a_tag_later_in_the_answer_stays_text_whatever_path_the_events_take() -> None:
    # With debug capture no chunk template is learnt: events without a trigger character may
    # pass undecoded from the first one on, and the split must still see where content began.
    model = "Qwen/Qwen2.5-7B-Instruct"
    events = [
        sse(chunk({"content": text}, model=model))
        for text in ("Hello there,", " reader. Use ", "<think>x</think>.")
    ]
    events.append(sse(chunk({}, "stop", model=model), "[DONE]"))
    for options in ({}, {"admin_key": "k"}):
        choice = anyio.run(accumulate, ToolCallMiddleware(body_app(events), **options), model)
        assert choice.message.content == "Hello there, reader. Use <think>x</think>."
        assert not (choice.message.model_extra or {}).get("reasoning_content")
