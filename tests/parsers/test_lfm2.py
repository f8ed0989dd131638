"""LFM2's ``<|tool_call_start|>[...]<|tool_call_end|>`` at the parser (the peers' cases through
the middleware: ``tests/test_peer_cases.py``)."""

from __future__ import annotations

import pytest
from parser_helpers import any_cut_test, assemble, every_cut_agrees, make_context, parse

from peer_cases import PeerCase
from peers_lfm2 import CASES, END, START
from toolcall_middleware.detect import resolve_provider
from toolcall_middleware.events import CALL_END, CallArgs, CallStart, Text
from toolcall_middleware.parsers import create_parser

P = "lfm2"
TOOLS = make_context("get_weather", "get_time")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_peers_cases_cut_anywhere(case: PeerCase) -> None:
    result = assemble(every_cut_agrees(P, case.text, TOOLS))
    assert result.text == case.content
    assert list(zip([c.name for c in result.calls], result.arguments(), strict=True)) == list(
        case.calls
    )


def test_a_call_goes_out_as_soon_as_it_closes() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed(f'Checking.{START}[get_weather(city="Oslo")') == [
        Text("Checking."),
        CallStart("get_weather"),
        CallArgs('{"city": "Oslo"}'),
        CALL_END,
    ]


def test_a_list_that_holds_no_call_is_text_without_the_tokens() -> None:
    text = f"{START}[1, 2]{END}"
    result = assemble(every_cut_agrees(P, text, TOOLS))
    assert (result.text, result.calls) == ("[1, 2]", [])


def test_a_call_cut_off_inside_a_string_is_text_as_pythonic_reads_it() -> None:
    result = assemble(parse(P, [f'{START}[get_weather(city="Os'], TOOLS))
    assert (result.text, result.calls) == ('[get_weather(city="Os', [])


def test_a_stray_end_token_is_dropped() -> None:
    assert assemble(every_cut_agrees(P, f"fine{END} then", TOOLS)).text == "fine then"


def test_lfm2_names_pick_the_format() -> None:
    assert resolve_provider("auto", "LiquidAI/LFM2-8B-A1B") == P
    assert resolve_provider("auto", "LiquidAI/LFM2.5-1.2B-Instruct") == P
    assert resolve_provider("auto", "my-model") != P


test_any_cut_gives_the_same_events = any_cut_test(P, [c.text for c in CASES], TOOLS)
