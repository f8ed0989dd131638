"""Incremental JSON scanning: value ends and string decoding under any cut."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import cut

from toolcall_middleware.parsers.jsonscan import (
    ArgumentsValue,
    DelimitedArguments,
    StringDecoder,
    ValueEnd,
    object_keys,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


def scan_in_pieces(pieces: list[str]) -> int:
    scanner = ValueEnd()
    offset = 0
    for piece in pieces:
        end = scanner.scan(piece, 0)
        if end != -1:
            return offset + end
        offset += len(piece)
    return -1


@settings(max_examples=150, deadline=None)
@given(value=json_values, ascii_only=st.booleans(), cuts=st.lists(st.integers(1, 200), max_size=8))
def test_value_end_and_arguments_under_any_cut(
    value: object, ascii_only: bool, cuts: list[int]
) -> None:
    encoded = json.dumps(value, ensure_ascii=ascii_only)
    text = encoded + ', "next": 1}'
    pieces = cut(text, cuts)
    if not isinstance(value, (int, float, bool)) and value is not None:
        assert scan_in_pieces(pieces) == len(encoded)
    as_string = json.dumps(encoded, ensure_ascii=ascii_only) + "}"
    decoded: list[str] = []
    arguments = ArgumentsValue()
    for piece in cut(as_string, cuts):
        if arguments.feed(piece, 0, decoded) != -1:
            break
    assert "".join(decoded) == encoded


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=20), cuts=st.lists(st.integers(1, 200), max_size=8))
def test_string_decoder_matches_json_loads(text: str, cuts: list[int]) -> None:
    text = text.encode("utf-16", "surrogatepass").decode("utf-16")  # no lone surrogates
    encoded = json.dumps(text)  # \uXXXX escapes, surrogate pairs for astral characters
    decoder = StringDecoder()
    out: list[str] = []
    ends = [decoder.decode(piece, 0, out) for piece in cut(encoded[1:] + "tail", cuts)]
    assert "".join(out)[: len(text)] == text
    assert any(end != -1 for end in ends)


def test_lone_surrogates_and_bad_escapes_decode_leniently() -> None:
    out: list[str] = []
    assert StringDecoder().decode('\\ud83d x \\udc00 \\u12zz \\q"', 0, out) != -1
    assert "".join(out) == "\ufffd x \ufffd u12zz q"
    out = []
    decoder = StringDecoder()
    assert decoder.decode("ab\\u00", 0, out) == -1
    decoder.finish(out)
    assert "".join(out) == "abu00"


def test_null_arguments_forward_nothing_and_scalars_forward_raw() -> None:
    for text, expected in (("null,", ""), (" 12 }", "12"), ('""}', "")):
        out: list[str] = []
        assert ArgumentsValue().feed(text, 0, out) != -1
        assert "".join(out) == expected


def test_delimited_arguments_strip_fence_and_framing() -> None:
    for pieces, expected in (
        (["\n``", '`json\n{"a"', ": 1}\n``", "`  "], '{"a": 1}'),
        (["  plain text  ", " "], "plain text"),
        (["`x` and more"], "`x` and more"),
    ):
        arguments = DelimitedArguments()
        out: list[str] = []
        for piece in pieces:
            arguments.feed(piece, out)
        arguments.finish(out)
        assert "".join(out) == expected


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from([None, 2, "\t"]))
def test_object_keys_are_the_keys_json_loads_finds(value: object, indent: int | str | None) -> None:
    text = json.dumps(value, indent=indent)
    assert object_keys(text) == (list(value) if isinstance(value, dict) else None)


def test_object_keys_need_no_stack_for_deep_values_and_refuse_a_broken_object() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert object_keys('{"a": ' + deep + ', "b": 1}') == ["a", "b"]
    for broken in ('{"a": 1,}', '{"a" 1}', '{"a": ', '{"a": 1} x', '{"a":}', "{", ""):
        assert object_keys(broken) is None


def value_pieces(reader: ArgumentsValue, pieces: list[str], take: bool) -> tuple[str, int]:
    """The argument text ``reader`` gives for ``pieces`` (each piece ``take`` takes goes out as
    written, the rest through ``feed``) and where in the whole text the value ended."""
    out: list[str] = []
    offset = 0
    for piece in pieces:
        if take and reader.take(piece):
            out.append(piece)
        else:
            end = reader.feed(piece, 0, out)
            if end != -1:
                return "".join(out), offset + end
        offset += len(piece)
    reader.finish(out)
    return "".join(out), -1


@settings(max_examples=200, deadline=None)
@given(value=json_values, as_string=st.booleans(), cuts=st.lists(st.integers(1, 60), max_size=10))
def test_what_an_arguments_value_takes_is_what_feed_gives(
    value: object, as_string: bool, cuts: list[int]
) -> None:
    encoded = json.dumps({"v": value})
    text = (json.dumps(encoded) if as_string else encoded) + ', "next": 1}'
    pieces = cut(text, cuts)
    assert value_pieces(ArgumentsValue(), pieces, take=True) == value_pieces(
        ArgumentsValue(), pieces, take=False
    )
    assert value_pieces(ArgumentsValue(), list(text), take=True) == value_pieces(
        ArgumentsValue(), list(text), take=False
    )


@settings(max_examples=200, deadline=None)
@given(
    body=st.one_of(json_values.map(json.dumps), st.text(max_size=20)),
    fence=st.booleans(),
    cuts=st.lists(st.integers(1, 60), max_size=10),
)
def test_what_delimited_arguments_take_is_what_feed_gives(
    body: str, fence: bool, cuts: list[int]
) -> None:
    text = f"\n```json\n{body}\n```\n" if fence else f" {body} \n"
    results = []
    for take in (True, False):
        arguments = DelimitedArguments()
        out: list[str] = []
        for piece in cut(text, cuts):
            if take and arguments.take(piece):
                out.append(piece)
            else:
                arguments.feed(piece, out)
        arguments.finish(out)
        results.append("".join(out))
    assert results[0] == results[1]


def test_take_takes_the_pieces_inside_a_value_and_declines_its_end() -> None:
    reader = ArgumentsValue()
    out: list[str] = []
    assert not reader.take('{"path": "')  # not begun: feed reads it
    reader.feed('{"path": "', 0, out)
    assert reader.take("/a b/c") and reader.take('", "n": [1, {"x": "}"}], "q": "')
    assert not reader.take('"} tail')
    assert reader.feed('"} tail', 0, out) == 2
    string = ArgumentsValue()
    string.feed('"{\\"a\\": \\"', 0, out)
    assert string.take("plain") and not string.take('\\"') and not string.take('"')
    delimited = DelimitedArguments()
    assert not delimited.take("{")
    delimited.feed('{"a": "', out)
    assert delimited.take("text") and not delimited.take('"}')
    raw = DelimitedArguments()
    raw.feed("ls -la", out)
    assert raw.take(" /tmp") and not raw.take("x ")  # whitespace at its end is held
