"""GLM-4.5 to 5.x calls."""

from __future__ import annotations

from parser_helpers import TOOLS, any_cut_test, call, calls_of, every_cut_agrees, parse

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Text
from toolcall_middleware.parsers import create_parser

P = "glm45"
V45 = (
    "I'll check.<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
    "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>"
)
V47 = (
    "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>"
    "<tool_call>get_time</tool_call>\nBoth asked."
)
SAMPLES = [
    V45,
    V47,
    'the <tool_call> tag, <tool_call>{"name": "x"}</tool_call>, <tool_call>\n<arg_key>',
    "<tool_call>write_file<arg_key>path</arg_key><arg_value>a.txt</arg_value>"
    "<arg_key>content</arg_key><arg_value>line 1\nline",
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)


def test_glm45_layout_in_one_feed_typed_by_schema() -> None:
    events = every_cut_agrees(P, V45)
    assert events == [
        Text("I'll check."),
        *call("get_weather", '{"city": "Beijing", "days": 3}'),
    ]


def test_glm47_layout_several_calls_and_zero_arguments() -> None:
    result = calls_of(P, V47)
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_weather", '{"city": "Paris"}'),
        ("get_time", ""),
    ]
    assert result.text == "\nBoth asked."


def test_values_stream_while_they_arrive() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed("<tool_call>bash<arg_key>command</arg_key><arg_value>echo ") == [
        CallStart("bash"),
        CallArgs('{"command": '),
        CallArgs('"echo '),
    ]
    assert parser.feed("hi</arg_value></tool_call>") == [
        CallArgs("hi"),
        CallArgs('"'),
        CallArgs("}"),
        CallEnd(),
    ]


def test_not_a_call_is_text() -> None:
    text = SAMPLES[2]
    result = calls_of(P, text)
    assert (result.text, result.calls) == (text, [])
    assert calls_of(P, "x <").text == "x <"


def test_call_cut_off_at_end_of_stream_keeps_what_arrived() -> None:
    result = calls_of(P, SAMPLES[3])
    assert result.arguments() == [{"path": "a.txt", "content": "line 1\nline"}]


def test_calls_in_reasoning_style_text_and_begin_end_in_one_feed() -> None:
    events = parse(P, ["Let me think. The user", " wants time.<tool_call>get_time</tool_call>"])
    assert events == [Text("Let me think. The user wants time."), *call("get_time")]
