"""Tencent Hy3's ``<tool_calls>`` block of key/value calls at the parser (the peers' cases
through the middleware: ``tests/test_peer_cases.py``)."""

from __future__ import annotations

import pytest
from parser_helpers import TOOLS, any_cut_test, assemble, call, calls_of, every_cut_agrees, parse

from peers_hy_v3 import CASES, suffixed
from toolcall_middleware.detect import resolve_provider
from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Text
from toolcall_middleware.parsers import ParserContext, create_parser
from toolcall_middleware.parsers.family import family_of
from toolcall_middleware.parsers.sniff import family_parser

P = "hy_v3"
TWO_CALLS = (
    "Checking.<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n"
    "<arg_value>Oslo</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n"
    "</tool_call>\n<tool_call>get_time<tool_sep>\n</tool_call>\n</tool_calls>\nDone."
)
SAMPLES = [
    TWO_CALLS,
    suffixed(TWO_CALLS),
    "the <tool_calls> tag, <tool_calls>\n<tool_call>{x}</tool_call>\n</tool_calls>",
    "<tool_calls><tool_call>write_file<tool_sep><arg_key>path</arg_key><arg_value>a.txt"
    "</arg_value><arg_key>content</arg_key><arg_value>line 1\nline",
    "<tool_calls>\n<tool_call>get_time<tool_sep></tool_call>\n text <tool_calls>\n</tool_calls>",
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)
test_any_cut_of_a_peer_case = any_cut_test(P, [c.text for c in CASES], ParserContext(TOOLS.tools))


def test_several_calls_text_around_the_block_and_whitespace_framing() -> None:
    events = every_cut_agrees(P, TWO_CALLS)
    assert events == [
        Text("Checking."),
        *call("get_weather", '{"city": "Oslo", "days": 3}'),
        *call("get_time"),
        Text("\nDone."),
    ]


def test_hy3_spelling_reads_the_same() -> None:
    assert every_cut_agrees(P, suffixed(TWO_CALLS)) == every_cut_agrees(P, TWO_CALLS)


def test_values_stream_while_they_arrive_and_are_exact() -> None:
    parser = create_parser(P, TOOLS)
    head = "<tool_calls>\n<tool_call>bash<tool_sep>\n<arg_key>command</arg_key>\n<arg_value>"
    assert parser.feed(head + "\necho ") == [
        CallStart("bash"),
        CallArgs('{"command": '),
        CallArgs('"\\necho '),
    ]
    # A newline at a value's end is the value's too: the template adds none.
    assert parser.feed("hi\n</arg_value>\n</tool_call>") == [
        CallArgs("hi\\n"),
        CallArgs('"'),
        CallArgs("}"),
        CallEnd(),
    ]
    # GLM-4.5, whose template puts values on lines of their own, drops that newline.
    value = "<arg_key>command</arg_key><arg_value>\necho\n</arg_value></tool_call>"
    assert calls_of("glm45", f"<tool_call>bash{value}").arguments() == [{"command": "echo"}]
    hy3 = f"<tool_calls><tool_call>bash<tool_sep>{value}"
    assert calls_of(P, hy3).arguments() == [{"command": "\necho\n"}]


def test_a_block_tag_without_a_call_is_text() -> None:
    for text in ("a <tool_calls> b", "<tool_calls>\n", "x <tool_calls>\n<tool_call> y"):
        parser = create_parser(P, TOOLS)
        events = [*parser.feed(text), *parser.finish()]
        assert assemble(events).text == text
        assert parser.text_fallbacks == 1


def test_an_empty_block_is_framing() -> None:
    assert calls_of(P, "A<tool_calls>\n</tool_calls>B").text == "AB"


def test_text_after_a_call_ends_a_block_left_open() -> None:
    result = calls_of(P, "<tool_calls><tool_call>get_time<tool_sep></tool_call>\n\nAll set.")
    assert (result.text, [c.name for c in result.calls]) == ("\n\nAll set.", ["get_time"])


def test_the_block_end_ends_a_call_left_open() -> None:
    text = (
        "<tool_calls><tool_call>bash<tool_sep><arg_key>command</arg_key><arg_value>ls</tool_calls>x"
    )
    result = calls_of(P, text)
    assert (result.arguments(), result.text) == ([{"command": "ls"}], "x")


def test_tags_out_of_place_are_strays() -> None:
    parser = create_parser(P, TOOLS)
    text = (
        "<tool_calls>\n<tool_calls><tool_call>bash<tool_sep><tool_sep><arg_key>command</arg_key>"
        "<arg_value>ls</arg_value><tool_calls></tool_call></tool_calls>"
        + suffixed("</tool_calls></tool_call><tool_sep></arg_value>")
        + "end"
    )
    result = assemble([*parser.feed(text), *parser.finish()])
    assert (result.text, result.arguments()) == ("end", [{"command": "ls"}])
    assert parser.strays == 7
    # The bare tags are words a model may write: outside the block they stay text.
    assert (
        calls_of(P, "see </tool_calls> and <tool_sep>").text == "see </tool_calls> and <tool_sep>"
    )


def test_a_call_without_separator_reads_as_hy4_writes_it() -> None:
    text = suffixed("<tool_calls><tool_call>get_weather<arg_key>city</arg_key>")
    text += suffixed("<arg_value>Oslo</arg_value></tool_call><tool_call>get_time</tool_call>")
    result = calls_of(P, text + suffixed("</tool_calls>"))
    assert [(c.name, a) for c, a in zip(result.calls, result.arguments(), strict=True)] == [
        ("get_weather", {"city": "Oslo"}),
        ("get_time", {}),
    ]


def test_held_counts_the_block_until_a_call_decides() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed("<tool_calls>\n  ") == []
    assert parser.held == len("<tool_calls>\n  ")
    parser.feed("<tool_call>get_time<tool_sep></tool_call>\n")
    assert parser.held == 1


def test_cut_off_call_keeps_what_arrived() -> None:
    assert calls_of(P, SAMPLES[3]).arguments() == [{"path": "a.txt", "content": "line 1\nline"}]


@pytest.mark.parametrize(
    "model",
    [
        "tencent/Hy3",
        "hy3",
        "hy3-preview",
        "Hy3-FP8",
        "RedHatAI/Hy3-NVFP4-FP8",
        "tencent/hy3-295b-a21b",
    ],
)
def test_hy3_names_pick_the_format(model: str) -> None:
    assert resolve_provider("auto", model) == P


def test_hunyuan_a13b_keeps_its_format_and_shares_the_family() -> None:
    assert resolve_provider("auto", "tencent/Hunyuan-A13B-Instruct") == "hunyuan_a13b"
    assert family_of(P).members == family_of("hunyuan_a13b").members
    assert set(family_of(P).members) >= {P, "hunyuan_a13b"}


@pytest.mark.parametrize(
    ("default", "text", "detected"),
    [
        # Under Hunyuan-A13B's name, Hy3's own spelling of the block names Hy3.
        ("hunyuan_a13b", suffixed("<tool_calls><tool_call>get_time<tool_sep></tool_call>"), P),
        ("hunyuan_a13b", '<tool_calls>[{"name": "get_time", "arguments": {}}]', "hunyuan_a13b"),
        # A name no rule knows: the block with a call in it names Hy3, a list Hunyuan-A13B.
        (None, "<tool_calls>\n<tool_call>get_time<tool_sep></tool_call>\n</tool_calls>", P),
        (None, "<tool_calls><tool_call>get_time<tool_sep></tool_call></tool_calls>", P),
        (None, '<tool_calls>[{"name": "get_time", "arguments": {}}]</tool_calls>', "hunyuan_a13b"),
    ],
)
def test_the_markers_tell_hy3_from_hunyuan_a13b(
    default: str | None, text: str, detected: str
) -> None:
    parser = family_parser(default, TOOLS) if default else create_parser("sniff", TOOLS)
    events = [*parser.feed(text), *parser.finish()]
    assert parser.detected == detected
    assert [c.name for c in assemble(events).calls] == ["get_time"]


def test_a_hy3_stream_reads_the_same_through_its_family() -> None:
    text = suffixed(TWO_CALLS)
    parser = family_parser(P, TOOLS)
    assert assemble([*parser.feed(text), *parser.finish()]) == assemble(parse(P, [text], TOOLS))
