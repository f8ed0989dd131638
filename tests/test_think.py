"""The reasoning split of content (``think.py``), on the events of a parser, cut anywhere."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent / "parsers"))
from parser_helpers import TOOLS, Result, assemble, cut, normalise

from helpers import body_app, chunk, message_of, request_json, sse, through
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.completion import completion_from_sse
from toolcall_middleware.events import Event
from toolcall_middleware.parsers import create_parser
from toolcall_middleware.parsers.descriptor import EFFORT, THINKING
from toolcall_middleware.request import RequestFacts
from toolcall_middleware.think import ThinkConfig, ThinkSplit, template_opens_think, think_config

AUTO, SPLIT = ThinkConfig(every=False), ThinkConfig(every=True)
OPENED = ThinkConfig(every=False, opened=True)
#: A request that asks for reasoning by its effort.
ASKED = frozenset({EFFORT})
KIMI_CALL = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0"
    '<|tool_call_argument_begin|>{"command": "ls"}<|tool_call_end|>'
    "<|tool_calls_section_end|>"
)


def split(config: ThinkConfig, pieces: list[str], provider: str = "openai") -> tuple[Result, int]:
    parser = create_parser(provider, TOOLS)
    think = ThinkSplit(config)
    events: list[Event] = []
    for piece in pieces:
        events += think.route(parser.feed(piece))
    events += think.route(parser.finish())
    events += think.finish()
    return assemble(normalise(events)), think.strays


# config, content, provider: reasoning, text, calls, strays
CASES = [
    (
        AUTO,
        "<think>\nThe user asks.\n</think>\n\nHello!",
        "openai",
        "The user asks.\n",
        "Hello!",
        0,
        0,
    ),
    (AUTO, "  \n<think>x</think>y", "openai", "x", "y", 0, 0),
    (
        AUTO,
        "Hello <think>not reasoning</think>",
        "openai",
        "",
        "Hello <think>not reasoning</think>",
        0,
        0,
    ),  # auto: only where the content starts
    (SPLIT, "Hello <think>a</think> b<think>c</think>d", "openai", "ac", "Hello bd", 0, 0),
    (
        SPLIT,
        "plain answer, with a <b> tag and </think>",
        "openai",
        "",
        "plain answer, with a <b> tag and ",
        0,
        1,
    ),
    (
        OPENED,
        "Reasoning starts here.</think>\n\nThe answer.",
        "openai",
        "Reasoning starts here.",
        "The answer.",
        0,
        0,
    ),
    (
        OPENED,
        "<think>\nR1-0528 writes the tag too.</think>A",
        "openai",
        "R1-0528 writes the tag too.",
        "A",
        0,
        0,
    ),
    (OPENED, "never closed", "openai", "never closed", "", 0, 0),
    (SPLIT, "<think>nested <think> tag</think>", "openai", "nested  tag", "", 0, 1),
    # A tool section that opens inside an unclosed block ends the reasoning there.
    (
        AUTO,
        f"<think>I will list files. {KIMI_CALL} Done.</think>",
        "kimi_k2",
        "I will list files. ",
        " Done.",
        1,
        1,
    ),
    (SPLIT, f"<think>a</think>b{KIMI_CALL}", "kimi_k2", "a", "b", 1, 0),
    # auto: the block the content starts with only; later tags are text the model wrote.
    (AUTO, "<think>a</think> b <think>c</think>", "openai", "a", "b <think>c</think>", 0, 0),
    (
        AUTO,
        f"<think>x {KIMI_CALL}y <think>z</think>w</think>",
        "kimi_k2",
        "x ",
        "y <think>z</think>w</think>",
        1,
        0,
    ),
    # Tencent Hy3's spelling of the tags; its template opened the block when asked to think.
    (AUTO, "<think:opensource>x</think:opensource>y", "openai", "x", "y", 0, 0),
    (
        OPENED,
        "Plan it.</think:opensource>\n\nThe answer.",
        "hy_v3",
        "Plan it.",
        "The answer.",
        0,
        0,
    ),
    (
        OPENED,
        "Plan.</think:opensource><tool_calls:opensource>\n<tool_call:opensource>get_time"
        "<tool_sep:opensource>\n</tool_call:opensource>\n</tool_calls:opensource>",
        "hy_v3",
        "Plan.",
        "",
        1,
        0,
    ),
    (AUTO, "<thin", "openai", "", "<thin", 0, 0),
    (AUTO, "<think", "openai", "", "<think", 0, 0),
    (SPLIT, "a <thi", "openai", "", "a <thi", 0, 0),
]


@pytest.mark.parametrize(
    ("config", "text", "provider", "reasoning", "content", "calls", "strays"), CASES
)
def test_the_split(
    config: ThinkConfig,
    text: str,
    provider: str,
    reasoning: str,
    content: str,
    calls: int,
    strays: int,
) -> None:
    result, dropped = split(config, [text], provider)
    assert (result.reasoning, result.text, len(result.calls), dropped) == (
        reasoning,
        content,
        calls,
        strays,
    )
    assert split(config, list(text), provider)[0] == result


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_any_cut_gives_the_same_split(data: st.DataObject) -> None:
    pieces = [
        "<think>",
        "</think>",
        "<thi",
        "</th",
        "<think:opensource>",
        "</think:opensource>",
        "</think:o",
        "<",
        ">",
        "a",
        " ",
        "\n",
        "b c",
        KIMI_CALL,
        "<|tool_call_begin|>",
    ]
    text = data.draw(st.lists(st.sampled_from(pieces), max_size=20).map("".join))
    config = data.draw(st.sampled_from([AUTO, SPLIT, OPENED]))
    provider = data.draw(st.sampled_from(["openai", "kimi_k2", "hermes"]))
    whole = split(config, [text], provider)
    points = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=8))
    assert split(config, cut(text, points), provider) == whole
    assert split(config, list(text), provider) == whole


def test_upstream_reasoning_before_any_content_turns_the_split_off() -> None:
    think = ThinkSplit(OPENED)
    think.upstream_reasoning()
    assert think.inert
    think = ThinkSplit(SPLIT)
    think.route(create_parser("openai", TOOLS).feed("x"))
    think.upstream_reasoning()  # content came first: the split goes on
    assert not think.inert


@pytest.mark.parametrize(
    ("option", "model", "config"),
    [
        ("keep", "deepseek-ai/DeepSeek-R1", None),
        ("auto", "deepseek-ai/DeepSeek-R1-0528", OPENED),
        ("auto", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", OPENED),
        ("auto", "deepseek-ai/DeepSeek-R1-Distill-Llama-70B", OPENED),
        ("auto", "Qwen/QwQ-32B", OPENED),
        ("auto", "Qwen/Qwen3-235B-A22B-Thinking-2507", OPENED),
        ("auto", "Qwen/Qwen3-8B", AUTO),  # writes its <think> itself
        ("auto", "moonshotai/Kimi-K2-Thinking", AUTO),
        ("auto", "deepseek-ai/DeepSeek-V3.1", AUTO),
        ("auto", "Qwen/Qwen3-Coder-30B-A3B-Instruct", AUTO),
        ("auto", "acme/house-model", AUTO),
        ("split", "acme/house-model", SPLIT),
        ("split", "deepseek-r1", ThinkConfig(every=True, opened=True)),
    ],
)
def test_which_models_start_inside_the_block(
    option: str, model: str, config: ThinkConfig | None
) -> None:
    assert think_config(option, model) == config


def test_a_request_that_turns_thinking_off_starts_outside_the_block() -> None:
    assert think_config("auto", "deepseek-r1", thinking_off=True) == AUTO
    facts = RequestFacts.of({"model": "m", "chat_template_kwargs": {"enable_thinking": False}})
    assert facts.thinking_off
    assert RequestFacts.of({"chat_template_kwargs": {"thinking": False}}).thinking_off
    assert not RequestFacts.of({"chat_template_kwargs": {"thinking": True}}).thinking_off
    assert not RequestFacts.of({"chat_template_kwargs": "x"}).thinking_off


def test_hy3_starts_inside_the_block_only_when_the_request_asks_to_think() -> None:
    # Hy3's template closes the block unless reasoning_effort asks for reasoning.
    assert think_config("auto", "tencent/Hy3") == AUTO
    assert think_config("auto", "tencent/Hy3", asked=ASKED) == OPENED
    assert think_config("auto", "tencent/Hy3", thinking_off=True, asked=ASKED) == AUTO
    assert think_config("auto", "Qwen/Qwen3-8B", asked=ASKED) == AUTO  # thinks unasked
    # Hy3's template reads the effort, not the thinking switch.
    assert think_config("auto", "tencent/Hy3", asked=frozenset({THINKING})) == AUTO
    for body in (
        {"chat_template_kwargs": {"reasoning_effort": "high"}},
        {"reasoning_effort": "low"},
        {"chat_template_kwargs": {"reasoning_effort": None}, "reasoning_effort": "high"},
    ):
        assert RequestFacts.of(body).thinking_asked == ASKED, body
    for body in (
        {},
        {"chat_template_kwargs": {"reasoning_effort": "no_think"}},
        {"chat_template_kwargs": {"reasoning_effort": "no_think"}, "reasoning_effort": "high"},
        {"reasoning_effort": "none"},
        {"reasoning_effort": 3},
    ):
        assert EFFORT not in RequestFacts.of(body).thinking_asked, body


def test_deepseek_v31_and_v32_start_inside_the_block_when_the_request_turns_thinking_on() -> None:
    # Their templates open <think> on chat_template_kwargs thinking (or enable_thinking) true,
    # as vLLM's deepseek_v3 reasoning parser reads them; an effort does not.
    on = frozenset({THINKING})
    for model in ("deepseek-ai/DeepSeek-V3.1", "deepseek-ai/DeepSeek-V3.2", "DeepSeek-V3.2-Exp"):
        assert think_config("auto", model) == AUTO, model
        assert think_config("auto", model, asked=on) == OPENED, model
        assert think_config("auto", model, asked=ASKED) == AUTO, model
        assert think_config("auto", model, thinking_off=True, asked=on) == AUTO, model
    assert think_config("auto", "deepseek-ai/DeepSeek-V3-0324", asked=on) == AUTO
    for body in (
        {"chat_template_kwargs": {"thinking": True}},
        {"chat_template_kwargs": {"enable_thinking": True}},
    ):
        assert RequestFacts.of(body).thinking_asked == on, body
    for body in (
        {"chat_template_kwargs": {"thinking": "yes"}},
        {"thinking": True},
        {"chat_template_kwargs": {"thinking": False}},
    ):
        assert THINKING not in RequestFacts.of(body).thinking_asked, body
    both = {"chat_template_kwargs": {"thinking": True, "reasoning_effort": "high"}}
    assert RequestFacts.of(both).thinking_asked == ASKED | on


def test_a_format_that_reads_its_own_reasoning_block_is_left_to_it() -> None:
    # Kimi K3's template opens its think channel: the parser is told, the split is not.
    assert think_config("auto", "moonshotai/Kimi-K3") == AUTO
    assert template_opens_think("moonshotai/Kimi-K3", thinking_off=False)
    assert not template_opens_think("moonshotai/Kimi-K3", thinking_off=True)


HY3_THOUGHT = "Plan: one call.</think:opensource>\n\n"
HY3_CALL = (
    "<tool_calls:opensource>\n<tool_call:opensource>bash<tool_sep:opensource>\n"
    "<arg_key:opensource>command</arg_key:opensource>\n<arg_value:opensource>ls"
    "</arg_value:opensource>\n</tool_call:opensource>\n</tool_calls:opensource>"
)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("effort", "reasoning", "content"),
    [
        ({"chat_template_kwargs": {"reasoning_effort": "high"}}, "Plan: one call.", ""),
        ({"reasoning_effort": "low"}, "Plan: one call.", ""),
        # Not asked to think: the template closed the block, so a </think> is the model's text.
        ({}, None, HY3_THOUGHT),
    ],
)
async def test_hy3_thinks_in_the_content_when_the_request_asks_it_to(
    effort: dict[str, Any], reasoning: str | None, content: str
) -> None:
    model = "tencent/Hy3"
    stream = sse(
        *(chunk({"content": piece}, model=model) for piece in cut(HY3_THOUGHT + HY3_CALL, [7, 20])),
        chunk({}, "stop", model=model),
        "[DONE]",
    )
    request = {**json.loads(request_json(model)), **effort}
    app = ToolCallMiddleware(body_app([stream]))
    message = message_of(completion_from_sse(await through(app, json.dumps(request).encode())))
    assert (message.get("reasoning_content"), message.get("content") or "") == (reasoning, content)
    assert [c["function"]["arguments"] for c in message["tool_calls"]] == ['{"command": "ls"}']


K3_JSON = (
    "Route it.<|close|>think<|sep|><|open|>response<|sep|>"
    '{"choice": "flash"}<|close|>response<|sep|><|close|>message<|sep|>'
)


#: A request that turns thinking on (DeepSeek V3.1's and V3.2's switch).
ON = {"chat_template_kwargs": {"thinking": True}}


def toolless(model: str, stream: bool = True, **extra: Any) -> bytes:
    """A request that offers no tools, as a client's helper requests (titles, routing) are."""
    messages = [{"role": "user", "content": "route this"}]
    return json.dumps({"model": model, "stream": stream, "messages": messages, **extra}).encode()


def streamed(model: str, text: str) -> bytes:
    pieces = cut(text, [5, 17, 40])
    return sse(*(chunk({"content": p}, model=model) for p in pieces), chunk({}, "stop"), "[DONE]")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("model", "extra", "text", "reasoning", "content"),
    [
        ("moonshotai/Kimi-K3", {}, K3_JSON, "Route it.", '{"choice": "flash"}'),
        ("tencent/Hy3", {"reasoning_effort": "high"}, HY3_THOUGHT + "{}", "Plan: one call.", "{}"),
        ("deepseek-ai/DeepSeek-R1", {}, "Hm.</think>\n\n[1]", "Hm.", "[1]"),
        ("deepseek-ai/DeepSeek-V3.1", ON, "Hm.</think>[1]", "Hm.", "[1]"),
        ("deepseek-ai/DeepSeek-V3.2", ON, "Hm.</think>[1]", "Hm.", "[1]"),
    ],
)
async def test_a_response_that_starts_in_reasoning_is_split_without_tools(
    model: str, extra: dict[str, Any], text: str, reasoning: str, content: str
) -> None:
    # The template opened the block: untouched, the client would get the model's thoughts as
    # its answer (gemini-cli's JSON routing requests failed on it, and were retried).
    app = ToolCallMiddleware(body_app([streamed(model, text)]))
    message = message_of(completion_from_sse(await through(app, toolless(model, **extra))))
    assert (message.get("reasoning_content"), message["content"]) == (reasoning, content)
    assert "tool_calls" not in message
    whole = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    json_app = body_app(
        [json.dumps(whole).encode()], headers=[(b"content-type", b"application/json")]
    )
    body = await through(ToolCallMiddleware(json_app), toolless(model, stream=False, **extra))
    message = message_of(json.loads(body))
    assert (message.get("reasoning_content"), message["content"]) == (reasoning, content)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("model", "extra", "options"),
    [
        ("Qwen/Qwen3-8B", {}, {}),  # writes its own <think>: nothing to say it is one
        ("tencent/Hy3", {}, {}),  # not asked to think: the template closed the block
        ("moonshotai/Kimi-K3", {"chat_template_kwargs": {"thinking": False}}, {}),
        ("deepseek-ai/DeepSeek-R1", {}, {"think_tags": "keep"}),
        # Thinking not turned on (an effort is not V3.1's switch): the template closed it.
        ("deepseek-ai/DeepSeek-V3.1", {"reasoning_effort": "high"}, {}),
        ("deepseek-ai/DeepSeek-V3.2", {}, {}),
    ],
)
async def test_other_responses_to_requests_without_tools_pass_untouched(
    model: str, extra: dict[str, Any], options: dict[str, Any]
) -> None:
    upstream = streamed(model, "<think>Hm.</think>\n\nok")
    app = ToolCallMiddleware(body_app([upstream]), **options)
    assert await through(app, toolless(model, **extra)) == upstream
