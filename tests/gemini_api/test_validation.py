"""Requests the front cannot translate get a Gemini-shaped 4xx naming the field, and the
upstream never sees them."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from toolcall_middleware.fronts.gemini import GeminiMiddleware
from toolcall_middleware.fronts.gemini.contents import COUNT_MISMATCH

from .helpers import ScriptedApp, request, stream_path, user

pytestmark = pytest.mark.anyio

CALL = {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "ls", "args": {}}}]}


def answered(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts)}


def response(name: str = "ls", id: str | None = "c1") -> dict[str, Any]:
    fields: dict[str, Any] = {"name": name, "response": {"output": "x"}}
    if id is not None:
        fields["id"] = id
    return {"functionResponse": fields}


BAD: list[tuple[Any, str]] = [
    ([], "request body must be a JSON object"),
    ({}, "contents: must be a non-empty list"),
    ({"contents": "hi"}, "contents: must be a non-empty list"),
    ({"contents": [7]}, "contents[0]: must be a Content object"),
    ({"contents": [{"role": "system", "parts": []}]}, "contents[0].role: must be 'user' or"),
    ({"contents": [{"parts": {"text": "x"}}]}, "contents[0].parts: must be a list"),
    ({"contents": [{"parts": [{"text": 3}]}]}, "contents[0].parts[0].text: field required"),
    ({"contents": [{"parts": [{"audio": {}}]}]}, "contents[0].parts[0]: unsupported part type"),
    (
        {"contents": [{"parts": [{"inlineData": {"mimeType": "application/pdf", "data": "AA"}}]}]},
        "contents[0].parts[0].inlineData: application/pdf cannot be sent",
    ),
    (
        {
            "contents": [
                {"parts": [{"fileData": {"mimeType": "image/png", "fileUri": "gs://bucket/x.png"}}]}
            ]
        },
        "contents[0].parts[0].fileData: image/png cannot be sent",
    ),
    (
        {"contents": [{"parts": [{"functionCall": {"name": "ls"}}]}]},
        "contents[0].parts[0].functionCall: function calls belong in model turns",
    ),
    (
        {"contents": [user("x"), {"role": "model", "parts": [response()]}]},
        "contents[1].parts[0].functionResponse: function responses belong in user turns",
    ),
    (
        {"contents": [answered(response())]},
        "contents[0].parts[0].functionResponse: a function response must follow a model turn",
    ),
    (
        {"contents": [user("x"), CALL, answered(response(id="c9"))]},
        "contents[2].parts[0].functionResponse.id: no function call with id 'c9'",
    ),
    (
        {"contents": [user("x"), CALL, answered(response(name="cat"))]},
        "contents[2].parts[0].functionResponse.name: 'cat' does not match",
    ),
    (
        {"contents": [user("x"), CALL, answered(response(id=None, name="cat"))]},
        "contents[2].parts[0].functionResponse.name: 'cat' does not match",
    ),
    (
        {"contents": [user("x"), CALL, answered(response(), response())]},
        "contents[2].parts[1].functionResponse: the call 'c1' is answered twice",
    ),
    ({"contents": [user("x"), CALL, user("no answer")]}, f"contents[1]: {COUNT_MISMATCH}"),
    ({"contents": [user("x"), CALL]}, f"contents[1]: {COUNT_MISMATCH}"),
    (
        {
            "contents": [
                user("x"),
                {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"id": "c1", "name": "ls"}},
                        {"functionCall": {"id": "c1", "name": "ls"}},
                    ],
                },
            ]
        },
        "contents[1].parts[1].functionCall.id: 'c1' is used by another call",
    ),
    (
        {
            "contents": [
                user("x"),
                {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": "-la"}}]},
            ]
        },
        "contents[1].parts[0].functionCall.args: must be an object",
    ),
    (
        {
            "contents": [
                user("x"),
                CALL,
                answered({"functionResponse": {"id": "c1", "name": "ls", "response": "done"}}),
            ]
        },
        "contents[2].parts[0].functionResponse.response: must be an object",
    ),
    (
        {"contents": [user("x")], "systemInstruction": {"parts": [{"inlineData": {}}]}},
        "systemInstruction.parts[0].text: field required",
    ),
    ({"contents": [user("x")], "tools": {"functionDeclarations": []}}, "tools: must be a list"),
    (
        {"contents": [user("x")], "tools": [{"functionDeclarations": [{"description": "x"}]}]},
        "tools[0].functionDeclarations[0].name: field required",
    ),
    (
        {
            "contents": [user("x")],
            "tools": [
                {"functionDeclarations": [{"name": "a"}]},
                {"functionDeclarations": [{"name": "a"}]},
            ],
        },
        "tools[1].functionDeclarations[0].name: duplicate function name 'a'",
    ),
    (
        {
            "contents": [user("x")],
            "tools": [{"functionDeclarations": [{"name": "a", "parameters": "object"}]}],
        },
        "tools[0].functionDeclarations[0].parameters: must be a Schema object",
    ),
    (
        {
            "contents": [user("x")],
            "tools": [{"functionDeclarations": [{"name": "a"}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["b"]}},
        },
        "toolConfig.functionCallingConfig.allowedFunctionNames: no function named 'b'",
    ),
    (
        {
            "contents": [user("x")],
            "tools": [{"functionDeclarations": [{"name": "a"}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "SOMETIMES"}},
        },
        "toolConfig.functionCallingConfig.mode: must be AUTO, ANY, NONE or VALIDATED",
    ),
    (
        {"contents": [user("x")], "generationConfig": {"temperature": "hot"}},
        "generationConfig.temperature: must be a number",
    ),
    (
        {"contents": [user("x")], "generationConfig": {"maxOutputTokens": 1.5}},
        "generationConfig.maxOutputTokens: must be an integer",
    ),
    (
        {"contents": [user("x")], "generationConfig": {"candidateCount": 2}},
        "generationConfig.candidateCount: only one candidate",
    ),
    (
        {"contents": [user("x")], "generationConfig": {"responseModalities": ["IMAGE"]}},
        "generationConfig.responseModalities: only TEXT output",
    ),
    (
        {"contents": [user("x")], "generationConfig": {"responseMimeType": "text/x.enum"}},
        "generationConfig.responseMimeType: 'text/x.enum' is not supported",
    ),
    (
        {"contents": [user("x")], "generationConfig": {"stopSequences": "END"}},
        "generationConfig.stopSequences: must be a list of strings",
    ),
    (
        {
            "contents": [user("x")],
            "generationConfig": {"thinkingConfig": {"includeThoughts": "yes"}},
        },
        "generationConfig.thinkingConfig.includeThoughts",
    ),
    (
        {"contents": [user("x")], "generationConfig": {"thinkingConfig": {"thinkingLevel": "MAX"}}},
        "generationConfig.thinkingConfig.thinkingLevel",
    ),
    ({"contents": [user("x")], "cachedContent": "cachedContents/abc"}, "cachedContent: cached"),
]


@pytest.mark.parametrize(("doc", "message"), BAD, ids=[m[:40] for _, m in BAD])
@pytest.mark.parametrize(
    "path", [stream_path(), "/v1/models/m:generateContent"], ids=["stream", "whole"]
)
async def test_bad_request_is_a_400_and_never_reaches_the_upstream(
    doc: Any, message: str, path: str
) -> None:
    upstream = ScriptedApp()
    response = await request(GeminiMiddleware(upstream), doc, path, query=b"alt=sse")
    assert response.status == 400, response.body
    error = response.json()["error"]
    assert error["code"] == 400 and error["status"] == "INVALID_ARGUMENT"
    assert message in error["message"], error["message"]
    assert upstream.calls == []


async def test_invalid_json_body() -> None:
    upstream = ScriptedApp()
    response = await request(GeminiMiddleware(upstream), None, stream_path(), raw=b"{nope")
    assert response.status == 400
    assert "request body is not valid JSON" in response.json()["error"]["message"]
    assert upstream.calls == []


async def test_body_over_the_limit() -> None:
    upstream = ScriptedApp()
    doc = {"contents": [user("x" * 5000)]}
    response = await request(GeminiMiddleware(upstream, max_body_bytes=2000), doc, stream_path())
    assert response.status == 400
    assert response.json()["error"] == {
        "code": 400,
        "status": "INVALID_ARGUMENT",
        "message": "Request payload size exceeds the limit: 2000 bytes.",
    }
    assert upstream.calls == []


async def test_schema_nested_too_deep_to_translate() -> None:
    schema: dict[str, Any] = {"type": "OBJECT"}
    for _ in range(300):
        schema = {"type": "OBJECT", "properties": {"a": schema}}
    upstream = ScriptedApp()
    raw = orjson.dumps(
        {
            "contents": [user("x")],
            "tools": [
                {"functionDeclarations": [{"name": "deep", "parameters": {"type": "OBJECT"}}]}
            ],
        }
    ).replace(b'"parameters":{"type":"OBJECT"}', b'"parameters":' + _deep(300))
    response = await request(GeminiMiddleware(upstream), None, stream_path(), raw=raw)
    assert response.status == 400
    assert "nests JSON too deeply" in response.json()["error"]["message"]
    assert upstream.calls == []


def _deep(levels: int) -> bytes:
    return b'{"type":"OBJECT","properties":{"a":' * levels + b"{}" + b"}}" * levels
