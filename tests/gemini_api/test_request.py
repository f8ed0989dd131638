"""Request translation (sans-I/O): contents, call pairing, tools and schemas, tool choice,
generation config, thought signatures."""

from __future__ import annotations

from typing import Any

import pytest

from toolcall_middleware.fronts.gemini import (
    GeminiError,
    RequestOptions,
    signature,
    translate_request,
)
from toolcall_middleware.fronts.gemini.schema import to_json_schema

from .helpers import BASH_TOOL, user


def messages(contents: list[dict[str, Any]], **doc: Any) -> list[dict[str, Any]]:
    return translate_request({"contents": contents, **doc}, "m").body["messages"]


def model(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}


def answer(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts)}


def call(name: str, args: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = {"name": name, "args": args}
    if id is not None:
        fields["id"] = id
    return {"functionCall": fields}


def response(
    name: str, payload: dict[str, Any], id: str | None = None, **extra: Any
) -> dict[str, Any]:
    fields: dict[str, Any] = {"name": name, "response": payload, **extra}
    if id is not None:
        fields["id"] = id
    return {"functionResponse": fields}


def test_gemini_cli_ids_are_decoded_on_both_sides() -> None:
    """gemini-cli sends back ``<name>__<id>`` on the call and on its response; the upstream
    sees Kimi's own ``functions.run_shell_command:0``, paired by id, not by order."""
    kimi = "functions.run_shell_command:0"
    out = messages(
        [
            user("list files"),
            model(
                {"text": "Looking."},
                call("run_shell_command", {"command": "ls"}, f"run_shell_command__{kimi}"),
                call("run_shell_command", {"command": "pwd"}, "run_shell_command__call_2"),
            ),
            answer(
                response("run_shell_command", {"output": "/tmp"}, "run_shell_command__call_2"),
                response("run_shell_command", {"output": "a.txt"}, f"run_shell_command__{kimi}"),
                {"text": "and then?"},
            ),
        ]
    )
    assert out[1]["tool_calls"] == [
        {
            "id": kimi,
            "type": "function",
            "function": {"name": "run_shell_command", "arguments": '{"command": "ls"}'},
        },
        {
            "id": "call_2",
            "type": "function",
            "function": {"name": "run_shell_command", "arguments": '{"command": "pwd"}'},
        },
    ]
    assert out[1]["content"] == "Looking."
    assert out[2:] == [
        {"role": "tool", "tool_call_id": kimi, "content": "a.txt"},
        {"role": "tool", "tool_call_id": "call_2", "content": "/tmp"},
        {"role": "user", "content": "and then?"},
    ]


def test_unchanged_ids_and_made_up_ids() -> None:
    out = messages(
        [
            user("go"),
            model(call("a", {}, "id-1"), call("b", {"x": 1})),
            answer(response("a", {"v": 1}, "id-1"), response("b", {"error": "failed"})),
            model(call("a", {"y": "é"})),
            answer(response("a", {"error": {"code": 2}})),
        ]
    )
    assert [c["id"] for c in out[1]["tool_calls"]] == ["id-1", "call_1_1"]
    assert out[2:4] == [
        {"role": "tool", "tool_call_id": "id-1", "content": '{"v": 1}'},
        {"role": "tool", "tool_call_id": "call_1_1", "content": "Error: failed"},
    ]
    assert out[4]["tool_calls"][0]["id"] == "call_3_0"
    assert out[4]["tool_calls"][0]["function"]["arguments"] == '{"y": "é"}'
    assert out[5] == {"role": "tool", "tool_call_id": "call_3_0", "content": 'Error: {"code": 2}'}


def test_parallel_calls_to_one_tool_pair_by_id_whatever_the_order() -> None:
    out = messages(
        [
            user("go"),
            model(call("read", {"p": "a"}, "r1"), call("read", {"p": "b"}, "r2")),
            answer(
                response("read", {"output": "B"}, "r2"), response("read", {"output": "A"}, "r1")
            ),
        ]
    )
    assert [(m["tool_call_id"], m["content"]) for m in out[2:]] == [("r1", "A"), ("r2", "B")]


def test_images_and_text_of_a_turn_follow_its_tool_messages() -> None:
    out = messages(
        [
            user("look"),
            model(call("shot", {}, "s1")),
            {
                "role": "function",
                "parts": [
                    response(
                        "shot",
                        {"output": "taken"},
                        "s1",
                        parts=[
                            {"inlineData": {"mimeType": "image/png", "data": "AAA"}},
                            {"text": "caption"},
                        ],
                    )
                ],
            },
            answer(
                {"text": "what is it?"},
                {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://x/y.jpg"}},
            ),
        ]
    )
    assert out[2] == {"role": "tool", "tool_call_id": "s1", "content": "taken\ncaption"}
    assert out[3] == {
        "role": "user",
        "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}},
            {"type": "text", "text": "what is it?"},
            {"type": "image_url", "image_url": {"url": "https://x/y.jpg"}},
        ],
    }


def test_consecutive_contents_merge_and_text_parts_join() -> None:
    out = messages(
        [
            user("a"),
            {"parts": [{"text": "b"}, {"text": "c", "thought": True}]},
            model({"text": "x"}, {"text": "y"}),
            model({"text": "z"}),
        ]
    )
    assert out == [{"role": "user", "content": "a\nb"}, {"role": "assistant", "content": "xyz"}]


def test_thoughts_and_our_signature_become_reasoning_content() -> None:
    sealed = signature.encode("I should list the files.")
    out = messages(
        [
            user("go"),
            model(
                {"text": "**Plan**", "thought": True},
                {"text": " list", "thought": True},
                {"text": "ok"},
            ),
            user("again"),
            model({**call("ls", {}, "c1"), "thoughtSignature": sealed}),
            answer(response("ls", {"output": "a"}, "c1")),
            model({**call("ls", {}, "c2"), "thoughtSignature": "skip_thought_signature_validator"}),
            answer(response("ls", {"output": "a"}, "c2")),
            model({**call("ls", {}, "c3"), "thoughtSignature": "Q2lnR29vZ2xl"}),
            answer(response("ls", {"output": "a"}, "c3")),
        ]
    )
    assert out[1]["reasoning_content"] == "**Plan** list" and out[1]["content"] == "ok"
    assert out[3]["reasoning_content"] == "I should list the files."
    assert "reasoning_content" not in out[5] and "reasoning_content" not in out[7]
    off = translate_request(
        {
            "contents": [
                user("go"),
                model({**call("ls", {}, "c1"), "thoughtSignature": sealed}),
                answer(response("ls", {}, "c1")),
            ]
        },
        "m",
        RequestOptions(thought_signatures=False),
    )
    assert "reasoning_content" not in off.body["messages"][1]


def test_signatures_are_url_safe_base64_and_only_ours_decode() -> None:
    text = "ünïcode reasoning " * 50
    sealed = signature.encode(text)
    assert sealed is not None and "+" not in sealed and "/" not in sealed
    assert signature.decode(sealed) == text
    assert signature.decode(sealed.rstrip("=")) == text  # padding dropped by a client
    assert signature.decode("not base64!") is None and signature.decode(None) is None
    assert signature.encode("") is None
    assert signature.encode("x" * (signature.MAX_REASONING_BYTES + 1)) is None
    import base64
    import zlib

    bomb = base64.urlsafe_b64encode(signature.PREFIX + zlib.compress(b"a" * 10_000_000)).decode()
    assert signature.decode(bomb) is None


def test_system_instruction_is_one_leading_system_message() -> None:
    for instruction in (
        {"role": "user", "parts": [{"text": "Be brief."}, {"text": "Be kind."}]},
        {"parts": [{"text": "Be brief.\nBe kind."}]},
        "Be brief.\nBe kind.",
    ):
        out = messages([user("hi")], systemInstruction=instruction)
        assert out == [
            {"role": "system", "content": "Be brief.\nBe kind."},
            {"role": "user", "content": "hi"},
        ]
    assert messages([user("hi")], system_instruction="x")[0] == {"role": "system", "content": "x"}


# --- tools and schemas --------------------------------------------------------------------------


def tools_of(*tools: dict[str, Any], **doc: Any) -> dict[str, Any]:
    return translate_request({"contents": [user("x")], "tools": list(tools), **doc}, "m").body


def test_parameters_json_schema_passes_cleaned_and_hosted_tools_drop() -> None:
    body = tools_of(
        {"googleSearch": {}},
        {
            "function_declarations": [
                {
                    "name": "fetch",
                    "description": "Fetch a URL",
                    "parameters_json_schema": {
                        "$schema": "http://json-schema.org/draft-07/schema#",
                        "type": "object",
                        "properties": {
                            "url": {"type": "string", "format": "uri"},
                            "format": {"type": "string", "enum": ["md", "html"]},
                        },
                    },
                }
            ]
        },
        {"codeExecution": {}},
        {"functionDeclarations": [{"name": "noargs"}]},
    )
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "fetch",
                "description": "Fetch a URL",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "url": {"type": "string"},
                        "format": {"type": "string", "enum": ["md", "html"]},
                    },
                },
            },
        },
        {
            "type": "function",
            "function": {"name": "noargs", "parameters": {"type": "object", "properties": {}}},
        },
    ]
    assert "tool_choice" not in body


def test_gemini_schema_is_converted() -> None:
    schema = {
        "type": "OBJECT",
        "propertyOrdering": ["city", "days"],
        "required": ["city"],
        "properties": {
            "city": {"type": "STRING", "description": "City", "example": "Paris"},
            "days": {"type": "INTEGER", "nullable": True, "minimum": 1, "format": "int32"},
            "tags": {
                "type": "ARRAY",
                "items": {"type": "STRING", "enum": ["a", "b"]},
                "min_items": "1",
                "maxItems": "5",
            },
            "unit": {"type": "STRING", "enum": ["c", "f"], "nullable": True},
            "any": {"anyOf": [{"type": "NUMBER"}, {"type": "BOOLEAN"}], "nullable": True},
            "free": {"type": "TYPE_UNSPECIFIED", "nullable": True},
            "ref": {"ref": "#/defs/Place"},
        },
        "defs": {"Place": {"type": "OBJECT", "properties": {"name": {"type": "STRING"}}}},
    }
    assert to_json_schema(schema) == {
        "type": "object",
        "required": ["city"],
        "properties": {
            "city": {"type": "string", "description": "City"},
            "days": {"type": ["integer", "null"], "minimum": 1, "format": "int32"},
            "tags": {
                "type": "array",
                "items": {"type": "string", "enum": ["a", "b"]},
                "minItems": 1,
                "maxItems": 5,
            },
            "unit": {"type": ["string", "null"], "enum": ["c", "f", None]},
            "any": {"anyOf": [{"type": "number"}, {"type": "boolean"}, {"type": "null"}]},
            "free": {},
            "ref": {"$ref": "#/$defs/Place"},
        },
        "$defs": {"Place": {"type": "object", "properties": {"name": {"type": "string"}}}},
    }
    body = tools_of({"functionDeclarations": [{"name": "weather", "parameters": schema}]})
    parameters = body["tools"][0]["function"]["parameters"]
    assert parameters["properties"]["days"] == {"type": ["integer", "null"], "minimum": 1}


@pytest.mark.parametrize(
    ("config", "choice", "names"),
    [
        ({"mode": "AUTO"}, "auto", ["a", "b", "c"]),
        ({"mode": "VALIDATED"}, "auto", ["a", "b", "c"]),
        ({"mode": "NONE"}, "none", ["a", "b", "c"]),
        ({"mode": "ANY"}, "required", ["a", "b", "c"]),
        ({"mode": "any", "allowedFunctionNames": ["a", "c"]}, "required", ["a", "c"]),
        (
            {"mode": "ANY", "allowed_function_names": ["b"]},
            {"type": "function", "function": {"name": "b"}},
            ["b"],
        ),
        ({}, None, ["a", "b", "c"]),
    ],
)
def test_function_calling_config(config: dict[str, Any], choice: Any, names: list[str]) -> None:
    declarations = [{"name": n} for n in "abc"]
    body = tools_of(
        {"functionDeclarations": declarations}, toolConfig={"functionCallingConfig": config}
    )
    assert body.get("tool_choice") == choice
    assert [t["function"]["name"] for t in body["tools"]] == names


# --- generation config --------------------------------------------------------------------------


def generation(
    config: dict[str, Any], options: RequestOptions | None = None, model: str = "m"
) -> tuple[dict[str, Any], bool]:
    request = translate_request(
        {"contents": [user("x")], "generationConfig": config}, model, options or RequestOptions()
    )
    body = {k: v for k, v in request.body.items() if k not in ("model", "messages")}
    return body, request.include_thoughts


def test_sampling_fields() -> None:
    body, thoughts = generation(
        {
            "temperature": 0.2,
            "topP": 0.9,
            "top_k": 40,
            "seed": "7",
            "maxOutputTokens": 512,
            "stopSequences": ["END"],
            "presencePenalty": 0.5,
            "frequencyPenalty": 0.1,
            "candidateCount": 1,
            "responseLogprobs": True,
            "logprobs": 3,
            "responseModalities": ["TEXT"],
            "safetySettings": [{"category": "x"}],
        }
    )
    assert body == {
        "temperature": 0.2,
        "top_p": 0.9,
        "top_k": 40,
        "seed": 7,
        "max_tokens": 512,
        "stop": ["END"],
        "presence_penalty": 0.5,
        "frequency_penalty": 0.1,
        "logprobs": True,
        "top_logprobs": 3,
    }
    assert thoughts is False


def test_json_response_formats() -> None:
    schema = {"type": "object", "properties": {"next": {"type": "string"}}}
    body, _ = generation({"responseMimeType": "application/json", "responseJsonSchema": schema})
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": schema},
    }
    body, _ = generation(
        {
            "responseMimeType": "application/json",
            "responseSchema": {"type": "OBJECT", "properties": {"next": {"type": "STRING"}}},
        }
    )
    assert body["response_format"]["json_schema"]["schema"] == schema
    body, _ = generation({"response_mime_type": "application/json"})
    assert body["response_format"] == {"type": "json_object"}
    body, _ = generation({"responseMimeType": "text/plain"})
    assert "response_format" not in body


@pytest.mark.parametrize(
    ("thinking", "expected", "include"),
    [
        ({"includeThoughts": True, "thinkingLevel": "HIGH"}, {"reasoning_effort": "high"}, True),
        ({"include_thoughts": True, "thinking_budget": 8192}, {"reasoning_effort": "medium"}, True),
        ({"thinkingBudget": 1024}, {"reasoning_effort": "low"}, False),
        ({"thinkingBudget": 24576}, {"reasoning_effort": "high"}, False),
        ({"thinkingBudget": -1}, {}, False),
        ({"thinkingLevel": "MINIMAL"}, {"reasoning_effort": "minimal"}, False),
        ({"thinkingBudget": 0}, {"chat_template_kwargs": {"enable_thinking": False}}, False),
    ],
)
def test_thinking_config(thinking: dict[str, Any], expected: dict[str, Any], include: bool) -> None:
    options = RequestOptions(
        thinking_off={
            "other*": {"x": 1},
            "qwen*": {"chat_template_kwargs": {"enable_thinking": False}},
        }
    )
    body, thoughts = generation({"thinkingConfig": thinking}, options, model="qwen3-32b")
    assert body == expected and thoughts is include


def test_stream_and_upstream_fields() -> None:
    options = RequestOptions(upstream_fields={"max_tokens": 99, "skip_special_tokens": False})
    request = translate_request(
        {"contents": [user("x")], "generationConfig": {"maxOutputTokens": 5}},
        "m",
        options,
        stream=True,
    )
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}
    assert request.body["max_tokens"] == 99 and request.body["skip_special_tokens"] is False
    assert request.input_tokens > 0


def test_every_tool_of_gemini_cli_keeps_its_schema() -> None:
    body = tools_of(BASH_TOOL)
    assert body["tools"][0]["function"]["parameters"]["required"] == ["command"]


def test_errors_are_gemini_errors() -> None:
    with pytest.raises(GeminiError) as info:
        translate_request({"contents": []}, "m")
    assert info.value.code == 400 and info.value.status == "INVALID_ARGUMENT"


def test_json_schema_fields_with_gemini_types_are_made_valid() -> None:
    """gemini-cli 0.61's router sends ``responseJsonSchema`` with Gemini's upper-case types;
    valid JSON Schema passes unchanged."""
    router = {
        "type": "OBJECT",
        "properties": {
            "complexity_reasoning": {"type": "STRING", "description": "Why."},
            "complexity_score": {"type": "INTEGER"},
        },
        "required": ["complexity_score"],
    }
    body, _ = generation({"responseMimeType": "application/json", "responseJsonSchema": router})
    assert body["response_format"]["json_schema"]["schema"] == {
        "type": "object",
        "properties": {
            "complexity_reasoning": {"type": "string", "description": "Why."},
            "complexity_score": {"type": "integer"},
        },
        "required": ["complexity_score"],
    }
    valid = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"oneOf": [{"type": "integer"}, {"type": "array", "items": {"type": "string"}}]},
            "c": {"allOf": [{"$ref": "#/$defs/C"}]},
        },
        "$defs": {"C": {"type": "boolean"}},
    }
    tools = tools_of({"functionDeclarations": [{"name": "f", "parametersJsonSchema": valid}]})
    assert tools["tools"][0]["function"]["parameters"] == valid
    shouting = {"type": "OBJECT", "properties": {"b": {"oneOf": [{"type": "INTEGER"}]}}}
    tools = tools_of({"functionDeclarations": [{"name": "f", "parametersJsonSchema": shouting}]})
    assert tools["tools"][0]["function"]["parameters"] == {
        "type": "object",
        "properties": {"b": {"oneOf": [{"type": "integer"}]}},
    }
