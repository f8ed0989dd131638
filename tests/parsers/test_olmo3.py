"""Olmo 3 calls at the parser (the peers' cases through the middleware:
``tests/test_peer_cases.py``)."""

from __future__ import annotations

import pytest
from parser_helpers import any_cut_test, assemble, every_cut_agrees, make_context, parse

from peer_cases import PeerCase
from peers_pythonic import OLMO_3
from toolcall_middleware.parsers import ParserContext, Tool
from toolcall_middleware.parsers.pythonic import call_arguments

P = "olmo3"
TOOLS = make_context("get_weather")


@pytest.mark.parametrize("case", OLMO_3, ids=lambda c: c.name)
def test_the_peers_cases(case: PeerCase) -> None:
    names = sorted({name for name, _ in case.calls})
    result = assemble(every_cut_agrees(P, case.text, ParserContext(tuple(map(Tool, names)))))
    assert result.text == case.content
    assert list(zip([c.name for c in result.calls], result.arguments(), strict=True)) == list(
        case.calls
    )


def test_json_literals_are_values_anywhere_but_not_other_names() -> None:
    assert call_arguments("f(a={'k': [null, true]}, b=false)", json_literals=True) == (
        "f",
        '{"a": {"k": [null, true]}, "b": false}',
    )
    assert call_arguments("f(a=null)") is None  # pythonic: a name is no value
    assert call_arguments("f(a=nothing)", json_literals=True) is None


def test_calls_need_the_tag_and_any_name_is_one_inside_it() -> None:
    bare = "get_weather(city='x')"
    assert assemble(parse(P, [bare], TOOLS)).text == bare
    tagged = assemble(parse(P, ["<function_calls>any_tool(a=1)</function_calls>"], TOOLS))
    assert [c.name for c in tagged.calls] == ["any_tool"]


test_any_cut_gives_the_same_events = any_cut_test(
    P, [case.text for case in OLMO_3] + ["<function_calls>f(a=1)\n<function_c"], TOOLS
)
