"""The peers' own test cases for MiMo V2's calls (Qwen3-Coder's XML, ``qwen3_coder``) and
InternLM 2.5's (``internlm``), as data.

Inputs and expected calls come from vLLM's ``tests/tool_parsers/*``, SGLang's
``test/registered/function_call/*`` and the models' documented markup, written out here by
hand; ``tests/test_peer_cases.py`` runs every case through the middleware under
``provider="auto"`` with the family's usual model id. Where our contract differs from a peer's,
the case says what we give and why.
"""

from __future__ import annotations

from peer_cases import EVERY_JSON_TYPE, PeerCase, obj, offered

MIMO = "XiaomiMiMo/MiMo-V2-Flash"


def mimo(function: str, *parameters: tuple[str, str]) -> str:
    """A MiMo call: Qwen3-Coder's XML, each value on its tag's line."""
    body = "".join(f"<parameter={k}>{v}</parameter>\n" for k, v in parameters)
    return f"<tool_call>\n<function={function}>\n{body}</function>\n</tool_call>"


MIMO_V2 = [
    PeerCase(
        "vllm basic call",
        "qwen3_coder",
        MIMO,
        "Here is the result:\n" + mimo("execute_bash", ("command", "pwd && ls")),
        [("execute_bash", {"command": "pwd && ls"})],
        "Here is the result:\n",
        tools=offered("execute_bash"),
    ),
    PeerCase(
        "vllm multiple calls",
        "qwen3_coder",
        MIMO,
        "Here is the result:\n"
        + mimo("execute_bash", ("command", "pwd"))
        + "\n"
        + mimo("list_files"),
        [("execute_bash", {"command": "pwd"}), ("list_files", {})],
        "Here is the result:\n\n",
        tools=offered("execute_bash", "list_files"),
    ),
    PeerCase(
        "vllm several parameters",
        "qwen3_coder",
        MIMO,
        mimo("execute_code", ("language", "python"), ("code", 'print("hello")')),
        [("execute_code", {"language": "python", "code": 'print("hello")'})],
        tools=offered("execute_code"),
    ),
    PeerCase(
        "vllm no calls",
        "qwen3_coder",
        MIMO,
        "This is just regular text without any tool calls.",
        [],
        "This is just regular text without any tool calls.",
    ),
    # vLLM strips the newline before the call; the model's text is kept as written here.
    PeerCase(
        "vllm content before a call",
        "qwen3_coder",
        MIMO,
        "Let me execute that command for you.\n" + mimo("execute_bash", ("command", "echo hello")),
        [("execute_bash", {"command": "echo hello"})],
        "Let me execute that command for you.\n",
        tools=offered("execute_bash"),
    ),
    PeerCase(
        "vllm empty arguments",
        "qwen3_coder",
        MIMO,
        mimo("noop"),
        [("noop", {})],
        tools=offered("noop"),
    ),
    PeerCase(
        "vllm multiline value",
        "qwen3_coder",
        MIMO,
        mimo(
            "example_function_name",
            ("example_parameter_1", "value_1"),
            (
                "example_parameter_2",
                "This is the value for the second parameter\nthat can span\nmultiple lines",
            ),
        ),
        [
            (
                "example_function_name",
                {
                    "example_parameter_1": "value_1",
                    "example_parameter_2": "This is the value for the second parameter\n"
                    "that can span\nmultiple lines",
                },
            )
        ],
        tools=offered("example_function_name"),
    ),
    PeerCase(
        "sglang typed by the schema",
        "qwen3_coder",
        MIMO,
        mimo("search", ("query", "rust"), ("limit", "5"), ("fresh", "true"), ("tags", '["a"]')),
        [("search", {"query": "rust", "limit": 5, "fresh": True, "tags": ["a"]})],
        tools={
            "search": obj(
                query={"type": "string"},
                limit={"type": "integer"},
                fresh={"type": "boolean"},
                tags={"type": "array"},
            )
        },
    ),
]

INTERNLM = "internlm/internlm2_5-7b-chat"
ACTION, ACTION_END = "<|action_start|><|plugin|>", "<|action_end|>"
TOKYO = '{"name": "get_weather", "parameters": {"city": "Tokyo"}}'

INTERNLM2 = [
    PeerCase(
        "vllm no tool calls",
        "internlm",
        INTERNLM,
        "This is a regular response without any tool calls.",
        [],
        "This is a regular response without any tool calls.",
    ),
    PeerCase(
        "vllm single call",
        "internlm",
        INTERNLM,
        ACTION + TOKYO + ACTION_END,
        [("get_weather", {"city": "Tokyo"})],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm various data types",
        "internlm",
        INTERNLM,
        ACTION
        + """{
  "name": "test_function",
  "parameters": {
    "string_field": "hello",
    "int_field": 42,
    "float_field": 3.14,
    "bool_field": true,
    "null_field": null,
    "array_field": ["a", "b", "c"],
    "object_field": {"nested": "value"},
    "empty_array": [],
    "empty_object": {}
  }
}"""
        + ACTION_END,
        [
            (
                "test_function",
                EVERY_JSON_TYPE,
            )
        ],
        tools=offered("test_function"),
    ),
    PeerCase(
        "vllm empty arguments",
        "internlm",
        INTERNLM,
        ACTION + '{"name": "refresh", "parameters": {}}' + ACTION_END,
        [("refresh", {})],
        tools=offered("refresh"),
    ),
    PeerCase(
        "vllm surrounding text",
        "internlm",
        INTERNLM,
        "Let me check the weather for you. " + ACTION + TOKYO + ACTION_END,
        [("get_weather", {"city": "Tokyo"})],
        "Let me check the weather for you. ",
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm escaped strings",
        "internlm",
        INTERNLM,
        ACTION
        + r"""{"name": "test_function", "parameters": {"quoted": "He said \"hello\"",
 "path": "C:\\Users\\file.txt", "newline": "line1\nline2", "unicode": "emoji: 🎉"}}"""
        + ACTION_END,
        [
            (
                "test_function",
                {
                    "quoted": 'He said "hello"',
                    "path": "C:\\Users\\file.txt",
                    "newline": "line1\nline2",
                    "unicode": "emoji: 🎉",
                },
            )
        ],
        tools=offered("test_function"),
    ),
    # Malformed calls are the model's text (their lone <|action_end|> a stray).
    PeerCase(
        "vllm malformed: arguments that are no object",
        "internlm",
        INTERNLM,
        ACTION + '{"name": "func", "parameters": "not a dict"}' + ACTION_END,
        [],
        ACTION + '{"name": "func", "parameters": "not a dict"}',
    ),
    PeerCase(
        "vllm malformed: not JSON",
        "internlm",
        INTERNLM,
        ACTION + "not json" + ACTION_END,
        [],
        ACTION + "not json",
    ),
    PeerCase("vllm malformed: nothing after the tokens", "internlm", INTERNLM, ACTION, [], ACTION),
]

CASES = [*MIMO_V2, *INTERNLM2]
