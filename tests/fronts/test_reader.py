"""``ChatReader``: Chat Completions chunks (or a whole completion) in, the core's events out."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from native_support import odd_entries
from toolcall_middleware.fronts.core import (
    ArgsDelta,
    CallClosed,
    CallOpened,
    ChatReader,
    Event,
    Finish,
    ReasoningDelta,
    TextDelta,
    UpstreamError,
)

_ids = itertools.count()


def new_id() -> str:
    return f"gen_{next(_ids)}"


def chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any
) -> dict[str, Any]:
    doc: dict[str, Any] = {"object": "chat.completion.chunk", "choices": []}
    if delta is not None or finish is not None:
        doc["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish, **extra}]
    return doc


def call(
    index: int, *, id: str | None = None, name: str | None = None, args: str | None = None
) -> dict[str, Any]:
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if args is not None:
        function["arguments"] = args
    entry: dict[str, Any] = {"index": index, "function": function}
    if id is not None:
        entry["id"] = id
    return {"tool_calls": [entry]}


def read(chunks: list[dict[str, Any]], **kw: Any) -> list[Event]:
    reader = ChatReader(new_id, **kw)
    events: list[Event] = []
    for c in chunks:
        events += reader.feed(c)
    return events + reader.finish()


def test_text_reasoning_and_refusal_channels() -> None:
    events = read(
        [
            chunk({"reasoning": "think", "reasoning_content": "think"}),
            chunk({"reasoning": "more"}),
            chunk({"content": "hi"}),
            chunk({"refusal": "no"}),
            chunk(None, "stop"),
            {"choices": [], "usage": {"prompt_tokens": 3}},
        ]
    )
    assert events == [
        ReasoningDelta("think"),
        ReasoningDelta("more"),
        TextDelta("hi"),
        TextDelta("no", "refusal"),
        Finish("stop", {"prompt_tokens": 3}, None, False),
    ]


def test_a_call_from_start_to_end() -> None:
    events = read(
        [
            chunk(call(0, id="functions.bash:0", name="bash", args="")),
            chunk(call(0, args='{"command": ')),
            chunk(call(0, args='"ls"}')),
            chunk(None, "tool_calls", stop_reason="END"),
        ]
    )
    assert events == [
        CallOpened(0, "functions.bash:0", "bash", True),
        ArgsDelta(0, '{"command": '),
        ArgsDelta(0, '"ls"}'),
        CallClosed(
            0,
            "functions.bash:0",
            "bash",
            '{"command": "ls"}',
            {"command": "ls"},
            '{"command": "ls"}',
            None,
        ),
        Finish("tool_calls", None, "END", True),
    ]


@pytest.mark.parametrize("index", [None, "missing"])
def test_a_choice_without_an_index_is_the_first(index: Any) -> None:
    # Some servers send ``"index": null`` (or none) on their one choice: every chunk of it
    # is read, its text, its calls and its finish alike.
    chunks = [
        chunk({"reasoning_content": "hm"}),
        chunk({"content": "ok"}),
        chunk(call(0, id="c1", name="bash", args="")),
        chunk(call(0, args='{"a": 1}')),
        chunk(call(1, id="c2", name="bash", args='{"b": 2}')),
        chunk(None, "tool_calls"),
    ]
    odd = [
        {**c, "choices": [{k: v for k, v in c["choices"][0].items() if k != "index"}]}
        if index == "missing"
        else {**c, "choices": [dict(c["choices"][0], index=index)]}
        for c in chunks
    ]
    if index == "missing":
        assert all("index" not in c["choices"][0] for c in odd)
    else:
        assert all(c["choices"][0]["index"] is None for c in odd)
    assert read(odd) == read(chunks)
    assert isinstance(read(odd)[-1], Finish)


def test_call_without_id_gets_a_generated_one_and_empty_arguments_are_an_object() -> None:
    events = read([chunk(call(0, name="now")), chunk(None, "stop")])
    start = events[0]
    assert isinstance(start, CallOpened) and start.id.startswith("gen_") and not start.upstream_id
    end = events[-2]
    assert isinstance(end, CallClosed) and end.raw == "{}" and end.arguments == {}


def test_invalid_arguments_follow_the_one_policy() -> None:
    events = read([chunk(call(0, id="a", name="f", args='{"x": 1,}')), chunk(None, "stop")])
    end = next(e for e in events if isinstance(e, CallClosed))
    assert end.raw == '{"x": 1,}' and end.problem == "invalid_json"
    assert end.arguments == {"input": '{"x": 1,}'} and end.text == '{"input":"{\\"x\\": 1,}"}'
    events = read([chunk(call(0, id="a", name="f", args="[1]")), chunk(None, "stop")])
    end = next(e for e in events if isinstance(e, CallClosed))
    assert end.problem == "not_object" and end.arguments == {"input": "[1]"}


def test_interleaved_parallel_calls_come_out_one_after_another() -> None:
    events = read(
        [
            chunk(call(0, id="a", name="f", args="")),
            chunk(call(1, id="b", name="g", args="")),
            chunk(call(0, args='{"x": ')),
            chunk(call(1, args='{"y": 2}')),
            chunk(call(0, args="1}")),
            chunk(None, "tool_calls"),
        ]
    )
    calls = [(type(e).__name__, getattr(e, "index", None)) for e in events]
    assert calls == [
        ("CallOpened", 0),
        ("ArgsDelta", 0),
        ("ArgsDelta", 0),
        ("CallClosed", 0),
        ("CallOpened", 1),
        ("ArgsDelta", 1),
        ("CallClosed", 1),
        ("Finish", None),
    ]
    ends = [e for e in events if isinstance(e, CallClosed)]
    assert [e.arguments for e in ends] == [{"x": 1}, {"y": 2}]


def test_text_ends_the_open_call_and_later_fragments_are_dropped() -> None:
    reader = ChatReader(new_id)
    events = reader.feed(chunk(call(0, id="a", name="f", args='{"x": 1}')))
    events += reader.feed(chunk({"content": "after"}))
    assert [type(e) for e in events] == [CallOpened, ArgsDelta, CallClosed, TextDelta]
    assert reader.feed(chunk(call(0, args='{"x": 1}'))) == []
    events = reader.feed(chunk(None, "tool_calls")) + reader.finish()
    assert reader.dropped_fragments == 1 and [type(e) for e in events] == [Finish]


def test_nameless_call_is_dropped_and_counted() -> None:
    reader = ChatReader(new_id)
    events = reader.feed(chunk(call(0, args="{}"))) + reader.feed(chunk(None, "stop"))
    events += reader.finish()
    assert reader.dropped_calls == 1 and events == [Finish("stop", None, None, False)]


def test_stream_without_finish_reason_is_an_upstream_error() -> None:
    (event,) = read([chunk({"content": "x"})])[1:]
    assert isinstance(event, UpstreamError) and event.failure.kind == "server"
    assert "ended before the response was complete" in event.failure.message


def test_mid_stream_error_chunk() -> None:
    reader = ChatReader(new_id)
    (event,) = reader.feed({"error": {"message": "slow down", "code": 429}})
    assert isinstance(event, UpstreamError)
    assert (event.failure.kind, event.failure.message) == ("rate_limit", "slow down")
    assert reader.done and reader.feed(chunk({"content": "x"})) == [] and reader.finish() == []


def test_whole_completion() -> None:
    reader = ChatReader(new_id)
    completion = {
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": "ok",
                    "reasoning_content": "r",
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "a",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"k": 1}'},
                        },
                        {"index": 0, "id": "b", "type": "function", "function": {"name": "g"}},
                    ],
                },
            }
        ],
        "usage": {"total_tokens": 9},
    }
    events = reader.feed_completion(completion) + reader.finish()
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "ReasoningDelta",
        "TextDelta",
        "CallOpened",
        "ArgsDelta",
        "CallClosed",
        "CallOpened",
        "ArgsDelta",
        "CallClosed",
        "Finish",
    ]
    ends = [e for e in events if isinstance(e, CallClosed)]
    assert [(e.id, e.arguments) for e in ends] == [("a", {"k": 1}), ("b", {})]
    assert events[-1] == Finish("tool_calls", {"total_tokens": 9}, None, True)


def test_completion_without_choices_is_an_upstream_error() -> None:
    (event,) = ChatReader(new_id).feed_completion({"object": "chat.completion"})
    assert isinstance(event, UpstreamError) and "no choices" in event.failure.message


def test_arguments_over_the_cap_end_the_answer() -> None:
    reader = ChatReader(new_id, max_arguments_bytes=100)
    events = reader.feed(chunk(call(0, id="a", name="f", args='{"x": "' + "y" * 60)))
    events += reader.feed(chunk(call(0, args="z" * 60)))
    assert isinstance(events[-1], UpstreamError) and "100 bytes" in events[-1].failure.message
    assert reader.done


def _queued_call(**limits: Any) -> ChatReader:
    """A reader whose second (interleaved) call holds 30 characters of arguments, not yet
    counted in the answer: they go out, and count, when the first call ends."""
    reader = ChatReader(new_id, **limits)
    for doc in (
        chunk(call(0, id="a", name="f", args='{"x": ')),
        chunk(call(1, id="b", name="g", args='{"y": "' + "z" * 20 + '"}')),
    ):
        assert not any(isinstance(e, UpstreamError) for e in reader.feed(doc))
    return reader


@pytest.mark.parametrize("end", ["text", "finish"])
def test_a_queued_call_past_the_answer_cap_ends_the_answer_not_the_reader(end: str) -> None:
    # Text after the calls, or the end of the answer, ends them: the queued call's arguments
    # then pass the cap, and the answer ends with an UpstreamError (no exception escapes).
    reader = _queued_call(max_answer_bytes=20)
    if end == "text":
        events = reader.feed(chunk({"content": "after"}))
    else:
        events = reader.feed(chunk(None, "tool_calls")) + reader.finish()
    assert isinstance(events[-1], UpstreamError)
    assert "20 bytes" in events[-1].failure.message
    assert reader.done and reader.finish() == []
    # Under the cap, the same stream is read whole.
    events = _queued_call(max_answer_bytes=200).feed(chunk({"content": "after"}))
    assert [type(e) for e in events] == [CallClosed, CallOpened, ArgsDelta, CallClosed, TextDelta]


def test_arguments_held_for_a_nameless_call_are_capped() -> None:
    reader = ChatReader(new_id, max_arguments_bytes=100)
    events = reader.feed(chunk(call(0, args="x" * 150)))
    assert isinstance(events[-1], UpstreamError)


@given(
    text=st.text(min_size=1, max_size=80).map(lambda t: '{"v": ' + repr(t) + "}"),
    cuts=st.lists(st.integers(0, 90), max_size=8),
)
def test_arguments_cut_anywhere_give_the_same_call(text: str, cuts: list[int]) -> None:
    points = sorted({c for c in cuts if 0 < c < len(text)})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    chunks = [chunk(call(0, id="a", name="f", args=""))]
    chunks += [chunk(call(0, args=p)) for p in pieces]
    events = read([*chunks, chunk(None, "stop")])
    end = next(e for e in events if isinstance(e, CallClosed))
    assert "".join(e.fragment for e in events if isinstance(e, ArgsDelta)) == text
    whole = read([chunk(call(0, id="a", name="f", args=text)), chunk(None, "stop")])
    assert end == next(e for e in whole if isinstance(e, CallClosed))


# --- One ``tool_calls`` entry, read without the loop over choices, as the loop reads it ------

_NO_INDEX = object()


@st.composite
def native_chunks(draw: st.DrawFn) -> dict[str, Any]:
    """A chunk of one choice: one ``tool_calls`` entry mostly (a call's first entry, a piece
    of arguments, odd ones), two, a text, a finish; the choice's index odd now and then."""
    kind = draw(st.sampled_from(["entry"] * 8 + ["two", "text", "finish"]))
    delta: dict[str, Any] = {}
    if kind == "entry":
        delta = {"tool_calls": [draw(odd_entries())]}
    elif kind == "two":
        delta = {"tool_calls": [draw(odd_entries()), draw(odd_entries())]}
    elif kind == "text":
        delta = {"content": draw(st.sampled_from(["hi", "", "0123456789" * 3]))}
    choice: dict[str, Any] = {"delta": delta, "finish_reason": "stop" if kind == "finish" else None}
    # (Not ``null``: the loop skips such a choice, ``feed``'s reading of one more piece of
    # the open call's arguments does not.)
    index = draw(st.sampled_from([0, 0, 0, 0, _NO_INDEX, 1, False]))
    if index is not _NO_INDEX:
        choice["index"] = index
    return {"choices": [choice]}


def _read_each(chunks: list[dict[str, Any]], general: bool, **limits: Any) -> list[Any]:
    """The events and the reader's state after each chunk; ``general``: every delta with
    ``tool_calls`` gets a member that sends it through the loop over choices (``content``
    null, which reads as no text)."""
    ids = itertools.count()
    reader = ChatReader(lambda: f"gen_{next(ids)}", **limits)
    out: list[Any] = []
    for doc in chunks:
        (choice,) = doc["choices"]
        if general and "tool_calls" in choice["delta"]:
            doc = {"choices": [{**choice, "delta": {**choice["delta"], "content": None}}]}
        out.append(reader.feed(doc))
        out.append((reader.answer_size, reader.dropped_calls, reader.dropped_fragments))
    out.append(reader.finish())
    return out


@pytest.mark.parametrize(
    "limits", [{}, {"max_arguments_bytes": 12}, {"max_answer_bytes": 20}], ids=str
)
@settings(max_examples=150, deadline=None)
@given(chunks=st.lists(native_chunks(), max_size=14))
def test_one_tool_calls_entry_is_read_as_the_loop_over_choices_reads_it(
    limits: dict[str, Any], chunks: list[dict[str, Any]]
) -> None:
    assert _read_each(chunks, general=False, **limits) == _read_each(chunks, general=True, **limits)
