"""The same answer cut anywhere gives the same Gemini response: the upstream's text, reasoning
and argument deltas split at any points (sans-I/O, through ``GeminiStream``), and the upstream's
bytes cut anywhere (through ToolCallMiddleware and the Gemini front, over a Kimi recording)."""

from __future__ import annotations

from typing import Any

import anyio
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import cut_at
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.fronts.gemini import GeminiMiddleware, GeminiStream, translate_request
from toolcall_middleware.replay import Recording, logs_dir

from .helpers import Reply, ScriptedApp, call_delta, check_sse, chunk, request, stream_path

REASONING = "**Plan**\n\nList the files, then read one. \u2028 ünï"
TEXT = "Let me look — 👀"
CALLS = [
    ("functions.bash:0", "bash", '{"command": "ls -la | grep \\"x\\""}'),
    ("call_2", "read", '{"path": "/tmp/a b.txt", "n": [1, 2]}'),
]


def assembled(raw: bytes) -> tuple[str, str, list[dict[str, Any]], str]:
    responses = check_sse(raw).responses
    parts = [p for r in responses for p in r["candidates"][0]["content"]["parts"]]
    thoughts = "".join(p["text"] for p in parts if p.get("thought"))
    text = "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
    calls = [p["functionCall"] for p in parts if "functionCall" in p]
    return thoughts, text, calls, responses[-1]["candidates"][0]["finishReason"]


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(0, 10_000), max_size=12))
def test_deltas_split_anywhere_give_the_same_response(cuts: list[int]) -> None:
    request = translate_request(
        {
            "contents": [{"parts": [{"text": "go"}]}],
            "generationConfig": {"thinkingConfig": {"includeThoughts": True}},
        },
        "m",
        stream=True,
    )
    front = GeminiStream(request, "sse")
    out = [front.head()]
    out += [front.chunk(chunk({"reasoning_content": p})) for p in cut_at(REASONING, cuts)]
    out += [front.chunk(chunk({"content": p})) for p in cut_at(TEXT, cuts[::-1])]
    for index, (call_id, name, args) in enumerate(CALLS):
        pieces = cut_at(args, cuts)
        out.append(front.chunk(chunk(call_delta(index, id=call_id, name=name, args=pieces[0]))))
        out += [front.chunk(chunk(call_delta(index, args=p))) for p in pieces[1:]]
    out += [front.chunk(chunk(None, "tool_calls")), front.end()]
    thoughts, text, calls, finish = assembled(b"".join(out))
    assert (thoughts, text, finish) == (REASONING, TEXT, "STOP")
    assert calls == [{"id": i, "name": n, "args": orjson.loads(a)} for i, n, a in CALLS]


KIMI = Recording.load(logs_dir() / "kimi_k2-reasoning-two-calls.log")


@settings(max_examples=25, deadline=None)
@given(cuts=st.lists(st.integers(0, len(KIMI.body)), max_size=8))
def test_upstream_bytes_cut_anywhere_give_the_same_response(cuts: list[int]) -> None:
    async def run() -> tuple[str, str, list[dict[str, Any]], str]:
        upstream = ScriptedApp([Reply(200, cut_at(KIMI.body, cuts))])
        app = GeminiMiddleware(
            ToolCallMiddleware(upstream, metrics=False), default_model=KIMI.request["model"]
        )
        doc = {
            "contents": [{"parts": [{"text": "go"}]}],
            "tools": [{"functionDeclarations": [{"name": "bash"}]}],
            "generationConfig": {"thinkingConfig": {"includeThoughts": True}},
        }
        response = await request(app, doc, stream_path(), query=b"alt=sse")
        return assembled(response.body)

    thoughts, text, calls, finish = anyio.run(run)
    expected = KIMI.expected
    assert expected is not None
    assert (thoughts, text, finish) == (expected["reasoning"], expected["content"] or "", "STOP")
    assert [(c["id"], c["args"]) for c in calls] == [
        (want["id"], orjson.loads(want["arguments"])) for want in expected["tool_calls"]
    ]
