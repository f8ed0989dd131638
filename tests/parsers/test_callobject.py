"""One ``{"name": ..., "arguments": ...}`` call object read as it arrives (``callobject``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import cut, normalise

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Event
from toolcall_middleware.parsers.callobject import CALL, NOT_CALL, READING, CallObject, Status


def read(
    pieces: list[str], *, needs_arguments: bool = False, end: bool = True
) -> tuple[list[Event], Status, str]:
    """Feed the pieces (all of each, until the object stops reading), then finish if ``end``:
    the events, the status, and what followed the object."""
    obj = CallObject(needs_arguments=needs_arguments)
    out: list[Event] = []
    after = ""
    for piece in pieces:
        if obj.status is not READING:
            after += piece
            continue
        stop = obj.feed(piece, 0, out)
        after += piece[stop:]
    if end:
        obj.finish(out)
    return normalise(out), obj.status, after


def test_a_call_commits_at_its_arguments_first_character() -> None:
    obj = CallObject(needs_arguments=False)
    out: list[Event] = []
    head = '{"name": "bash", "arguments": '
    assert obj.feed(head, 0, out) == len(head)
    assert out == [] and obj.raw == head  # not yet known to be a call
    obj.feed("{", 0, out)
    assert out == [CallStart("bash"), CallArgs("{")]
    assert obj.raw == ""  # the text is no longer kept once it is a call
    tail = '"command": "ls"}} after'
    assert obj.feed(tail, 0, out) == tail.index(" after")
    assert obj.status is CALL
    assert normalise(out) == [CallStart("bash"), CallArgs('{"command": "ls"}'), CallEnd()]


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ('{"arguments": {"a": [1, "}"]}, "name": "f"}', '{"a": [1, "}"]}'),  # held until the name
        ('{"name": "f", "parameters": {"a": 1}}', '{"a": 1}'),
        ('{"name": "f", "arguments": "{\\"a\\": \\"\\u00e9\\"}"}', '{"a": "é"}'),  # a JSON string
        ('{"name": "f", "arguments": null}', ""),
        ('{"name": "f", "arguments": ""}', ""),
        ('{"name": "f"}', ""),
        ('{"name": "f", "id": 3, "arguments": {}, "extra": [{}]}', "{}"),
    ],
)
def test_what_a_call_object_gives(text: str, arguments: str) -> None:
    events, status, after = read([text + " rest"])
    assert status is CALL and after == " rest"
    assert events == [CallStart("f"), *([CallArgs(arguments)] if arguments else []), CallEnd()]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "f", "arguments": oops}',
        '{"name": "f", "arguments": [1]}',
        '{"name": "f", "arguments": "not an object"}',
        '{"name": "", "arguments": {}}',
        '{"name": "0", "arguments": {}}',
        '{"name": 3, "arguments": {}}',
        '{"city": "Paris"}',
        "{name: f}",
        '{"name": "f", "arguments": nul}',
    ],
)
def test_what_only_looks_like_a_call_is_given_back_as_it_was(text: str) -> None:
    obj = CallObject(needs_arguments=False)
    out: list[Event] = []
    stop = obj.feed(text, 0, out)
    if obj.status is READING:
        obj.finish(out)
    assert (out, obj.status) == ([], NOT_CALL)
    assert obj.raw == text[:stop]  # all it read, to give back as text
    assert text.startswith(obj.raw)


def test_a_name_without_arguments_is_a_call_unless_the_format_needs_them() -> None:
    assert read(['{"name": "f"}'])[:2] == ([CallStart("f"), CallEnd()], CALL)
    assert read(['{"name": "f"}'], needs_arguments=True)[1] is NOT_CALL


def test_end_of_stream_keeps_a_started_call_and_gives_back_the_rest() -> None:
    cut_off = read(['{"name": "f", "arguments": {"a": "x'])
    assert cut_off[:2] == ([CallStart("f"), CallArgs('{"a": "x'), CallEnd()], CALL)
    assert read(['{"name": "f", "argum'])[1] is CALL  # a name and nothing more: a call
    assert read(['{"name": "f", "argum'], needs_arguments=True)[1] is NOT_CALL
    assert read(['{"arguments": {"a": 1}, "na'])[1] is NOT_CALL


def test_held_counts_the_object_until_it_is_a_call_and_the_header_apart() -> None:
    obj = CallObject(needs_arguments=False)
    out: list[Event] = []
    obj.feed('{"arguments": {"a": 1}, "name": "get_', 0, out)
    assert obj.held_header == len("get_")  # a name being read
    assert obj.held == len('{"arguments": {"a": 1}, "name": "')
    obj.feed('time", ', 0, out)
    assert (obj.held, obj.held_header) == (0, 0)  # a call now: what it held went out
    assert out == [CallStart("get_time"), CallArgs('{"a": 1}')]
    obj.feed("}", 0, out)
    assert obj.status is CALL
    other = CallObject(needs_arguments=False)
    other.feed('{"city": "Paris", "days": ', 0, out)
    assert (other.held, other.held_header) == (len('{"city": "Paris", "days": '), 0)


def test_a_scalar_argument_value_is_held_until_it_ends() -> None:
    obj = CallObject(needs_arguments=False)
    out: list[Event] = []
    obj.feed('{"name": "f", "arguments": {"n": 12', 0, out)
    assert obj.held == 0  # an object streams; only a scalar arguments value is held
    obj = CallObject(needs_arguments=False)
    obj.feed('{"name": "f", "arguments": "{\\"a', 0, out)
    assert obj.held == 0


def test_take_only_takes_arguments_that_go_out_as_written() -> None:
    obj = CallObject(needs_arguments=False)
    out: list[Event] = []
    assert not obj.take('{"name"')  # not a call yet: read by feed
    obj.feed('{"name": "f", "arguments": {"path": "/a', 0, out)
    for piece in ("/b/c", '", "n": [1, {"x": "}"}], "q": "'):  # the value goes on past each
        assert obj.take(piece)
        out.append(CallArgs(piece))  # what a parser makes of a piece taken
    assert not obj.take('"}} after')  # the value ends in it: nothing changed, feed reads it
    assert obj.feed('"}} after', 0, out) == len('"}}')
    assert obj.status is CALL
    arguments = "".join(e.fragment for e in out if isinstance(e, CallArgs))
    assert json.loads(arguments) == {"path": "/a/b/c", "n": [1, {"x": "}"}], "q": ""}


def test_take_on_string_arguments_declines_what_decodes_differently() -> None:
    obj = CallObject(needs_arguments=False)
    out: list[Event] = []
    obj.feed('{"name": "f", "arguments": "{\\"a\\": \\"', 0, out)
    assert obj.take("plain words")
    assert not obj.take('with \\"escape')
    assert not obj.take('end"')


calls = st.builds(
    lambda name, args, first, as_string: json.dumps(
        {"arguments": json.dumps(args) if as_string else args, "name": name}
        if first
        else {"name": name, "arguments": json.dumps(args) if as_string else args}
    ),
    st.sampled_from(["bash", "get_weather", "mcp__x.y-z"]),
    st.dictionaries(st.text(max_size=4), st.one_of(st.text(max_size=6), st.integers()), max_size=3),
    st.booleans(),
    st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(text=calls, cuts=st.lists(st.integers(1, 200), max_size=10))
def test_any_cut_gives_the_same_call_and_its_arguments_are_the_models(
    text: str, cuts: list[int]
) -> None:
    whole = read([text + " x"])
    assert read(cut(text + " x", cuts)) == whole
    events, status, after = whole
    assert status is CALL and after == " x"
    value = json.loads(text)
    arguments = value["arguments"]
    expected = arguments if isinstance(arguments, str) else json.dumps(arguments)
    pieces = "".join(e.fragment for e in events if isinstance(e, CallArgs))
    assert json.loads(pieces or "{}") == json.loads(expected)
