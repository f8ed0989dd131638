"""Tencent Hy3 cases (``hy_v3``), as data: vLLM's ``test_hy_v3_tool_parser.py`` and the Hy3 half
of ``test_hy_truncated_stream.py``, the value typing of vLLM's HY parsers (the table of its
``test_hy_v4_tool_parser.py``: ``hy_v3`` types values with the same function), SGLang's
``test_hunyuan_detector.py``, and Hy3's own spelling of the tags (``<tool_calls:opensource>``,
its tokenizer's ``token_suffix``).

Where we differ from a peer on purpose, the case says so: a cut-off call keeps what arrived, text
after the block stays text, and a value is typed by the project's rules (``docs/formats.md``,
Typed values: the first type of a union that is not null).
"""

from __future__ import annotations

from typing import Any

from peer_cases import PeerCase, obj

HY3 = "tencent/Hy3"
HY3_PREVIEW = "tencent/Hy3-preview"
S = ":opensource"
HY_TOOLS = {
    "get_current_date": {},
    "get_weather": obj(city={"type": "string"}, date={"type": "string"}),
}
SGLANG_TOOLS = {
    "get_current_date": {},
    "get_weather": {**obj(city={"type": "string"}, date={"type": "string"}), "required": ["city"]},
    "search": {**obj(query={"type": "string"}, count={"type": "integer"}), "required": ["query"]},
    "calculate": obj(
        expression={"type": "string"}, precision={"type": "number"}, verbose={"type": "boolean"}
    ),
}
#: vLLM's typing table: every schema type, aliases, unions, and no type at all.
TYPED_TOOLS = {
    "typed": obj(
        s={"type": "string"},
        i={"type": "integer"},
        b={"type": "boolean"},
        n={"type": "number"},
        arr={"type": "array"},
        obj={"type": "object"},
        alias_int={"type": "int"},
        alias_list={"type": "list"},
        prefix_uint={"type": "uint32"},
        union={"type": ["string", "object"]},
        any_of={"anyOf": [{"type": "string"}, {"type": "array"}]},
        one_of={"oneOf": [{"type": "number"}]},
        untyped={},
    )
}
BEIJING = ("get_weather", {"city": "Beijing"})
BEIJING_DATE = ("get_weather", {"city": "Beijing", "date": "2026-03-30"})
DATE = ("get_current_date", {})
WEATHER_ARGS = (
    "<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
    "<arg_key>date</arg_key>\n<arg_value>2026-03-30</arg_value>\n"
)
ZERO_ARG = "<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>"
COMPLETE_ARGS = "<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>"
TRUNCATED_HEAD = "<tool_calls>\n<tool_call>get_weather<tool_sep>\n"
KEPT = "we differ: a call cut off by the end of the stream keeps what arrived"


def hy(name: str, text: str, calls: list[tuple[str, dict[str, Any]]], **kw: Any) -> PeerCase:
    kw.setdefault("tools", HY_TOOLS)
    return PeerCase(f"vllm:{name}", "hy_v3", HY3_PREVIEW, text, calls, **kw)


def sglang(name: str, text: str, calls: list[tuple[str, dict[str, Any]]], **kw: Any) -> PeerCase:
    kw.setdefault("tools", SGLANG_TOOLS)
    return PeerCase(f"sglang:{name}", "hy_v3", HY3, text, calls, **kw)


def suffixed(text: str) -> str:
    """Hy3's spelling of every tag in ``text``."""
    for tag in ("tool_calls", "tool_call", "tool_sep", "arg_key", "arg_value"):
        text = text.replace(f"<{tag}>", f"<{tag}{S}>").replace(f"</{tag}>", f"</{tag}{S}>")
    return text


def typed(key: str, raw: str, expected: Any, note: str = "") -> PeerCase:
    text = (
        f"<tool_calls><tool_call>typed<tool_sep><arg_key>{key}</arg_key>"
        f"<arg_value>{raw}</arg_value></tool_call></tool_calls>"
    )
    name = f"vllm:TestArgumentValueTypes {key}={raw!r}"
    return PeerCase(
        name, "hy_v3", HY3, text, [("typed", {key: expected})], tools=TYPED_TOOLS, note=note
    )


UNION = "we differ: a union is typed as its first type that is not null (a string here)"

VLLM = [
    hy("test_no_tool_call", "This is a plain response.", [], content="This is a plain response."),
    hy(
        "test_zero_arg_inline",
        "<tool_calls><tool_call>get_current_date<tool_sep></tool_call></tool_calls>",
        [DATE],
    ),
    hy("test_zero_arg_newline", ZERO_ARG, [DATE]),
    hy(
        "test_args_same_line",
        "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Beijing"
        "</arg_value><arg_key>date</arg_key><arg_value>2026-03-30</arg_value></tool_call>"
        "</tool_calls>",
        [BEIJING_DATE],
    ),
    hy(
        "test_args_with_newlines",
        f"<tool_calls>\n<tool_call>get_weather<tool_sep>\n{WEATHER_ARGS}</tool_call>\n</tool_calls>",
        [BEIJING_DATE],
    ),
    hy("test_content_before", "Checking." + ZERO_ARG, [DATE], content="Checking."),
    hy(
        "test_multiple",
        f"<tool_calls>\n<tool_call>get_weather<tool_sep>\n{WEATHER_ARGS}</tool_call>\n"
        "<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Hangzhou"
        "</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2026-03-30</arg_value>\n</tool_call>\n"
        "</tool_calls>",
        [BEIJING_DATE, ("get_weather", {"city": "Hangzhou", "date": "2026-03-30"})],
    ),
    hy(
        "test_hy3_complete_stream_is_unchanged",
        f"{TRUNCATED_HEAD}{COMPLETE_ARGS}\n</tool_call>\n</tool_calls>",
        [BEIJING],
    ),
    *(
        hy(
            f"test_hy3_truncated_after_closed_argument[{tail!r}]",
            TRUNCATED_HEAD + COMPLETE_ARGS + tail,
            [BEIJING],
        )
        for tail in ("", "\n", "\n\n")
    ),
    hy(
        "test_hy3_truncated_mid_value",
        f"{TRUNCATED_HEAD}{COMPLETE_ARGS}\n<arg_key>date</arg_key>\n<arg_value>2026",
        [("get_weather", {"city": "Beijing", "date": "2026"})],
    ),
    hy(
        "test_hy3_truncated_after_key_only",
        TRUNCATED_HEAD + "<arg_key>city</arg_key>",
        [("get_weather", {})],
    ),
    hy(
        "test_hy3_second_call_truncated",
        f"<tool_calls>\n<tool_call>get_weather<tool_sep>\n{COMPLETE_ARGS}\n</tool_call>\n"
        "<tool_call>get_weather<tool_sep>\n<arg_key>date</arg_key>\n<arg_value>2026",
        [BEIJING, ("get_weather", {"date": "2026"})],
    ),
    # Hy4's markup (vLLM's hy_v4 cases): Hy3's spelling, no <tool_sep>. The same reader.
    hy(
        "test_hy4_complete_stream_is_unchanged",
        suffixed(
            "<tool_calls>\n<tool_call>get_weather<arg_key>city</arg_key>"
            "<arg_value>Beijing</arg_value></tool_call>\n</tool_calls>"
        ),
        [BEIJING],
    ),
    hy(
        "test_hy4_truncated_with_whitespace_between_tags",
        suffixed(
            "<tool_calls>\n<tool_call>get_weather<arg_key>city</arg_key>\n"
            "<arg_value>Beijing</arg_value>"
        ),
        [BEIJING],
    ),
    hy(
        "TestExtractToolCalls::test_non_ascii_values_are_not_escaped",
        suffixed(
            "<tool_calls><tool_call>get_weather<arg_key>city</arg_key><arg_value>北京</arg_value>"
            "</tool_call></tool_calls>"
        ),
        [("get_weather", {"city": "北京"})],
    ),
    hy(
        "TestExtractToolCalls::test_multiple_calls_keep_their_order",
        suffixed(
            "sure!<tool_calls><tool_call>get_weather<arg_key>city</arg_key><arg_value>A"
            "</arg_value></tool_call><tool_call>get_current_date</tool_call></tool_calls>"
        ),
        [("get_weather", {"city": "A"}), DATE],
        content="sure!",
    ),
    typed("s", "Beijing", "Beijing"),
    typed("s", "", ""),
    typed("i", "3", 3),
    typed("i", "-7", -7),
    typed("b", "true", True),
    typed("b", "True", True),
    typed("b", "false", False),
    typed("n", "5", 5),
    typed("n", "5.5", 5.5),
    typed("n", "1e3", 1000),
    typed("arr", '["a", "b"]', ["a", "b"]),
    typed("obj", '{"k": 1}', {"k": 1}),
    typed("alias_int", "7", 7),
    typed("alias_list", "[1]", [1]),
    typed("prefix_uint", "42", 42),
    typed("union", '{"a": 1}', '{"a": 1}', UNION),
    typed("union", "plain", "plain"),
    typed("any_of", '["x"]', '["x"]', UNION),
    typed("any_of", "plain", "plain"),
    typed("one_of", "2.5", 2.5),
    typed("untyped", "v", "v"),
    typed("i", "notanint", "notanint"),
    typed("b", "yes", "yes"),
    typed("arr", "notjson", "notjson"),
    typed("nope", "v", "v"),
]

SGLANG = [
    sglang(
        "test_has_tool_call_with_surrounding_text",
        "text before <tool_calls> text after",
        [],
        content="text before <tool_calls> text after",
        note="a block tag without a call after it is text",
    ),
    sglang(
        "test_partial_bot_token_buffered",
        "Hello <tool_",
        [],
        content="Hello <tool_",
        note="held while it may be a tag; at the end of the stream it is text",
    ),
    sglang(
        "test_unknown_tool_skipped",
        "<tool_calls><tool_call>nonexistent_func<tool_sep><arg_key>x</arg_key><arg_value>1"
        "</arg_value></tool_call></tool_calls>",
        [("nonexistent_func", {"x": "1"})],
        note="we differ: a call to a tool not offered goes out (unknown_tools='drop' drops it)",
    ),
    sglang(
        "test_mixed_known_and_unknown_tools",
        "<tool_calls><tool_call>get_current_date<tool_sep></tool_call>"
        "<tool_call>nonexistent<tool_sep></tool_call><tool_call>search<tool_sep>"
        "<arg_key>query</arg_key><arg_value>test</arg_value></tool_call></tool_calls>",
        [DATE, ("nonexistent", {}), ("search", {"query": "test"})],
        note="we differ: as above",
    ),
    sglang(
        "test_three_parallel_tool_calls",
        "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Beijing"
        "</arg_value></tool_call><tool_call>get_weather<tool_sep><arg_key>city</arg_key>"
        "<arg_value>Tokyo</arg_value></tool_call><tool_call>get_current_date<tool_sep>"
        "</tool_call></tool_calls>",
        [BEIJING, ("get_weather", {"city": "Tokyo"}), DATE],
    ),
    sglang(
        "test_integer_arg",
        "<tool_calls><tool_call>search<tool_sep><arg_key>query</arg_key><arg_value>restaurants"
        "</arg_value><arg_key>count</arg_key><arg_value>5</arg_value></tool_call></tool_calls>",
        [("search", {"query": "restaurants", "count": 5})],
    ),
    sglang(
        "test_float_arg",
        "<tool_calls><tool_call>calculate<tool_sep><arg_key>expression</arg_key><arg_value>1+1"
        "</arg_value><arg_key>precision</arg_key><arg_value>0.01</arg_value></tool_call>"
        "</tool_calls>",
        [("calculate", {"expression": "1+1", "precision": 0.01})],
    ),
    sglang(
        "test_boolean_arg",
        "<tool_calls><tool_call>calculate<tool_sep><arg_key>expression</arg_key><arg_value>2+2"
        "</arg_value><arg_key>verbose</arg_key><arg_value>true</arg_value></tool_call>"
        "</tool_calls>",
        [("calculate", {"expression": "2+2", "verbose": True})],
    ),
    sglang(
        "test_string_arg_not_deserialized",
        '<tool_calls><tool_call>search<tool_sep><arg_key>query</arg_key><arg_value>{"key": '
        '"value"}</arg_value></tool_call></tool_calls>',
        [("search", {"query": '{"key": "value"}'})],
    ),
    sglang(
        "test_non_json_value_stays_string",
        "<tool_calls><tool_call>search<tool_sep><arg_key>query</arg_key><arg_value>hello world"
        "</arg_value><arg_key>count</arg_key><arg_value>not a number</arg_value></tool_call>"
        "</tool_calls>",
        [("search", {"query": "hello world", "count": "not a number"})],
    ),
    sglang(
        "test_streaming_content_before",
        "Checking.<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>",
        [DATE],
        content="Checking.",
    ),
]

#: Hy3's own spelling (its tokenizer's ``token_suffix``), as its chat template lays calls out.
WRITE_FILE = obj(path={"type": "string"}, content={"type": "string"}, append={"type": "boolean"})
SEARCH = obj(query={"type": "string"}, filters={"type": "object"}, tags={"type": "array"})
RELEASE = [
    PeerCase(
        "Hy3's spelling: text before and after the block, two calls, typed values",
        "hy_v3",
        HY3,
        suffixed(
            "Let me look.<tool_calls>\n<tool_call>search<tool_sep>\n"
            "<arg_key>query</arg_key>\n<arg_value>a < b && c\n</arg_value>\n"
            '<arg_key>filters</arg_key>\n<arg_value>{"lang": "en", "max": 5}</arg_value>\n'
            '<arg_key>tags</arg_key>\n<arg_value>["x", "y"]</arg_value>\n</tool_call>\n'
            "<tool_call>write_file<tool_sep>\n<arg_key>path</arg_key>\n<arg_value>a.md"
            "</arg_value>\n<arg_key>content</arg_key>\n<arg_value>\n# Title\n\n<b>x</b>\n"
            "</arg_value>\n<arg_key>append</arg_key>\n<arg_value>false</arg_value>\n</tool_call>\n"
            "</tool_calls>Done."
        ),
        [
            (
                "search",
                {"query": "a < b && c\n", "filters": {"lang": "en", "max": 5}, "tags": ["x", "y"]},
            ),
            ("write_file", {"path": "a.md", "content": "\n# Title\n\n<b>x</b>\n", "append": False}),
        ],
        "Let me look.Done.",
        tools={"search": SEARCH, "write_file": WRITE_FILE},
        note="values are exact: Hy3's template writes them between the tags as they are",
    ),
    PeerCase(
        "Hy3's spelling: a stray block end and a call whose block the model left out",
        "hy_v3",
        HY3,
        suffixed("A</tool_calls>B<tool_call>get_current_date<tool_sep></tool_call> C"),
        [DATE],
        "AB C",
        tools=HY_TOOLS,
    ),
]

CASES = [*VLLM, *SGLANG, *RELEASE]
