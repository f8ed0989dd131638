"""Hunyuan-A13B's and Jamba's ``<tool_calls>[...]</tool_calls>`` at the parser (the peers' cases
through the middleware: ``tests/test_peer_cases.py``)."""

from __future__ import annotations

import pytest
from parser_helpers import any_cut_test, assemble, every_cut_agrees, make_context, parse

from peer_cases import PeerCase
from peers_json_lists import HUNYUAN_A13B, JAMBA_CASES
from toolcall_middleware.detect import resolve_provider
from toolcall_middleware.events import CallArgs, CallStart, Text
from toolcall_middleware.parsers import create_parser

P = "hunyuan_a13b"
TOOLS = make_context(
    "get_weather", "get_current_weather", "register_user", "complex_tool", "a", "b"
)
CASES = [c for c in [*HUNYUAN_A13B, *JAMBA_CASES] if not c.reasoning]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_peers_cases_cut_anywhere(case: PeerCase) -> None:
    result = assemble(every_cut_agrees(P, case.text, TOOLS))
    assert result.text == case.content  # (the answer tags are framing: dropped)
    assert list(zip([c.name for c in result.calls], result.arguments(), strict=True)) == list(
        case.calls
    )


def test_arguments_stream_as_they_arrive() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed("Checking. <tool_calls>") == [Text("Checking. ")]
    assert parser.feed('[{"name": "get_weather", "arguments": {"ci') == [
        CallStart("get_weather"),
        CallArgs('{"ci'),
    ]
    assert parser.feed('ty": "Oslo"') == [CallArgs('ty": "Oslo"')]


def test_the_answer_tags_are_framing() -> None:
    text = "<answer>\nIt is sunny.</answer>"
    assert assemble(every_cut_agrees(P, text, TOOLS)).text == "It is sunny."


def test_a_call_cut_off_keeps_what_arrived() -> None:
    result = assemble(parse(P, ['<tool_calls>[{"name": "a", "arguments": {'], TOOLS))
    assert (result.text, [(c.name, c.arguments) for c in result.calls]) == ("", [("a", "{")])


def test_a_tag_in_prose_without_a_list_is_text() -> None:
    text = "Wrap them in <tool_calls> tags, then stop."
    assert assemble(every_cut_agrees(P, text, TOOLS)).text == text


def test_hunyuan_and_jamba_names_pick_the_format() -> None:
    assert resolve_provider("auto", "tencent/Hunyuan-A13B-Instruct") == P
    assert resolve_provider("auto", "ai21labs/AI21-Jamba-Mini-1.7") == P


test_any_cut_gives_the_same_events = any_cut_test(P, [c.text for c in CASES], TOOLS)
