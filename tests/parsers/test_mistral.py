"""Mistral calls, before and since v11."""

from __future__ import annotations

from parser_helpers import TOOLS, any_cut_test, call, calls_of, every_cut_agrees, parse

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Text
from toolcall_middleware.parsers import create_parser
from toolcall_middleware.parsers.mistral import MistralParser

P = "mistral"
PRE_V11 = (
    'Sure. [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}, '
    '{"name": "get_time", "arguments": "{}"}] ok'
)
V11 = '[TOOL_CALLS]get_weather{"city": "Paris", "days": 1}[TOOL_CALLS]get_time[ARGS]{} and text'
SAMPLES = [
    PRE_V11,
    V11,
    '[TOOL_CALLS] nope [TOOL_CALLS]{"nam": 1} [TOOL_CALLS][] [x] [',
    '[TOOL_CALLS]write_file{"path": "a", "content": "cu',
    '[TOOL_CALLS]bash{"command": "echo [TOOL_CALLS] \\"}\\""}',
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)


def test_pre_v11_array_with_string_arguments() -> None:
    events = every_cut_agrees(P, PRE_V11)
    assert events == [
        Text("Sure. "),
        *call("get_weather", '{"city": "Paris"}'),
        *call("get_time", "{}"),
        Text(" ok"),
    ]


def test_v11_calls_with_and_without_args_marker() -> None:
    result = calls_of(P, V11)
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_weather", '{"city": "Paris", "days": 1}'),
        ("get_time", "{}"),
    ]
    assert result.text == " and text"


def test_arguments_stream_and_ids_are_left_to_the_rewriter() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed('[TOOL_CALLS]bash{"command": "l') == [
        CallStart("bash", None),
        CallArgs('{"command": "l'),
    ]
    assert parser.feed('s"}') == [CallArgs('s"}'), CallEnd()]
    assert MistralParser.ID_STYLE == "mistral9"


def test_not_a_call_is_text_and_cut_off_call_keeps_what_arrived() -> None:
    assert calls_of(P, SAMPLES[2]).text == SAMPLES[2]
    result = calls_of(P, SAMPLES[3])
    assert [c.arguments for c in result.calls] == ['{"path": "a", "content": "cu']
    assert calls_of(P, "[TOOL_CALLS]get_wea").text == "[TOOL_CALLS]get_wea"


def test_markers_inside_argument_strings_are_arguments() -> None:
    assert calls_of(P, SAMPLES[4]).arguments() == [{"command": 'echo [TOOL_CALLS] "}"'}]


def test_calls_in_reasoning_style_text() -> None:
    events = parse(P, ["I will call it.", "[TOOL_CALLS]get_time{}"])
    assert events == [Text("I will call it."), *call("get_time", "{}")]
