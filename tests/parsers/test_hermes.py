"""Hermes / Qwen JSON-in-tags calls."""

from __future__ import annotations

from parser_helpers import TOOLS, any_cut_test, call, calls_of, every_cut_agrees, parse

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Text

P = "hermes"
TWO_CALLS = (
    "I'll check both. <tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Tokyo", "days": 2}}\n'
    "</tool_call>\n<tool_call>\n"
    '{"name": "get_time", "arguments": {}}\n'
    "</tool_call> Done."
)
SAMPLES = [
    TWO_CALLS,
    '<tool_call>{"name": "bash", "parameters": {"command": "echo \\"}</tool_call>\\""}}'
    "</tool_call>after",
    '<tool_call>\n{"arguments": "{\\"city\\": \\"Paris \\u00e9\\ud83d\\ude00\\"}", '
    '"name": "get_weather"}\n</tool_call>',
    'x <tool_call> not json </tool_call> <tool_call>{"nam": 1}</tool_call> <',
    '<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "b',
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)


def test_whole_response_in_one_feed_with_text_around_and_between() -> None:
    events = every_cut_agrees(P, TWO_CALLS)
    assert events == [
        Text("I'll check both. "),
        *call("get_weather", '{"city": "Tokyo", "days": 2}'),
        Text("\n"),
        *call("get_time", "{}"),
        Text(" Done."),
    ]


def test_begin_and_end_of_a_call_in_one_feed_after_earlier_text() -> None:
    events = parse(P, ["Thinking about it", ' more. <tool_call>{"name": "get_time"}</tool_call>'])
    assert events == [Text("Thinking about it more. "), *call("get_time")]


def test_arguments_stream_as_raw_text_while_they_arrive() -> None:
    from toolcall_middleware.parsers import create_parser

    parser = create_parser(P, TOOLS)
    assert parser.feed('<tool_call>{"name": "bash", "arguments": {"comm') == [
        CallStart("bash"),
        CallArgs('{"comm'),
    ]
    assert parser.feed('and":  "ls"} }') == [CallArgs('and":  "ls"}'), CallEnd()]
    assert parser.feed("\n</tool_call>") == []
    assert parser.finish() == []


def test_parameters_alias_and_string_arguments_are_decoded() -> None:
    result = calls_of(P, SAMPLES[2])
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_weather", '{"city": "Paris é😀"}')
    ]
    result = calls_of(P, SAMPLES[1])
    assert result.arguments() == [{"command": 'echo "}</tool_call>"'}]
    assert result.text == "after"


def test_arguments_before_name_are_held_until_the_name() -> None:
    result = calls_of(P, '<tool_call>{"arguments": {"a": [1, {"b": "}"}]}, "name": "bash"}')
    assert [(c.name, c.arguments) for c in result.calls] == [("bash", '{"a": [1, {"b": "}"}]}')]


def test_empty_and_missing_arguments() -> None:
    events = parse(P, ['<tool_call>{"name": "get_time", "arguments": {}}</tool_call>'])
    assert CallArgs("{}") in events
    for missing in (
        '{"name": "get_time"}',
        '{"name": "get_time", "arguments": null}',
        '{"name": "get_time", "arguments": ""}',
    ):
        assert parse(P, [f"<tool_call>{missing}</tool_call>"]) == call("get_time")


def test_call_cut_off_at_end_of_stream_keeps_what_arrived() -> None:
    result = calls_of(P, SAMPLES[4])
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("write_file", '{"path": "a", "content": "b')
    ]


def test_last_block_without_closing_tag_and_text_after_a_missing_close() -> None:
    result = calls_of(P, '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}')
    assert result.arguments() == [{"command": "ls"}]
    result = calls_of(P, '<tool_call>{"name": "bash", "arguments": {}} and then text')
    assert (result.text, len(result.calls)) == (" and then text", 1)


def test_markup_that_is_not_a_call_is_text() -> None:
    text = SAMPLES[3]
    result = calls_of(P, text)
    assert result.calls == []
    assert result.text == text
    assert calls_of(P, "a lone <").text == "a lone <"
    assert calls_of(P, "cut <tool_ca").text == "cut <tool_ca"
    assert calls_of(P, "<tool_call>\n").text == "<tool_call>\n"


def test_several_calls_in_one_feed_inside_reasoning_style_text() -> None:
    text = (
        "The user wants the weather. Let me call the tool.\n"
        '<tool_call>{"name": "get_weather", "arguments": {"city": "A"}}</tool_call>'
        '<tool_call>{"name": "get_weather", "arguments": {"city": "B"}}</tool_call>'
    )
    result = calls_of(P, text)
    assert result.text == "The user wants the weather. Let me call the tool.\n"
    assert result.arguments() == [{"city": "A"}, {"city": "B"}]


def test_parser_is_reusable_after_finish() -> None:
    from toolcall_middleware.parsers import create_parser

    parser = create_parser(P, TOOLS)
    first = [*parser.feed('<tool_call>{"name": "bash"'), *parser.finish()]
    second = [*parser.feed('<tool_call>{"name": "get_time"}</tool_call>'), *parser.finish()]
    assert first == call("bash")
    assert second == call("get_time")
