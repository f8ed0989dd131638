"""The peers' own test cases (vLLM's and SGLang's parser tests), as data, and the harness that
runs one through the middleware under ``provider="auto"``.

A case is the model text a peer test feeds its parser, the calls it expects and the text it
leaves; the model id is the family's usual one, so the model-name rules pick the format. Where
we differ from the peer on purpose, the case says so in ``note``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import anyio

from helpers import body_app, chunk, cut_at, message_of, sse, through
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.completion import completion_from_sse

#: The peers' "more types" call (vLLM's tests): arguments of every JSON type, as Python and as
#: the JSON object it converts to.
REGISTER_USER_PYTHON = (
    "register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, "
    "role=None, passed_test=True, aliases=['John', 'Johnny'])"
)
REGISTER_USER = {
    "name": "John Doe",
    "age": 37,
    "address": {"city": "San Francisco", "state": "CA"},
    "role": None,
    "passed_test": True,
    "aliases": ["John", "Johnny"],
}


@dataclass(frozen=True)
class PeerCase:
    #: The peer test it comes from (``vllm:test_x``, ``sglang:test_y``).
    name: str
    #: The provider ``auto`` must pick from ``model``.
    provider: str
    model: str
    text: str
    #: The expected calls: name and parsed arguments.
    calls: list[tuple[str, dict[str, Any]]]
    content: str = ""
    #: Reasoning the format's own markup opens (a think block), split out of the text.
    reasoning: str = ""
    #: Offered tools: name → JSON-schema ``parameters``.
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    note: str = ""
    #: The text fields the case streams in (a template-opened think block makes sense in
    #: ``content`` only).
    fields: tuple[str, ...] = ("content", "reasoning")


def obj(**properties: Any) -> dict[str, Any]:
    """A parameters schema with these properties."""
    return {"type": "object", "properties": properties}


def request_for(case: PeerCase) -> bytes:
    tools = case.tools or {"noop": {"type": "object"}}  # without tools the response passes
    return json.dumps(
        {
            "model": case.model,
            "stream": True,
            "messages": [{"role": "user", "content": "..."}],
            "tools": [
                {"type": "function", "function": {"name": name, "parameters": parameters}}
                for name, parameters in tools.items()
            ],
        }
    ).encode()


def stream_for(case: PeerCase, text_field: str, points: list[int]) -> bytes:
    """An upstream stream of the case's text in ``text_field``, cut at ``points``."""
    fields = ("reasoning", "reasoning_content") if text_field == "reasoning" else (text_field,)
    chunks: list[Any] = [chunk({"role": "assistant", "content": ""}, model=case.model)]
    chunks += [
        chunk(dict.fromkeys(fields, piece), model=case.model) for piece in cut_at(case.text, points)
    ]
    chunks += [chunk({}, "stop", model=case.model), "[DONE]"]
    return sse(*chunks)


def through_middleware(case: PeerCase, text_field: str, points: list[int]) -> dict[str, Any]:
    """The message a client assembles from the case streamed through the middleware (``auto``)."""
    app = ToolCallMiddleware(body_app([stream_for(case, text_field, points)]), provider="auto")
    body = anyio.run(through, app, request_for(case))
    return message_of(completion_from_sse(body))


def check(case: PeerCase, text_field: str, message: dict[str, Any]) -> None:
    """The message has the case's calls, and its text where the case says."""
    calls = [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or ()
    ]
    assert calls == case.calls
    content = message.get("content") or ""
    reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
    if text_field == "content":
        assert (content, reasoning) == (case.content, case.reasoning)
    else:  # all the text was reasoning: what the case leaves as content is reasoning too
        assert (content, reasoning) == ("", case.reasoning + case.content)
