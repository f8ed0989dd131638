"""Llama 3.x JSON calls."""

from __future__ import annotations

from parser_helpers import TOOLS, any_cut_test, call, calls_of, every_cut_agrees, parse

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Text
from toolcall_middleware.parsers import create_parser

P = "llama3_json"
TAGGED = (
    '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; '
    '{"name": "get_time", "arguments": {}}'
)
SAMPLES = [
    TAGGED,
    'Code: f() { return 1; } and {"name": "pkg", "version": "1"} then '
    '{"name": "bash", "parameters": {"command": "ls"}}\nDone.',
    '<|python_tag|>brave_search.call(query="x") {"parameters": {"a": "}"}, "name": "bash"}',
    '{"name": "write_file", "arguments": {"path": "a", "content": "cu',
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)


def test_python_tag_with_two_calls_separated_by_semicolon() -> None:
    events = every_cut_agrees(P, TAGGED)
    assert events == [
        *call("get_weather", '{"city": "Paris"}'),
        *call("get_time", "{}"),
    ]


def test_objects_without_name_and_arguments_are_text() -> None:
    result = calls_of(P, SAMPLES[1])
    assert result.text == 'Code: f() { return 1; } and {"name": "pkg", "version": "1"} then \nDone.'
    assert result.arguments() == [{"command": "ls"}]
    for text in ('{"name": "x"}', '{"parameters": {}}', "{", "{}", "<|python_tag|>x", "<"):
        result = calls_of(P, text)
        assert (result.text, result.calls) == (text, [])


def test_arguments_before_name_and_non_json_after_python_tag() -> None:
    result = calls_of(P, SAMPLES[2])
    assert result.text == '<|python_tag|>brave_search.call(query="x") '
    assert [(c.name, c.arguments) for c in result.calls] == [("bash", '{"a": "}"}')]


def test_arguments_stream_once_name_and_arguments_are_known() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed('{"name": "bash", "parameters": {"com') == [
        CallStart("bash"),
        CallArgs('{"com'),
    ]
    assert parser.feed('mand": "ls"}}') == [CallArgs('mand": "ls"}'), CallEnd()]


def test_cut_off_call_keeps_what_arrived() -> None:
    result = calls_of(P, SAMPLES[3])
    assert [c.arguments for c in result.calls] == ['{"path": "a", "content": "cu']


def test_calls_in_reasoning_style_text() -> None:
    events = parse(P, ["Thinking. ", '{"name": "get_time", "arguments": {}}'])
    assert events == [Text("Thinking. "), *call("get_time", "{}")]
