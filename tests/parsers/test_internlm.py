"""InternLM calls at the parser (the peers' cases through the middleware:
``tests/test_peer_cases.py``)."""

from __future__ import annotations

import pytest
from parser_helpers import any_cut_test, assemble, every_cut_agrees, make_context, run

from peer_cases import PeerCase
from peers_mimo_internlm import INTERNLM2
from toolcall_middleware.events import CallArgs, CallStart
from toolcall_middleware.parsers import create_parser

P = "internlm"
TOOLS = make_context("get_weather", "test_function", "refresh", "func")


@pytest.mark.parametrize("case", INTERNLM2, ids=lambda c: c.name)
def test_the_peers_cases(case: PeerCase) -> None:
    result = assemble(every_cut_agrees(P, case.text, TOOLS))
    assert result.text == case.content
    assert list(zip([c.name for c in result.calls], result.arguments(), strict=True)) == list(
        case.calls
    )


def test_arguments_stream_and_the_interpreter_is_text() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed('<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"ci') == [
        CallStart("get_weather"),
        CallArgs('{"ci'),
    ]
    code = "<|action_start|><|interpreter|>print(1)"
    assert assemble(run(create_parser(P, TOOLS), [code])).text == code


test_any_cut_gives_the_same_events = any_cut_test(P, [c.text for c in INTERNLM2], TOOLS)
