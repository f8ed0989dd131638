"""GigaChat 3 / 3.1 calls: a JSON call object after the function-call header."""

from __future__ import annotations

from parser_helpers import TOOLS, any_cut_test, call, calls_of, every_cut_agrees

from toolcall_middleware.events import CallArgs, CallStart, Text
from toolcall_middleware.parsers import create_parser
from toolcall_middleware.parsers.gigachat3 import V3_HEADER, V31_HEADER

P = "gigachat3"
V3 = f'On it.{V3_HEADER}{{"name": "bash", "arguments": {{"command": "ls"}}}}</s>'
SAMPLES = [
    V3,
    f'{V31_HEADER}{{"name": "get_time", "arguments": {{}}}}\n</s> ',
    f"<|message_sep|>\n\nHi there{V31_HEADER}not json",
    f'{V31_HEADER}{{"name": "write_file", "arguments": {{"path": "a", "content": "cu',
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)


def test_both_headers_open_a_call_and_the_end_of_sequence_is_framing() -> None:
    assert every_cut_agrees(P, V3) == [Text("On it."), *call("bash", '{"command": "ls"}')]
    assert calls_of(P, SAMPLES[1]).arguments() == [{}]
    assert calls_of(P, SAMPLES[1]).text == " "


def test_a_message_separator_without_the_role_and_a_header_without_a_call_are_text() -> None:
    result = calls_of(P, SAMPLES[2])
    assert (result.text, result.calls) == (SAMPLES[2], [])


def test_arguments_stream_and_a_cut_off_call_keeps_what_arrived() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed(SAMPLES[3]) == [
        CallStart("write_file"),
        CallArgs('{"path": "a", "content": "cu'),
    ]
