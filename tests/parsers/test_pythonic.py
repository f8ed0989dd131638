"""Pythonic calls at the parser (the peers' cases through the middleware:
``tests/test_peer_cases.py``)."""

from __future__ import annotations

import json
import keyword

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import (
    any_cut_test,
    assemble,
    call,
    cut,
    every_cut_agrees,
    make_context,
    normalise,
    parse,
    run,
)

from peer_cases import PeerCase
from peers_pythonic import PYTHONIC
from toolcall_middleware.detect import resolve_provider
from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Text
from toolcall_middleware.parsers import ParserContext, Tool, create_parser
from toolcall_middleware.parsers.pythonic import call_arguments, write_calls

P = "pythonic"
TOOLS = make_context("get_weather", "bash", "register_user")


def context(case: PeerCase) -> ParserContext:
    names = {name for name, _ in case.calls} | set(case.tools)
    return ParserContext(tuple(Tool(name) for name in sorted(names)))


@pytest.mark.parametrize("case", PYTHONIC, ids=lambda c: c.name)
def test_the_peers_cases(case: PeerCase) -> None:
    result = assemble(every_cut_agrees(P, case.text, context(case)))
    assert result.text == case.content
    assert list(zip([c.name for c in result.calls], result.arguments(), strict=True)) == list(
        case.calls
    )


def test_a_call_goes_out_whole_when_its_parenthesis_closes() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed("[get_weather(city='Pa") == []
    assert parser.held_arguments == len("get_weather(city='Pa")  # type: ignore[attr-defined]
    assert parser.feed("ris'), bash(") == [
        CallStart("get_weather"),
        CallArgs('{"city": "Paris"}'),
        CallEnd(),
    ]
    events = normalise(parser.feed("command='ls')] done"))
    assert events == [*call("bash", '{"command": "ls"}'), Text(" done")]


def test_only_offered_tools_open_a_list_unless_python_start_says_it_is_code() -> None:
    text = "Try [len(obj=x)] or [get_weather(city='x')]"
    result = assemble(parse(P, [text], TOOLS))
    assert (result.text, [c.name for c in result.calls]) == (
        "Try [len(obj=x)] or ",
        ["get_weather"],
    )
    tagged = assemble(parse(P, ["<|python_start|>[len(obj=1)]<|python_end|>"], TOOLS))
    assert ([c.name for c in tagged.calls], tagged.text) == (["len"], "")


def test_code_after_python_start_that_is_no_call_list_is_text_without_the_token() -> None:
    parser = create_parser(P, TOOLS)
    result = assemble(run(parser, ["<|python_start|>print('hi')<|python_end|>"]))
    assert result.text == "print('hi')"
    assert parser.strays == 2  # <|python_start|>, <|python_end|>


def test_calls_that_do_not_convert_are_text_and_counted() -> None:
    parser = create_parser(P, ParserContext((Tool("f"), Tool("get_weather"))))
    text = "[f(1), f(x=b'z'), f(x={1, 2}), f(**k), get_weather(city='LA'), f(x=1j)]"
    result = assemble(run(parser, [text]))
    assert result.text == "f(1)f(x=b'z')f(x={1, 2})f(**k)f(x=1j)"
    assert [c.name for c in result.calls] == ["get_weather"]
    assert parser.text_fallbacks == 2


def test_a_call_cut_off_converts_as_far_as_it_came() -> None:
    assert assemble(parse(P, ["[get_weather(city='LA', days=3"], TOOLS)).arguments() == [
        {"city": "LA", "days": 3}
    ]
    cut_in_string = "[get_weather(city='L"
    assert assemble(parse(P, [cut_in_string], TOOLS)).text == cut_in_string


def test_triple_quoted_strings_and_cuts_inside_their_quotes() -> None:
    text = "[bash(command='''echo 'a' \"b\"''', timeout=3)]"
    events = every_cut_agrees(P, text, TOOLS)
    assert assemble(events).arguments() == [{"command": "echo 'a' \"b\"", "timeout": 3}]


def test_call_arguments() -> None:
    assert call_arguments("f(a=(1, 2), b=-3.5, c='x')") == (
        "f",
        '{"a": [1, 2], "b": -3.5, "c": "x"}',
    )
    assert call_arguments("mod.sub.f()") == ("mod.sub.f", "{}")
    for source in ("f(1)", "f(x=y)", "f(x=1e999)", "f(**k)", "f()(x=1)", "f(x=", "[f()]"):
        assert call_arguments(source) is None, source


def test_the_name_picks_pythonic_only_for_llama_4() -> None:
    assert resolve_provider("auto", "meta-llama/Llama-4-Maverick-17B-128E-Instruct") == P
    assert resolve_provider("auto", "meta-llama/Llama-3.3-70B-Instruct") == "llama3_json"
    assert resolve_provider("auto", "NousResearch/Hermes-4-Llama-4") == "hermes"
    # No marker names this format: a stream from a model no rule knows is never read as it.
    assert resolve_provider("auto", "acme/coder") == "sniff"
    answer = "Here: [get_weather(city='Paris')]"
    assert assemble(parse("sniff", [answer], TOOLS)).text == answer
    assert assemble(parse("hermes", [answer], TOOLS)).text == answer


def test_granite_pythonic_is_read_only_as_a_list_under_the_explicit_provider() -> None:
    # Granite's pythonic template (vLLM's granite_pythonic): no Granite name picks this format
    # (Granite 4 names keep hermes, Granite 3 names no rule), so only provider="pythonic"
    # reads it, and only the bracketed list; the bare one-call-a-line form stays text.
    for model, provider in (
        ("ibm-granite/granite-4.0-h-small", "hermes"),
        ("ibm-granite/granite-3.3-8b-instruct", "sniff"),
    ):
        assert resolve_provider("auto", model) == provider, model
    listed = '[get_weather(location="San Francisco", unit="celsius")]'
    result = assemble(every_cut_agrees(P, listed, TOOLS))
    assert result.arguments() == [{"location": "San Francisco", "unit": "celsius"}]
    for provider in ("sniff", "hermes"):
        assert assemble(parse(provider, [listed], TOOLS)).text == listed, provider
    bare = 'get_weather(location="Paris")\nbash(command="ls")'
    assert assemble(parse(P, [bare], TOOLS)).text == bare


@st.composite
def json_values(draw: st.DrawFn, depth: int = 0) -> object:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**12), 10**12),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(st.characters(blacklist_categories=("Cs",))),
    )
    if depth > 2:
        return draw(scalars)
    return draw(
        st.one_of(
            scalars,
            st.lists(json_values(depth + 1), max_size=3),
            st.dictionaries(st.text(max_size=5), json_values(depth + 1), max_size=3),
        )
    )


@settings(max_examples=60, deadline=None)
@given(
    arguments=st.dictionaries(
        # (A keyword is no argument name: ``bash(as=None)`` is not Python, so no call.)
        st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True).filter(
            lambda name: not keyword.iskeyword(name)
        ),
        json_values(),
        max_size=4,
    ),
    data=st.data(),
)
def test_any_json_object_written_as_python_comes_back(
    arguments: dict[str, object], data: st.DataObject
) -> None:
    text = write_calls([("bash", json.dumps(arguments))])
    cuts = data.draw(st.lists(st.integers(1, len(text) - 1), max_size=10))
    assert assemble(parse(P, cut(text, cuts), TOOLS)).arguments() == [arguments]


SAMPLES = [
    *(case.text for case in PYTHONIC),
    "a [b] [get_weather(city='x' [",
    '<|python_start|>[get_weather(city="a\\"b")]  <|python_end|> tail',
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES, TOOLS)
