"""Properties every format parser keeps, checked on random markup soup."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import TOOLS, assemble, cut, normalise, parse

from toolcall_middleware.events import Text
from toolcall_middleware.parsers import create_parser

FORMATS = [
    "hermes",
    "qwen3_coder",
    "qwen_xml",
    "deepseek",
    "glm45",
    "minimax_m2",
    "mistral",
    "llama3_json",
    "gpt_oss",
]
XML_FORMATS = ["qwen3_coder", "qwen_xml", "glm45", "minimax_m2"]
COMMON = ["<", ">", "{", "}", "[", "]", '"', "\\", "\n", " ", "x", "null", "3", ";", ","]
# Pieces of each format's markup, shuffled into random text: whole markers, cut markers, values.
TOKENS = {
    "hermes": [
        "<tool_call>",
        "</tool_call>",
        "<tool_",
        '{"name": "bash"',
        ', "arguments": ',
        '{"a": "x\\"}"}',
        '"{\\"b\\": 1}"',
        '"parameters": {}',
        "\\u00e9",
        "\\ud83d",
    ],
    "qwen3_coder": [
        "<tool_call>",
        "</tool_call>",
        "<function=bash>",
        "<function=",
        "</function>",
        "<parameter=command>",
        "<parameter=days>",
        "</parameter>",
        "{'a': 1}",
    ],
    "qwen_xml": [
        "<bash>",
        "</bash>",
        "<command>",
        "</command>",
        "<days>",
        "</days>",
        "<b>",
        "</b>",
        "<get_time>",
        "</get_time>",
        "/a/b",
    ],
    "deepseek": [
        "<｜tool▁calls▁begin｜>",
        "<｜tool▁calls▁end｜>",
        "<｜tool▁call▁begin｜>",
        "<｜tool▁call▁end｜>",
        "<｜tool▁sep｜>",
        "function",
        "bash",
        "```json\n",
        "```",
        '{"a": 1}',
        "<｜tool",
    ],
    "glm45": [
        "<tool_call>",
        "</tool_call>",
        "bash",
        "<arg_key>",
        "</arg_key>",
        "<arg_value>",
        "</arg_value>",
        "command",
        "days",
    ],
    "minimax_m2": [
        "<minimax:tool_call>",
        "</minimax:tool_call>",
        '<invoke name="bash">',
        "</invoke>",
        '<parameter name="command">',
        '<parameter name="days">',
        "</parameter>",
        "<invoke",
        "<parameters>",
    ],
    "mistral": [
        "[TOOL_CALLS]",
        "[ARGS]",
        "bash",
        '{"a": "}"}',
        '{"name": "bash", "arguments": {}}',
        '"{\\"x\\": 2}"',
        "[TOOL_",
    ],
    "llama3_json": [
        "<|python_tag|>",
        '{"name": "bash"',
        ', "parameters": ',
        '{"a": [1, "]"]}',
        '"arguments": "{}"',
        '{"name": "get_time", "arguments": {}}',
    ],
    "gpt_oss": [
        "<|start|>",
        "assistant",
        "<|channel|>",
        "analysis",
        "commentary to=functions.bash ",
        "<|constrain|>",
        "json",
        "<|message|>",
        '{"a": 1}',
        "<|call|>",
        "<|end|>",
        "<|return|>",
    ],
}


def soup(provider: str) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(TOKENS[provider] + COMMON), max_size=30).map("".join)


@pytest.mark.parametrize("provider", FORMATS)
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_any_cut_of_any_text_gives_the_same_events(provider: str, data: st.DataObject) -> None:
    text = data.draw(soup(provider))
    whole = parse(provider, [text], TOOLS)
    assemble(whole)  # a well-formed event sequence: calls open, take arguments, close
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=10))
    assert parse(provider, cut(text, cuts), TOOLS) == whole
    assert parse(provider, list(text), TOOLS) == whole


@pytest.mark.parametrize("provider", XML_FORMATS)
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_xml_formats_always_emit_a_json_object(provider: str, data: st.DataObject) -> None:
    text = data.draw(soup(provider))
    for call in assemble(parse(provider, [text], TOOLS)).calls:
        assert call.arguments == "" or isinstance(json.loads(call.arguments), dict)


@pytest.mark.parametrize("provider", FORMATS)
@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_characters="<[{"), max_size=40))
def test_text_without_markup_characters_passes_unchanged(provider: str, text: str) -> None:
    parser = create_parser(provider, TOOLS)
    assert normalise([*parser.feed(text), *parser.finish()]) == ([Text(text)] if text else [])


@pytest.mark.parametrize("provider", FORMATS)
def test_triggers_promise(provider: str) -> None:
    """After echoing its input, a parser echoes text without trigger characters unchanged."""
    parser = create_parser(provider, TOOLS)
    triggers = type(parser).TRIGGERS  # type: ignore[attr-defined]
    assert triggers and all(c in "<[{" for c in triggers)
    assert parser.feed("plain words ") == [Text("plain words ")]
    assert parser.feed("more: ok") == [Text("more: ok")]


@pytest.mark.parametrize("provider", FORMATS)
def test_lone_marker_start_at_end_of_stream_is_text(provider: str) -> None:
    for tail in ("<", "[", "{", "<tool", "<|", "[TOOL"):
        result = assemble(parse(provider, ["before ", tail], TOOLS))
        assert (result.text, result.calls) == ("before " + tail, [])
