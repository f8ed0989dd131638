"""The peers' own cases for each new format, through the middleware under ``provider="auto"``.

Every case of ``peers_flagships.py`` streams from a scripted upstream, named with the family's usual
model id, and must assemble to its expected message: its text in ``content``, and again in a
reasoning field (the calls come out the same, the text stays reasoning), whole, a character per
delta, and cut anywhere.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import body_app, chunk, cut_at, message_of, sse, through
from peers_flagships import CASES, KIMI_K3, PeerCase
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.completion import completion_from_sse
from toolcall_middleware.detect import resolve_provider

ALL = [case for cases in CASES.values() for case in cases]


def request(case: PeerCase) -> bytes:
    names = dict.fromkeys([name for name, _ in case.calls])
    tools = [
        {
            "type": "function",
            "function": {
                "name": name,
                "parameters": {"type": "object", "properties": case.schemas.get(name, {})},
            },
        }
        for name in {**names, **dict.fromkeys(case.schemas), "unused_tool": None}
    ]
    body: dict[str, Any] = {"model": case.model, "stream": True, "messages": [], "tools": tools}
    if case.thinking_off:
        body["chat_template_kwargs"] = {"thinking": False}
    return json.dumps(body).encode()


def streamed(case: PeerCase, pieces: list[str], field: str) -> dict[str, Any]:
    """The message a client assembles from ``pieces`` of the case's text in ``field``."""
    chunks: list[Any] = [chunk({"role": "assistant", "content": ""}, model=case.model)]
    chunks += [chunk({field: piece}, model=case.model) for piece in pieces]
    chunks += [chunk({}, "stop", model=case.model), "[DONE]"]
    app = ToolCallMiddleware(body_app([sse(*chunks)]))  # provider="auto"
    body = anyio.run(through, app, request(case))
    return message_of(completion_from_sse(body))


def check(case: PeerCase, pieces: list[str], field: str = "content") -> None:
    message = streamed(case, pieces, field)
    calls = [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or ()
    ]
    assert calls == list(case.calls), case.name
    assert all(c["id"].startswith("call_") for c in message.get("tool_calls") or ())
    reasoning = message.get("reasoning_content") or ""
    if field == "content":
        assert (message.get("content") or "", reasoning) == (case.content, case.reasoning)
    else:  # the text around the markup stays in the field it came in
        assert (message.get("content") or "", reasoning) == ("", case.content)


@pytest.mark.parametrize("case", ALL, ids=lambda c: f"{c.model}: {c.name}")
def test_the_family_model_id_picks_the_format(case: PeerCase) -> None:
    assert resolve_provider("auto", case.model) in CASES
    assert case in CASES[resolve_provider("auto", case.model)]


@pytest.mark.parametrize("case", ALL, ids=lambda c: f"{c.model}: {c.name}")
def test_a_peer_case_in_content_whole_and_a_character_at_a_time(case: PeerCase) -> None:
    check(case, [case.text])
    check(case, list(case.text))


@pytest.mark.parametrize(
    "case", [c for c in ALL if c.in_reasoning], ids=lambda c: f"{c.model}: {c.name}"
)
def test_a_peer_case_in_a_reasoning_field(case: PeerCase) -> None:
    check(case, [case.text], "reasoning_content")
    check(case, list(case.text), "reasoning_content")


@pytest.mark.parametrize("fmt", sorted(CASES))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_cut_of_a_peer_case(fmt: str, data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(CASES[fmt]))
    points = data.draw(st.lists(st.integers(0, len(case.text)), max_size=12))
    field = data.draw(st.sampled_from(["content", "reasoning_content"]))
    if not case.in_reasoning:
        field = "content"
    check(case, cut_at(case.text, points), field)


def test_k3_reasoning_split_upstream_leaves_the_content_content() -> None:
    # vLLM's kimi_k3 reasoning parser sends the think channel as reasoning and the rest as
    # content: the channel the template opened is the upstream's, and a reply without
    # markers stays the reply.
    case = KIMI_K3[0]
    chunks: list[Any] = [chunk({"role": "assistant", "content": ""}, model=case.model)]
    chunks += [chunk({"reasoning_content": t}, model=case.model) for t in ("Let me ", "think.")]
    chunks += [chunk({"content": t}, model=case.model) for t in ("The answer ", "is 4.")]
    chunks += [chunk({}, "stop", model=case.model), "[DONE]"]
    body = anyio.run(through, ToolCallMiddleware(body_app([sse(*chunks)])), request(case))
    message = message_of(completion_from_sse(body))
    assert (message["reasoning_content"], message["content"]) == (
        "Let me think.",
        "The answer is 4.",
    )
