"""``ResponsesMiddleware`` through real ASGI messages and the openai SDK: the upstream request,
routes, compressed bodies, validation before any upstream call, broken upstreams, keep-alives,
a two-turn round trip."""

from __future__ import annotations

import gc
from typing import Any

import anyio
import openai
import orjson
import pytest
from backports import zstd
from hypothesis import given, settings
from hypothesis import strategies as st

from anthropic_api.helpers import (
    USAGE,
    Reply,
    ScriptedApp,
    call_delta,
    chunk,
    json_reply,
    stream_reply,
)
from anthropic_api.helpers import request as asgi_request
from helpers import LOGS, cut_at
from toolcall_middleware import ResponsesMiddleware, ToolCallMiddleware
from toolcall_middleware.fronts.responses import ResponseTranslator, translate_request

from .helpers import CheckedApp, check_events, parse_sse, sdk_client

pytestmark = pytest.mark.anyio

SHELL = {
    "type": "function",
    "name": "shell",
    "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
}
HELLO = [
    chunk({"role": "assistant", "content": ""}),
    chunk({"content": "Hello"}),
    chunk(None, "stop"),
    chunk(usage=USAGE),
]


async def request(app: Any, body: Any, path: str, **kw: Any) -> Any:
    return await asgi_request(app, body, path, checked=CheckedApp, **kw)


def doc(**extra: Any) -> dict[str, Any]:
    return {"model": "gpt-5-codex", "input": "hi", **extra}


def completion(content: str = "Hello") -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": USAGE,
    }


async def test_streamed_request_reaches_the_upstream_as_chat() -> None:
    upstream = ScriptedApp([stream_reply(HELLO)])
    app = ResponsesMiddleware(
        upstream, model_map={"gpt-*": "kimi-k2"}, upstream_fields={"skip_special_tokens": False}
    )
    response = await request(
        app,
        doc(stream=True, instructions="Be brief.", tools=[SHELL]),
        "/v1/responses",
        headers=[(b"authorization", b"Bearer sk-1"), (b"openai-beta", b"responses=v1")],
    )
    assert response.status == 200
    assert response.headers[b"content-type"].startswith(b"text/event-stream")
    final = check_events(parse_sse(response.body))
    assert final["status"] == "completed" and final["model"] == "gpt-5-codex"
    ((scope, body),) = upstream.calls
    assert scope["path"] == "/v1/chat/completions"
    headers = dict(scope["headers"])
    assert headers[b"authorization"] == b"Bearer sk-1" and b"openai-beta" not in headers
    assert body["model"] == "kimi-k2" and body["skip_special_tokens"] is False
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]
    assert body["stream_options"] == {"include_usage": True}


async def test_non_streamed_request_gets_the_response_object() -> None:
    upstream = ScriptedApp([json_reply(completion())])
    response = await request(ResponsesMiddleware(upstream), doc(), "/v1/responses")
    out = response.json()
    assert response.status == 200 and out["status"] == "completed"
    assert out["output"][0]["content"][0]["text"] == "Hello"
    assert out["usage"]["input_tokens"] == 120 and out["usage"]["total_tokens"] == 150
    assert "stream" not in upstream.upstream_bodies[0]


async def test_zstd_request_body_is_decoded() -> None:
    upstream = ScriptedApp([stream_reply(HELLO)])
    raw = zstd.compress(orjson.dumps(doc(stream=True)))
    response = await request(
        ResponsesMiddleware(upstream),
        None,
        "/v1/responses",
        raw=raw,
        headers=[(b"content-encoding", b"zstd")],
    )
    assert response.status == 200 and upstream.upstream_bodies[0]["stream"] is True


async def test_zstd_bomb_is_413_and_garbage_400() -> None:
    upstream = ScriptedApp()
    app = ResponsesMiddleware(upstream, max_body_bytes=10_000)
    bomb = zstd.compress(b'{"model": "' + b"m" * 1_000_000 + b'"}')
    assert len(bomb) < 10_000
    response = await request(
        app, None, "/v1/responses", raw=bomb, headers=[(b"content-encoding", b"zstd")]
    )
    assert response.status == 413 and response.json()["error"]["code"] == "request_too_large"
    response = await request(
        app, None, "/v1/responses", raw=b"not zstd", headers=[(b"content-encoding", b"zstd")]
    )
    assert response.status == 400 and "zstd" in response.json()["error"]["message"]
    assert upstream.calls == []


async def test_other_encodings_are_415_naming_the_codex_setting() -> None:
    upstream = ScriptedApp()
    response = await request(
        ResponsesMiddleware(upstream),
        None,
        "/v1/responses",
        raw=b"x",
        headers=[(b"content-encoding", b"gzip")],
    )
    assert response.status == 415
    assert "features.enable_request_compression" in response.json()["error"]["message"]
    assert upstream.calls == []


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (doc(previous_response_id="resp_1"), 400, "previous_response_not_found"),
        (doc(input=[{"type": "function_call_output", "call_id": "x", "output": "y"}]), 400, None),
        (doc(tools=[{"type": "function"}]), 400, None),
    ],
)
async def test_bad_requests_never_reach_the_upstream(
    body: Any, status: int, code: str | None
) -> None:
    upstream = ScriptedApp()
    response = await request(ResponsesMiddleware(upstream), body, "/v1/responses")
    error = response.json()["error"]
    assert response.status == status and error["code"] == code and error["type"]
    assert upstream.calls == []


async def test_invalid_json_and_oversized_bodies() -> None:
    upstream = ScriptedApp()
    app = ResponsesMiddleware(upstream, max_body_bytes=100)
    response = await request(app, None, "/v1/responses", raw=b"{nope")
    assert response.status == 400 and "not valid JSON" in response.json()["error"]["message"]
    response = await request(app, doc(input="x" * 200), "/v1/responses")
    assert response.status == 413 and response.json()["error"]["code"] == "request_too_large"
    assert upstream.calls == []


async def test_stored_response_routes_answer_404_and_other_paths_pass() -> None:
    upstream = ScriptedApp([json_reply({"data": []})])
    app = ResponsesMiddleware(upstream)
    response = await request(app, None, "/v1/responses/resp_1", method="GET", raw=b"")
    assert response.status == 404 and response.json()["error"]["code"] == "not_found"
    response = await request(app, None, "/v1/responses", method="GET", raw=b"")
    assert response.status == 405
    response = await request(app, None, "/v1/models", method="GET", raw=b"")
    assert response.status == 200 and upstream.calls[0][0]["path"] == "/v1/models"


@pytest.mark.parametrize("stream", [True, False])
async def test_upstream_error_status_is_passed_on_in_openai_shape(stream: bool) -> None:
    upstream = ScriptedApp(
        [json_reply({"error": {"message": "slow down"}}, 429, headers=[(b"retry-after", b"7")])]
    )
    response = await request(ResponsesMiddleware(upstream), doc(stream=stream), "/v1/responses")
    assert response.status == 429 and response.headers[b"retry-after"] == b"7"
    assert response.json()["error"] == {
        "message": "upstream returned HTTP 429: slow down",
        "type": "rate_limit_error",
        "param": None,
        "code": "rate_limit_exceeded",
    }


async def test_context_length_400_is_response_failed_when_streaming() -> None:
    error = {"object": "error", "message": "This model's maximum context length is 8192 tokens"}
    upstream = ScriptedApp([json_reply(error, 400), json_reply(error, 400)])
    app = ResponsesMiddleware(upstream)
    response = await request(app, doc(stream=True), "/v1/responses")
    events = parse_sse(response.body)
    check_events(events)
    assert response.status == 200 and events[-1][0] == "response.failed"
    assert events[-1][1]["response"]["error"]["code"] == "context_length_exceeded"
    response = await request(app, doc(), "/v1/responses")
    assert response.status == 400
    assert response.json()["error"]["code"] == "context_length_exceeded"


@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, [b"data: {not json\n\n", b"data: [DONE]\n\n"]),  # no finish: failed
        stream_reply([chunk({"content": "partial"})], done=False),  # dropped mid-stream
        Reply(
            200,
            [b"data: " + orjson.dumps(chunk({"content": "a"})) + b"\n\n"],
            raise_after=OSError("connection lost"),
        ),
        Reply(
            200,
            [
                b"data: " + orjson.dumps(chunk({"content": "a"})) + b"\n\n",
                b'data: {"error": {"message": "boom", "type": "server_error"}}\n\n',
            ],
        ),
    ],
    ids=["invalid-json", "dropped", "app-raises", "error-event"],
)
async def test_broken_upstream_mid_stream_is_response_failed(reply: Reply) -> None:
    response = await request(
        ResponsesMiddleware(ScriptedApp([reply])), doc(stream=True), "/v1/responses"
    )
    events = parse_sse(response.body)
    check_events(events)
    assert response.status == 200 and events[-1][0] == "response.failed"


@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, [b"{not json"], b"application/json"),
        Reply(200, [b"hello"], b"text/plain"),
        Reply(200, [b"\x1f\x8b"], b"application/json", headers=[(b"content-encoding", b"gzip")]),
        stream_reply([chunk({"content": "partial"})], done=False),
    ],
    ids=["invalid-json", "text-plain", "gzip", "dropped"],
)
async def test_broken_upstream_without_stream_is_an_openai_error(reply: Reply) -> None:
    response = await request(ResponsesMiddleware(ScriptedApp([reply])), doc(), "/v1/responses")
    assert response.status in (500, 502)
    error = response.json()["error"]
    assert error["type"] == "server_error" and error["message"].startswith("upstream")


async def test_keepalive_comments_while_the_upstream_is_quiet() -> None:
    reply = stream_reply(HELLO, delay=0.05)
    app = ResponsesMiddleware(ScriptedApp([reply]), keepalive_interval=0.01)
    response = await request(app, doc(stream=True), "/v1/responses")
    assert b": keepalive\n\n" in response.body
    check_events(parse_sse(response.body))


async def test_client_disconnect_stops_the_upstream() -> None:
    sent = 0

    async def upstream(scope: Any, receive: Any, send: Any) -> None:
        nonlocal sent
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        for _ in range(50):
            body = b"data: " + orjson.dumps(chunk({"content": "x"})) + b"\n\n"
            await send({"type": "http.response.body", "body": body, "more_body": True})
            sent += 1
            await anyio.sleep(0.001)

    writes = 0

    async def client_send(message: Any) -> None:
        nonlocal writes
        writes += 1
        if writes > 3:
            raise OSError("connection reset")

    pending = [{"type": "http.request", "body": orjson.dumps(doc(stream=True))}]

    async def receive() -> Any:
        if pending:
            return pending.pop()
        await anyio.sleep_forever()

    scope = {"type": "http", "method": "POST", "path": "/v1/responses", "headers": []}
    with anyio.fail_after(2):
        await ResponsesMiddleware(upstream)(scope, receive, client_send)
    assert sent < 5


async def test_two_turn_round_trip_through_the_sdk() -> None:
    """Call, output, answer: the second request carries the call and its output back, with
    the model's own call id and reasoning, and the upstream sees a valid chat history."""
    kimi_markup = (
        "Run it. <|tool_calls_section_begin|><|tool_call_begin|>functions.shell:0"
        '<|tool_call_argument_begin|>{"cmd": "ls"}<|tool_call_end|><|tool_calls_section_end|>'
    )
    first = [
        chunk({"reasoning_content": kimi_markup[i : i + 9]}) for i in range(0, len(kimi_markup), 9)
    ]
    upstream = ScriptedApp(
        [
            stream_reply([*first, chunk(None, "stop"), chunk(usage=USAGE)]),
            stream_reply([chunk({"content": "There is a.txt"}), chunk(None, "stop")]),
        ]
    )
    app = ResponsesMiddleware(ToolCallMiddleware(upstream, provider="kimi_k2", metrics=False))
    client = sdk_client(app)
    async with client.responses.stream(
        model="kimi-k2", input="list files", tools=[SHELL]
    ) as stream:
        first_response = await stream.get_final_response()
    call = first_response.output[-1]
    assert call.type == "function_call" and call.call_id == "functions.shell:0"
    assert (call.name, call.arguments) == ("shell", '{"cmd": "ls"}')
    history = [item.model_dump(exclude_none=True) for item in first_response.output]
    second = await client.responses.create(
        model="kimi-k2",
        tools=[SHELL],
        input=[
            {"role": "user", "content": "list files"},
            *history,
            {"type": "function_call_output", "call_id": call.call_id, "output": "a.txt"},
        ],
    )
    assert second.output_text == "There is a.txt"
    chat = upstream.upstream_bodies[1]["messages"]
    assert [m["role"] for m in chat] == ["user", "assistant", "tool"]
    assert chat[1]["reasoning_content"] == "Run it. "
    assert chat[1]["tool_calls"][0]["id"] == "functions.shell:0"
    assert chat[2] == {"role": "tool", "tool_call_id": "functions.shell:0", "content": "a.txt"}


async def test_sdk_raises_a_readable_error_for_a_bad_request() -> None:
    client = sdk_client(ResponsesMiddleware(ScriptedApp()))
    with pytest.raises(openai.BadRequestError, match="previous_response_id"):
        await client.responses.create(model="m", input="x", previous_response_id="resp_1")


async def test_a_call_reaches_the_sdk_with_its_arguments_done() -> None:
    upstream = ScriptedApp(
        [
            stream_reply(
                [
                    chunk(call_delta(0, id="call_1", name="shell", args='{"cmd": ')),
                    chunk(call_delta(0, args='"pwd"}')),
                    chunk(None, "tool_calls"),
                ]
            )
        ]
    )
    client = sdk_client(ResponsesMiddleware(upstream))
    done = []
    async with client.responses.stream(model="m", input="x", tools=[SHELL]) as stream:
        async for event in stream:
            if event.type == "response.function_call_arguments.done":
                done.append(event.arguments)
    assert done == ['{"cmd": "pwd"}']


async def test_a_server_sending_a_null_choice_index_still_gets_its_call_through() -> None:
    def no_index(doc: dict[str, Any]) -> dict[str, Any]:
        return {**doc, "choices": [{**c, "index": None} for c in doc["choices"]]}

    chunks = [
        chunk({"content": "Running it."}),
        chunk(call_delta(0, id="call_1", name="shell", args='{"cmd": ')),
        chunk(call_delta(0, args='"pwd"}')),
        chunk(None, "tool_calls"),
    ]
    upstream = ScriptedApp([stream_reply([no_index(c) for c in chunks])])
    client = sdk_client(ResponsesMiddleware(ToolCallMiddleware(upstream, metrics=False)))
    async with client.responses.stream(model="m", input="x", tools=[SHELL]) as stream:
        final = await stream.get_final_response()
    assert [item.type for item in final.output] == ["message", "function_call"]
    call = final.output[1]
    assert call.type == "function_call" and call.arguments == '{"cmd": "pwd"}'
    assert final.status == "completed"


KIMI_BODY = (LOGS / "kimi_k2-reasoning-two-calls.log").read_bytes()


def view(events: list[Any]) -> list[tuple[str, Any]]:
    """The events without what differs per response (ids, times)."""
    return [(kind, data.get("delta", data.get("item", {}).get("type"))) for kind, data in events]


@settings(max_examples=25, deadline=None)
@given(cuts=st.lists(st.integers(0, len(KIMI_BODY)), max_size=12), crlf=st.booleans())
async def test_the_upstream_cut_anywhere_gives_the_same_events(cuts: list[int], crlf: bool) -> None:
    body = KIMI_BODY.replace(b"\n", b"\r\n") if crlf else KIMI_BODY
    pieces = cut_at(body, cuts)
    whole = await request(
        ResponsesMiddleware(ScriptedApp([Reply(200, [KIMI_BODY])])),
        doc(stream=True, tools=[SHELL]),
        "/v1/responses",
    )
    cut = await request(
        ResponsesMiddleware(ScriptedApp([Reply(200, pieces)])),
        doc(stream=True, tools=[SHELL]),
        "/v1/responses",
    )
    assert view(parse_sse(cut.body)) == view(parse_sse(whole.body))


LARGE_TEXT = "large " * 12_000  # over LARGE_STRING: the response is written by the large encoder


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_done_items_kept_as_json_come_back_whole_in_a_large_response(stream: bool) -> None:
    # Done items are kept as their JSON until the response ends; a large answer's response
    # is written by the standard library's encoder, which gets them decoded again.
    chunks = [
        chunk({"reasoning_content": "think"}),
        chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "shell"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"cmd": "ls"}'}}]}),
        chunk({"content": LARGE_TEXT}),
        chunk(None, "stop"),
        chunk(usage=USAGE),
    ]
    upstream = ScriptedApp([stream_reply(chunks)])
    response = await request(
        ResponsesMiddleware(upstream), doc(stream=stream, tools=[SHELL]), "/v1/responses"
    )
    assert response.status == 200
    final = check_events(parse_sse(response.body)) if stream else response.json()
    assert [item["type"] for item in final["output"]] == ["reasoning", "function_call", "message"]
    reasoning, call, message = final["output"]
    assert reasoning["content"] == [{"type": "reasoning_text", "text": "think"}]
    assert (call["arguments"], call["status"]) == ('{"cmd": "ls"}', "completed")
    assert message["content"][0]["text"] == LARGE_TEXT


def test_done_items_are_kept_where_the_garbage_collector_does_not_walk() -> None:
    # A long answer keeps every item until its terminal event: kept as dicts (with lists in
    # them) they made each full collection slower as the answer grew.
    translator = ResponseTranslator(translate_request(doc(tools=[SHELL])))
    translator.start()
    for n in range(50):
        translator.feed(chunk({"reasoning_content": f"step {n}"}))
        translator.feed(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": n,
                            "id": f"c{n}",
                            "function": {"name": "shell", "arguments": "{}"},
                        }
                    ]
                }
            )
        )
        translator.feed(chunk({"content": "ok"}))
    assert len(translator.output) == 150
    done, open_item = translator.output[:-1], translator.output[-1]
    assert not any(gc.is_tracked(item) for item in done)
    assert isinstance(open_item, dict)  # the message still streaming
    events = translator.feed(chunk(None, "stop")) + translator.finish()
    output = orjson.loads(orjson.dumps(events[-1][1]))["response"]["output"]
    assert [item["type"] for item in output[:3]] == ["reasoning", "function_call", "message"]
    assert output[-1]["content"][0]["text"] == "ok" and output[-1]["status"] == "completed"


async def test_a_long_answer_of_small_items_is_written_by_the_usual_encoder() -> None:
    # orjson's cost is per string: an answer past LARGE_STRING made of small items does not
    # need the large-document encoder (the standard library's, several times slower: it
    # writes non-ASCII text as \u escapes, which is how a response it wrote is recognised).
    chunks = []
    for n in range(40):
        chunks.append(chunk({"reasoning_content": "é" * 2000}))
        chunks.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": n,
                            "id": f"c{n}",
                            "function": {"name": "shell", "arguments": '{"cmd": "ls"}'},
                        }
                    ]
                }
            )
        )
    chunks += [chunk({"content": "done"}), chunk(None, "stop"), chunk(usage=USAGE)]
    upstream = ScriptedApp([stream_reply(chunks)])
    response = await request(
        ResponsesMiddleware(upstream), doc(stream=True, tools=[SHELL]), "/v1/responses"
    )
    final = check_events(parse_sse(response.body))
    assert len(final["output"]) == 81 and final["output"][0]["content"][0]["text"] == "é" * 2000
    completed = response.body[response.body.rindex(b"event: response.completed") :]
    assert "é".encode() in completed and b"\\u00e9" not in completed
