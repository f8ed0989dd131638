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


def test_a_repeated_marker_before_one_call_list_leaves_nothing() -> None:
    text = '[TOOL_CALLS][TOOL_CALLS] [{"name": "bash", "arguments": {"command": "ls"}}] ok'
    assert every_cut_agrees(P, text) == [*call("bash", '{"command": "ls"}'), Text(" ok")]


def test_array_entries_that_are_not_calls_leave_no_fragments() -> None:
    text = (
        '[TOOL_CALLS] ["junk", {"name": "bash", "arguments": {}}, "junk", 3, [1, "]"], '
        '{"nam": 1}, {"name": 5, "x": "}"}, {"name": "get_time", "arguments": {}}] done'
    )
    assert every_cut_agrees(P, text) == [
        *call("bash", "{}"),
        *call("get_time", "{}"),
        Text(" done"),
    ]
    parser = create_parser(P, TOOLS)
    parser.feed(text)
    parser.finish()
    assert (parser.strays, parser.text_fallbacks) == (6, 0)  # type: ignore[attr-defined]


def test_an_array_without_a_call_stays_text_whatever_it_holds() -> None:
    for text in (
        '[TOOL_CALLS] ["junk"] text',
        "[TOOL_CALLS][TOOL_CALLS] nope",
        '[TOOL_CALLS] [{"name": 5}, "x"]',
    ):
        result = calls_of(P, text)
        assert (result.text, result.calls) == (text, [])


def test_brackets_too_many_after_the_calls_are_their_markup() -> None:
    assert every_cut_agrees(P, '[TOOL_CALLS]bash{"command": "ls"}}] then') == [
        *call("bash", '{"command": "ls"}'),
        Text(" then"),
    ]
    assert every_cut_agrees(P, '[TOOL_CALLS] [{"name": "get_time", "arguments": {}}]]\n') == [
        *call("get_time", "{}"),
        Text("\n"),
    ]
