"""XML parameters to one call's JSON arguments (``xmlargs.ArgumentsWriter``)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import cut

from toolcall_middleware.events import CallArgs, Event
from toolcall_middleware.parsers import Tool
from toolcall_middleware.parsers.xmlargs import ArgumentsWriter

TOOL = Tool(
    "t",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "days": {"type": "integer"},
            "flags": {"type": "array"},
        },
    },
)


def write(values: list[tuple[str, list[str]]], tool: Tool | None = TOOL) -> list[str]:
    """The fragments for parameters given as (key, pieces of the raw value)."""
    writer = ArgumentsWriter(tool)
    out: list[Event] = []
    for key, pieces in values:
        writer.open(key, out)
        for piece in pieces:
            writer.value(piece, out)
    writer.end(out)
    assert all(isinstance(event, CallArgs) for event in out)
    return [event.fragment for event in out if isinstance(event, CallArgs)]


def arguments(values: list[tuple[str, list[str]]], tool: Tool | None = TOOL) -> object:
    return json.loads("".join(write(values, tool)))


def test_a_string_value_streams_as_it_arrives() -> None:
    fragments = write([("path", ["src/", "app", ".py"])])
    assert fragments == ['{"path": ', '"src/', "app", ".py", '"', "}"]


def test_one_newline_each_side_of_a_value_is_framing() -> None:
    assert arguments([("path", ["\n", "a\n\nb\n", "\n"])]) == {"path": "a\n\nb\n"}
    assert arguments([("path", ["\na.txt\n"])]) == {"path": "a.txt"}
    assert arguments([("path", ["  a  "])]) == {"path": "  a  "}


def test_values_are_typed_from_the_schema_when_they_close() -> None:
    writer = ArgumentsWriter(TOOL)
    out: list[Event] = []
    writer.open("days", out)
    writer.value("1", out)
    writer.value("2", out)
    assert writer.held == 2  # a number goes out whole, when it closes
    writer.close(out)
    assert writer.held == 0
    writer.open("flags", out)
    writer.value('["-r", "-n"]', out)
    writer.end(out)
    text = "".join(e.fragment for e in out if isinstance(e, CallArgs))
    assert json.loads(text) == {"days": 12, "flags": ["-r", "-n"]}


def test_a_value_that_does_not_convert_stays_a_string() -> None:
    assert arguments([("days", ["soon"])]) == {"days": "soon"}


def test_the_word_null_is_null_and_is_held_while_it_may_still_be() -> None:
    writer = ArgumentsWriter(TOOL)
    out: list[Event] = []
    writer.open("path", out)
    writer.value("nu", out)
    assert writer.held == 2 and out == [CallArgs('{"path": ')]
    writer.value("ll", out)
    writer.end(out)
    assert json.loads("".join(e.fragment for e in out if isinstance(e, CallArgs))) == {"path": None}
    assert arguments([("path", ["nu", "lls"])]) == {"path": "nulls"}
    assert arguments([("path", ["nu"])]) == {"path": "nu"}


def test_no_parameters_give_no_fragment_and_unknown_tools_keep_strings() -> None:
    assert write([]) == []
    assert arguments([("days", ["3"]), ("x", ["4"])], tool=None) == {"days": "3", "x": "4"}
    assert arguments([("path", ["a"]), ("path", ["b"])]) == {"path": "b"}  # as JSON reads it


def test_escapes_stay_within_their_piece() -> None:
    assert arguments([("path", ['a"b', "\\", "\t", "é\u2028"])]) == {"path": 'a"b\\\té\u2028'}


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(
        st.tuples(st.sampled_from(["path", "days", "flags", "other"]), st.text(max_size=12)),
        max_size=4,
    ),
    cuts=st.lists(st.integers(1, 12), max_size=6),
)
def test_any_cut_of_the_values_gives_the_same_json_object(
    values: list[tuple[str, str]], cuts: list[int]
) -> None:
    whole = "".join(write([(key, [value]) for key, value in values]))
    pieces = "".join(write([(key, cut(value, cuts)) for key, value in values]))
    assert pieces == whole
    assert whole == "" or isinstance(json.loads(whole), dict)


def test_a_verbatim_value_is_exact_and_says_its_own_type() -> None:
    writer = ArgumentsWriter(TOOL)
    out: list[Event] = []
    writer.open("path", out, "string", verbatim=True)  # quote out at once: it streams
    for piece in ["\n", "null", "\n"]:
        writer.value(piece, out)
    writer.open("days", out, "string", verbatim=True)  # the markup's type over the schema's
    writer.value("7", out)
    writer.open("flags", out, "array", verbatim=True)
    writer.value("[1,\n", out)
    writer.value("2]\n", out)
    writer.end(out)
    fragments = [e.fragment for e in out if isinstance(e, CallArgs)]
    assert fragments[:4] == ['{"path": "', "\\n", "null", "\\n"]
    assert json.loads("".join(fragments)) == {"path": "\nnull\n", "days": "7", "flags": [1, 2]}
