"""No request a front translates ever becomes a bare 500: whatever a client sends, it gets a
success or a 4xx in its API's error shape, and a refused request sends nothing upstream. Valid
requests of every front, with any of their values replaced by any JSON value (hypothesis), and
the cases a field check must name."""

from __future__ import annotations

import json
from typing import Any

import anyio
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolcall_middleware import AnthropicMiddleware, GeminiMiddleware, ResponsesMiddleware
from toolcall_middleware.asgi import ASGIApp

from .asgi import RecordingApp, call

SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}}
RESPONSES = {
    "model": "m",
    "instructions": "be brief",
    "input": [
        {"role": "developer", "content": "dev"},
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "hi"},
                {"type": "input_image", "image_url": "data:image/png;base64,AA", "detail": "low"},
            ],
        },
        {
            "type": "reasoning",
            "content": [{"type": "reasoning_text", "text": "think"}],
            "summary": [{"type": "summary_text", "text": "s"}],
        },
        {"type": "function_call", "call_id": "c1", "name": "bash", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        {"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch", "input": "x"},
        {
            "type": "custom_tool_call_output",
            "call_id": "c2",
            "output": [{"type": "input_text", "text": "ok"}],
        },
        {"role": "assistant", "content": [{"type": "output_text", "text": "done"}]},
        {"role": "user", "content": "again"},
    ],
    "tools": [
        {"type": "function", "name": "bash", "parameters": SCHEMA, "strict": False},
        {
            "type": "custom",
            "name": "apply_patch",
            "format": {"type": "grammar", "syntax": "lark", "definition": "start: x"},
        },
        {"type": "namespace", "name": "mcp", "tools": [{"type": "function", "name": "run"}]},
        {"type": "web_search"},
    ],
    "tool_choice": {
        "type": "allowed_tools",
        "mode": "auto",
        "tools": [
            {"type": "function", "name": "bash"},
            {"type": "function", "name": "run", "namespace": "mcp"},
        ],
    },
    "temperature": 0.5,
    "top_p": 1,
    "max_output_tokens": 100,
    "top_logprobs": 2,
    "reasoning": {"effort": "low"},
    "metadata": {"a": "b"},
    "text": {"format": {"type": "text"}},
    "parallel_tool_calls": True,
    "include": ["reasoning.encrypted_content"],
    "stream": False,
}
MESSAGES = {
    "model": "claude",
    "max_tokens": 100,
    "system": [{"type": "text", "text": "sys"}],
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "hi"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "AA"},
                },
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "t", "signature": "s"},
                {"type": "text", "text": "x"},
                {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "ok"}],
                    "is_error": False,
                },
                {"type": "text", "text": "go"},
            ],
        },
    ],
    "tools": [{"name": "bash", "description": "d", "input_schema": SCHEMA}],
    "tool_choice": {"type": "auto"},
    "temperature": 0.5,
    "top_p": 1,
    "top_k": 5,
    "stop_sequences": ["END"],
    "metadata": {"user_id": "u"},
    "thinking": {"type": "enabled", "budget_tokens": 1024},
    "stream": False,
}
GEMINI = {
    "contents": [
        {
            "role": "user",
            "parts": [{"text": "hi"}, {"inlineData": {"mimeType": "image/png", "data": "AA"}}],
        },
        {
            "role": "model",
            "parts": [
                {"text": "t", "thought": True},
                {"functionCall": {"id": "c1", "name": "bash", "args": {"command": "ls"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": "c1", "name": "bash", "response": {"output": "ok"}}}
            ],
        },
    ],
    "systemInstruction": {"parts": [{"text": "sys"}]},
    "tools": [
        {
            "functionDeclarations": [
                {
                    "name": "bash",
                    "parameters": {
                        "type": "OBJECT",
                        "properties": {"command": {"type": "STRING", "minLength": "1"}},
                    },
                }
            ]
        }
    ],
    "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["bash"]}},
    "generationConfig": {
        "temperature": 0.5,
        "topP": 1,
        "topK": 5,
        "seed": 1,
        "maxOutputTokens": "100",
        "candidateCount": 1,
        "stopSequences": ["END"],
        "responseMimeType": "application/json",
        "responseJsonSchema": {"type": "object"},
        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 1024},
    },
}

FRONTS: dict[str, tuple[Any, str, dict[str, Any]]] = {
    "responses": (ResponsesMiddleware, "/v1/responses", RESPONSES),
    "anthropic": (AnthropicMiddleware, "/v1/messages", MESSAGES),
    "gemini": (GeminiMiddleware, "/v1beta/models/m:generateContent", GEMINI),
}


def error_shape(front: str, doc: Any) -> bool:
    """The API's own error body, with a message."""
    if front == "anthropic":
        error = doc.get("error") if doc.get("type") == "error" else None
        return (
            isinstance(error, dict) and {"type", "message"} <= set(error) and bool(error["message"])
        )
    error = doc.get("error")
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        return False
    keys = (
        {"message", "type", "param", "code"}
        if front == "responses"
        else {"code", "message", "status"}
    )
    return set(error) == keys


async def ask(front: str, body: bytes) -> tuple[int, Any, RecordingApp]:
    make, path, _ = FRONTS[front]
    inner = RecordingApp()
    app: ASGIApp = make(inner)
    sent = await call(app, path, [body])
    assert sent[0]["type"] == "http.response.start"
    assert not sent[-1].get("more_body", False)
    raw = b"".join(m.get("body", b"") for m in sent[1:])
    return sent[0]["status"], (orjson.loads(raw) if raw else None), inner


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a document a value sits."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += paths(item, (*prefix, i))
    return found


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, -1, 2**31, 2**63, 2**64 - 1, 2**64, 10**30, 10**400]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "²", "١٢٣", "-1", "9" * 5000, "1e9", " 7 ", "auto", "function", "user"]),
    st.text(max_size=8),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["type", "text", "name", "x"]), inner, max_size=3),
    ),
    max_leaves=6,
)


#: Member names the three APIs use, for members added where the base request has none.
NAMES = [
    "type",
    "text",
    "content",
    "role",
    "name",
    "namespace",
    "arguments",
    "input",
    "id",
    "call_id",
    "output",
    "mode",
    "tools",
    "parts",
    "functionCall",
    "functionResponse",
    "args",
    "response",
    "source",
    "media_type",
    "data",
    "image_url",
    "thinking",
    "signature",
    "tool_use_id",
    "is_error",
    "cache_control",
    "summary",
    "encrypted_content",
    "format",
    "syntax",
    "definition",
    "allowedFunctionNames",
    "thinkingLevel",
    "responseSchema",
    "parametersJsonSchema",
    "items",
    "properties",
    "required",
    "nullable",
    "anyOf",
    "minItems",
    "fileData",
    "fileUri",
    "mimeType",
    "inlineData",
    "thought",
    "thoughtSignature",
    "detail",
    "file_id",
    "refusal",
    "reasoning",
    "effort",
    "instructions",
]


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any]) -> bytes:
    """``base`` with one to three of its values replaced or removed, or members added, each
    any JSON value."""
    doc = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths(doc)[1:]))
        *parents, last = path
        holder = doc
        try:
            for key in parents:
                holder = holder[key]
            what = draw(st.integers(0, 5))
            if what == 0 and isinstance(holder, dict):
                holder.pop(last, None)
            elif what == 1 and isinstance(holder[last], dict):
                holder[last][draw(st.sampled_from(NAMES))] = draw(VALUES)
            else:
                holder[last] = draw(VALUES)
        except (KeyError, IndexError, TypeError):
            continue  # (an earlier replacement changed what was there)
    return json.dumps(doc).encode()


def check(front: str, status: int, doc: Any, inner: RecordingApp) -> None:
    assert status < 500, (status, doc)
    if status >= 400:
        assert error_shape(front, doc), doc
        assert inner.calls == [], "a refused request went upstream"
    else:
        assert len(inner.calls) == 1
        orjson.loads(inner.calls[0])  # what went upstream is JSON any server reads


@pytest.mark.parametrize("front", sorted(FRONTS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_value_anywhere_is_a_success_or_a_4xx_in_the_apis_shape(
    front: str, data: st.DataObject
) -> None:
    body = data.draw(mutated(FRONTS[front][2]))
    status, doc, inner = anyio.run(ask, front, body)
    check(front, status, doc, inner)


@pytest.mark.parametrize("front", sorted(FRONTS))
def test_the_base_requests_are_valid(front: str) -> None:
    status, doc, inner = anyio.run(ask, front, orjson.dumps(FRONTS[front][2]))
    assert status == 200 and len(inner.calls) == 1, doc


def refused(front: str, change: Any) -> tuple[str, Any]:
    """The message and param of the 400 for the base request changed by ``change``."""
    doc = json.loads(json.dumps(FRONTS[front][2]))
    change(doc)
    status, reply, inner = anyio.run(ask, front, json.dumps(doc).encode())
    assert status == 400 and inner.calls == [], reply
    error = reply["error"]
    return error["message"], error.get("param")


@pytest.mark.parametrize("text", [{"a": 1}, 7, ["x"], True])
def test_responses_input_text_must_be_a_string(text: Any) -> None:
    def change(doc: dict[str, Any]) -> None:
        doc["input"][1]["content"][0]["text"] = text

    message, param = refused("responses", change)
    assert param == "input[1].content[0].text" and "string" in message


@pytest.mark.parametrize("namespace", [3, ["mcp"], {"n": 1}])
def test_responses_allowed_tools_namespace_must_be_a_string(namespace: Any) -> None:
    def change(doc: dict[str, Any]) -> None:
        doc["tool_choice"]["tools"][1]["namespace"] = namespace

    message, param = refused("responses", change)
    assert param == "tool_choice.tools[1].namespace" and "string" in message


@pytest.mark.parametrize("field", ["content", "summary"])
def test_responses_reasoning_parts_must_be_a_list(field: str) -> None:
    def change(doc: dict[str, Any]) -> None:
        doc["input"][2][field] = 5

    message, param = refused("responses", change)
    assert param == f"input[2].{field}" and "deep" not in message


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("maxOutputTokens", "²"),
        ("maxOutputTokens", "١٢٣"),
        ("maxOutputTokens", "9" * 5000),
        ("maxOutputTokens", -1),
        ("maxOutputTokens", "-5"),
        ("maxOutputTokens", 0),
        ("candidateCount", -1),
        ("candidateCount", "0"),
        ("topK", 2**40),
        ("seed", 10**30),
    ],
)
def test_gemini_integers_name_the_field(field: str, value: Any) -> None:
    def change(doc: dict[str, Any]) -> None:
        doc["generationConfig"][field] = value

    message, _ = refused("gemini", change)
    assert message.startswith(f"generationConfig.{field}:")


def test_gemini_schema_counts_of_unicode_digits_name_the_field() -> None:
    def change(doc: dict[str, Any]) -> None:
        parameters = doc["tools"][0]["functionDeclarations"][0]["parameters"]
        parameters["properties"]["command"]["minLength"] = "²"

    message, _ = refused("gemini", change)
    assert "minLength" in message


@pytest.mark.parametrize("front", sorted(FRONTS))
def test_an_integer_past_a_double_is_named(front: str) -> None:
    # (One past 64 bits that a double holds is read as that double, as JavaScript reads it.)
    def change(doc: dict[str, Any]) -> None:
        doc["tools"][0]["x-limit"] = 10**400  # any field, even one no translation reads

    message, _ = refused(front, change)
    assert "tools[0].x-limit" in message and "too large" in message
