"""xLAM's JSON call lists at the parser (the peers' cases through the middleware:
``tests/test_peer_cases.py``)."""

from __future__ import annotations

import pytest
from parser_helpers import any_cut_test, assemble, every_cut_agrees, make_context, parse, run

from peer_cases import PeerCase
from peers_json_lists import XLAM_CASES
from toolcall_middleware.detect import resolve_provider
from toolcall_middleware.events import CallArgs, CallStart, Text
from toolcall_middleware.parsers import create_parser

P = "xlam"
TOOLS = make_context("get_current_weather", "a", "b")


@pytest.mark.parametrize("case", XLAM_CASES[3:7], ids=lambda c: c.name)
def test_the_peers_wrappers_cut_anywhere(case: PeerCase) -> None:
    result = assemble(every_cut_agrees(P, case.text, TOOLS))
    assert result.text == case.content
    assert [(c.name, args) for c, args in zip(result.calls, result.arguments(), strict=True)] == (
        case.calls
    )


def test_arguments_stream_as_they_arrive() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed('[{"name": "get_current_weather", "argu') == []
    assert parser.feed('ments": {"city": "Da') == [
        CallStart("get_current_weather"),
        CallArgs('{"city": "Da'),
    ]


def test_a_bare_list_needs_an_offered_tool_and_arguments_a_wrapper_any_name() -> None:
    for text in (
        '[{"name": "unknown", "arguments": {}}]',
        '[{"name": "a"}]',
        '[{"arguments": {}, "name": "x"}]',
        "[1, 2] and [link](https://x)",
        '```json\n[{"name": "x", "arguments": {}}]\n```',
    ):
        assert parse(P, [text], TOOLS) == [Text(text)], text
    for text in (
        '[TOOL_CALLS][{"name": "unknown", "arguments": {}}]',
        '<tool_call>{"name": "unknown", "arguments": {}}</tool_call>',
        '[TOOL_CALLS] {"name": "unknown", "arguments": {}}',
    ):
        result = assemble(every_cut_agrees(P, text, TOOLS))
        assert ([c.name for c in result.calls], result.text) == (["unknown"], ""), text


def test_code_fences_that_hold_no_call_list_are_text() -> None:
    text = '```python\nprint([1])\n```\n```json\n{"a": 1}\n```\n````'
    assert every_cut_agrees(P, text, TOOLS) == [Text(text)]


def test_an_entry_that_is_no_call_beside_calls_is_text() -> None:
    parser = create_parser(P, TOOLS)
    result = assemble(run(parser, ['[{"name": "a", "arguments": {}}, "oops", {"name": "b"}]']))
    assert ([c.name for c in result.calls], result.text) == (["a"], '"oops"{"name": "b"}')
    assert parser.text_fallbacks == 2  # type: ignore[attr-defined]


def test_xlam_names_pick_the_format_before_llama_and_qwen() -> None:
    for model in (
        "Salesforce/Llama-xLAM-2-8b-fc-r",
        "Salesforce/xLAM-2-32b-fc-r",
        "Salesforce/xLAM-7b-fc-r",
    ):
        assert resolve_provider("auto", model) == P, model
    text = '[{"name": "a", "arguments": {}}]'
    assert assemble(parse("sniff", [text], TOOLS)).text == text  # never read by its shape


test_any_cut_gives_the_same_events = any_cut_test(P, [c.text for c in XLAM_CASES], TOOLS)
