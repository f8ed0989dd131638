"""``ChatReader`` with the normaliser's shortcuts (``NativeToolCalls.next_call`` for a new
call's header, ``end_calls``' for the one open call) against the reader without them: the same
events, and the reader, normaliser and assembler left in the same state, chunk after chunk,
limits reached anywhere."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from native_support import general_end_calls, normaliser_state, odd_entries, whole_calls
from toolcall_middleware.fronts.core import ChatReader
from toolcall_middleware.native_calls import NativeToolCalls


@st.composite
def chunks(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One or more chunks of one choice: a call as chat paths send it (header, pieces), odd
    entries, two entries, texts of every channel, a finish, another choice now and then."""
    kind = draw(st.sampled_from(["call"] * 3 + ["entry"] * 3 + ["two", "text", "finish"]))
    deltas: list[dict[str, Any]] = []
    if kind == "call":
        deltas = [{"tool_calls": [entry]} for entry in draw(whole_calls())]
    elif kind == "entry":
        deltas = [{"tool_calls": [draw(odd_entries())]}]
    elif kind == "two":
        deltas = [{"tool_calls": [draw(odd_entries()), draw(odd_entries())]}]
    elif kind == "text":
        field = draw(st.sampled_from(["content", "reasoning", "reasoning_content", "refusal"]))
        deltas = [{field: draw(st.sampled_from(["hi", "", " ", "0123456789" * 3]))}]
    index = draw(st.sampled_from([0, 0, 0, 0, 0, 1]))
    finish = "stop" if kind == "finish" else None
    return [
        {"choices": [{"index": index, "delta": delta, "finish_reason": finish}]}
        for delta in deltas or [{}]
    ]


def describe(reader: ChatReader) -> Any:
    """Everything the reader, its normaliser and its assembler hold, as plain values."""
    call = reader._open
    return (
        reader.answer_size,
        reader.done,
        reader._calls_closed,
        reader._tool_calls,
        reader._finish_reason,
        sorted(reader._generated),
        None if call is None else (call.index, call.id, call.name, call.upstream_id, call.parts),
        None if call is None else call.size,
        (reader.dropped_calls, reader.dropped_fragments),
        normaliser_state(reader._native, reader._calls, None),
    )


def read(docs: list[dict[str, Any]], **limits: Any) -> list[Any]:
    """The events and the reader's whole state after each chunk, and at the end."""
    ids = itertools.count()
    reader = ChatReader(lambda: f"gen_{next(ids)}", **limits)
    out: list[Any] = []
    for doc in docs:
        out += [reader.feed(doc), describe(reader)]
    return [*out, reader.finish(), describe(reader)]


LIMITS = [{}, {"max_arguments_bytes": 8}, {"max_answer_bytes": 20}, {"max_answer_bytes": 3}]


@pytest.mark.parametrize("limits", LIMITS, ids=str)
@settings(max_examples=100, deadline=None)
@given(st.lists(chunks(), max_size=10).map(lambda runs: [c for run in runs for c in run]))
def test_the_shortcuts_read_as_the_general_path(
    limits: dict[str, Any], docs: list[dict[str, Any]]
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(NativeToolCalls, "next_call", lambda self, entry: None)
        patch.setattr(NativeToolCalls, "end_calls", general_end_calls)
        general = read(docs, **limits)
    assert read(docs, **limits) == general
