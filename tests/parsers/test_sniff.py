"""Recognising a format from its markers when the model name says nothing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import TOOLS, assert_cut_invariant, calls_of, normalise, parse

from toolcall_middleware.events import CallEnd, CallStart, Text
from toolcall_middleware.parsers import create_parser, formats
from toolcall_middleware.parsers.sniff import TOOL_CALL_FORMATS, SniffingParser

# One bash call written by every format the markers in a stream can tell.
MARKUP = {
    name: fmt.write_calls([("bash", '{"command": "ls"}')])
    for name, fmt in formats().items()
    if fmt.write_calls is not None and (fmt.sniff_markers or name in TOOL_CALL_FORMATS)
}
PREFIX = "Some <b>text</b> [first] {x}; <tool_call> not yet. "


@pytest.mark.parametrize("provider", sorted(MARKUP))
def test_markers_pick_the_format_and_the_text_before_passes(provider: str) -> None:
    text = PREFIX + MARKUP[provider] + " after"
    parser = SniffingParser(TOOLS)
    events = normalise([*parser.feed(text), *parser.finish()])
    assert parser.detected == provider
    direct = parse(provider, [MARKUP[provider] + " after"], TOOLS)
    assert events == normalise([Text(PREFIX), *direct])
    result = calls_of("sniff", text)
    assert result.arguments() == [{"command": "ls"}]
    assert result.text == PREFIX + " after"


@pytest.mark.parametrize("provider", sorted(MARKUP))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_any_cut_gives_the_same_events(provider: str, data: st.DataObject) -> None:
    text = PREFIX + MARKUP[provider] + " after <"
    cuts = data.draw(st.lists(st.integers(1, len(text) - 1), max_size=10))
    assert_cut_invariant("sniff", text, cuts, TOOLS)


def test_glm_call_without_arguments_and_undecidable_tool_call_is_text() -> None:
    assert parse("sniff", ["<tool_call>get_time</tool_call>"], TOOLS) == [
        CallStart("get_time"),
        CallEnd(),
    ]
    for text in ("<tool_call> is a tag", "<tool_call>", "<tool_call>\n<b>", "a <tool_ca"):
        result = calls_of("sniff", text)
        assert (result.text, result.calls) == (text, [])
    long_name = "<tool_call>" + "a" * 300 + "<arg_key>"
    assert calls_of("sniff", long_name).text == long_name


def test_plain_text_passes_straight_through() -> None:
    parser = create_parser("sniff", TOOLS)
    assert parser.feed("hello ") == [Text("hello ")]
    assert parser.feed("world <") == [Text("world ")]
    assert parser.finish() == [Text("<")]


def test_id_style_and_triggers_follow_the_detected_format() -> None:
    parser = SniffingParser(TOOLS)
    assert parser.id_style is None
    parser.feed("[TOOL_CALLS]bash{}")
    assert (parser.detected, parser.id_style) == ("mistral", "mistral9")
    triggers = set(SniffingParser.TRIGGERS)
    for provider in MARKUP:
        assert set(type(create_parser(provider, TOOLS)).TRIGGERS) <= triggers  # type: ignore[attr-defined]
