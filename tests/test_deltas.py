"""Parser events into output deltas, deltas into output choices, and the finish_reason rule."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from native_support import counter_ids
from toolcall_middleware.calls import ToolCallAssembler
from toolcall_middleware.deltas import (
    PIECE_HEAD,
    PIECE_MIDDLE,
    PIECE_TAIL,
    DeltaBuilder,
    finish_reason,
    piece_delta,
    spread_choices,
)
from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Reasoning, Text

CONTENT = ("content",)
BOTH = ("reasoning", "reasoning_content")


def builder(reasoning_fields: tuple[str, ...] | None = None) -> DeltaBuilder:
    return DeltaBuilder(ToolCallAssembler(counter_ids()), reasoning_fields)


def test_text_goes_to_the_fields_it_came_in_and_runs_join() -> None:
    b = builder()
    b.add([Text("Let "), Text("me")], BOTH)
    b.add([Text(" see")], BOTH)
    assert b.deltas == [{"reasoning": "Let me see", "reasoning_content": "Let me see"}]
    b.add([Text("Done.")], CONTENT)  # other fields: a delta of their own
    assert b.deltas[1:] == [{"content": "Done."}]


def test_a_call_is_its_header_then_its_argument_fragments_joined() -> None:
    b = builder()
    b.add(
        [
            Text("On it."),
            CallStart("bash", "functions.bash:0"),
            CallArgs('{"command":'),
            CallArgs(' "ls"}'),
            CallEnd(),
            Text("Sent."),
        ],
        CONTENT,
    )
    assert b.deltas == [
        {"content": "On it."},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "functions.bash:0",
                    "type": "function",
                    "function": {"name": "bash", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"command": "ls"}'}}]},
        {"content": "Sent."},
    ]


def test_a_call_without_arguments_gets_the_empty_object() -> None:
    b = builder()
    b.add([CallStart("get_time"), CallEnd()], CONTENT)
    assert b.deltas[1:] == [{"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}]


def test_reasoning_goes_to_the_streams_reasoning_fields_or_stays_with_its_text() -> None:
    split = builder(("reasoning",))
    split.add([Reasoning("hmm"), Text("4")], CONTENT)
    assert split.deltas == [{"reasoning": "hmm"}, {"content": "4"}]
    kept = builder()
    kept.add([Reasoning("hmm")], CONTENT)
    assert kept.deltas == [{"content": "hmm"}]


def choice(**extra: Any) -> dict[str, Any]:
    return {"index": 2, "delta": {"content": "x"}, "logprobs": None, "finish_reason": None, **extra}


def test_one_new_delta_is_the_choice_itself_in_its_own_key_order() -> None:
    original = choice()
    out = spread_choices(original, [{"content": "y"}], None)
    assert out == [original] and out[0] is original
    assert list(original) == ["index", "delta", "logprobs", "finish_reason"]
    assert original["delta"] == {"content": "y"}
    bare = {"index": 0, "delta": {"content": "x"}}  # no finish_reason key: none is added
    assert spread_choices(bare, [{"content": "y"}], None) == [
        {"index": 0, "delta": {"content": "y"}}
    ]


def test_several_deltas_are_several_choices_other_keys_first_finish_last() -> None:
    out = spread_choices(choice(), [{"content": "a"}, {"content": "b"}], "stop")
    assert out == [
        {"index": 2, "delta": {"content": "a"}, "finish_reason": None, "logprobs": None},
        {"index": 2, "delta": {"content": "b"}, "finish_reason": "stop"},
    ]


def test_no_delta_is_nothing_unless_a_finish_must_go() -> None:
    assert spread_choices(choice(), [], None) == []
    out = spread_choices(choice(), [], "stop")
    assert [(c["delta"], c["finish_reason"]) for c in out] == [({}, "stop")]


def test_a_finish_never_rides_on_a_calls_entry() -> None:
    entry = {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}
    out = spread_choices(choice(), [entry], "tool_calls")
    assert [(c["delta"], c["finish_reason"]) for c in out] == [(entry, None), ({}, "tool_calls")]


@pytest.mark.parametrize(
    ("upstream", "calls", "saw_calls", "expected"),
    [
        ("stop", 1, True, "tool_calls"),
        ("stop", 0, False, "stop"),
        ("tool_calls", 0, True, "stop"),  # every call was dropped: nothing for a client to run
        ("tool_calls", 2, True, "tool_calls"),
        ("tool_calls", 0, False, "tool_calls"),  # no call was ever seen: as the upstream said
        ("length", 1, True, "length"),
        (None, 1, True, None),
    ],
)
def test_the_finish_reason_rule(upstream: Any, calls: int, saw_calls: bool, expected: Any) -> None:
    assert finish_reason(upstream, calls, saw_calls) == expected


@given(index=st.integers(0, 10**6), fragment=st.text())
def test_a_piece_of_arguments_is_written_as_orjson_writes_its_delta(
    index: int, fragment: str
) -> None:
    # What the SSE fast path writes for a piece without building its delta.
    try:
        text = orjson.dumps(fragment)
    except TypeError:  # a lone surrogate: the fast path builds the delta then
        return
    written = PIECE_HEAD + b"%d" % index + PIECE_MIDDLE + text + PIECE_TAIL
    assert written == orjson.dumps(piece_delta((index, fragment)))
    assert piece_delta((index, fragment)) == {
        "tool_calls": [{"index": index, "function": {"arguments": fragment}}]
    }
