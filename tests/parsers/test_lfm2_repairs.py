"""LFM2's repairs of the calls small models get wrong (``pycall.repaired_arguments``): each
repair, what is refused, and the repaired calls at the parser, cut anywhere (vLLM's repair cases
through the middleware: ``tests/peers_lfm2.py``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import assemble, assert_cut_invariant, cuts_strategy, every_cut_agrees, run

from peers_lfm2 import END, START
from toolcall_middleware.parsers import create_parser
from toolcall_middleware.parsers.base import ParserContext
from toolcall_middleware.parsers.pycall import MAX_CLOSINGS, call_arguments, repaired_arguments

CONTEXT = ParserContext()  # the tagged block: any name is a call

REPAIRED: list[tuple[str, dict[str, Any]]] = [
    (
        "f(month=07, day=05, x07=1.07, e=1e05, h=0x07, z=00, n=-007, u=0_7)",
        {"month": 7, "day": 5, "x07": 1.07, "e": 100000.0, "h": 7, "z": 0, "n": -7, "u": 7},
    ),
    ("f(s='07', t=\"a 07\", n=07)", {"s": "07", "t": "a 07", "n": 7}),  # strings as written
    (
        "f(s='a\nb\tc\r', t=\"\x00\", u='''x\x00y''')",
        {"s": "a\nb\tc\r", "t": "\x00", "u": "x\x00y"},
    ),
    ("f(s='a\\\nb\n')", {"s": "ab\n"}),  # an escaped line break stays a continuation
    (
        "f(tags={'b', 'a', 1}, n=null, deep={'k': {2, 3}}, d={'a': 1})",
        {"tags": ["b", "a", 1], "n": None, "deep": {"k": [2, 3]}, "d": {"a": 1}},
    ),
    ("f(c='grep 'x' f', d=1)", {"c": "grep 'x' f", "d": 1}),
    ('f(c="say "hi" now")', {"c": 'say "hi" now'}),
    ("f(c='a\\'b 'c' d')", {"c": "a'b 'c' d"}),  # a quote escaped as it should be stays one
    ("f(c='sed -n '07,09p' f.py', n=07)", {"c": "sed -n '07,09p' f.py", "n": 7}),
    ("f(c='a 'b'\nc')", {"c": "a 'b'\nc"}),  # the closing moves a raw line break inside
    ("f(a={'k': 'v 'w' x'}, b=[1])", {"a": {"k": "v 'w' x"}, "b": [1]}),
    ("f(a='x 'y' z' + 'w')", {"a": "x 'y' z' + 'w"}),
]
# An odd number of quotes: a stream's reader, reading the quotes as written, finds the call's
# end only at the block's end token, in its last string (test_lfm2_open_strings.py).
REPAIRED_WHOLE_ONLY = [
    # Closing it past the next argument's start would swallow that argument: not a reading.
    ("f(a='x 'y', b='z')", {"a": "x 'y", "b": "z"}),
    ("f(c='it's', d=1)", {"c": "it's", "d": 1}),
]


@pytest.mark.parametrize(("source", "expected"), [*REPAIRED, *REPAIRED_WHOLE_ONLY])
def test_each_repair_gives_the_arguments_the_model_meant(
    source: str, expected: dict[str, Any]
) -> None:
    assert call_arguments(source, json_literals=True) is None  # not a call as written
    repaired = repaired_arguments(source)
    assert repaired is not None
    assert (repaired[0], json.loads(repaired[1])) == ("f", expected)


def _closings(count: int) -> str:
    """A broken string with ``count`` quotes that could close it, only the last making a call."""
    return "f(a='q 'b" + "".join(f", {i}'" for i in range(count)) + ")"


# Calls whose text ends where it should, that no repair reads.
REFUSED_CLOSED = [
    "f(a=['x 'y' z', 'w'])",  # two closings make a call
    "f(a='x 'y', b='z 'w')",  # two broken strings
    "f(a='x 'y' z', b=w)",  # a name is no value
    "f(a=07, b=x)",
    "f(tags={x})",
    "f(x=b'z')",  # bytes
    "f(1, a=07)",  # positional
    "f(a=1e999)",
    "f(**k)",
    "f(a='''x''' y)",
    _closings(MAX_CLOSINGS + 2),  # past the cap, however it would read
]
REFUSED = [*REFUSED_CLOSED, _closings(MAX_CLOSINGS + 1), "f(a='open", "f(a='x 'y' z'"]


@pytest.mark.parametrize("source", REFUSED)
def test_what_a_repair_would_guess_at_is_not_repaired(source: str) -> None:
    assert repaired_arguments(source) is None


def test_the_closings_tried_are_capped() -> None:
    value = "q 'b" + "".join(f", {i}'" for i in range(MAX_CLOSINGS))
    assert repaired_arguments(_closings(MAX_CLOSINGS)) == ("f", json.dumps({"a": value[:-1]}))
    assert repaired_arguments(_closings(MAX_CLOSINGS + 1)) is None


def test_a_call_that_reads_as_written_is_not_touched() -> None:
    for source in ("f(a='x', b=7, c=[1, {'k': null}])", "f(s='''a\r\nb\t''', t='\t', u=0_0)"):
        assert repaired_arguments(source) == call_arguments(source, json_literals=True)


def block(call: str) -> str:
    return f"Checking.{START}[get_time(), {call}]{END}\nDone."


@pytest.mark.parametrize(("source", "expected"), REPAIRED)
def test_a_repaired_call_goes_out_cut_anywhere(source: str, expected: dict[str, Any]) -> None:
    result = assemble(every_cut_agrees("lfm2", block(source), CONTEXT))
    assert [c.name for c in result.calls] == ["get_time", "f"]
    assert (result.arguments()[1], result.text) == (expected, "Checking.\nDone.")


@pytest.mark.parametrize("source", REFUSED_CLOSED)
def test_a_call_no_repair_reads_stays_text_and_is_counted(source: str) -> None:
    parser = create_parser("lfm2", CONTEXT)
    result = assemble(run(parser, [block(source)]))
    assert [c.name for c in result.calls] == ["get_time"]
    assert result.text == f"Checking.{source}\nDone."
    assert parser.text_fallbacks == 1


def test_pythonic_keeps_its_strict_reading() -> None:
    for source, _ in REPAIRED:  # (a string left open would hold the end token)
        text = f"<|python_start|>[{source}]<|python_end|>"
        parser = create_parser("pythonic", CONTEXT)
        result = assemble(run(parser, [text]))
        assert (result.calls, result.text) == ([], f"[{source}]")
        assert parser.text_fallbacks == 1


# A string argument the model may write with raw control characters, and words for the quoted
# part of a broken string (nothing a closing quote could be followed by).
_RAW = st.text(st.sampled_from('ab \n\t\r\x00é"['), max_size=8)
_WORD = st.text(st.sampled_from("abz 09-/.éé"), min_size=1, max_size=6)
# The quoted part: no spaces only, nor a string prefix (``'a 'u' b'`` reads as Python already).
_INNER = st.text(st.sampled_from("az09-/.é"), min_size=1, max_size=6)


@st.composite
def broken_calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A call with some of the repaired mistakes, and the arguments it means."""
    written: list[str] = []
    meant: dict[str, Any] = {}
    for index in range(draw(st.integers(1, 4))):
        key = f"k{index}"
        kind = draw(
            st.sampled_from(
                ["zeros", "raw", "set", "quotes"]
                if index == 0
                else ["zeros", "raw", "set", "plain"]
            )
        )
        if kind == "zeros":
            number = draw(st.integers(1, 999))
            written.append(f"{key}={number:04d}")
            meant[key] = number
        elif kind == "raw":
            value = draw(_RAW)
            written.append(f"{key}='{value}'")
            meant[key] = value
        elif kind == "set":
            items = draw(st.lists(st.integers(0, 50), unique=True, min_size=1, max_size=4))
            written.append(f"{key}={{{', '.join(map(str, items))}}}")
            meant[key] = items
        elif kind == "quotes":
            head, inner, tail = draw(_WORD), draw(_INNER), draw(_WORD)
            written.append(f"{key}='{head} '{inner}' {tail}'")
            meant[key] = f"{head} '{inner}' {tail}"
        else:
            written.append(f'{key}="{draw(_WORD)}"')
            meant[key] = json.loads(written[-1].split("=", 1)[1])
    return f"do({', '.join(written)})", meant


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_repaired_call_cut_anywhere_gives_the_same_output(data: st.DataObject) -> None:
    source, meant = data.draw(broken_calls())
    text = block(source)
    assert_cut_invariant("lfm2", text, data.draw(cuts_strategy(text)), CONTEXT)
    result = assemble(run(create_parser("lfm2", CONTEXT), [text]))
    assert [c.name for c in result.calls] == ["get_time", "do"]
    assert result.arguments()[1] == meant
