"""Gemma 4 calls at the parser (the peers' cases through the middleware:
``tests/test_peer_cases.py``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import (
    any_cut_test,
    assemble,
    call,
    calls_of,
    cut,
    every_cut_agrees,
    make_context,
    parse,
    run,
)

from peer_cases import PeerCase
from peers_gemma4 import GEMMA4
from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Reasoning, Text
from toolcall_middleware.parsers import create_parser
from toolcall_middleware.parsers.gemma4 import gemma_value, write_calls
from toolcall_middleware.parsers.gemma_args import GemmaArguments, bare_value

P = "gemma4"
TOOLS = make_context("get_weather", "write_file", "bash")
Q = '<|"|>'


@pytest.mark.parametrize("case", GEMMA4, ids=lambda c: c.name)
def test_the_peers_cases(case: PeerCase) -> None:
    result = assemble(every_cut_agrees(P, case.text, TOOLS))
    assert (result.text, result.reasoning) == (case.content, case.reasoning)
    assert list(zip([c.name for c in result.calls], result.arguments(), strict=True)) == list(
        case.calls
    )


def test_arguments_stream_as_json_while_they_arrive() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed("<|tool_call>call:write_file{path:") == [
        CallStart("write_file"),
        CallArgs("{"),
        CallArgs('"path": '),
    ]
    assert parser.feed(f'{Q}a.txt{Q},content:{Q}line "1"') == [
        CallArgs('"'),
        CallArgs("a.txt"),
        CallArgs('"'),
        CallArgs(', "content": "'),
        CallArgs('line \\"1\\"'),
    ]
    assert parser.feed("\nmore") == [CallArgs("\\nmore")]
    # A bare value waits for its end.
    assert parser.feed(f"{Q},n:4") == [CallArgs('"'), CallArgs(', "n": ')]
    assert parser.feed("2}<tool_call|>after") == [
        CallArgs("42}"),
        CallEnd(),
        Text("after"),
    ]


def test_the_thought_channel_is_reasoning_without_its_label() -> None:
    text = "<|channel>thought\nPlan: call it.<channel|>Sure." + write_calls([("bash", "{}")])
    events = every_cut_agrees(P, text, TOOLS)
    assert events == [Reasoning("Plan: call it."), Text("Sure."), *call("bash", "{}")]
    assert parse(P, ["<|channel>thoughts matter<channel|>"], TOOLS) == [
        Reasoning("thoughts matter")
    ]
    assert parse(P, ["<|channel>thought<channel|>x"], TOOLS) == [Text("x")]


def test_not_a_call_is_the_models_text() -> None:
    for text in ("<|tool_call> plain", "<|tool_call>call:{x}", "<|tool_call>call:a b{"):
        parser = create_parser(P, TOOLS)
        assert assemble(run(parser, [text])).text == text
        assert parser.text_fallbacks == 1
    assert calls_of(P, "<|tool_call>call:bash").text == "<|tool_call>call:bash"


def test_strays_are_dropped_and_counted() -> None:
    text = f"a<tool_call|>b{Q}c<|tool_response>d" + write_calls([("bash", "{}")]) + "<tool_call|>"
    parser = create_parser(P, TOOLS)
    result = assemble(run(parser, [text]))
    assert (result.text, [c.name for c in result.calls]) == ("abcd", ["bash"])
    assert parser.strays == 4


def test_a_call_that_never_closes_its_object_ends_at_the_next_token() -> None:
    text = f"<|tool_call>call:bash{{a:[{Q}x{Q},{{b:1<tool_call|>" + write_calls([("bash", "{}")])
    assert calls_of(P, text).arguments() == [{"a": ["x", {"b": 1}]}, {}]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("42", "42"),
        (" -1.5e3 ", "-1.5e3"),
        ("108.", "108.0"),
        ("+5", "5"),
        ("true", "true"),
        ("null", "null"),
        ("celsius", '"celsius"'),
        ("1e999", '"1e999"'),
        ("", '""'),
    ],
)
def test_bare_values(text: str, value: str) -> None:
    assert bare_value(text) == value


@st.composite
def json_values(draw: st.DrawFn, depth: int = 0) -> object:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**6), 10**6),
        st.text(st.characters(blacklist_characters="<", blacklist_categories=("Cs",))),
    )
    if depth > 2:
        return draw(scalars)
    keys = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
    return draw(
        st.one_of(
            scalars,
            st.lists(json_values(depth + 1), max_size=3),
            st.dictionaries(keys, json_values(depth + 1), max_size=3),
        )
    )


@settings(max_examples=60, deadline=None)
@given(
    arguments=st.dictionaries(
        st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True), json_values(), max_size=4
    ),
    data=st.data(),
)
def test_any_json_object_written_in_gemmas_syntax_comes_back(
    arguments: dict[str, object], data: st.DataObject
) -> None:
    text = write_calls([("bash", json.dumps(arguments))])
    cuts = data.draw(st.lists(st.integers(1, len(text) - 1), max_size=10))
    result = assemble(parse(P, cut(text, cuts), TOOLS))
    assert result.arguments() == [arguments]


def test_gemma_value_writes_gemmas_syntax() -> None:
    assert gemma_value({"a": ["x", 1, None], "b": {"c": True}}) == (
        f"{{a:[{Q}x{Q},1,null],b:{{c:true}}}}"
    )
    writer = GemmaArguments()
    out = [writer.start()]
    writer.structure("a:1}", 0, 4, out)
    assert (writer.done, "".join(out)) == (True, '{"a": 1}')


SAMPLES = [
    *(case.text for case in GEMMA4),
    "<|channel>thought\nhm<|tool_call>call:bash{a:1}<channel|>x <",
    f"<|tool_call>call:bash{{a:{Q}x<|tool_call>call:bash{{}}",
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES, TOOLS)
