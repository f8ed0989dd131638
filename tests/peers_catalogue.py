"""Cases of the rest of the peers' catalogue in use: Granite 4 and ERNIE 4.5 (``hermes``),
LongCat, GigaChat 3 (vLLM's ``test_granite4_tool_parser.py``, ``test_ernie45_moe_tool_parser.py``,
``test_longcat_tool_parser.py`` with ``common_tests.py``, ``test_gigachat3_tool_parser.py``)."""

from __future__ import annotations

import json
from typing import Any

from peer_cases import EVERY_JSON_TYPE
from peer_cases import vllm_case as case

GRANITE = "ibm-granite/granite-4.0-h-tiny"
ERNIE = "baidu/ERNIE-4.5-21B-A3B-PT"
ERNIE_THINKING = "baidu/ERNIE-4.5-21B-A3B-Thinking"
LONGCAT = "meituan-longcat/LongCat-Flash-Chat"
GIGACHAT = "ai-sage/GigaChat3-10B-A1.8B"
WHITESPACE = "we differ: text around calls is kept as the model wrote it, whitespace too"

COORDINATES = {"coordinates": [[23.54, 43.1], [-12.2, 54.3], [4, 5]], "coordinate_type": "latlong"}
STOCK = {"symbol": "AAPL", "start_date": "2021-01-01", "end_date": "2021-12-31"}
GRANITE_CALLS = [
    {"name": "find_bbox", "arguments": json.dumps(COORDINATES)},  # Granite writes a string
    {"name": "get_stock_price", "arguments": STOCK},
    {"name": "find_bbox", "arguments": json.dumps(COORDINATES)},
]
GRANITE_TEXT = [
    "Here goes the bbox call: \n",
    " Now the stock price call: \n ",
    " Now another bbox call: \n ",
    " See? I'm a helpful assistant.",
]
ERNIE_ONE = (
    '<tool_call>\n{"name": "get_current_temperature", "arguments": {"location": "Beijing"}}\n'
    "</tool_call>\n"
)
ERNIE_TWO = (
    ERNIE_ONE + '<tool_call>\n{"name": "get_temperature_unit", "arguments": {"location": '
    '"Guangzhou", "unit": "c"}}\n</tool_call>\n'
)
ERNIE_CALLS = [
    ("get_current_temperature", {"location": "Beijing"}),
    ("get_temperature_unit", {"location": "Guangzhou", "unit": "c"}),
]
LC_WEATHER = '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}'
LC_CLOSE = "</longcat_tool_call>"
ESCAPED = {
    "quoted": 'He said "hello"',
    "path": "C:\\Users\\file.txt",
    "newline": "line1\nline2",
    "unicode": "emoji: 🎉",
}
MESSAGE_SEP, ROLE_SEP, EOS = "<|message_sep|>\n\n", "<|role_sep|>\n", "</s>"
GC3, GC31 = f"{MESSAGE_SEP}function call{ROLE_SEP}", "<|function_call|>"
SIMPLE = {"action": "create", "id": "preferences"}
COMPLEX = {
    **SIMPLE,
    "content": {
        "short_answers": True,
        "hate_emojis": True,
        "english_ui": False,
        "russian_math_explanations": True,
    },
}


def gc(header: str, arguments: dict[str, Any]) -> str:
    return header + json.dumps(
        {"name": "manage_user_memory", "arguments": arguments}, ensure_ascii=False
    )


CASES = [
    case(
        "test_tool_call_parser_complex (Granite 4)",
        "hermes",
        GRANITE,
        "".join(
            text + (f"<tool_call> {json.dumps(call)} </tool_call>" if i < 3 else "")
            for i, (text, call) in enumerate(zip(GRANITE_TEXT, [*GRANITE_CALLS, {}], strict=True))
        ),
        [("find_bbox", COORDINATES), ("get_stock_price", STOCK), ("find_bbox", COORDINATES)],
        "".join(GRANITE_TEXT),
    ),
    case(
        "test_extract_tool_calls_no_tools (ERNIE)",
        "hermes",
        ERNIE,
        "This is a test",
        [],
        "This is a test",
    ),
    case(
        "test_extract_tool_calls[single_tool_call] (ERNIE)",
        "hermes",
        ERNIE,
        ERNIE_ONE,
        ERNIE_CALLS[:1],
        "\n",
        note=WHITESPACE,
    ),
    case(
        "test_extract_tool_calls[multiple_tool_calls] (ERNIE)",
        "hermes",
        ERNIE,
        ERNIE_TWO,
        ERNIE_CALLS,
        "\n\n",
        note=WHITESPACE,
    ),
    case(
        "test_extract_tool_calls[tool_call_with_content_before] (ERNIE Thinking)",
        "hermes",
        ERNIE_THINKING,
        "I need to call two tools to handle these two issues separately.\n</think>\n\n" + ERNIE_TWO,
        ERNIE_CALLS,
        # (the whitespace after </think>, up to the first text, is framing)
        reasoning="I need to call two tools to handle these two issues separately.\n",
        fields=("content",),
        note="we differ: ERNIE 4.5 Thinking's template opens the think block, so the text before "
        "</think> is reasoning (vLLM's tool parser leaves it in the content)",
    ),
    case(
        "test_no_tool_calls (LongCat)",
        "longcat",
        LONGCAT,
        "This is a regular response without any tool calls.",
        [],
        "This is a regular response without any tool calls.",
    ),
    case(
        "test_single_tool_call (LongCat)",
        "longcat",
        LONGCAT,
        LC_WEATHER + LC_CLOSE,
        [("get_weather", {"city": "Tokyo"})],
    ),
    case(
        "test_parallel_tool_calls (LongCat)",
        "longcat",
        LONGCAT,
        f'{LC_WEATHER}{LC_CLOSE}\n<longcat_tool_call>{{"name": "get_time", "arguments": '
        f'{{"timezone": "Asia/Tokyo"}}}}{LC_CLOSE}',
        [("get_weather", {"city": "Tokyo"}), ("get_time", {"timezone": "Asia/Tokyo"})],
        "\n",
        note=WHITESPACE,
    ),
    case(
        "test_various_data_types (LongCat)",
        "longcat",
        LONGCAT,
        "<longcat_tool_call>"
        + json.dumps({"name": "test_function", "arguments": EVERY_JSON_TYPE}, indent=2)
        + LC_CLOSE,
        [("test_function", EVERY_JSON_TYPE)],
    ),
    case(
        "test_empty_arguments (LongCat)",
        "longcat",
        LONGCAT,
        f'<longcat_tool_call>{{"name": "refresh", "arguments": {{}}}}{LC_CLOSE}',
        [("refresh", {})],
    ),
    case(
        "test_surrounding_text (LongCat)",
        "longcat",
        LONGCAT,
        f"Let me check the weather for you.\n{LC_WEATHER}{LC_CLOSE}\nHere is the result.",
        [("get_weather", {"city": "Tokyo"})],
        "Let me check the weather for you.\n\nHere is the result.",
    ),
    case(
        "test_escaped_strings (LongCat)",
        "longcat",
        LONGCAT,
        "<longcat_tool_call>"
        + json.dumps({"name": "test_function", "arguments": ESCAPED}, indent=2, ensure_ascii=False)
        + LC_CLOSE,
        [("test_function", ESCAPED)],
    ),
    case(
        "test_malformed_input (LongCat: arguments not an object)",
        "longcat",
        LONGCAT,
        f'<longcat_tool_call>{{"name": "func", "arguments": "not a dict"}}{LC_CLOSE}',
        [],
        f'<longcat_tool_call>{{"name": "func", "arguments": "not a dict"}}{LC_CLOSE}',
    ),
    case(
        "test_malformed_input (LongCat: not JSON)",
        "longcat",
        LONGCAT,
        "Some text with <longcat_tool_call>invalid json",
        [],
        "Some text with <longcat_tool_call>invalid json",
    ),
    case(
        "test_no_tool_call (GigaChat)",
        "gigachat3",
        GIGACHAT,
        "How can I help you today?",
        [],
        "How can I help you today?",
    ),
    *(
        case(
            f"test_tool_call[{kind}_{version}]",
            "gigachat3",
            GIGACHAT,
            prefix + gc(header, arguments) + eos,
            [("manage_user_memory", arguments)],
            prefix,
        )
        for version, header in (("gigachat3", GC3), ("gigachat31", GC31))
        for kind, prefix, arguments, eos in (
            ("simple", "", SIMPLE, ""),
            ("parameterless", "", {}, ""),
            ("complex", "", COMPLEX, ""),
            ("mixed_content", "I'll check that for you.", SIMPLE, ""),
            ("mixed_content_with_eos", "I'll check that for you.", SIMPLE, EOS),
        )
    ),
]
