"""The native tool_calls normaliser and the assembler, sans-I/O: every gateway quirk."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from native_support import FakeReport, client_view, counter_ids, normalise
from toolcall_middleware.calls import ToolCallAssembler
from toolcall_middleware.native_calls import NativeToolCalls


def fn(name: str | None = None, arguments: Any = ..., **entry: Any) -> dict[str, Any]:
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if arguments is not ...:
        function["arguments"] = arguments
    return {**entry, "function": function}


def test_canonical_stream_is_kept() -> None:
    out = normalise(
        [
            [fn("get_weather", "", index=0, id="call_a", type="function")],
            [fn(arguments='{"city":', index=0)],
            [fn(arguments='"Paris"}', index=0)],
        ]
    )
    assert client_view(out) == [("call_a", "get_weather", '{"city":"Paris"}')]
    assert out[0]["function"]["arguments"] == ""  # the header leaves before the arguments


def test_index_reused_with_a_new_name_or_id_starts_a_new_call() -> None:
    out = normalise(
        [
            [fn("get_weather", '{"city":"Paris"}', index=0, id="a")],
            [fn("get_weather", '{"city":"Tokyo"}', index=0, id="b")],  # same name, new id
            [fn("get_time", "{}", index=0, id="c")],  # new name
        ]
    )
    assert client_view(out) == [
        ("a", "get_weather", '{"city":"Paris"}'),
        ("b", "get_weather", '{"city":"Tokyo"}'),
        ("c", "get_time", "{}"),
    ]


def test_a_canonical_header_with_a_new_id_after_a_complete_call_is_a_second_call() -> None:
    out = normalise(
        [
            [fn("w", '{"a": 1}', index=0, id="a")],
            [fn("w", "", index=0, id="b")],
            [fn(arguments='{"a": 2}', index=0)],
        ]
    )
    assert client_view(out) == [("a", "w", '{"a": 1}'), ("b", "w", '{"a": 2}')]


def test_same_name_and_no_ids_after_a_complete_call_is_a_second_call() -> None:
    out = normalise([[fn("f", '{"a": 1}', index=0)], [fn("f", '{"a": 2}', index=0)]])
    assert [(n, a) for _, n, a in client_view(out)] == [("f", '{"a": 1}'), ("f", '{"a": 2}')]


def test_ids_changing_on_every_chunk_are_one_call_with_the_first_id() -> None:
    pieces = [
        ("eL537", '{"'),
        ("call_0", "file_path"),
        ("call_1", '":"'),
        ("call_2", "t.txt"),
        ("call_3", '"}'),
    ]
    chunks = [
        [fn("write_file" if i == 0 else None, args, index=0, id=cid, type="function")]
        for i, (cid, args) in enumerate(pieces)
    ]
    assert client_view(normalise(chunks)) == [("eL537", "write_file", '{"file_path":"t.txt"}')]


def test_changing_ids_with_the_name_repeated_stay_one_call_until_the_json_is_complete() -> None:
    chunks = [
        [fn("f", piece, index=0, id=f"id{i}")]
        for i, piece in enumerate(['{"a": ', '{"b": 1}', "}"])
    ]
    # '{"a": {"b": 1}' ends with "}" but is not complete: still the same call.
    assert client_view(normalise(chunks)) == [("id0", "f", '{"a": {"b": 1}}')]


def test_id_and_name_repeated_on_every_delta() -> None:
    chunks = [
        [fn("get_weather", p, index=0, id="call_r", type="function")]
        for p in ['{"city": "', "Ber", 'lin"}', ""]
    ]
    assert client_view(normalise(chunks)) == [("call_r", "get_weather", '{"city": "Berlin"}')]


def test_first_index_not_zero_becomes_dense() -> None:
    out = normalise([[fn("a", "{}", index=1, id="x")], [fn("b", "{}", index=3, id="y")]])
    assert client_view(out) == [("x", "a", "{}"), ("y", "b", "{}")]


def test_indexless_and_null_index_continue_the_last_call() -> None:
    out = normalise(
        [
            [fn("a", "", index=0, id="x")],
            [fn("b", "", index=1, id="y")],
            [fn(arguments='{"k": ')],
            [
                {
                    "index": None,
                    "id": None,
                    "type": None,
                    "function": {"name": None, "arguments": "1}"},
                }
            ],
        ]
    )
    assert client_view(out) == [("x", "a", "{}"), ("y", "b", '{"k": 1}')]


def test_an_indexless_entry_with_a_new_name_is_a_new_call() -> None:
    out = normalise([[fn("a", '{"q": 1}', id="x")], [fn("b", '{"q": 2}', id="y")]])
    assert client_view(out) == [("x", "a", '{"q": 1}'), ("y", "b", '{"q": 2}')]


def test_two_entries_for_one_index_in_one_chunk() -> None:
    out = normalise(
        [[fn("search", index=0, id="s", type="function"), fn(arguments='{"q":"x"}', index=0)]]
    )
    assert client_view(out) == [("s", "search", '{"q":"x"}')]


def test_argument_shapes_object_null_and_empty() -> None:
    out = normalise(
        [
            [fn("get_weather", None, index=0, id="o")],
            [fn(arguments={"city": "Paris", "n": [1, 2]}, index=0)],
            [fn("get_time", "", index=1, id="e")],
            [fn("get_time", {}, index=2, id="z")],
            [fn("big", {"n": 2**70}, index=3, id="b")],  # beyond orjson's integers
        ]
    )
    assert client_view(out) == [
        ("o", "get_weather", '{"city":"Paris","n":[1,2]}'),
        ("e", "get_time", "{}"),
        ("z", "get_time", "{}"),
        ("b", "big", '{"n": 1180591620717411303424}'),
    ]


def test_kilo_shorthand_mixed_with_the_function_form() -> None:
    out = normalise(
        [
            [
                {
                    "index": 0,
                    "id": "k1",
                    "type": "function",
                    "name": "read",
                    "arguments": '{"path": "a"}',
                },
                {"index": 1, "id": "k2", "function": {"name": "read", "arguments": {"path": "b"}}},
            ]
        ]
    )
    assert client_view(out) == [("k1", "read", '{"path": "a"}'), ("k2", "read", '{"path":"b"}')]


def test_interleaved_parallel_calls() -> None:
    out = normalise(
        [
            [fn("w", "", index=0, id="p")],
            [fn("w", "", index=1, id="q")],
            [fn(arguments='{"c": ', index=0)],
            [fn(arguments='{"c": ', index=1)],
            [fn(arguments='"Oslo"}', index=0), fn(arguments='"Rome"}', index=1)],
        ]
    )
    assert client_view(out) == [("p", "w", '{"c": "Oslo"}'), ("q", "w", '{"c": "Rome"}')]


def test_interleaved_calls_leave_one_after_another_as_soon_as_possible() -> None:
    calls = ToolCallAssembler(counter_ids())
    native = NativeToolCalls(calls)
    out = native.feed([fn("w", '{"c": ', index=0, id="p")])
    assert {e["index"] for e in out} == {0}
    assert native.feed([fn("w", '{"c": "Rome"}', index=1, id="q")]) == []  # queued
    assert native.queued == len('{"c": "Rome"}')
    out += native.feed([fn(arguments='"Oslo"}', index=0)])  # call 0 complete: call 1 goes
    assert native.queued == 0
    out += native.finish() + calls.close()
    assert client_view(out) == [("p", "w", '{"c": "Oslo"}'), ("q", "w", '{"c": "Rome"}')]


def test_a_call_without_arguments_gives_way_when_the_next_call_has_some() -> None:
    calls = ToolCallAssembler(counter_ids())
    native = NativeToolCalls(calls)
    out = native.feed([fn("get_time", "", index=0, id="t")])
    out += native.feed([fn("w", "", index=1, id="w")])
    assert [e["index"] for e in out] == [0]  # the next call might still be interleaved
    out += native.feed([fn(arguments='{"c": 1}', index=1)])
    assert [e["index"] for e in out] == [0, 0, 1, 1]  # "{}" closes call 0, then call 1 flows
    out += native.finish() + calls.close()
    assert client_view(out) == [("t", "get_time", "{}"), ("w", "w", '{"c": 1}')]


def test_a_queued_call_whose_index_is_reused_keeps_its_turn() -> None:
    out = normalise(
        [
            [fn("a", '{"x": ', index=0, id="a")],
            [fn("b", "{}", index=1, id="b")],
            [fn("c", "{}", index=1, id="c")],
            [fn(arguments="1}", index=0)],
        ]
    )
    assert client_view(out) == [("a", "a", '{"x": 1}'), ("b", "b", "{}"), ("c", "c", "{}")]


def test_a_late_id_is_kept_when_it_comes_before_the_arguments() -> None:
    out = normalise(
        [
            [fn("w", "", index=0, type="function")],
            [fn(arguments='{"c": 1}', index=0, id="call_late")],
        ]
    )
    assert client_view(out) == [("call_late", "w", '{"c": 1}')]


def test_an_id_after_the_arguments_began_is_too_late_when_streaming_but_kept_buffered() -> None:
    chunks = [[fn("w", '{"c": ', index=0)], [fn(arguments="1}", index=0, id="call_late")]]
    assert client_view(normalise(chunks)) == [("call_gen1", "w", '{"c": 1}')]
    assert client_view(normalise(chunks, buffered=True)) == [("call_late", "w", '{"c": 1}')]


def test_a_call_waiting_for_its_id_keeps_its_place() -> None:
    out = normalise([[fn("first", "", index=0)], [fn("second", '{"x": 1}', index=1, id="b")]])
    assert client_view(out) == [("call_gen1", "first", "{}"), ("b", "second", '{"x": 1}')]


def test_arguments_before_the_name_are_held_then_sent() -> None:
    calls = ToolCallAssembler(counter_ids())
    native = NativeToolCalls(calls)
    assert native.feed([fn(arguments='{"a": 1', index=0)]) == []
    assert native.held == len('{"a": 1')
    out = native.feed([fn("late_name", "}", index=0, id="n")])
    assert native.held == 0
    assert client_view(out + native.finish() + calls.close()) == [("n", "late_name", '{"a": 1}')]


def test_a_call_that_never_names_itself_is_dropped_and_counted() -> None:
    report = FakeReport()
    out = normalise(
        [[fn(arguments='{"x": 1}', index=0, id="nameless")], [fn("ok", "{}", index=1, id="k")]],
        report=report,
    )
    assert client_view(out) == [("k", "ok", "{}")]
    assert report.reasons == ["missing_name"] and report.fallbacks == ["dropped"]


def test_entries_that_are_not_objects_are_dropped_and_counted() -> None:
    report = FakeReport()
    out = normalise([["garbage", fn("ok", "{}", index=0, id="k")], "not a list"], report=report)
    assert client_view(out) == [("k", "ok", "{}")]
    assert report.reasons == ["invalid_entry"]


def test_a_duplicate_id_gets_a_fresh_one() -> None:
    out = normalise([[fn("a", "{}", index=0, id="call_0")], [fn("b", "{}", index=1, id="call_0")]])
    assert client_view(out) == [("call_0", "a", "{}"), ("call_gen1", "b", "{}")]


def test_parsed_and_native_calls_share_one_dense_numbering() -> None:
    calls = ToolCallAssembler(counter_ids())
    native = NativeToolCalls(calls)
    out = native.feed([fn("native_one", '{"n": 1}', index=0, id="n1")])
    out += calls.start("parsed", "functions.parsed:0")  # what a parser's CallStart becomes
    out += calls.arguments('{"p": 1}')
    out += calls.end()
    out += native.feed([fn("native_two", "", index=1, id="n2")])
    out += native.finish() + calls.close()
    assert client_view(out) == [
        ("n1", "native_one", '{"n": 1}'),
        ("functions.parsed:0", "parsed", '{"p": 1}'),
        ("n2", "native_two", "{}"),
    ]
    assert calls.count == 3


def test_stream_mode_forwards_invalid_json_and_counts_it() -> None:
    report = FakeReport()
    out = normalise(
        [
            [fn("w", '{"a": ', index=0, id="x")],
            [fn("v", "[1]", index=1, id="y")],
            [fn("m", index=2, id="z")],
        ],
        report=report,
    )
    assert client_view(out) == [("x", "w", '{"a": '), ("y", "v", "[1]"), ("z", "m", "{}")]
    assert sorted(report.reasons) == ["invalid_json", "missing_arguments", "not_object"]
    assert report.fallbacks == [] and report.calls == [True, True, True]


def test_a_caller_that_reads_the_arguments_itself_turns_the_check_off() -> None:
    report = FakeReport()
    calls = ToolCallAssembler(counter_ids(), report=report, check_arguments=False)
    native = NativeToolCalls(calls, report)
    out = native.feed([fn("w", '{"a": ', index=0, id="x")])
    out += native.feed([fn("v", "[1]", index=1, id="y")])
    out += native.feed([fn("m", index=2, id="z")])
    out += native.finish() + calls.close()
    assert client_view(out) == [("x", "w", '{"a": '), ("y", "v", "[1]"), ("z", "m", "{}")]
    assert report.reasons == ["missing_arguments"] and report.calls == [True, True, True]


# --- Buffered mode: whole calls at the end, arguments checked. -----------------------------


def test_buffered_mode_emits_whole_checked_calls_only_at_close() -> None:
    report = FakeReport()
    calls = ToolCallAssembler(counter_ids(), buffered=True, report=report)
    native = NativeToolCalls(calls, report)
    assert native.feed([fn("good", '{"a": ', index=0, id="g")]) == []
    assert native.feed([fn(arguments="1}", index=0)]) == []
    assert native.feed([fn("broken", '{"b": ', index=1, id="b")]) == []
    assert native.feed([fn("empty", "", index=2, id="e")]) == []
    assert native.feed([fn("missing", index=3, id="m")]) == []
    assert native.feed([fn(arguments="{}", index=4, id="nameless")]) == []
    assert native.finish() == []
    out = calls.close()
    assert [set(e) for e in out] == [{"index", "id", "type", "function"}] * 3
    assert client_view(out) == [
        ("g", "good", '{"a": 1}'),
        ("b", "broken", '{"input":"{\\"b\\": "}'),
        ("e", "empty", "{}"),
    ]
    assert sorted(report.reasons) == ["invalid_json", "missing_arguments", "missing_name"]
    assert sorted(report.fallbacks) == ["dropped", "dropped", "wrapped"]
    assert calls.count == 3


# --- Any fragmentation, in any gateway style, gives the same calls. -------------------------

CALLS = [
    ("call_p", "get_weather", '{"city": "Paris", "unit": "c"}'),
    ("call_q", "write_file", '{"path": "a.txt", "content": "x\\ny {}"}'),
    ("call_r", "get_time", "{}"),
]


@st.composite
def gateway_stream(draw: st.DrawFn) -> list[list[dict[str, Any]]]:
    """The CALLS, each argument cut anywhere, sent in one of several gateway styles."""
    chunks: list[list[dict[str, Any]]] = []
    for index, (call_id, name, arguments) in enumerate(CALLS):
        cuts = sorted(draw(st.lists(st.integers(0, len(arguments)), max_size=6)))
        pieces = [arguments[a:b] for a, b in zip([0, *cuts], [*cuts, len(arguments)], strict=True)]
        style = draw(
            st.sampled_from(
                ["canonical", "repeat", "changing_ids", "indexless", "index_reused", "late_id"]
            )
        )
        slot = 0 if style == "index_reused" else index + 1
        for n, piece in enumerate(pieces):
            entry: dict[str, Any] = {"index": slot, "function": {"arguments": piece}}
            first = n == 0
            if first or style in ("repeat", "index_reused"):
                entry["function"]["name"] = name
                entry["id"] = call_id
                entry["type"] = "function"
            if style == "changing_ids" and not first:
                entry["id"] = f"changed_{n}"
            if style == "indexless" and not first:
                del entry["index"]
            if style == "late_id":
                entry.pop("id", None)
                if n == 1 or (first and len(pieces) == 1):
                    entry["id"] = call_id
            chunks.append([entry])
        if style == "late_id" and len(pieces) > 1 and pieces[0]:
            chunks[-len(pieces)][0]["function"]["arguments"] = ""  # header without arguments
            chunks[-len(pieces) + 1][0]["function"]["arguments"] = pieces[0] + pieces[1]
    return chunks


@settings(max_examples=300, deadline=None)
@given(gateway_stream(), st.booleans())
def test_any_fragmentation_and_style_gives_the_same_calls(
    chunks: list[list[dict[str, Any]]], buffered: bool
) -> None:
    assert client_view(normalise(chunks, buffered=buffered)) == CALLS


async def _through(body: bytes, model: str) -> bytes:
    from helpers import body_app, request_json, through
    from toolcall_middleware import ToolCallMiddleware

    return await through(
        ToolCallMiddleware(body_app([body]), metrics=False),
        request_json(model, ("get_time", "bash")),
    )


def test_a_native_call_still_open_closes_before_a_parsed_call_starts() -> None:
    import anyio

    from helpers import chunk, sse
    from toolcall_middleware.completion import chunks_from_sse

    kimi = "moonshotai/Kimi-K2-Instruct"
    body = sse(
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "n0",
                        "type": "function",
                        "function": {"name": "get_time", "arguments": ""},
                    }
                ]
            },
            model=kimi,
        ),
        chunk(
            {
                "content": "<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:1"
                '<|tool_call_argument_begin|>{"command": "ls"}<|tool_call_end|>'
                "<|tool_calls_section_end|>"
            },
            model=kimi,
        ),
        chunk({}, "stop", model=kimi),
        "[DONE]",
    )
    out = anyio.run(_through, body, kimi)
    entries = [
        e
        for c in chunks_from_sse(out)
        for ch in c["choices"]
        for e in ch["delta"].get("tool_calls", ())
    ]
    assert client_view(entries) == [
        ("n0", "get_time", "{}"),
        ("functions.bash:1", "bash", '{"command": "ls"}'),
    ]


def test_a_long_answer_keeps_no_object_per_call_that_is_over() -> None:
    # Calls one after another: each ends as the next begins. An ended call's slot only has
    # to say "over" (later text for it is dropped), so the calls that are over share one
    # marker, and the garbage collector has no object per call to walk in a long answer.
    report = FakeReport()
    native = NativeToolCalls(ToolCallAssembler(counter_ids(), report=report), report)
    out = []
    for n in range(200):
        out += native.feed([fn("f", "", index=n, id=f"c{n}")])
        out += native.feed([fn(arguments=f'{{"n": {n}}}', index=n)])
    assert len([e for e in out if "id" in e]) == 200
    over = [slot for key, slot in native._slots.items() if key != 199]
    assert len(over) == 199 and all(slot is over[0] for slot in over)
    # Text that comes later for a call that is over is still dropped, and counted.
    assert native.feed([fn(arguments='{"late": 1}', index=3)]) == []
    assert report.reasons == ["after_end"] and report.fallbacks == ["dropped"]
