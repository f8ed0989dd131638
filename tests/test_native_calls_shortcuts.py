"""``NativeToolCalls``' shortcuts against its general path (``feed``): on any stream of hostile
entries, a shortcut gives exactly the entries ``feed`` gives and leaves the normaliser, the
assembler and the report exactly as ``feed`` leaves them, or declines having changed nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from native_support import FakeReport, counter_ids
from toolcall_middleware.calls import Entry, ToolCallAssembler
from toolcall_middleware.limits import Budget
from toolcall_middleware.native_calls import NativeToolCalls

MISSING = object()
ARGUMENTS = ["", "", "", "{}", '{"a": 1}', '{"a"', ": 1}", "{", " ", None, {"a": 1}, MISSING]
IDS = ["call_a", "call_b", "call_c", "call_a", "", None, 5, MISSING]
NAMES = ["f", "g", "f", "", None, 3, MISSING]


@st.composite
def headers(draw: st.DrawFn, odd: int = 3) -> dict[str, Any]:
    """A call's header, canonical most often (the shortcut's case), else odd in some way (each
    way about once in ``odd``)."""
    index = draw(st.sampled_from([0, 1, 2, 3, 4, 5, 1, 2, None, "1", MISSING]))
    call_id = draw(st.sampled_from(IDS)) if draw(st.integers(0, odd)) == 0 else f"call_{index}"
    name = draw(st.sampled_from(NAMES)) if draw(st.integers(0, odd)) == 0 else "f"
    arguments = draw(st.sampled_from(ARGUMENTS)) if draw(st.integers(0, odd)) == 0 else ""
    function = {"name": name, "arguments": arguments}
    entry: dict[str, Any] = {"index": index, "id": call_id, "type": "function"}
    if draw(st.integers(0, 3 * odd)) == 0:  # Kilo's shorthand: the fields on the entry itself
        entry.update(function)
    else:
        entry["function"] = function
    if draw(st.integers(0, 3 * odd)) == 0:
        entry["name"] = "top_level"
    return _without_missing(entry)


@st.composite
def pieces(draw: st.DrawFn) -> dict[str, Any]:
    """More argument text for some index (or none)."""
    index = draw(st.sampled_from([0, 1, 2, 3, None, MISSING]))
    fragment = draw(st.sampled_from(['{"a": 1}', '{"a"', ": 1}", "}", "", " ", "x", None]))
    return _without_missing({"index": index, "function": {"arguments": fragment}})


@st.composite
def whole_calls(draw: st.DrawFn) -> tuple[Any, ...]:
    """A call's header then its arguments in pieces, complete most often, as chat paths send."""
    header = draw(headers(odd=9))
    index = header.get("index")
    arguments = draw(st.sampled_from(['{"a": 1}', "{}", '{"a": 1}', "", '{"a"', "[1]", "{}" * 9]))
    cuts = sorted(draw(st.lists(st.integers(0, len(arguments)), max_size=3)))
    steps: list[Any] = [header]
    for a, b in zip([0, *cuts], [*cuts, len(arguments)], strict=True):
        steps.append({"index": index, "function": {"arguments": arguments[a:b]}})
    return tuple(steps)


def _without_missing(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` without its ``MISSING`` members (at any depth)."""
    return {
        key: _without_missing(value) if isinstance(value, dict) else value
        for key, value in entry.items()
        if value is not MISSING
    }


STEPS = st.one_of(
    headers(),
    headers(),
    pieces(),
    st.sampled_from(["end_calls", "finish", "not an entry"]),
    st.lists(st.one_of(headers(), pieces()), min_size=2, max_size=3),
)
#: Steps of a stream, ``whole_calls`` flattened into it.
STREAMS = st.lists(st.one_of(STEPS, whole_calls(), whole_calls()), max_size=12).map(
    lambda steps: [s for step in steps for s in (step if isinstance(step, tuple) else [step])]
)


def describe(native: NativeToolCalls, calls: ToolCallAssembler, report: FakeReport) -> Any:
    """Everything the normaliser, its assembler and the report hold, as plain values."""

    def of_native(call: Any) -> tuple[Any, ...]:
        return tuple(getattr(call, name) for name in type(call).__slots__)

    def of_call(call: Any) -> tuple[Any, ...]:
        return tuple(getattr(call, name) for name in type(call).__slots__)

    return (
        native.held,
        native.queued,
        native._last_slot,
        native._wait_for_id,
        {slot: of_native(call) for slot, call in native._slots.items()},
        [of_native(call) for call in native._open],
        calls.count,
        sorted(calls._ids),
        [(of_native(key), of_call(call)) for key, call in calls._open.items()],
        [of_call(call) for call in calls._held],
        calls._budget.used,
        (report.calls, report.reasons, report.fallbacks),
    )


def run(
    steps: list[Any], shortcut: Callable[[NativeToolCalls, Any], list[Entry] | None] | None
) -> tuple[list[Any], Any]:
    """Entries and final state for ``steps``, each single entry offered to ``shortcut`` first
    (its declines checked to change nothing)."""
    report = FakeReport()
    calls = ToolCallAssembler(
        counter_ids(), budget=Budget(12), report=report, check_arguments=False
    )
    native = NativeToolCalls(calls, report)
    out: list[Any] = []
    for step in steps:
        if step == "end_calls":
            out.append(native.end_calls())
        elif step == "finish":
            out.append(native.finish())
        elif isinstance(step, list) or shortcut is None:
            out.append(native.feed(step if isinstance(step, list) else [step]))
        else:
            before = describe(native, calls, report)
            found = shortcut(native, step)
            if found is None:
                assert describe(native, calls, report) == before
                found = native.feed([step])
            out.append(found)
    out.append(native.finish() + calls.close())
    return out, describe(native, calls, report)


@settings(max_examples=600, deadline=None)
@given(STREAMS)
def test_next_call_gives_what_feed_gives(steps: list[Any]) -> None:
    assert run(steps, NativeToolCalls.next_call) == run(steps, None)


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
