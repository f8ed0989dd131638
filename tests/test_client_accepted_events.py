"""Events the OpenAI SDK accepts are rewritten like any other, whatever their spelling.

The SDK strips the one space SSE allows after ``data:``, decodes the rest with ``json.loads``
(which takes leading whitespace, ``NaN``, ``Infinity`` and lone surrogate escapes) and ends
the stream at any data starting with ``[DONE]``. The middleware must read them the same way.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson
import pytest

from helpers import body_app, chunk, sdk_client
from toolcall_middleware import ToolCallMiddleware

pytestmark = pytest.mark.anyio

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
KIMI = "moonshotai/Kimi-K2-Instruct"
TOOLS: Any = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]
PIECES = ["Let me look.", f"{SB}{CB}functions.bash:0{AB}", '{"command": ', '"ls"}', f"{CE}{SE}"]


def events(
    prefix: bytes, pieces: list[str], done: bytes = b"data: [DONE]\n\n", finish: bool = True
) -> bytes:
    """The Kimi call in ``pieces`` as events whose data follows ``prefix`` (``b"data: "``)."""
    chunks = [chunk({"content": p}, model=KIMI) for p in pieces]
    if finish:
        chunks.append(chunk({}, "stop", model=KIMI))
    return b"".join(prefix + orjson.dumps(c) + b"\n\n" for c in chunks) + done


async def sdk_result(app: Any) -> tuple[str, list[tuple[str, str]], str | None]:
    """What the openai SDK's stream helper assembles: content, calls, finish_reason."""
    async with sdk_client(app).chat.completions.stream(
        model=KIMI,
        messages=[{"role": "user", "content": "hi"}],
        tools=TOOLS,
    ) as stream:
        async for _ in stream:
            pass
        final = await stream.get_final_completion()
    choice = final.choices[0]
    calls = [(c.function.name, c.function.arguments) for c in choice.message.tool_calls or ()]
    return choice.message.content or "", calls, choice.finish_reason


@pytest.mark.parametrize(
    "prefix",
    [b"data:  ", b"data:\t", b"data: \t ", b"data:\n"],
    ids=["two spaces", "tab", "space tab space", "newline"],
)
async def test_data_after_json_whitespace_is_decoded_and_rewritten(prefix: bytes) -> None:
    # "data:\n{...}" is two lines: an empty data line, then the JSON on a line of its own.
    spelled = prefix if prefix != b"data:\n" else b"data:\ndata: "
    app = ToolCallMiddleware(body_app([events(spelled, PIECES)]), metrics=False)
    assert await sdk_result(app) == ("Let me look.", [("bash", '{"command": "ls"}')], "tool_calls")


@pytest.mark.parametrize("mode", ["stream", "buffered"])
async def test_done_with_trailing_bytes_ends_the_stream_after_the_calls(mode: str) -> None:
    # No finish_reason: the calls are flushed at the end of the stream, which [DONE] marks.
    body = events(b"data: ", PIECES, b"data: [DONE] \n\n", finish=False)
    app = ToolCallMiddleware(body_app([body]), mode=mode, metrics=False)
    content, calls, _ = await sdk_result(app)
    assert (content, calls) == ("Let me look.", [("bash", '{"command": "ls"}')])


def python_events(chunks: list[dict[str, Any]]) -> list[bytes]:
    """Events, one per body message, as Python's json.dumps writes them (compact): lone
    surrogates as escapes, NaN as NaN; those orjson reads are what orjson would write."""
    return [
        *(b"data: " + json.dumps(c, separators=(",", ":")).encode() + b"\n\n" for c in chunks),
        b"data: [DONE]\n\n",
    ]


@pytest.mark.parametrize("lead", [0, 3], ids=["first event", "after templated events"])
async def test_a_lone_surrogate_in_an_event_with_markup_is_rewritten(lead: int) -> None:
    # Half an emoji, as a gateway splitting strings in UTF-16 units sends it. Plain text
    # events before it teach the stream its chunk template, which such an event must leave.
    pieces = ["Hi", " there", ".", " Look \ud83d" + PIECES[1], *PIECES[2:]][3 - lead :]
    chunks = [chunk({"content": p}, model=KIMI) for p in pieces]
    app = ToolCallMiddleware(
        body_app(python_events([*chunks, chunk({}, "stop", model=KIMI)])), metrics=False
    )
    content, calls, finish = await sdk_result(app)
    assert content == "".join(pieces).split(SB)[0]
    assert (calls, finish) == ([("bash", '{"command": "ls"}')], "tool_calls")


async def test_nan_and_infinity_in_events_with_markup_do_not_stop_the_rewrite() -> None:
    chunks = [
        {**chunk({"content": p}, model=KIMI), "x_score": value}
        for p, value in zip(PIECES, [math.nan, math.inf, -math.inf, 1.5, math.nan], strict=True)
    ]
    app = ToolCallMiddleware(
        body_app(python_events([*chunks, chunk({}, "stop", model=KIMI)])), metrics=False
    )
    assert await sdk_result(app) == ("Let me look.", [("bash", '{"command": "ls"}')], "tool_calls")


@pytest.mark.parametrize(
    "extra", [{"x_score": math.nan}, {"x_note": "\udc40 tail"}], ids=["NaN", "lone surrogate"]
)
async def test_a_json_body_orjson_refuses_is_rewritten(extra: dict[str, Any]) -> None:
    message = {"role": "assistant", "content": "".join(PIECES) + " \ud83d", **extra}
    body = json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": KIMI,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
    )
    app = ToolCallMiddleware(
        body_app([body.encode()], headers=[(b"content-type", b"application/json")]), metrics=False
    )
    completion = await sdk_client(app).chat.completions.create(
        model=KIMI, messages=[{"role": "user", "content": "hi"}], tools=TOOLS
    )
    choice = completion.choices[0]
    assert choice.message.content == "Let me look. \ud83d"
    assert [(c.function.name, c.function.arguments) for c in choice.message.tool_calls or ()] == [
        ("bash", '{"command": "ls"}')
    ]
    assert choice.finish_reason == "tool_calls"


async def test_the_completion_hook_reads_such_events_as_the_client_does() -> None:
    seen: list[dict[str, Any]] = []
    chunks = [chunk({"content": p}, model=KIMI) for p in ["Hi \ud83d", *PIECES[1:]]]
    body = python_events([*chunks, chunk({}, "stop", model=KIMI)])
    body[0] = body[0].replace(b"data: ", b"data:\t")
    app = ToolCallMiddleware(
        body_app(body), metrics=False, on_complete=lambda request, response: seen.append(response)
    )
    await sdk_result(app)
    message = seen[0]["choices"][0]["message"]
    assert message["content"] == "Hi \ud83d"
    assert [c["function"]["arguments"] for c in message["tool_calls"]] == ['{"command": "ls"}']


@pytest.mark.parametrize(
    "spelling",
    [b'"content": "half an emoji \\ud83d"', b'"content": "hi", "temperature": NaN'],
    ids=["lone surrogate", "NaN"],
)
async def test_a_request_orjson_refuses_still_gets_its_response_rewritten(spelling: bytes) -> None:
    """The request is read as the SDK's json.loads would read it, so its tools are known."""
    from toolcall_middleware.replay import run_app

    body = (
        b'{"model": "'
        + KIMI.encode()
        + b'", "stream": true, "tools": '
        + orjson.dumps(TOOLS)
        + b', "messages": [{"role": "user", '
        + spelling
        + b"}]}"
    )
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(body)
    app = ToolCallMiddleware(body_app([events(b"data: ", PIECES)]), metrics=False)
    status, _, bodies = await run_app(app, body)
    out = b"".join(bodies)
    assert status == 200
    assert b'"name":"bash"' in out and b"tool_calls_section" not in out
