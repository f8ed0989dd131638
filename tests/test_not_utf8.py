"""Upstream bytes that are not UTF-8 on the chat path: the same bytes go out, none invented.

A server may cut a character between two events, or write Latin-1. The chat path reads such an
event with each byte kept (``lenient_json.loads_keeping_bytes``), so a native call's arguments
and markup in the text reach the rewrite, and writes what it sends of them back as the very
bytes that came: a call is never closed with an ``{}`` it never had, markup never leaks. (The
openai SDK refuses such bytes itself: these tests read the bytes as a lenient client would.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import body_app, chunk, cut_at, request_json, sse, through
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.lenient_json import loads_keeping_bytes
from toolcall_middleware.sse import SSEDecoder

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
ARGUMENTS = '{"command": "echo café 🙂"}'.encode()
LATIN1 = b'{"command": "rm -rf /srv/cache/caf\xe9-old"}'
BAD = [b"\xe9", b"\xc3", b"\xff", b"\xe2\x82", b"\xf0\x9f\x99", b"\x80"]


def escaped(data: bytes) -> bytes:
    return data.replace(b"\\", b"\\\\").replace(b'"', b'\\"')


def raw_event(delta: dict[str, Any], slot: str, data: bytes) -> bytes:
    """An event whose ``slot`` string is ``data`` as it stands, bytes and all."""
    event = sse(chunk(delta))
    return event.replace(b'"' + slot.encode() + b'"', b'"' + escaped(data) + b'"')


def native_start(index: int = 0) -> bytes:
    entry = {"index": index, "id": "call_1", "type": "function"}
    return sse(chunk({"tool_calls": [{**entry, "function": {"name": "bash", "arguments": ""}}]}))


def native_arguments(data: bytes, index: int = 0) -> bytes:
    delta = {"tool_calls": [{"index": index, "function": {"arguments": "SLOT"}}]}
    return raw_event(delta, "SLOT", data)


def ending(finish: str = "tool_calls") -> list[bytes]:
    return [sse(chunk({}, finish)), b"data: [DONE]\n\n"]


def chunks_of(body: bytes) -> Iterator[dict[str, Any]]:
    decoder = SSEDecoder()
    for event in [*decoder.feed(body), *decoder.close()]:
        if event.data and event.data.startswith(b"{"):
            yield loads_keeping_bytes(event.data)


def calls_of(body: bytes) -> list[tuple[str, bytes]]:
    """Each call's name and its argument bytes, as a client joining the raw pieces has them."""
    names: dict[int, str] = {}
    pieces: dict[int, str] = {}
    for data in chunks_of(body):
        for entry in data["choices"][0]["delta"].get("tool_calls") or ():
            function = entry.get("function") or {}
            if function.get("name"):
                names[entry["index"]] = function["name"]
            pieces[entry["index"]] = pieces.get(entry["index"], "") + function.get("arguments", "")
    return [(names[i], pieces[i].encode("utf-8", "surrogateescape")) for i in sorted(names)]


def content_of(body: bytes) -> bytes:
    text = "".join(d["choices"][0]["delta"].get("content") or "" for d in chunks_of(body))
    return text.encode("utf-8", "surrogateescape")


async def run(bodies: list[bytes], provider: str = "openai") -> bytes:
    app = ToolCallMiddleware(body_app(bodies), provider=provider, metrics=False)
    return await through(app, request_json(model="m"))


@pytest.mark.anyio
@pytest.mark.parametrize("cut", [ARGUMENTS.index("é".encode()) + 1, ARGUMENTS.index(b"\xf0") + 2])
async def test_a_character_cut_across_the_only_two_argument_events_adds_nothing(cut: int) -> None:
    events = [native_start(), native_arguments(ARGUMENTS[:cut]), native_arguments(ARGUMENTS[cut:])]
    out = await run([*events, *ending()])
    assert calls_of(out) == [("bash", ARGUMENTS)]  # no "{}" after them
    assert events[1] in out and events[2] in out  # as they came


@pytest.mark.anyio
async def test_renumbered_arguments_are_written_with_the_bytes_that_came() -> None:
    # Upstream index 3 is the client's call 0: these events are rewritten, not forwarded.
    pieces = [LATIN1[:20], LATIN1[20:36], LATIN1[36:]]
    events = [native_start(3), *(native_arguments(p, 3) for p in pieces)]
    out = await run([*events, *ending()])
    assert calls_of(out) == [("bash", LATIN1)]
    assert b"\xe9" in out and b"\\udce9" not in out and "\ufffd".encode() not in out


@pytest.mark.anyio
async def test_kimi_markup_with_latin1_text_and_arguments_becomes_a_call() -> None:
    text = b"Voil\xe0." + f"{SB}{CB}functions.bash:0{AB}".encode() + LATIN1 + f"{CE}{SE}".encode()
    bodies = [raw_event({"content": "SLOT"}, "SLOT", piece) for piece in cut_at(text, [7, 40, 77])]
    out = await run([*bodies, *ending("stop")], provider="kimi_k2")
    assert calls_of(out) == [("bash", LATIN1)]
    assert content_of(out) == b"Voil\xe0."
    assert b"<|tool" not in out


@settings(max_examples=40, deadline=None)
@given(
    parts=st.lists(
        st.one_of(
            st.sampled_from(["café ", "日本", "🙂", "ls", "\\", '"']).map(str.encode),
            st.sampled_from(BAD),
        ),
        min_size=1,
        max_size=8,
    ),
    cuts=st.lists(st.integers(0, 200), max_size=5),
    index=st.sampled_from([0, 2]),
)
def test_any_cut_of_any_bytes_in_arguments_keeps_them_all(
    parts: list[bytes], cuts: list[int], index: int
) -> None:
    data = b"".join(parts)
    pieces = [p for p in cut_at(data, cuts) if p]
    events = [native_start(index), *(native_arguments(p, index) for p in pieces)]
    out = anyio.run(run, [*events, *ending()])
    assert calls_of(out) == [("bash", data)]
