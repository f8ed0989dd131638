"""The chat path hands an in-process API front what it read of an event (``handoff.py``):
exactly what decoding the event gives, or nothing; and it sends the same bytes either way."""

from __future__ import annotations

from typing import Any

import anyio
import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from fronts.asgi import call
from fronts.hostile import KIMI_CALL, upstream_bodies
from fronts.test_fastpath import deterministic, event, sse_app
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.asgi import Message, Receive, Scope, Send
from toolcall_middleware.handoff import KEY, ArgsPiece, DeltaPiece, TextPiece, offer

REQUEST = orjson.dumps(
    {
        "model": "kimi-k2",
        "stream": True,
        "messages": [{"role": "user", "content": "go"}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "shell",
                    "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
                },
            }
        ],
    }
)


def chat(pieces: list[bytes], offered: bool) -> list[Message]:
    """Every message the chat path sends for this upstream body."""
    chat_path = ToolCallMiddleware(sse_app(pieces), provider="kimi_k2", metrics=False)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await chat_path(offer(scope) if offered else scope, receive, send)

    with deterministic():  # the same call ids in both runs
        return anyio.run(call, app, "/v1/chat/completions", [REQUEST])


def assert_handed_is_decoded(handed: Any, body: bytes) -> None:
    """The rule: one SSE event whose chunk is what was handed."""
    assert body.startswith(b"data: ") and body.endswith(b"\n\n"), body
    assert body.count(b"\n") == 2 and b"\r" not in body, body
    chunk = orjson.loads(body[6:-2])
    (choice,) = chunk["choices"]
    assert choice.get("index", 0) == handed.index and choice.get("finish_reason") is None
    assert "usage" not in chunk
    if isinstance(handed, DeltaPiece):
        expected = handed.delta
    elif isinstance(handed, ArgsPiece):  # one piece of the arguments of the call at that index
        args = {"index": handed.call, "function": {"arguments": handed.fragment}}
        expected = {"tool_calls": [args]}
    else:
        assert isinstance(handed, TextPiece)
        expected = dict.fromkeys(handed.fields, handed.text)
    assert choice["delta"] == expected


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=upstream_bodies())
def test_what_is_handed_is_what_the_event_decodes_to(pieces: list[bytes]) -> None:
    plain, offered = chat(pieces, offered=False), chat(pieces, offered=True)
    assert [m.get("body") for m in offered] == [m.get("body") for m in plain]
    assert not any(KEY in m for m in plain)
    for message in offered:
        if KEY in message:
            assert_handed_is_decoded(message[KEY], message["body"])


def test_a_usual_stream_is_handed_over() -> None:
    def both(text: str) -> bytes:
        return event({"reasoning": text, "reasoning_content": text})

    pieces = [both(w) for w in ("Let", " me", " look", ".")] + [both(p) for p in KIMI_CALL]
    pieces += [event({"content": w}) for w in ("It", " is", " done", ".")]
    pieces += [event({}, "stop"), b"data: [DONE]\n\n"]
    messages = chat(pieces, offered=True)
    handed = [m for m in messages if KEY in m]
    for message in handed:
        assert_handed_is_decoded(message[KEY], message["body"])
    kinds = {"text" if isinstance(m[KEY], TextPiece) else "piece" for m in handed}
    # The text after the first event (the template) and the call's argument pieces.
    assert kinds == {"text", "piece"} and len(handed) >= 8, [m.get("body") for m in messages]
    assert all(isinstance(m[KEY], ArgsPiece) for m in handed if b'{"arguments":"' in m["body"])


@pytest.mark.parametrize("space", [b"\n", b"\r", b" ", b"\t"])
def test_an_event_whose_text_has_space_around_it_is_not_handed(space: bytes) -> None:
    # JSON allows the space, and the chat path passes the event on as it came; but with a
    # line break it is not one SSE event, so what decoding gives is not what was read.
    usual = [event({"content": w}) for w in ("a", "b")]
    spaced = [
        usual[0].replace(b'"content":', b'"content":' + space),
        usual[0].replace(b'"a"', b'"a"' + space),
    ]
    messages = chat([*usual, *spaced, *usual, event({}, "stop")], offered=True)
    handed = [m for m in messages if KEY in m]
    for message in handed:
        assert_handed_is_decoded(message[KEY], message["body"])
    assert len(handed) == 3  # the usual ones after the first (the template)


def test_an_event_that_went_out_held_hands_nothing_on_to_a_later_one() -> None:
    # "x <" may start markup: held, then given back with the event after it. Nothing of it
    # may be handed with the event that later passes unread (another id: not the template's).
    usual = [event({"content": w}) for w in ("a", "b")]
    other = event({"content": "c"}).replace(b'"id":"c"', b'"id":"other"')
    pieces = [*usual, event({"content": "x <"}), event({"content": "y"}), other, *usual]
    messages = chat([*pieces, event({}, "stop")], offered=True)
    assert other in [m.get("body") for m in messages]
    for message in messages:
        if KEY in message:
            assert_handed_is_decoded(message[KEY], message["body"])
