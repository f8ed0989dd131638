"""Seed-OSS calls: Qwen3-Coder XML in <seed:tool_call>, and the <seed:think> block."""

from __future__ import annotations

from parser_helpers import TOOLS, any_cut_test, call, calls_of, every_cut_agrees, run

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Reasoning, Text
from toolcall_middleware.parsers import create_parser

P = "seed_oss"
CALL = (
    "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n"
    "<parameter=days>3</parameter>\n</function>\n</seed:tool_call>"
)
THINK = (
    "<seed:think>\nI could write <seed:tool_call>\n<function=bash>\n</function>\n"
    "</seed:tool_call> but not yet.\n<seed:cot_budget_reflect>12 used</seed:cot_budget_reflect>"
    "</seed:think>\n\n"
)
SAMPLES = [
    THINK + "Checking.\n" + CALL + "\n" + CALL.replace("Paris", "Lyon") + " Done.",
    "<function=bash>\n<parameter=command>ls -la</parameter>\n</function>",
    "</seed:think>Hi </seed:tool_call>there <seed:think> cut",
    "<seed:tool_call>\n<function=write_file>\n<parameter=path>a.txt</parameter>\n"
    "<parameter=content>line 1\nli",
    "<seed:tool_ <seed:thin <function",
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)


def test_the_think_block_is_reasoning_and_calls_after_it_are_calls() -> None:
    assert every_cut_agrees(P, SAMPLES[0]) == [
        Reasoning(
            "I could write <seed:tool_call>\n<function=bash>\n</function>\n</seed:tool_call> "
            "but not yet.\n<seed:cot_budget_reflect>12 used</seed:cot_budget_reflect>"
        ),
        Text("Checking.\n"),
        *call("get_weather", '{"city": "Paris", "days": 3}'),
        Text("\n"),
        *call("get_weather", '{"city": "Lyon", "days": 3}'),
        Text(" Done."),
    ]


def test_a_bare_function_block_is_a_call() -> None:
    assert calls_of(P, SAMPLES[1]).arguments() == [{"command": "ls -la"}]


def test_values_stream_while_they_arrive() -> None:
    parser = create_parser(P, TOOLS)
    start = "<seed:tool_call>\n<function=bash>\n<parameter=command>echo "
    assert parser.feed(start) == [CallStart("bash"), CallArgs('{"command": '), CallArgs('"echo ')]
    assert parser.feed("hi</parameter>\n</function>") == [
        CallArgs("hi"),
        CallArgs('"'),
        CallArgs("}"),
        CallEnd(),
    ]


def test_closing_tags_with_nothing_open_are_strays_and_an_open_think_block_at_the_end() -> None:
    parser = create_parser(P, TOOLS)
    events = run(parser, [SAMPLES[2]])
    assert "".join(e.text for e in events if isinstance(e, Text)) == "Hi there "
    assert "".join(e.text for e in events if isinstance(e, Reasoning)) == "cut"
    assert parser.strays == 2  # type: ignore[attr-defined]


def test_cut_off_calls_keep_what_arrived_and_unfinished_tags_are_text() -> None:
    assert calls_of(P, SAMPLES[3]).arguments() == [{"path": "a.txt", "content": "line 1\nli"}]
    result = calls_of(P, SAMPLES[4])
    assert (result.text, result.calls) == (SAMPLES[4], [])
