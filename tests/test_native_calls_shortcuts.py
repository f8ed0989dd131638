"""``NativeToolCalls``' shortcuts against its general path (``feed``): on any stream of hostile
entries, a shortcut gives exactly the entries ``feed`` gives and leaves the normaliser, the
assembler and the report exactly as ``feed`` leaves them, or declines having changed nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from native_support import (
    FakeReport,
    counter_ids,
    general_end_calls,
    headers,
    more_arguments,
    normaliser_state,
    odd_entries,
    whole_calls,
)
from toolcall_middleware.calls import ToolCallAssembler
from toolcall_middleware.limits import Budget
from toolcall_middleware.native_calls import NativeToolCalls

STEPS = st.one_of(
    headers(),
    headers(),
    more_arguments(),
    odd_entries(),
    st.sampled_from(["end_calls", "finish", "not an entry"]),
    st.lists(st.one_of(headers(), more_arguments()), min_size=2, max_size=3),
)
#: Steps of a stream, ``whole_calls`` flattened into it.
STREAMS = st.lists(st.one_of(STEPS, whole_calls(), whole_calls()), max_size=12).map(
    lambda steps: [s for step in steps for s in (step if isinstance(step, tuple) else [step])]
)


def run(steps: list[Any], shortcuts: bool) -> tuple[list[Any], Any]:
    """Entries and final state for ``steps``, with the shortcuts (each single entry offered
    to ``next_call`` first, its declines checked to change nothing) or by the general path."""
    report = FakeReport()
    calls = ToolCallAssembler(
        counter_ids(), budget=Budget(12), report=report, check_arguments=False
    )
    native = NativeToolCalls(calls, report)
    out: list[Any] = []
    for step in steps:
        if step == "end_calls":
            out.append(native.end_calls() if shortcuts else general_end_calls(native))
        elif step == "finish":
            out.append(native.finish())
        elif isinstance(step, list) or not shortcuts:
            out.append(native.feed(step if isinstance(step, list) else [step]))
        else:
            before = normaliser_state(native, calls, report)
            found = native.next_call(step)
            if found is None:
                assert normaliser_state(native, calls, report) == before
                found = native.feed([step])
            out.append(found)
    out.append(native.finish() + calls.close())
    return out, normaliser_state(native, calls, report)


@settings(max_examples=300, deadline=None)
@given(STREAMS)
def test_next_call_and_end_calls_give_what_the_general_path_gives(steps: list[Any]) -> None:
    assert run(steps, shortcuts=True) == run(steps, shortcuts=False)


def test_next_call_ends_a_complete_call_and_starts_the_next() -> None:
    calls = ToolCallAssembler(counter_ids())
    native = NativeToolCalls(calls)
    header = {"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": ""}}
    assert native.next_call(header) == [
        {"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": ""}}
    ]
    second = {**header, "index": 1, "id": "b"}
    assert native.next_call(second) is None  # call 0 has no arguments yet: it may get some
    assert native.feed([{"index": 0, "function": {"arguments": "{}"}}]) == [
        {"index": 0, "function": {"arguments": "{}"}}
    ]
    assert native.next_call(second) == [
        {"index": 1, "id": "b", "type": "function", "function": {"name": "f", "arguments": ""}}
    ]
    assert native.next_call({**header, "index": 2, "id": "c", "function": {"name": "g"}}) is None
