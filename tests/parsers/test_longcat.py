"""LongCat calls: Hermes' call objects in <longcat_tool_call> tags."""

from __future__ import annotations

from parser_helpers import TOOLS, any_cut_test, call, calls_of, every_cut_agrees

from toolcall_middleware.events import CallArgs, CallStart, Text
from toolcall_middleware.parsers import create_parser

P = "longcat"
TWO = (
    'Checking.\n<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}'
    '</longcat_tool_call>\n<longcat_tool_call>{"name": "get_time", "parameters": "{}"}'
    "</longcat_tool_call> done"
)
SAMPLES = [
    TWO,
    '<tool_call>{"name": "bash", "arguments": {}}</tool_call>',
    '<longcat_tool_call>{"name": "bash", "arguments": {"command": "l',
    "<longcat_tool_call>not json <longcat_",
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)


def test_calls_in_longcat_tags_and_text_around_them() -> None:
    assert every_cut_agrees(P, TWO) == [
        Text("Checking.\n"),
        *call("get_weather", '{"city": "Tokyo"}'),
        Text("\n"),
        *call("get_time", "{}"),
        Text(" done"),
    ]


def test_hermes_tags_are_text_here_and_arguments_stream() -> None:
    assert calls_of(P, SAMPLES[1]).text == SAMPLES[1]
    parser = create_parser(P, TOOLS)
    assert parser.feed(SAMPLES[2]) == [CallStart("bash"), CallArgs('{"command": "l')]


def test_a_tag_without_a_call_object_is_text() -> None:
    result = calls_of(P, SAMPLES[3])
    assert (result.text, result.calls) == (SAMPLES[3], [])
