"""Qwen3-Coder / Qwen3.5 XML calls."""

from __future__ import annotations

import json

from parser_helpers import (
    TOOLS,
    any_cut_test,
    call,
    calls_of,
    every_cut_agrees,
    make_context,
    parse,
)

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Text
from toolcall_middleware.parsers import create_parser

P = "qwen3_coder"
WRITE = (
    "Let me write it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/app.py\n"
    '</parameter>\n<parameter=content>\ndef f():\n    return "1"\n\n</parameter>\n'
    "</function>\n</tool_call>"
)
SAMPLES = [
    WRITE,
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n"
    "<function=get_time>\n</function>\n</tool_call> after",
    "bare <function=bash><parameter=command>ls</function> then <function=x\n"
    " and <tool_call> plain </tool_call>",
    "<tool_call><function=write_file><parameter=path>a</parameter><parameter=content>cut o",
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)


def test_whole_response_in_one_feed_framing_newlines_stripped() -> None:
    every_cut_agrees(P, WRITE)
    result = calls_of(P, WRITE)
    assert result.text == "Let me write it.\n"
    assert result.arguments() == [{"path": "src/app.py", "content": 'def f():\n    return "1"\n'}]


def test_several_calls_in_one_feed_typed_from_the_schema_and_empty_arguments() -> None:
    result = calls_of(P, SAMPLES[1])
    assert [c.name for c in result.calls] == ["get_weather", "get_time"]
    assert result.calls[0].arguments == '{"city": "Tokyo", "days": 3}'
    assert result.calls[1].arguments == ""  # no parameters: the rewriter writes "{}"
    assert result.text == "\n after"  # text between and after the calls is kept


def test_string_values_stream_as_escaped_pieces() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed('<function=write_file><parameter=content>\nline "1"\n') == [
        CallStart("write_file"),
        CallArgs('{"content": '),
        CallArgs('"line \\"1\\"'),
    ]
    # The trailing newline is held: it is framing only if the value ends here.
    assert parser.feed("line 2</par") == [CallArgs("\\nline 2")]
    assert parser.feed("ameter></function>") == [CallArgs('"'), CallArgs("}"), CallEnd()]


def test_missing_parameter_close_and_bare_function() -> None:
    result = calls_of(P, SAMPLES[2])
    assert [(c.name, c.arguments) for c in result.calls] == [("bash", '{"command": "ls"}')]
    assert result.text == "bare  then <function=x\n and <tool_call> plain </tool_call>"


def test_call_cut_off_at_end_of_stream_keeps_valid_json() -> None:
    result = calls_of(P, SAMPLES[3])
    assert result.arguments() == [{"path": "a", "content": "cut o"}]


def test_begin_and_end_in_one_feed_and_a_lone_angle_bracket() -> None:
    events = parse(P, ["a <", "function=get_time></function> b <"])
    assert events == [Text("a "), *call("get_time"), Text(" b <")]


def test_calls_in_reasoning_style_text_not_at_the_start() -> None:
    text = "We should look first.\n\n<tool_call>\n<function=bash>\n<parameter=command>\nls -la\n"
    text += "</parameter>\n</function>\n</tool_call>"
    result = calls_of(P, text)
    assert result.text == "We should look first.\n\n"
    assert result.arguments() == [{"command": "ls -la"}]


def test_indentation_and_blank_lines_are_part_of_the_value() -> None:
    result = calls_of(P, "<function=bash><parameter=command>\n\n  x\n\n</parameter></function>")
    assert result.arguments() == [{"command": "\n  x\n"}]


def test_non_string_values_typed_when_they_close() -> None:
    context = make_context(
        (
            "f",
            {
                "n": {"type": "number"},
                "flag": {"type": "boolean"},
                "obj": {"anyOf": [{"type": "null"}, {"type": "object"}]},
                "items": {"type": ["array", "null"]},
                "count": {"type": "integer"},
                "s": {"type": "string"},
            },
        )
    )
    text = (
        "<function=f><parameter=n>2.50</parameter><parameter=flag>True</parameter>"
        "<parameter=obj>{'a': (1, 2), 'b': None}</parameter><parameter=items>[1, \"x\"]"
        "</parameter><parameter=count>seven</parameter><parameter=s>null</parameter>"
        "<parameter=other>42</parameter></function>"
    )
    result = calls_of(P, text, context)
    assert json.loads(result.calls[0].arguments) == {
        "n": 2.5,
        "flag": True,
        "obj": {"a": [1, 2], "b": None},
        "items": [1, "x"],
        "count": "seven",
        "s": None,
        "other": "42",
    }
    every_cut_agrees(P, text, context)
