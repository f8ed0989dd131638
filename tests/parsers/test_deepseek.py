"""DeepSeek V3 / R1 and V3.1 calls."""

from __future__ import annotations

from parser_helpers import TOOLS, any_cut_test, call, calls_of, every_cut_agrees, parse

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Text
from toolcall_middleware.parsers import create_parser
from toolcall_middleware.parsers.deepseek import (
    CALL_BEGIN,
    CALL_END_MARKER,
    CALLS_BEGIN,
    CALLS_END,
    SEP,
)

P = "deepseek"
V3 = (
    f"Let me check.{CALLS_BEGIN}{CALL_BEGIN}function{SEP}get_weather\n```json\n"
    f'{{"city": "Tokyo",\n  "days": 2}}\n```{CALL_END_MARKER}\n{CALL_BEGIN}function{SEP}get_time\n'
    f"```json\n{{}}\n```{CALL_END_MARKER}{CALLS_END} Done."
)
V31 = (
    f'{CALLS_BEGIN}{CALL_BEGIN}get_weather{SEP}{{"city": "Paris"}}{CALL_END_MARKER}'
    f"{CALL_BEGIN}get_time{SEP}{CALL_END_MARKER}{CALLS_END}"
)
SAMPLES = [
    V3,
    V31,
    f'{CALL_BEGIN}bash{SEP}{{"command": "echo <｜tool"}}{CALL_END_MARKER} tail <',
    f'{CALLS_BEGIN}{CALL_BEGIN}write_file{SEP}{{"path": "a", "content": "cu',
    f"{CALL_BEGIN}function{SEP}get_wea",
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)


def test_v3_layout_with_fences_and_pretty_printed_arguments() -> None:
    events = every_cut_agrees(P, V3)
    assert events == [
        Text("Let me check."),
        *call("get_weather", '{"city": "Tokyo",\n  "days": 2}'),
        *call("get_time", "{}"),
        Text(" Done."),
    ]


def test_v31_layout_begin_and_end_in_one_feed_and_no_arguments() -> None:
    result = calls_of(P, V31)
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_weather", '{"city": "Paris"}'),
        ("get_time", ""),
    ]
    assert result.text == ""


def test_arguments_stream_while_they_arrive() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed(f'{CALL_BEGIN}bash{SEP}{{"comm') == [CallStart("bash"), CallArgs('{"comm')]
    assert parser.feed(f'and": "ls"}}  {CALL_END_MARKER}') == [CallArgs('and": "ls"}'), CallEnd()]


def test_call_without_section_and_text_after() -> None:
    result = calls_of(P, SAMPLES[2])
    assert result.arguments() == [{"command": "echo <｜tool"}]
    assert result.text == " tail <"


def test_cut_off_call_keeps_what_arrived_and_cut_off_header_is_text() -> None:
    result = calls_of(P, SAMPLES[3])
    assert [c.arguments for c in result.calls] == ['{"path": "a", "content": "cu']
    assert calls_of(P, SAMPLES[4]).text == SAMPLES[4]
    assert calls_of(P, "a <｜tool▁ca").text == "a <｜tool▁ca"


def test_calls_in_reasoning_style_text() -> None:
    events = parse(P, ["We need the weather.", f"{CALL_BEGIN}get_time{SEP}{{}}{CALL_END_MARKER}"])
    assert events == [
        Text("We need the weather."),
        *call("get_time", "{}"),
    ]
