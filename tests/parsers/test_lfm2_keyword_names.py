"""LFM2: Python keywords written as parameter names (``search(from='a', import=True)``), which
Python rejects, read with those names (``pycall.repaired_arguments``); a keyword anywhere else
(in a string, as a value, inside a value) is left alone. Through the middleware, in content and
reasoning: ``tests/peers_lfm2.py``."""

from __future__ import annotations

import json
import keyword
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import assemble, assert_cut_invariant, cuts_strategy, every_cut_agrees, run

from peers_lfm2 import END, START
from toolcall_middleware.parsers import create_parser
from toolcall_middleware.parsers.base import ParserContext
from toolcall_middleware.parsers.pycall import call_arguments, repaired_arguments

CONTEXT = ParserContext()  # the tagged block: any name is a call

KEYWORD_NAMES: list[tuple[str, dict[str, Any]]] = [
    ("search(from='a', to='b', import=True)", {"from": "a", "to": "b", "import": True}),
    (
        "f(lambda=1, class=2, def=3, in=4, None=5)",
        {"lambda": 1, "class": 2, "def": 3, "in": 4, "None": 5},
    ),
    ("f( from = 1 , )", {"from": 1}),
    ("f(\n  from=1,\n  # the end\n  to=2)", {"from": 1, "to": 2}),
    ("f(command='from=1', in=2)", {"command": "from=1", "in": 2}),  # the string as written
    ('f(a={"class": [1, {"in": 2}]}, class=3)', {"a": {"class": [1, {"in": 2}]}, "class": 3}),
    ("f(from=1, s='_from_ __from__')", {"from": 1, "s": "_from_ __from__"}),  # (new names)
    ("f(from=07, to='a\nb', tags={1})", {"from": 7, "to": "a\nb", "tags": [1]}),  # + repairs
    ("search(from='sed -n '1,5p' f.py')", {"from": "sed -n '1,5p' f.py"}),  # + the quotes
    ("f(a='x 'y' z', in=null)", {"a": "x 'y' z", "in": None}),
]


@pytest.mark.parametrize(("source", "expected"), KEYWORD_NAMES)
def test_a_keyword_that_names_an_argument_is_read_as_that_name(
    source: str, expected: dict[str, Any]
) -> None:
    assert call_arguments(source, json_literals=True) is None  # Python rejects it
    repaired = repaired_arguments(source)
    assert repaired is not None
    assert (repaired[0], json.loads(repaired[1])) == (source.split("(")[0], expected)


REFUSED = [
    "f(x=from)",  # a keyword as a value
    "f(a=[from=1])",  # not an argument of the call
    "f(a=g(from=1))",
    "f(from==1)",
    "f(lambda x: 1)",
    "f(a=1 $ from=2)",  # does not tokenize: where its strings are is unsure
    "f(from=1, x=y)",  # a name is no value
    "f(a='x 'y', b='z 'w', from=1)",  # two broken strings
]


@pytest.mark.parametrize("source", REFUSED)
def test_a_keyword_anywhere_else_is_not_read(source: str) -> None:
    assert repaired_arguments(source) is None


@pytest.mark.parametrize(
    "source",
    ["f(command='from=1')", "f(s='x, in=2', t=\"class = 3\")", "f(in_=1, from_x=2)"],
)
def test_a_call_that_reads_as_written_is_not_touched(source: str) -> None:
    assert repaired_arguments(source) == call_arguments(source, json_literals=True) is not None


def test_a_keyword_in_a_broken_string_stays_in_it() -> None:
    # The tokenizer does not read the broken text (its strings are unsure): only the reading
    # that closes the string is tokenized, where "from=1" is the string's.
    assert repaired_arguments("f(a='it's, from=1')") == (
        "f",
        json.dumps({"a": "it's, from=1"}),
    )


@pytest.mark.parametrize(("source", "expected"), KEYWORD_NAMES)
def test_a_keyword_named_call_goes_out_cut_anywhere(source: str, expected: dict[str, Any]) -> None:
    text = f"Checking.{START}[get_time(), {source}]{END}\nDone."
    result = assemble(every_cut_agrees("lfm2", text, CONTEXT))
    assert [c.name for c in result.calls] == ["get_time", source.split("(")[0]]
    assert (result.arguments()[1], result.text) == (expected, "Checking.\nDone.")


def test_a_keyword_named_call_with_an_open_string_ends_at_the_token() -> None:
    text = f"{START}[bash(command='echo it's ok', from=1, in='x')]{END} ok"
    result = assemble(every_cut_agrees("lfm2", text, CONTEXT))
    arguments = {"command": "echo it's ok", "from": 1, "in": "x"}
    assert [(c.name, json.loads(c.arguments)) for c in result.calls] == [("bash", arguments)]
    assert result.text == " ok"


def test_pythonic_keeps_its_strict_reading() -> None:
    parser = create_parser("pythonic", CONTEXT)
    result = assemble(run(parser, ["<|python_start|>[search(from='a')]<|python_end|>"]))
    assert (result.calls, result.text, parser.text_fallbacks) == ([], "[search(from='a')]", 1)


# Argument names, keywords among them, and string values that may read like arguments.
_NAMES = st.sampled_from([*keyword.kwlist, "a", "to", "query", "from_", "_from_"])
_VALUES = st.one_of(
    st.integers(-5, 5),
    st.sampled_from(["from=1", "x, in=2", "class = 3", "import", "(", "", "it's"]),
)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_keyword_names_cut_anywhere_give_the_same_call(data: st.DataObject) -> None:
    names = data.draw(st.lists(_NAMES, min_size=1, max_size=5, unique=True))
    meant = {name: data.draw(_VALUES) for name in names}
    source = "do(" + ", ".join(f"{k}={v!r}" for k, v in meant.items()) + ")"
    text = f"{START}[{source}]{END}"
    assert_cut_invariant("lfm2", text, data.draw(cuts_strategy(text)), CONTEXT)
    result = assemble(run(create_parser("lfm2", CONTEXT), [text]))
    assert ([c.name for c in result.calls], result.arguments()) == (["do"], [meant])
