"""LFM2: a string its own quotes left open (``command='echo it's ok'``) ends at the block's end
token, and the call is the one a repair reads from the text before it; what no repair reads, or
what does not end in ``)]`` there, stays as it was read before (the token in the string, the rest
of the stream text). Through the middleware, in content and reasoning: ``tests/peers_lfm2.py``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import assemble, assert_cut_invariant, cuts_strategy, every_cut_agrees, run

from peers_lfm2 import END, START
from toolcall_middleware.parsers import create_parser
from toolcall_middleware.parsers.base import ParserContext, Tool
from toolcall_middleware.parsers.pycall import call_arguments

CONTEXT = ParserContext()  # the tagged block: any name is a call

# Calls with one string left open by an odd number of its own quotes, and what they mean.
OPEN: list[tuple[str, dict[str, Any]]] = [
    ("bash(command='echo it's ok')", {"command": "echo it's ok"}),
    ('bash(command="echo 5" inches")', {"command": 'echo 5" inches'}),
    (
        "bash(cwd='/tmp', n=2, command='echo it's ok')",
        {"cwd": "/tmp", "n": 2, "command": "echo it's ok"},
    ),
    ("bash(command='echo it's ok', timeout=5)", {"command": "echo it's ok", "timeout": 5}),
    ('bash(command="say "hi" "now", cwd="/")', {"command": 'say "hi" "now', "cwd": "/"}),
    ("f(c='a 'b' c 'd')", {"c": "a 'b' c 'd"}),
    ("bash(command='echo it's <b>ok</b> <|x')", {"command": "echo it's <b>ok</b> <|x"}),
    ("f(s='it's\nfine', month=07, tags={1})", {"s": "it's\nfine", "month": 7, "tags": [1]}),
    ("f(a={'k': 'it's'})", {"a": {"k": "it's"}}),
]


def block(call: str, space: str = "") -> str:
    return f"Checking.{START}[get_time(), {call}]{space}{END}\nDone."


@pytest.mark.parametrize(("source", "expected"), OPEN)
@pytest.mark.parametrize("space", ["", " \n"])
def test_an_open_string_ends_at_the_end_token(
    source: str, expected: dict[str, Any], space: str
) -> None:
    assert call_arguments(source, json_literals=True) is None  # not a call as written
    result = assemble(every_cut_agrees("lfm2", block(source, space), CONTEXT))
    assert [c.name for c in result.calls] == ["get_time", source.split("(")[0]]
    assert (result.arguments()[1], result.text) == (expected, "Checking.\nDone.")


def test_the_block_ends_at_its_token_and_what_follows_is_read_as_usual() -> None:
    text = f"{START}[bash(command='echo it's')]{END} Done. {START}[get_time()]{END}"
    parser = create_parser("lfm2", CONTEXT)
    result = assemble(run(parser, [text]))
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("bash", json.dumps({"command": "echo it's"})),
        ("get_time", ""),
    ]
    assert (result.text, parser.text_fallbacks, parser.strays) == (" Done. ", 0, 0)


# Blocks that stay text as before: the end token is read in the string, as written, and the
# rest of the stream with it.
STAYS_TEXT = [
    "[f(a=['it's', 'x'])]",  # two closings make a call
    "[f(a='it's', b='a 'b' c')]",  # two broken strings
    "[f(a='it's', b=x)]",  # a name is no value
    "[f(a='it's')",  # no "]" before the token
    "[f(a='it's']",  # no ")" before the "]"
    "[f(a='it's'), get_time()]",  # the text before the token is two calls
]


@pytest.mark.parametrize("written", STAYS_TEXT)
def test_what_no_repair_reads_at_the_token_stays_text(written: str) -> None:
    text = f"{START}{written}{END} ok"
    result = assemble(every_cut_agrees("lfm2", text, CONTEXT))
    assert (result.calls, result.text) == ([], f"{written}{END} ok")
    parser = create_parser("lfm2", CONTEXT)
    run(parser, [text])
    assert parser.text_fallbacks == 1


@pytest.mark.parametrize("end", [f"{END}", f"]{END}"])
def test_no_repair_reads_a_call_whose_text_holds_the_end_token(end: str) -> None:
    # Past the first end token in a string, a repair would put the token in a value (here:
    # "it's'), get_time()]<|tool_call_end|>[f(a='it's"), at the second one or where the
    # call's text, read as written, closes.
    written = f"[f(a='it's'), get_time()]{END}[f(a='it's')"
    result = assemble(every_cut_agrees("lfm2", f"{START}{written}{end}", CONTEXT))
    assert (result.calls, result.text) == ([], written + end.removesuffix(END))


@pytest.mark.parametrize("value", [f"x{END}y", f"x)]{END}y", f"x)] {END}"])
def test_a_string_that_holds_the_end_token_and_closes_is_read_as_written(value: str) -> None:
    text = f"{START}[f(a='{value}')]{END} ok"
    result = assemble(every_cut_agrees("lfm2", text, CONTEXT))
    assert [(c.name, json.loads(c.arguments)) for c in result.calls] == [("f", {"a": value})]
    assert result.text == " ok"


def test_a_bare_list_and_pythonic_keep_reading_the_string_as_written() -> None:
    bare = f"[bash(command='echo it's ok')]{END} ok"
    offered = ParserContext(tools=(Tool("bash"),))
    result = assemble(every_cut_agrees("lfm2", bare, offered))
    assert (result.calls, result.text) == ([], bare)
    tagged = "<|python_start|>[bash(command='echo it's ok')]<|python_end|> ok"
    result = assemble(every_cut_agrees("pythonic", tagged, CONTEXT))
    assert (result.calls, result.text) == ([], "[bash(command='echo it's ok')]<|python_end|> ok")


@pytest.mark.parametrize("tail", ["", "<|tool_call_e", "<|tool_call_end"])
def test_a_stream_that_ends_in_the_open_string_stays_text(tail: str) -> None:
    text = f"{START}[bash(command='echo it's ok')]{tail}"
    result = assemble(every_cut_agrees("lfm2", text, CONTEXT))
    assert (result.calls, result.text) == ([], text.removeprefix(START))


# Words for the parts of an open string (nothing a closing quote could be followed by), and
# values of the other arguments: raw control characters and a token's first characters too.
_WORD = st.text(st.sampled_from("abz 09-/.é"), min_size=1, max_size=5)
_RAW = st.text(st.sampled_from('ab \n\t<|é"['), max_size=8)


@st.composite
def open_string_calls(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A call with one string its quotes left open, among other arguments, and its meaning."""
    count = draw(st.integers(1, 4))
    broken = draw(st.integers(0, count - 1))
    written: list[str] = []
    meant: dict[str, Any] = {}
    for index in range(count):
        key = f"k{index}"
        if index == broken:  # an even number of parts: an odd number of quotes inside
            quote = draw(st.sampled_from("'\""))
            value = quote.join(draw(st.lists(_WORD, min_size=2, max_size=4).filter(_even)))
            written.append(f"{key}={quote}{value}{quote}")
            meant[key] = value
            continue
        kind = draw(st.sampled_from(["number", "zeros", "raw", "plain"]))
        if kind in ("number", "zeros"):
            number = draw(st.integers(1, 999))
            written.append(f"{key}={number:04d}" if kind == "zeros" else f"{key}={number}")
            meant[key] = number
        elif kind == "raw":
            meant[key] = draw(_RAW)
            written.append(f"{key}='{meant[key]}'")
        else:
            meant[key] = draw(_WORD)
            written.append(f'{key}="{meant[key]}"')
    return f"do({', '.join(written)})", meant


def _even(parts: list[str]) -> bool:
    return len(parts) % 2 == 0


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_an_open_string_cut_anywhere_gives_the_same_call(data: st.DataObject) -> None:
    source, meant = data.draw(open_string_calls())
    text = block(source, data.draw(st.sampled_from(["", " ", "\n"])))
    assert_cut_invariant("lfm2", text, data.draw(cuts_strategy(text)), CONTEXT)
    result = assemble(run(create_parser("lfm2", CONTEXT), [text]))
    assert [c.name for c in result.calls] == ["get_time", "do"]
    assert (result.arguments()[1], result.text) == (meant, "Checking.\nDone.")
