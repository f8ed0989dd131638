"""LFM2's ``<|tool_call_start|>[...]<|tool_call_end|>`` calls at the parser (the peers' cases
through the middleware: ``tests/test_peer_cases.py``)."""

from __future__ import annotations

import pytest
from parser_helpers import any_cut_test, assemble, every_cut_agrees, make_context, parse, run

from peer_cases import PeerCase
from peers_lfm2 import CARD_CASES, CASES, END, LFM2_CASES, START
from toolcall_middleware.detect import resolve_provider
from toolcall_middleware.events import CALL_END, CallArgs, CallStart, Text
from toolcall_middleware.parsers import create_parser

P = "lfm2"
TOOLS = make_context("get_weather", "get_time", "exec")


@pytest.mark.parametrize("case", [*LFM2_CASES[:12], *CARD_CASES], ids=lambda c: c.name)
def test_the_peers_cases_cut_anywhere(case: PeerCase) -> None:
    result = assemble(every_cut_agrees(P, case.text, TOOLS))
    assert result.text == case.content
    assert list(zip([c.name for c in result.calls], result.arguments(), strict=True)) == list(
        case.calls
    )


def test_each_call_goes_out_at_its_closing_parenthesis() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed(f"Checking.{START}[get_weather(city='Os") == [Text("Checking.")]
    assert parser.feed("lo'), get_ti") == [
        CallStart("get_weather"),
        CallArgs('{"city": "Oslo"}'),
        CALL_END,
    ]
    assert parser.feed(f"me()]{END}") == [CallStart("get_time"), CALL_END]


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


def test_the_tokens_are_framing_and_a_lone_end_token_a_stray() -> None:
    parser = create_parser(P, TOOLS)
    events = run(parser, [f"{START}[get_time()]{END} ok {END}"])
    result = assemble(events)
    assert ([c.name for c in result.calls], result.text) == (["get_time"], " ok ")
    assert parser.strays == 1  # type: ignore[attr-defined]


def test_a_start_token_before_no_list_is_dropped_and_the_text_kept() -> None:
    parser = create_parser(P, TOOLS)
    result = assemble(run(parser, [f"{START}Sorry, no tool fits."]))
    assert (result.calls, result.text) == ([], "Sorry, no tool fits.")
    assert parser.strays == 1  # type: ignore[attr-defined]


def test_an_echo_is_dropped_a_new_call_after_the_block_is_not() -> None:
    block = "[get_weather(city='Oslo')]"
    parser = create_parser(P, TOOLS)
    result = assemble(run(parser, [f"{START}{block}{END}{block}{END}"]))
    assert [c.name for c in result.calls] == ["get_weather"]
    assert (result.text, parser.strays) == ("", 1)  # type: ignore[attr-defined]
    text = f"{START}{block}{END} Then: [get_weather(city='Rome'), get_weather(city='Oslo')]"
    result = assemble(every_cut_agrees(P, text, TOOLS))
    assert result.arguments() == [{"city": "Oslo"}, {"city": "Rome"}, {"city": "Oslo"}]
    # A bare list repeats only what the block called: an unoffered name there is text.
    text = f"{START}[lookup(q=1)]{END}[lookup(q=2)]"
    result = assemble(every_cut_agrees(P, text, TOOLS))
    assert ([c.name for c in result.calls], result.text) == (["lookup"], "[lookup(q=2)]")


def test_json_call_objects_in_the_block() -> None:
    text = (
        f'{START}[{{"name": "get_weather", "arguments": "{{\\"city\\": \\"Lima\\"}}"}}, '
        f'{{"name": "get_time", "parameters": {{}}}}, {{"x": 1}}]{END}'
    )
    result = assemble(every_cut_agrees(P, text, TOOLS))
    assert [c.name for c in result.calls] == ["get_weather", "get_time"]
    assert (result.arguments()[0], result.text) == ({"city": "Lima"}, '{"x": 1}')


def test_a_bare_list_needs_an_offered_tool() -> None:
    for text in ("[f(x) for x in xs]", "[lookup(q=1)]", '[{"name": "get_time"}]'):
        assert parse(P, [text], TOOLS) == [Text(text)], text


def test_lfm2_names_pick_the_format_and_its_start_token_names_it() -> None:
    assert resolve_provider("auto", "LiquidAI/LFM2-1.2B-Tool") == P
    assert resolve_provider("auto", "LiquidAI/LFM2-8B-A1B") == P
    assert resolve_provider("auto", "my-model") != P
    result = assemble(parse("sniff", [f"Sure.{START}[get_time()]{END}"], TOOLS))
    assert ([c.name for c in result.calls], result.text) == (["get_time"], "Sure.")


test_any_cut_gives_the_same_events = any_cut_test(P, [c.text for c in CASES], TOOLS)
