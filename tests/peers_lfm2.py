"""LFM2 cases: vLLM's ``test_lfm2_tool_parser.py``, SGLang's ``Lfm2Detector`` (its docstring's
examples, the JSON form too, and its tests' keyword-named parameters), Liquid AI's model-card
example, and the cases llama.cpp and Ollama test their LFM2 readers with."""

from __future__ import annotations

from typing import Any

from peer_cases import REGISTER_USER, REGISTER_USER_PYTHON, PeerCase

LFM2 = "LiquidAI/LFM2.5-1.2B-Instruct"
LFM2_TOOL = "LiquidAI/LFM2-1.2B-Tool"
START = "<|tool_call_start|>"
END = "<|tool_call_end|>"

SIMPLE = "get_candidate_status(candidate_id='12345')"
SIMPLE_CALL = ("get_candidate_status", {"candidate_id": "12345"})
MORE_TYPES = REGISTER_USER_PYTHON
MORE_TYPES_CALL = ("register_user", REGISTER_USER)
DOTTED = (
    "grocery.orderIngredients(ingredientList=[{'name': 'Lasagna noodles', 'amount': 250, "
    "'unit': 'g'}], deliveryAddress='845 Willow Lane, Springfield, IL 62704')"
)
DOTTED_CALL = (
    "grocery.orderIngredients",
    {
        "ingredientList": [{"name": "Lasagna noodles", "amount": 250, "unit": "g"}],
        "deliveryAddress": "845 Willow Lane, Springfield, IL 62704",
    },
)
# A python -c payload with its own quotes and a raw line break, in a single-quoted string.
NESTED_PYTHON_C = (
    "bash(command='cd /testbed && python3 -c \"from sympy import latex\n"
    "print(latex(3*x, mul_symbol='\\,'))\"')"
)
NESTED_PYTHON_C_COMMAND = (
    "cd /testbed && python3 -c \"from sympy import latex\nprint(latex(3*x, mul_symbol='\\,'))\""
)
ECHO = (
    "[grocery.orderIngredients(ingredientList=[{'name': 'apple', 'quantity': '2'}], "
    "deliveryAddress='123 Main St')]"
)
ECHO_CALL = (
    "grocery.orderIngredients",
    {"ingredientList": [{"name": "apple", "quantity": "2"}], "deliveryAddress": "123 Main St"},
)


def wrap(calls: str) -> str:
    return f"{START}[{calls}]{END}"


def lfm2(
    name: str,
    text: str,
    calls: list[tuple[str, dict[str, Any]]],
    content: str = "",
    source: str = "vllm",
    **kw: Any,
) -> PeerCase:
    return PeerCase(f"{source}:{name} (LFM2)", "lfm2", LFM2, text, calls, content, **kw)


LFM2_CASES = [
    lfm2("test_no_tool_call", "How can I help you today?", [], "How can I help you today?"),
    lfm2("test_tool_call[simple]", wrap(SIMPLE), [SIMPLE_CALL]),
    lfm2("test_tool_call[more_types]", wrap(MORE_TYPES), [MORE_TYPES_CALL]),
    lfm2("test_tool_call[parameterless]", wrap("get_weather()"), [("get_weather", {})]),
    lfm2(
        "test_tool_call[empty_dict]",
        wrap("do_something_cool(additional_data={})"),
        [("do_something_cool", {"additional_data": {}})],
    ),
    lfm2(
        "test_tool_call[empty_list]",
        wrap("do_something_cool(steps=[])"),
        [("do_something_cool", {"steps": []})],
    ),
    lfm2(
        "test_tool_call[escaped_string]",
        wrap(r"get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')"),
        [("get_weather", {"city": "Martha's Vineyard", "metric": '"cool units"'})],
    ),
    lfm2(
        "test_tool_call[parallel_calls]",
        wrap(f"{SIMPLE}, {MORE_TYPES}"),
        [SIMPLE_CALL, MORE_TYPES_CALL],
    ),
    lfm2(
        "test_tool_call[content_after_tool_call]",
        wrap(SIMPLE) + "\nChecking the current status of candidate ID 12345.",
        [SIMPLE_CALL],
        "\nChecking the current status of candidate ID 12345.",
        note="we differ: the text after the block keeps its line break",
    ),
    lfm2("test_tool_call[dotted_name]", wrap(DOTTED), [DOTTED_CALL]),
    lfm2(
        "test_tool_call[bracket_in_string]",
        wrap("exec(command='grep -F \"]\" log.txt')"),
        [("exec", {"command": 'grep -F "]" log.txt'})],
    ),
    lfm2(
        "test_tool_call[multiline_string_arg]",
        wrap("exec(command='cat > f.py << EOF\nimport csv\nprint(1)\nEOF')"),
        [("exec", {"command": "cat > f.py << EOF\nimport csv\nprint(1)\nEOF"})],
    ),
    lfm2(
        "test_tool_call[set_arg]",
        wrap("label(tags={'urgent', 'bug'})"),
        [("label", {"tags": ["urgent", "bug"]})],
    ),
    lfm2(
        "test_tool_call[nested_quote]",
        wrap("bash(command='sed -n '360,450p' /testbed/sympy/matrices/common.py')"),
        [("bash", {"command": "sed -n '360,450p' /testbed/sympy/matrices/common.py"})],
    ),
    lfm2(
        "test_tool_call[nested_python_c]",
        wrap(NESTED_PYTHON_C),
        [("bash", {"command": NESTED_PYTHON_C_COMMAND})],
    ),
    lfm2(
        "test_tool_call[leading_zero_int]",
        wrap("set_date(month=07, day=05)"),
        [("set_date", {"month": 7, "day": 5})],
    ),
    lfm2(
        "test_tool_call[nul_byte_string_arg]",
        wrap("exec(command='printf a\x00b')"),
        [("exec", {"command": "printf a\x00b"})],
    ),
    lfm2("test_empty_tool_call_block", wrap(""), [], "[]", note="the empty list is text"),
    lfm2(
        "test_bad_sibling_call_does_not_drop_good_calls",
        wrap(f"{SIMPLE}, bad(x=b'z')"),
        [SIMPLE_CALL],
        "bad(x=b'z')",
        note="we differ: the call that does not convert is the model's text, not dropped",
    ),
    lfm2("test_whitespace_after_start_token", f"{START} [{SIMPLE}]{END}", [SIMPLE_CALL]),
    lfm2(
        "test_streaming_tool_call_with_large_steps",
        wrap(f"{SIMPLE}, get_weather(), do_something_cool(steps=[])"),
        [SIMPLE_CALL, ("get_weather", {}), ("do_something_cool", {"steps": []})],
    ),
    lfm2(
        "test_streaming_leading_block_and_trailing_in_single_delta",
        f"Let me check. {wrap(SIMPLE)}\nDone.",
        [SIMPLE_CALL],
        "Let me check. \nDone.",
    ),
    lfm2(
        "test_echoed_tool_call_body_not_leaked_to_content",
        f"{START}{ECHO}{END}{ECHO}{END}",
        [ECHO_CALL],
    ),
    lfm2(
        "test_streaming_char_by_char_multi_dict_list",
        f"{START}[grocery.orderIngredients(ingredientList=["
        '{"name": "apple", "quantity": "2"}, {"name": "bread", "quantity": "1"}'
        f"])]{END}",
        [
            (
                "grocery.orderIngredients",
                {
                    "ingredientList": [
                        {"name": "apple", "quantity": "2"},
                        {"name": "bread", "quantity": "1"},
                    ]
                },
            )
        ],
    ),
    lfm2(
        "JSON call objects in the block",
        wrap('{"name": "calculator", "arguments": {"expression": "5 * 7", "exact": true}}'),
        [("calculator", {"expression": "5 * 7", "exact": True})],
        source="sglang",
    ),
    lfm2(
        "test_reserved_keyword_parameter_recovered",
        wrap("search(query='M.md', from=1)"),
        [("search", {"query": "M.md", "from": 1})],
        source="sglang",
    ),
    lfm2(
        "test_reserved_kwarg_with_nested_quote_recovered",
        wrap("search(from='sed -n '1,5p' f.py')"),
        [("search", {"from": "sed -n '1,5p' f.py"})],
        source="sglang",
    ),
    lfm2(
        "test_reserved_kwarg_suffix_parameter_not_rewritten",
        wrap("search(query='x', in_pyreservedkw_=5)"),
        [("search", {"query": "x", "in_pyreservedkw_": 5})],
        source="sglang",
    ),
    lfm2(
        "test_ambiguous_nested_quotes_not_guessed",
        wrap("get_weather(city='echo 'hi', unit='celsius')"),
        [("get_weather", {"city": "echo 'hi", "unit": "celsius"})],
        source="sglang",
        note="we differ: a closing past the start of the next argument is no reading, so "
        "one closing is left (SGLang and vLLM call it ambiguous: no call)",
    ),
    lfm2(
        "a string its quotes left open ends at the end token",
        "Running it." + wrap("bash(command='echo it's ok')") + "\nDone.",
        [("bash", {"command": "echo it's ok"})],
        "Running it.\nDone.",
        source="ours",
    ),
    lfm2(
        "an open double-quoted string before another argument",
        wrap('bash(command="echo 5" inches", timeout=5)'),
        [("bash", {"command": 'echo 5" inches', "timeout": 5})],
        source="ours",
    ),
    lfm2(
        "a bare list of calls where the server dropped the tokens",
        "Sure. [get_weather(city='Paris', units=null)]",
        [("get_weather", {"city": "Paris", "units": None})],
        "Sure. ",
        source="ours",
        tools={"get_weather": {"type": "object"}},
    ),
]


def card(
    name: str,
    text: str,
    calls: list[tuple[str, dict[str, Any]]],
    content: str = "",
    model: str = LFM2_TOOL,
    **kw: Any,
) -> PeerCase:
    return PeerCase(f"{name} (LFM2)", "lfm2", model, text, calls, content, **kw)


LFM25 = LFM2
CARD_CASES = [
    card(
        "no tool call",
        "The candidate is in the interview stage.",
        [],
        "The candidate is in the interview stage.",
    ),
    card(
        "model card: one call after text",
        f'Let me check that.{START}[get_candidate_status(candidate_id="12345")]{END}',
        [("get_candidate_status", {"candidate_id": "12345"})],
        "Let me check that.",
    ),
    card(
        "detector: one call",
        f'{START}[calculator(expression="5 * 7")]{END}',
        [("calculator", {"expression": "5 * 7"})],
    ),
    card(
        "detector: two calls",
        f'{START}[get_weather(city="Paris"), get_time(zone="CET")]{END}',
        [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "CET"})],
    ),
    card(
        "literals: numbers, booleans, None, lists, dicts",
        f"{START}[search(query='weather', n=3, exact=True, since=None, "
        f"tags=['a', 'b'], opts={{'x': -1.5}})]{END}",
        [
            (
                "search",
                {
                    "query": "weather",
                    "n": 3,
                    "exact": True,
                    "since": None,
                    "tags": ["a", "b"],
                    "opts": {"x": -1.5},
                },
            )
        ],
        model=LFM25,
    ),
    card(
        "a call without arguments, then text",
        f"{START}[get_time()]{END}\nDone.",
        [("get_time", {})],
        "\nDone.",
    ),
    card(
        "non-ASCII values",
        f'{START}[get_weather(city="北京")]{END}',
        [("get_weather", {"city": "北京"})],
        model=LFM25,
    ),
    card(
        "the JSON form",
        f'{START}[{{"name": "calculator", "arguments": {{"expression": "5 * 7"}}}}]{END}',
        [("calculator", {"expression": "5 * 7"})],
    ),
]

CASES = [*LFM2_CASES, *CARD_CASES]
