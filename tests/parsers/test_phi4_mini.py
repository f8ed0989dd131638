"""Phi-4-mini's ``functools[...]`` calls at the parser (the peers' cases through the middleware:
``tests/test_peer_cases.py``)."""

from __future__ import annotations

import pytest
from parser_helpers import any_cut_test, assemble, call, every_cut_agrees, make_context, parse, run

from peer_cases import PeerCase
from peers_json_lists import PHI4_MINI
from toolcall_middleware.detect import resolve_provider
from toolcall_middleware.events import CallArgs, CallStart, Text
from toolcall_middleware.parsers import create_parser

P = "phi4_mini"
TOOLS = make_context("get_weather", "get_time", "test_function", "refresh", "func")


@pytest.mark.parametrize("case", PHI4_MINI[:6], ids=lambda c: c.name)
def test_the_peers_cases_cut_anywhere(case: PeerCase) -> None:
    result = assemble(every_cut_agrees(P, case.text, TOOLS))
    assert result.text == case.content
    assert list(zip([c.name for c in result.calls], result.arguments(), strict=True)) == list(
        case.calls
    )


def test_arguments_stream_as_they_arrive() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed("Checking.\nfunc") == [Text("Checking.\n")]
    assert parser.feed('tools[{"name": "get_weather", "arguments": {"ci') == [
        CallStart("get_weather"),
        CallArgs('{"ci'),
    ]
    assert parser.feed('ty": "Oslo"') == [CallArgs('ty": "Oslo"')]


def test_a_call_cut_off_keeps_what_arrived() -> None:
    # vLLM's malformed input [0]: the stream ended inside the arguments.
    result = assemble(parse(P, ['functools[{"name": "func", "arguments": {'], TOOLS))
    assert (result.text, [(c.name, c.arguments) for c in result.calls]) == ("", [("func", "{")])


def test_entries_that_are_no_calls_beside_calls_are_text() -> None:
    parser = create_parser(P, TOOLS)
    text = 'functools[{"name": "get_time", "arguments": {}}, 3, {"x": [1]}, {"name": "refresh"}]'
    events = run(parser, [text])
    result = assemble(events)
    assert [c.name for c in result.calls] == ["get_time", "refresh"]
    assert result.text == '3{"x": [1]}'
    assert parser.text_fallbacks == 2  # type: ignore[attr-defined]


def test_functools_in_prose_is_text() -> None:
    text = "Use functools.partial, or functools.reduce(f, [1, 2])."
    assert parse(P, list(text), TOOLS) == [Text(text)]
    assert every_cut_agrees(P, "functools[1, 2]", TOOLS) == [Text("functools[1, 2]")]


def test_only_a_phi_4_mini_name_reads_functools() -> None:
    assert resolve_provider("auto", "microsoft/Phi-4-mini-instruct") == P
    assert resolve_provider("auto", "microsoft/Phi-4-multimodal-instruct") == P
    assert resolve_provider("auto", "microsoft/phi-4") == "sniff"  # (no tool calling)
    text = 'functools[{"name": "get_time", "arguments": {}}]'
    assert assemble(parse("sniff", [text], TOOLS)).text == text
    assert assemble(parse(P, [text], TOOLS)).calls[0].name == "get_time"
    assert parse(P, [text], TOOLS) == call("get_time", "{}")


test_any_cut_gives_the_same_events = any_cut_test(P, [c.text for c in PHI4_MINI], TOOLS)
