"""Cases of the peers' catalogue whose calls are JSON lists: Phi-4-mini (vLLM's
``test_phi4mini_tool_parser.py`` with ``common_tests.py``), xLAM (``test_xlam_tool_parser.py``),
Hunyuan-A13B and Jamba (``test_hunyuan_a13b_tool_parser.py``, ``test_jamba_tool_parser.py``)."""

from __future__ import annotations

import json
from typing import Any

from peer_cases import EVERY_JSON_TYPE, REGISTER_USER, PeerCase
from peer_cases import vllm_case as case

PHI = "microsoft/Phi-4-mini-instruct"
DROPS_TEXT = "we differ: vLLM drops the text around the calls; it is the model's text here"

ESCAPED = {
    "quoted": 'He said "hello"',
    "path": "C:\\Users\\file.txt",
    "newline": "line1\nline2",
    "unicode": "emoji: 🎉",
}
TOKYO = {"city": "Tokyo"}
TOKYO_CALL = '{"name": "get_weather", "arguments": {"city": "Tokyo"}}'


def phi(
    name: str, text: str, calls: list[tuple[str, dict[str, Any]]], content: str = ""
) -> PeerCase:
    return case(f"{name} (Phi-4-mini)", "phi4_mini", PHI, text, calls, content)


PHI4_MINI = [
    phi(
        "test_no_tool_calls",
        "This is a regular response without any tool calls.",
        [],
        "This is a regular response without any tool calls.",
    ),
    phi("test_single_tool_call_simple_args", f"functools[{TOKYO_CALL}]", [("get_weather", TOKYO)]),
    phi(
        "test_parallel_tool_calls",
        f'functools[\n  {TOKYO_CALL},\n  {{"name": "get_time", "arguments": {{"timezone": '
        '"Asia/Tokyo"}}\n]',
        [("get_weather", TOKYO), ("get_time", {"timezone": "Asia/Tokyo"})],
    ),
    phi(
        "test_various_data_types",
        "functools["
        + json.dumps({"name": "test_function", "arguments": EVERY_JSON_TYPE}, indent=2)
        + "]",
        [("test_function", EVERY_JSON_TYPE)],
    ),
    phi(
        "test_empty_arguments",
        'functools[{"name": "refresh", "arguments": {}}]',
        [("refresh", {})],
    ),
    case(
        "test_surrounding_text (Phi-4-mini)",
        "phi4_mini",
        PHI,
        f"Let me check the weather for you.\nfunctools[{TOKYO_CALL}]\nWould you like to know more?",
        [("get_weather", TOKYO)],
        "Let me check the weather for you.\n\nWould you like to know more?",
        note=DROPS_TEXT,
    ),
    phi(
        "test_escaped_strings",
        "functools["
        + json.dumps({"name": "test_function", "arguments": ESCAPED}, indent=2, ensure_ascii=False)
        + "]",
        [("test_function", ESCAPED)],
    ),
    # vLLM's malformed inputs (its check is only that none raises): each is the model's text,
    # but a name without arguments, which is a call without arguments (vLLM fails on the
    # missing key). [0], a call cut off, keeps what arrived: tests/parsers/test_phi4_mini.py.
    *(
        phi(f"test_malformed_input[{i}]", text, [], text)
        for i, text in (
            (1, 'functools[{"name": "func", "arguments": "not a dict"}]'),
            (2, 'functools{"name": "func"}'),
            (4, "functools[] This is just text"),
            (5, "functools[ This is just text ]"),
        )
    ),
    phi("test_malformed_input[3]", 'functools[{"name": "func"}]', [("func", {})]),
]

XLAM = "Salesforce/Llama-xLAM-2-8b-fc-r"
OBJ = {"type": "object"}
XLAM_TOOLS = {"get_current_weather": OBJ, "a": OBJ, "b": OBJ}
DALLAS = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
ORLANDO = {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}


def weather(arguments: dict[str, Any]) -> str:
    return json.dumps({"name": "get_current_weather", "arguments": arguments}, ensure_ascii=False)


def xlam(
    name: str, text: str, calls: list[tuple[str, dict[str, Any]]], content: str = "", **kw: Any
) -> PeerCase:
    return case(f"{name} (xLAM)", "xlam", XLAM, text, calls, content, tools=XLAM_TOOLS, **kw)


XLAM_CASES = [
    xlam("test_extract_tool_calls_no_tools", "This is a test", [], "This is a test"),
    xlam(
        "test_extract_tool_calls[parallel_tool_calls]",
        f"[{weather(DALLAS)}, {weather(ORLANDO)}]",
        [("get_current_weather", DALLAS), ("get_current_weather", ORLANDO)],
    ),
    xlam(
        "test_extract_tool_calls[single_tool_with_think_tag]",
        f"<think>I'll help you with that.</think>[{weather(DALLAS)}]",
        [("get_current_weather", DALLAS)],
        reasoning="I'll help you with that.",
        fields=("content",),
        note="we differ: the think block the content starts with is reasoning (think_tags)",
    ),
    xlam(
        "test_extract_tool_calls[single_tool_with_json_code_block]",
        f"I'll help you with that.\n```json\n[{weather(DALLAS)}]\n```",
        [("get_current_weather", DALLAS)],
        "I'll help you with that.\n",
        note="we differ: the text before the fence is kept as written, its newline too",
    ),
    xlam(
        "test_extract_tool_calls[single_tool_with_tool_calls_tag]",
        f"I'll check the weather for you.[TOOL_CALLS][{weather(DALLAS)}]",
        [("get_current_weather", DALLAS)],
        "I'll check the weather for you.",
    ),
    xlam(
        "test_extract_tool_calls[single_tool_with_tool_call_xml_tags]",
        f"I'll help you check the weather.<tool_call>[{weather(DALLAS)}]</tool_call>",
        [("get_current_weather", DALLAS)],
        "I'll help you check the weather.",
    ),
    xlam(
        "test_extract_tool_calls_list_structure",
        f"[{weather({'city': 'Seattle', 'state': 'WA', 'unit': 'celsius'})}]",
        [("get_current_weather", {"city": "Seattle", "state": "WA", "unit": "celsius"})],
    ),
    xlam(
        "test_extract_tool_calls_streaming_incremental[single_tool_with_json_code_block]",
        f"```json\n[{weather(DALLAS)}]\n```",
        [("get_current_weather", DALLAS)],
    ),
    xlam(
        "test_extract_tool_calls_non_ascii",
        f"[{weather({'city': '北京'})}, {weather({'city': '上海'})}]",
        [("get_current_weather", {"city": "北京"}), ("get_current_weather", {"city": "上海"})],
    ),
    xlam(
        "test_extract_tool_calls_streaming_one_empty_args_tool[first]",
        '[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 42}}]',
        [("a", {}), ("b", {"x": 42})],
    ),
    xlam(
        "test_extract_tool_calls_streaming_one_empty_args_tool[last]",
        '[{"name": "a", "arguments": {"x": 42}}, {"name": "b", "arguments": {}}]',
        [("a", {"x": 42}), ("b", {})],
    ),
    xlam(
        "a JSON list in an answer names no offered tool",
        'The users: [{"name": "Alice", "arguments": {}}] and ```json\n[1]\n```',
        [],
        'The users: [{"name": "Alice", "arguments": {}}] and ```json\n[1]\n```',
    ),
]

HUNYUAN = "tencent/Hunyuan-A13B-Instruct"
SF = {"city": "San Francisco", "metric": "celsius"}
REGISTER = REGISTER_USER
NESTED = {"level1": {"level2": {"level3": {"value": 123}}}}


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> str:
    entries = [{"name": name, "arguments": arguments} for name, arguments in calls]
    return f"<tool_calls>{json.dumps(entries, ensure_ascii=False)}</tool_calls>"


def hunyuan(
    name: str, text: str, calls: list[tuple[str, dict[str, Any]]], content: str = "", **kw: Any
) -> PeerCase:
    return case(f"{name} (Hunyuan-A13B)", "hunyuan_a13b", HUNYUAN, text, calls, content, **kw)


HUNYUAN_A13B = [
    hunyuan(
        "test_extract[no tool call]", "How can I help you today?", [], "How can I help you today?"
    ),
    hunyuan("test_extract[single]", tool_calls(("get_weather", SF)), [("get_weather", SF)]),
    hunyuan(
        "test_extract[multiple]",
        tool_calls(("get_weather", SF), ("register_user", REGISTER)),
        [("get_weather", SF), ("register_user", REGISTER)],
    ),
    hunyuan(
        "test_extract[content before]",
        "I will call the tool now. " + tool_calls(("get_weather", {"city": "Boston"})),
        [("get_weather", {"city": "Boston"})],
        "I will call the tool now. ",
    ),
    hunyuan(
        "test_extract[content after]",
        tool_calls(("get_weather", {"city": "Seattle"})) + "\nThank you!",
        [("get_weather", {"city": "Seattle"})],
        "\nThank you!",
        note=DROPS_TEXT,
    ),
    hunyuan(
        "test_extract[nested]", tool_calls(("complex_tool", NESTED)), [("complex_tool", NESTED)]
    ),
    hunyuan(
        "test_streaming[answer close after the calls]",
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>'
        "\n</answer>",
        [("get_weather", {"city": "Boston"})],
        "\n",
    ),
    hunyuan(
        "test_non_ascii",
        tool_calls(("get_weather", {"city": "北京"})),
        [("get_weather", {"city": "北京"})],
    ),
    hunyuan(
        "test_streaming_one_empty_args_tool[first]",
        tool_calls(("a", {}), ("b", {"x": 42})),
        [("a", {}), ("b", {"x": 42})],
    ),
    hunyuan(
        "test_streaming_one_empty_args_tool[last]",
        tool_calls(("a", {"x": 42}), ("b", {})),
        [("a", {"x": 42}), ("b", {})],
    ),
    hunyuan(
        "the reply as the template writes it: think, then answer",
        "<think>\nBoston's weather: one call.\n</think>\n<answer>\nChecking."
        + tool_calls(("get_weather", {"city": "Boston"}))
        + "\n</answer>",
        [("get_weather", {"city": "Boston"})],
        "Checking.\n",
        reasoning="Boston's weather: one call.\n",
        fields=("content",),
    ),
]

JAMBA = "ai21labs/AI21-Jamba-Mini-1.7"
JAMBA_LIST = (
    '<tool_calls>[\n    {"name": "get_current_weather", "arguments": {"city": "Dallas", '
    '"state": "TX", "unit": "fahrenheit"}}'
)
JAMBA_ORLANDO = (
    ',\n    {"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", '
    '"unit": "fahrenheit"}}'
)


def jamba(
    name: str, text: str, calls: list[tuple[str, dict[str, Any]]], content: str = ""
) -> PeerCase:
    return case(f"{name} (Jamba)", "hunyuan_a13b", JAMBA, text, calls, content)


JAMBA_CASES = [
    jamba("test_extract_tool_calls_no_tools", "This is a test", [], "This is a test"),
    jamba(
        "test_extract_tool_calls[single_tool]",
        f" {JAMBA_LIST}\n]</tool_calls>",
        [("get_current_weather", DALLAS)],
        " ",
    ),
    jamba(
        "test_extract_tool_calls[single_tool_with_content]",
        f" Sure! let me call the tool for you.{JAMBA_LIST}\n]</tool_calls>",
        [("get_current_weather", DALLAS)],
        " Sure! let me call the tool for you.",
    ),
    jamba(
        "test_extract_tool_calls[parallel_tools]",
        f" {JAMBA_LIST}{JAMBA_ORLANDO}\n]</tool_calls>",
        [("get_current_weather", DALLAS), ("get_current_weather", ORLANDO)],
        " ",
    ),
    jamba(
        "test_extract_tool_calls_streaming_arguments_in_single_delta",
        '<tool_calls>[{"name": "get_current_weather", "arguments": {"city": "Dallas", '
        '"state": "TX"}}]</tool_calls>',
        [("get_current_weather", {"city": "Dallas", "state": "TX"})],
    ),
]

CASES = [*PHI4_MINI, *XLAM_CASES, *HUNYUAN_A13B, *JAMBA_CASES]
