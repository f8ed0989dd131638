"""The peers' own test cases (vLLM's and SGLang's parser tests, and the models' documented
markup), as data, and the harness that runs one through the middleware under
``provider="auto"``.

A case is the model text a peer test feeds its parser, the calls it expects and the text it
leaves; the model id is the family's usual one, so the model-name rules pick the format. The
harness offers the case's tools and one more it never calls, streams the text in ``content`` or
in a reasoning field, and checks the message a client assembles. Where we differ from the peer on
purpose, the case says so in ``note`` or a comment.
"""

from __future__ import annotations

import asyncio
import atexit
import json
from dataclasses import dataclass, field
from typing import Any

from helpers import body_app, chunk, message_of, sse, through
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

#: The peers' "various data types" arguments: one value of every JSON type.
EVERY_JSON_TYPE = {
    "string_field": "hello",
    "int_field": 42,
    "float_field": 3.14,
    "bool_field": True,
    "null_field": None,
    "array_field": ["a", "b", "c"],
    "object_field": {"nested": "value"},
    "empty_array": [],
    "empty_object": {},
}


@dataclass(frozen=True)
class PeerCase:
    #: The peer test it comes from (``vllm:test_x``, ``sglang:test_y``, or a plain description).
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
    #: Offered tools: name → JSON-schema ``parameters`` (the runner adds an unused one).
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    note: str = ""
    #: The text fields the case streams in (a think block the format's markup or the template
    #: opens makes sense in ``content`` only).
    fields: tuple[str, ...] = ("content", "reasoning")
    #: The request turns thinking off (``chat_template_kwargs``): the output has no think
    #: block opened for it by the template.
    thinking_off: bool = False


def vllm_case(
    name: str,
    provider: str,
    model: str,
    text: str,
    calls: list[tuple[str, dict[str, Any]]],
    content: str = "",
    **kw: Any,
) -> PeerCase:
    """A case of vLLM's test ``name``."""
    return PeerCase(f"vllm:{name}", provider, model, text, calls, content, **kw)


def obj(**properties: Any) -> dict[str, Any]:
    """A parameters schema with these properties."""
    return {"type": "object", "properties": properties}


def offered(*names: str) -> dict[str, dict[str, Any]]:
    """Tools of these names, without parameters."""
    return {name: obj() for name in names}


#: The streams a case runs in, each with the delta keys its text comes in: content, a
#: reasoning field as SGLang sends it, and as vLLM sends it (``reasoning`` beside the older
#: ``reasoning_content``).
CONTENT, SGLANG_REASONING, VLLM_REASONING = "content", "reasoning_content", "vllm reasoning"
STREAMS = {
    CONTENT: ("content",),
    SGLANG_REASONING: ("reasoning_content",),
    VLLM_REASONING: ("reasoning", "reasoning_content"),
}


def streams_of(case: PeerCase) -> list[str]:
    """The streams a case runs in: content, and both reasoning ones if its fields say so."""
    return [CONTENT, SGLANG_REASONING, VLLM_REASONING] if "reasoning" in case.fields else [CONTENT]


def request_for(case: PeerCase) -> bytes:
    """The request: the case's tools and one it never calls (so a request always has tools)."""
    tools = {**case.tools, "unused_tool": obj()}
    body: dict[str, Any] = {
        "model": case.model,
        "stream": True,
        "messages": [{"role": "user", "content": "..."}],
        "tools": [
            {"type": "function", "function": {"name": name, "parameters": parameters}}
            for name, parameters in tools.items()
        ],
    }
    if case.thinking_off:
        body["chat_template_kwargs"] = {"thinking": False}
    return json.dumps(body).encode()


def stream_for(case: PeerCase, stream: str, pieces: list[str]) -> bytes:
    """An upstream stream of ``pieces`` of the case's text in ``stream`` (a ``STREAMS`` key)."""
    chunks: list[Any] = [chunk({"role": "assistant", "content": ""}, model=case.model)]
    chunks += [chunk(dict.fromkeys(STREAMS[stream], piece), model=case.model) for piece in pieces]
    chunks += [chunk({}, "stop", model=case.model), "[DONE]"]
    return sse(*chunks)


#: One event loop for every run: starting and closing one costs three times a case's run.
LOOP = asyncio.new_event_loop()
atexit.register(LOOP.close)


def through_middleware(case: PeerCase, stream: str, pieces: list[str]) -> dict[str, Any]:
    """The message a client assembles from the case streamed through the middleware (``auto``)."""
    app = ToolCallMiddleware(body_app([stream_for(case, stream, pieces)]), provider="auto")
    body = LOOP.run_until_complete(through(app, request_for(case)))
    return message_of(completion_from_sse(body))


def check(case: PeerCase, stream: str, pieces: list[str]) -> None:
    """Streamed in ``pieces``, the case gives its calls (with ids the client can use), and its
    text where the case says: text that came in a reasoning field stays reasoning, in every
    reasoning key it came in."""
    message = through_middleware(case, stream, pieces)
    tool_calls = message.get("tool_calls") or ()
    calls = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in tool_calls]
    assert calls == case.calls, case.name
    assert all(c["id"].startswith("call_") for c in tool_calls)
    content = message.get("content") or ""
    if stream == CONTENT:
        reasoning = message.get("reasoning_content") or ""
        assert (content, reasoning) == (case.content, case.reasoning)
    else:  # all the text was reasoning: what the case leaves as content is reasoning too
        for key in STREAMS[stream]:
            assert (content, message.get(key) or "") == ("", case.reasoning + case.content)
