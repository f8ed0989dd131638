"""Helpers for the native tool_calls / buffered / limits / metrics tests."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import orjson
from hypothesis import strategies as st

from toolcall_middleware.calls import Entry, ToolCallAssembler
from toolcall_middleware.native_calls import NativeToolCalls
from toolcall_middleware.sse import SSEDecoder


class FakeReport:
    """Records what the rewrite reports, in order."""

    def __init__(self) -> None:
        self.calls: list[bool] = []  # native?
        self.reasons: list[str] = []  # malformed reasons
        self.fallbacks: list[str] = []
        self.rewrites = 0

    def tool_call(self, native: bool) -> None:
        self.calls.append(native)

    def malformed(self, reason: str) -> None:
        self.reasons.append(reason)

    def fallback(self, action: str) -> None:
        self.fallbacks.append(action)

    def rewritten(self) -> None:
        self.rewrites += 1


def counter_ids(prefix: str = "call_gen") -> Callable[[], str]:
    numbers = itertools.count(1)
    return lambda: f"{prefix}{next(numbers)}"


def normalise(chunks: list[Any], buffered: bool = False, report: Any = None) -> list[Entry]:
    """Feed each chunk's ``tool_calls`` list; the entries a client would be sent."""
    kwargs = {} if report is None else {"report": report}
    calls = ToolCallAssembler(counter_ids(), buffered=buffered, **kwargs)
    native = NativeToolCalls(calls, **kwargs)
    out: list[Entry] = []
    for entries in chunks:
        out += native.feed(entries)
    out += native.finish()
    out += calls.close()
    return out


def client_view(entries: list[Entry]) -> list[tuple[str, str, str]]:
    """Accumulate entries the way the OpenAI SDK does, asserting the contract in docs/clients.md:
    indexes dense from 0 in order of first appearance, id/type/name on the first entry of a
    call only, nothing but arguments after, and one call after another (the SDK closes a
    call when the index changes)."""
    calls: dict[int, list[str]] = {}
    for entry in entries:
        index = entry["index"]
        assert isinstance(index, int)
        assert index >= len(calls) - 1, f"index {index} came back after a later call began"
        if index not in calls:
            assert index == len(calls), f"index {index} is not the next dense index"
            assert set(entry) == {"index", "id", "type", "function"}, entry
            assert entry["type"] == "function" and entry["id"]
            assert set(entry["function"]) == {"name", "arguments"}, entry
            calls[index] = [entry["id"], entry["function"]["name"], entry["function"]["arguments"]]
        else:
            assert set(entry) == {"index", "function"}, entry
            assert set(entry["function"]) == {"arguments"}, entry
            calls[index][2] += entry["function"]["arguments"]
    return [(i, n, a) for i, n, a in calls.values()]


def calls_of(message: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (c["id"], c["function"]["name"], c["function"]["arguments"])
        for c in message.get("tool_calls") or []
    ]


def gated_upstream(head: bytes, tail: bytes, gate: Any) -> Any:
    """An upstream that sends ``head``, waits for ``gate`` (an anyio.Event), then ``tail``."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await send({"type": "http.response.body", "body": head, "more_body": True})
        await gate.wait()
        await send({"type": "http.response.body", "body": tail, "more_body": False})

    return app


def error_of(body: bytes) -> dict[str, Any]:
    """The OpenAI error event that ends a stream past a cap; [DONE] and nothing else after."""
    head, sep, tail = body.rpartition(b"data: [DONE]\n\n")
    assert sep and tail == b"", body[-300:]
    events = [e for e in SSEDecoder().feed(head) if e.data is not None]
    error = orjson.loads(events[-1].data or b"")
    assert set(error) == {"error"} and set(error["error"]) == {"message", "type", "code"}
    assert error["error"]["code"] == "tool_call_limit_exceeded"
    return dict(error["error"])


def endless_upstream(
    first: bytes,
    piece: bytes,
    count: int,
    sent: list[int],
    each: Callable[[], object] | None = None,
) -> Any:
    """An upstream that sends ``first`` then ``piece`` ``count`` times, counting its sends
    (and calling ``each`` after every piece: the middleware has handled it by then)."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await send({"type": "http.response.body", "body": first, "more_body": True})
        for _ in range(count):
            await send({"type": "http.response.body", "body": piece, "more_body": True})
            sent[0] += 1
            if each is not None:
                each()
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


async def get(
    app: Any,
    path: str = "/metrics",
    query: bytes = b"",
    headers: list[tuple[bytes, bytes]] | None = None,
) -> tuple[int, Any, list[bytes]]:
    """One GET through an ASGI app: status, headers, body messages."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": query,
        "headers": headers or [],
    }
    await app(scope, receive, send)
    start = sent[0]
    return start["status"], start["headers"], [m.get("body", b"") for m in sent[1:]]


_ABSENT = object()


def _member(doc: dict[str, Any], key: str, value: Any) -> None:
    if value is not _ABSENT:
        doc[key] = value


@st.composite
def odd_entries(draw: st.DrawFn) -> Any:
    """One ``delta.tool_calls`` entry: a call's first entry as OpenAI writes it, or nearly
    (odd indexes, ids, names, arguments, members missing or added, Kilo's shorthand), a piece
    of arguments (complete objects among them), or no entry at all."""
    kind = draw(st.sampled_from(["header"] * 4 + ["odd"] * 3 + ["piece"] * 4 + ["kilo", "other"]))
    if kind == "other":
        return draw(st.sampled_from([None, [], "x", 3, {}, {"index": 0}, {"id": "call_a"}]))
    if kind == "header":
        return {
            "index": draw(st.sampled_from([0, 1, 2, 3, -1])),
            "id": draw(st.sampled_from(["call_a", "call_b", "call_c"])),
            "type": "function",
            "function": {"name": draw(st.sampled_from(["f", "g"])), "arguments": ""},
        }
    entry: dict[str, Any] = {}
    indexes = [0, 0, 1, 1, 2, -1, None, True, "0", 1.0, _ABSENT]
    _member(entry, "index", draw(st.sampled_from(indexes)))
    pieces = ["", " ", "{", '{"a": 1}', '{"a"', ": 1}", "}", "x", '{"b": "}"}']
    if kind == "piece":
        entry["function"] = {"arguments": draw(st.sampled_from(pieces))}
        return entry
    _member(
        entry, "id", draw(st.sampled_from(["call_a", "call_a", "call_b", "", None, 5, _ABSENT]))
    )
    _member(entry, "type", draw(st.sampled_from(["function", "function", "other", _ABSENT])))
    names = ["f", "f", "g", "", None, 3, _ABSENT]
    arguments = ["", "", "", '{"a": 1}', "{", None, {}, {"a": 1}, _ABSENT]
    if kind == "kilo":
        _member(entry, "name", draw(st.sampled_from(names)))
        _member(entry, "arguments", draw(st.sampled_from(arguments)))
        return entry
    function: dict[str, Any] = {}
    _member(function, "name", draw(st.sampled_from(names)))
    _member(function, "arguments", draw(st.sampled_from(arguments)))
    if draw(st.integers(0, 7)) == 0:
        function["description"] = "extra"
    if draw(st.integers(0, 7)) == 0:
        entry["name"] = "kilo_name"
    entry["function"] = function if draw(st.integers(0, 15)) else None
    return entry


# --- The normaliser's shortcuts against its general path -----------------------------------

ARGUMENTS = ["", "", "", "{}", '{"a": 1}', '{"a"', ": 1}", "{", " ", None, {"a": 1}, _ABSENT]
IDS = ["call_a", "call_b", "call_c", "call_a", "", None, 5, _ABSENT]
NAMES = ["f", "g", "f", "", None, 3, _ABSENT]


@st.composite
def headers(draw: st.DrawFn, odd: int = 3) -> dict[str, Any]:
    """A call's header, canonical most often (the shortcut's case), else odd in some way (each
    way about once in ``odd``)."""
    index = draw(st.sampled_from([0, 1, 2, 3, 4, 5, 1, 2, None, "1", _ABSENT]))
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
    return _without_absent(entry)


@st.composite
def more_arguments(draw: st.DrawFn) -> dict[str, Any]:
    """More argument text for some index (or none)."""
    index = draw(st.sampled_from([0, 1, 2, 3, None, _ABSENT]))
    fragment = draw(st.sampled_from(['{"a": 1}', '{"a"', ": 1}", "}", "", " ", "x", None]))
    return _without_absent({"index": index, "function": {"arguments": fragment}})


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


def _without_absent(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` without its ``_ABSENT`` members (at any depth)."""
    return {
        key: _without_absent(value) if isinstance(value, dict) else value
        for key, value in entry.items()
        if value is not _ABSENT
    }


def normaliser_state(
    native: NativeToolCalls, calls: ToolCallAssembler, report: FakeReport | None
) -> Any:
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
        None if report is None else (report.calls, report.reasons, report.fallbacks),
    )


def general_end_calls(native: NativeToolCalls) -> list[Entry]:
    """``end_calls`` by the general path: every open call closed, then ``_pump``."""
    out: list[Entry] = []
    for call in native._open:
        call.closed = True
    native._pump(out)
    return out
