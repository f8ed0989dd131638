"""MiniMax M2 calls."""

from __future__ import annotations

from parser_helpers import TOOLS, any_cut_test, call, calls_of, every_cut_agrees, parse

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Text
from toolcall_middleware.parsers import create_parser

P = "minimax_m2"
BLOCK = (
    'Checking.\n<minimax:tool_call>\n<invoke name="get_weather">\n'
    '<parameter name="city">Beijing</parameter>\n<parameter name="days">2</parameter>\n'
    '</invoke>\n<invoke name="get_time">\n</invoke>\n</minimax:tool_call>\nDone.'
)
SAMPLES = [
    BLOCK,
    "<minimax:tool_call><invoke name='bash'><parameter name=\"command\">cat <parameters>"
    "</parameter></invoke></minimax:tool_call>",
    '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path">a\n'
    '<parameter name="content">cut',
    '<minimax:tool_ <invoke name="x"> <',
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)


def test_block_with_several_invokes_in_one_feed() -> None:
    events = every_cut_agrees(P, BLOCK)
    assert events == [
        Text("Checking.\n"),
        *call("get_weather", '{"city": "Beijing", "days": 2}'),
        *call("get_time"),
        Text("\nDone."),
    ]


def test_value_text_that_looks_like_a_tag_and_single_quotes() -> None:
    result = calls_of(P, SAMPLES[1])
    assert result.arguments() == [{"command": "cat <parameters>"}]


def test_missing_parameter_close_and_cut_off_call() -> None:
    result = calls_of(P, SAMPLES[2])
    assert result.arguments() == [{"path": "a", "content": "cut"}]


def test_values_stream_while_they_arrive() -> None:
    parser = create_parser(P, TOOLS)
    out = parser.feed('<minimax:tool_call><invoke name="bash"><parameter name="command">ls ')
    assert out == [CallStart("bash"), CallArgs('{"command": '), CallArgs('"ls ')]
    assert parser.feed("-la</parameter></invoke>") == [
        CallArgs("-la"),
        CallArgs('"'),
        CallArgs("}"),
        CallEnd(),
    ]


def test_not_a_call_is_text() -> None:
    assert calls_of(P, SAMPLES[3]).text == SAMPLES[3]


def test_calls_in_reasoning_style_text_and_begin_end_in_one_feed() -> None:
    events = parse(P, ["I should", ' ask.<minimax:tool_call><invoke name="get_time"></invoke>'])
    assert events == [Text("I should ask."), *call("get_time")]
