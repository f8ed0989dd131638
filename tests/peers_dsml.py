"""DeepSeek V3.2 / V4 / V4.1 DSML cases from vLLM's ``test_deepseekv32_tool_parser.py``,
``test_deepseekv4_tool_parser.py`` and SGLang's ``test_deepseekv32_detector.py``."""

from __future__ import annotations

from typing import Any

from peer_cases import PeerCase, obj
from toolcall_middleware.parsers.dsml import DSML

V32 = "deepseek-ai/DeepSeek-V3.2"
V4 = "deepseek-ai/DeepSeek-V4-Flash"
V41 = "deepseek-ai/DeepSeek-V4.1-Flash"

FC_START, FC_END = f"<{DSML}function_calls>", f"</{DSML}function_calls>"
TC_START, TC_END = f"<{DSML}tool_calls>", f"</{DSML}tool_calls>"
INV_START, INV_END = f'<{DSML}invoke name="', f"</{DSML}invoke>"
PARAM_START, PARAM_END = f'<{DSML}parameter name="', f"</{DSML}parameter>"


def v32_call(name: str, params: dict[str, str]) -> str:
    """vLLM's ``build_tool_call``: string parameters, written back to back."""
    param_strs = "".join(
        f'{PARAM_START}{k}" string="true">{v}{PARAM_END}' for k, v in params.items()
    )
    return f'{FC_START}\n{INV_START}{name}">\n{param_strs}\n{INV_END}\n{FC_END}'


def v4_call(name: str, params: dict[str, str]) -> str:
    """vLLM's V4 ``build_tool_call``: every parameter on its own line."""
    param_strs = "".join(
        f'{PARAM_START}{k}" string="true">{v}{PARAM_END}\n' for k, v in params.items()
    )
    return f'{TC_START}\n{INV_START}{name}">\n{param_strs}{INV_END}\n{TC_END}'


def invoke(name: str, *params: tuple[str, str, str]) -> str:
    """One invoke whose parameters are ``(key, string flag, value)``."""
    body = "".join(f'{PARAM_START}{k}" string="{s}">{v}{PARAM_END}\n' for k, s, v in params)
    return f'{INV_START}{name}">\n{body}{INV_END}\n'


def block(*invokes: str, start: str = FC_START, end: str = FC_END) -> str:
    return f"{start}\n{''.join(invokes)}{end}"


def v32(
    name: str, text: str, calls: list[tuple[str, dict[str, Any]]], content: str = "", **kw: Any
) -> PeerCase:
    return PeerCase(f"vllm:{name}", "deepseek_v32", V32, text, calls, content, **kw)


TIMER = obj(
    wait={
        "anyOf": [
            {
                "type": "object",
                "properties": {"type": {"const": "until"}, "date": {"type": "string"}},
            },
            {
                "type": "object",
                "properties": {"type": {"const": "for"}, "minutes": {"type": "number"}},
            },
        ]
    },
    patches={"oneOf": [{"type": "array", "items": {"type": "object"}}, {"type": "null"}]},
)
WEATHER = {"get_weather": obj(location={"type": "string"})}
RUSSIAN = [
    f'{FC_START}\n{INV_START}write_note">\n',
    f'{PARAM_START}payload" string="false">Здра',
    "вствуйте, мир",
    "! Это тест",
    f"{PARAM_END}\n{INV_END}\n{FC_END}",
]

CASES = [
    v32("test_no_tool_call", "just some text", [], "just some text"),
    v32(
        "test_single_tool_no_params",
        f'{FC_START}\n{INV_START}get_time">\n{INV_END}\n{FC_END}',
        [("get_time", {})],
    ),
    v32(
        "test_single_tool_with_params",
        v32_call("get_weather", {"location": "SF", "date": "2024-01-16"}),
        [("get_weather", {"location": "SF", "date": "2024-01-16"})],
    ),
    v32(
        "test_content_before_tool_call",
        "Sure, let me check! " + v32_call("get_weather", {"location": "NYC"}),
        [("get_weather", {"location": "NYC"})],
        "Sure, let me check! ",
    ),
    v32(
        "test_multiple_tools",
        block(
            invoke("get_weather", ("location", "true", "SF")),
            invoke("get_weather", ("location", "true", "NYC")),
        ),
        [("get_weather", {"location": "SF"}), ("get_weather", {"location": "NYC"})],
    ),
    v32(
        "test_type_conversion_in_non_streaming",
        block(invoke("toggle", ("enabled", "false", "true"), ("count", "false", "42"))),
        [("toggle", {"enabled": True, "count": 42})],
        tools={"toggle": obj(enabled={"type": "boolean"}, count={"type": "integer"})},
    ),
    v32(
        "test_string_attr_true_coerced_by_schema",
        block(invoke("score", ("value", "true", "42"))),
        [("score", {"value": 42})],
        tools={"score": obj(value={"type": "integer"})},
    ),
    v32(
        "test_string_attr_false_allows_schema_conversion",
        block(invoke("score", ("value", "false", "42"))),
        [("score", {"value": 42})],
        tools={"score": obj(value={"type": "integer"})},
    ),
    v32(
        "test_composed_schema_converts_object_and_array_params",
        block(
            invoke(
                "set_timer",
                ("wait", "false", '{"type":"for","minutes":2880}'),
                ("patches", "false", '[{"op":"replace","path":"/schedule","value":"quiet"}]'),
            )
        ),
        [
            (
                "set_timer",
                {
                    "wait": {"type": "for", "minutes": 2880},
                    "patches": [{"op": "replace", "path": "/schedule", "value": "quiet"}],
                },
            )
        ],
        tools={"set_timer": TIMER},
    ),
    v32(
        "test_string_attr_true_coerced_by_composed_schema",
        block(invoke("set_timer", ("wait", "true", '{"type":"for","minutes":2880}'))),
        [("set_timer", {"wait": {"type": "for", "minutes": 2880}})],
        tools={"set_timer": obj(wait={"anyOf": [{"type": "object"}, {"type": "null"}]})},
    ),
    v32(
        "test_arguments_wrapper_repaired",
        block(invoke("get_weather", ("arguments", "false", '{"location":"Beijing"}'))),
        [("get_weather", {"location": "Beijing"})],
        tools=WEATHER,
    ),
    v32(
        "test_input_wrapper_repaired",
        block(invoke("get_weather", ("input", "true", '{"location":"Beijing"}'))),
        [("get_weather", {"location": "Beijing"})],
        tools=WEATHER,
    ),
    v32(
        "test_object_and_array_params",
        block(invoke("update", ("tags", "false", '["a", "b"]'), ("meta", "false", '{"k": 1}'))),
        [("update", {"tags": ["a", "b"], "meta": {"k": 1}})],
        tools={"update": obj(tags={"type": "array"}, meta={"type": "object"})},
    ),
    v32(
        "test_number_param",
        block(invoke("measure", ("ratio", "false", "3.14"), ("whole", "false", "5.0"))),
        [("measure", {"ratio": 3.14, "whole": 5})],
        tools={"measure": obj(ratio={"type": "number"}, whole={"type": "number"})},
    ),
    v32(
        "test_multi_typed_schema",
        block(invoke("set_val", ("count", "false", "42"), ("label", "false", "hello"))),
        [("set_val", {"count": 42, "label": "hello"})],
        tools={
            "set_val": obj(count={"type": ["integer", "null"]}, label={"type": ["string", "null"]})
        },
    ),
    v32(
        "test_multi_typed_null_value",
        block(invoke("clear", ("value", "false", "null"))),
        [("clear", {"value": None})],
        tools={"clear": obj(value={"type": ["integer", "null"]})},
    ),
    v32(
        "test_null_coerced_back_to_string_by_schema",
        block(invoke("echo", ("text", "false", "null"))),
        [("echo", {"text": "null"})],
        tools={"echo": obj(text={"type": "string"})},
    ),
    v32(
        "test_no_schema_parses_json",
        block(invoke("unknown_fn", ("count", "false", "42"), ("flag", "false", "true"))),
        [("unknown_fn", {"count": 42, "flag": True})],
    ),
    v32(
        "test_streaming_matches_non_streaming_conversion_fallbacks",
        block(
            invoke(
                "coerce",
                ("union_value", "false", "hello"),
                ("bad_int", "false", "abc"),
                ("nullable_string", "false", "null"),
                ("null_string", "false", "null"),
                ("whole_number", "false", "3.0"),
            )
        ),
        [
            (
                "coerce",
                {
                    "union_value": "hello",
                    "bad_int": "abc",
                    "nullable_string": None,
                    "null_string": "null",
                    "whole_number": 3,
                },
            )
        ],
        tools={
            "coerce": obj(
                union_value={"type": ["null", "string"]},
                bad_int={"type": "integer"},
                nullable_string={"type": ["null", "string"]},
                null_string={"type": "string"},
                whole_number={"type": "number"},
            )
        },
    ),
    v32(
        "test_multiple_tools_streaming",
        block(invoke("func_a", ("p", "true", "v1")), invoke("func_b", ("q", "true", "v2"))),
        [("func_a", {"p": "v1"}), ("func_b", {"q": "v2"})],
    ),
    v32(
        "test_long_string_argument_streams_before_close",
        block(invoke("emit", ("text", "true", "A" * 4096))),
        [("emit", {"text": "A" * 4096})],
        tools={"emit": obj(text={"type": "string"})},
    ),
    v32(
        "test_false_partial_marker_emitted",
        "<｜DSM some regular text",
        [],
        "<｜DSM some regular text",
    ),
    v32(
        "test_delimiter_preserved_fast_detokenization",
        "Here is the weather: " + block(invoke("get_weather", ("location", "true", "Tokyo"))),
        [("get_weather", {"location": "Tokyo"})],
        "Here is the weather: ",
    ),
    v32(
        "test_tool_detection_skip_special_tokens_false",
        v32_call("search", {"query": "vllm documentation"}),
        [("search", {"query": "vllm documentation"})],
        tools={"search": obj(query={"type": "string"})},
    ),
    PeerCase(
        "sglang:test_no_parser_error_and_no_dsml_leak",
        "deepseek_v32",
        V32,
        "".join(RUSSIAN),
        [("write_note", {"payload": "Здравствуйте, мир! Это тест"})],
        tools={"write_note": obj(payload={"type": "object"})},
    ),
    PeerCase(
        "sglang:test_v4_tool_calls_tokens",
        "deepseek_v4",
        V4,
        "".join(RUSSIAN).replace("function_calls", "tool_calls"),
        [("write_note", {"payload": "Здравствуйте, мир! Это тест"})],
        tools={"write_note": obj(payload={"type": "object"})},
    ),
    PeerCase(
        "sglang:test_json_object_param_still_streams",
        "deepseek_v32",
        V32,
        f'{FC_START}\n{INV_START}write_note">\n{PARAM_START}payload" string="false">'
        f'{{"city": "San Francisco"}}{PARAM_END}\n{INV_END}\n{FC_END}',
        [("write_note", {"payload": {"city": "San Francisco"}})],
        tools={"write_note": obj(payload={"type": "object"})},
    ),
    PeerCase(
        "sglang:DeepSeekV32Detector docstring, format 2 (direct JSON)",
        "deepseek_v32",
        V32,
        f'{FC_START}\n    {INV_START}get_favorite_tourist_spot">\n'
        f'    {{ "city": "San Francisco" }}\n{INV_END}\n{FC_END}',
        [("get_favorite_tourist_spot", {"city": "San Francisco"})],
    ),
    PeerCase(
        "vllm:test_extract_tool_calls (V4)",
        "deepseek_v4",
        V4,
        "Let me check. " + v4_call("get_weather", {"location": "Beijing", "unit": "celsius"}),
        [("get_weather", {"location": "Beijing", "unit": "celsius"})],
        "Let me check. ",
    ),
    PeerCase(
        "vllm:test_streaming_extracts_complete_invokes (V4)",
        "deepseek_v4",
        V4,
        v4_call("search", {"query": "deepseek v4"}),
        [("search", {"query": "deepseek v4"})],
    ),
    PeerCase(
        "vllm:test_function_calls_block_is_not_accepted (V4)",
        "deepseek_v4",
        V4,
        v4_call("search", {"query": "vllm"}).replace("tool_calls", "function_calls"),
        [("search", {"query": "vllm"})],
        note="we differ: one reader takes every DSML block name, so V3.2 markup under a V4 name "
        "is still a call (vLLM's V4 parser leaves it as text)",
    ),
    PeerCase(
        "sglang:DeepSeekV41Detector (spaced tag names)",
        "deepseek_v4",
        V41,
        f'<{DSML} calls>\n<{DSML} invoke name="get_weather">\n'
        f'<{DSML} parameter name="city" string="true">Seoul</{DSML} parameter>\n'
        f"</{DSML} invoke>\n</{DSML} calls>",
        [("get_weather", {"city": "Seoul"})],
    ),
]
