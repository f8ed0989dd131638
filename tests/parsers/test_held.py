"""What every parser says it holds (``held``, ``held_arguments``) and gives back as text.

The rewriter bounds memory with these sizes, so each must grow with the markup a parser keeps
back, count each character once, and drop to 0 once the markup is resolved.
"""

from __future__ import annotations

import pytest
from parser_helpers import TOOLS, run

from toolcall_middleware.events import CallStart
from toolcall_middleware.parsers import ToolCallParser, create_parser
from toolcall_middleware.parsers.deepseek import CALL_BEGIN, CALL_END_MARKER, SEP

KIMI_CALL, KIMI_ARGS, KIMI_END = (
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    ("<|tool_call_end|>"),
)

# provider: (markup that opens a header, a piece that extends it, what completes the call)
HEADERS = {
    "hermes": ("<tool_call>", "\n  ", '{"name": "get_time"}</tool_call>'),
    "qwen3_coder": ("<tool_call>\n<function=", "get_", "></function>\n</tool_call>"),
    "deepseek": (CALL_BEGIN, "get_", f"{SEP}{{}}{CALL_END_MARKER}"),
    "glm45": ("<tool_call>", "get_", "</tool_call>"),
    "minimax_m2": ('<minimax:tool_call><invoke name="', "get_", '"></invoke></minimax:tool_call>'),
    "mistral": ("[TOOL_CALLS]", "get_", "{}"),
    "llama3_json": ("<|python_tag|>", " \n", '{"name": "get_time", "arguments": {}}'),
    "gpt_oss": ("<|start|>assistant", " x", " to=functions.get_time<|message|>{}<|call|>"),
    "kimi_k2": (KIMI_CALL, "functions.get_", f"time:0{KIMI_ARGS}{{}}{KIMI_END}"),
}
# provider: (the start of a call whose arguments are held, more of them, the call's end)
ARGUMENTS = {
    "hermes": ('<tool_call>{"arguments": {"a": "', "xyz", '"}, "name": "get_time"}</tool_call>'),
    "qwen3_coder": ("<function=get_weather><parameter=days>", "12", "</parameter></function>"),
    "qwen_xml": ("<bash><command>", "ls ", "</command></bash>"),
    "glm45": (
        "<tool_call>get_weather<arg_key>days</arg_key><arg_value>",
        "12",
        "</arg_value></tool_call>",
    ),
    "minimax_m2": (
        '<minimax:tool_call><invoke name="get_weather"><parameter name="days">',
        "12",
        "</parameter></invoke></minimax:tool_call>",
    ),
    "mistral": ('[TOOL_CALLS][{"arguments": {"a": "', "xyz", '"}, "name": "get_time"}]'),
    "llama3_json": ('{"parameters": {"a": "', "xyz", '"}, "name": "get_time"}'),
    # A client-style id names no tool: the arguments choose it, so they wait for the end.
    "kimi_k2": (f'{KIMI_CALL}call_9{KIMI_ARGS}{{"command": "', "ls ", f'"}}{KIMI_END}'),
}
# provider: (markup that is not a call, given back as text once)
NOT_CALLS = {
    "hermes": "<tool_call> not json",
    "qwen3_coder": "<tool_call> plain",
    "qwen_xml": "Use <bash> to run it.",
    "deepseek": f"{CALL_BEGIN}function",
    "glm45": '<tool_call>{"name": "x"}',
    "minimax_m2": "<minimax:tool_call><invoke name",
    "mistral": "[TOOL_CALLS] nope",
    "llama3_json": "<|python_tag|>brave_search.call()",
    "gpt_oss": "<|start|>assistant<|channel|>comm",
    "kimi_k2": f"{KIMI_CALL}functions.bash",
}


def held(parser: ToolCallParser) -> tuple[int, int]:
    """``held`` and ``held_arguments``, optional in the protocol (-1: missing)."""
    return getattr(parser, "held", -1), getattr(parser, "held_arguments", -1)


def grows(provider: str, start: str, piece: str) -> list[tuple[int, int]]:
    """The sizes of a parser fed ``start`` and then ``piece`` three times, after each piece."""
    parser = create_parser(provider, TOOLS)
    parser.feed(start)
    sizes = []
    for _ in range(3):
        parser.feed(piece)
        sizes.append(held(parser))
    return sizes


def resolved(provider: str, start: str, piece: str, end: str) -> tuple[int, int, bool]:
    """(held, held_arguments, a call came out) once the call is complete."""
    parser = create_parser(provider, TOOLS)
    events = [*parser.feed(start), *parser.feed(piece), *parser.feed(end)]
    return (*held(parser), any(isinstance(e, CallStart) for e in events))


@pytest.mark.parametrize("provider", HEADERS)
def test_an_unfinished_header_is_held_once_per_character_and_released(provider: str) -> None:
    start, piece, end = HEADERS[provider]
    first, second, third = (markup for markup, _ in grows(provider, start, piece))
    assert first > 0 and second - first == third - second == len(piece)
    assert resolved(provider, start, piece, end) == (0, 0, True)


@pytest.mark.parametrize("provider", ARGUMENTS)
def test_held_arguments_grow_until_the_call_can_go_and_are_released(provider: str) -> None:
    start, piece, end = ARGUMENTS[provider]
    first, second, third = (arguments for _, arguments in grows(provider, start, piece))
    assert first > 0 and second - first == third - second == len(piece)
    assert resolved(provider, start, piece, end) == (0, 0, True)


@pytest.mark.parametrize("provider", NOT_CALLS)
def test_markup_given_back_as_text_is_counted(provider: str) -> None:
    parser = create_parser(provider, TOOLS)
    run(parser, ["Before. ", NOT_CALLS[provider], " after {x} [y]"])
    assert getattr(parser, "text_fallbacks", 0) == 1
    assert held(parser) == (0, 0)


def test_braces_in_prose_are_not_fallbacks_for_llama3_json() -> None:
    parser = create_parser("llama3_json", TOOLS)
    run(parser, ['f() { return 1; } and {"name": "pkg"} <|python_tag|>{"name": "f"}'])
    assert getattr(parser, "text_fallbacks", -1) == 1  # only the tagged object


def test_sniffing_holds_the_undecided_marker_then_reports_the_formats_sizes() -> None:
    parser = create_parser("sniff", TOOLS)
    parser.feed("Hi <tool_call>")  # hermes, qwen3_coder or glm45: the next characters tell
    assert held(parser) == (len("<tool_call>"), 0)
    parser.feed('\n{"arguments": {')  # hermes, with the arguments before the name
    assert held(parser) == (len("<tool_call>\n"), len('{"arguments": {'))
    parser.feed('}, "name": "get_time"}</tool_call> <tool_call> no')
    parser.finish()
    assert held(parser) == (0, 0)
    assert getattr(parser, "text_fallbacks", 0) == 1


# provider: (a call object up to its name, more of the name, the rest of the call)
OBJECT_NAMES = {
    "hermes": ('<tool_call>{"name": "', "get_", 'time"}</tool_call>'),
    "mistral": ('[TOOL_CALLS][{"name": "', "get_", 'time", "arguments": {}}]'),
    "llama3_json": ('<|python_tag|>{"arguments": {}, "name": "', "get_", 'time"}'),
}


@pytest.mark.parametrize("provider", OBJECT_NAMES)
def test_a_call_objects_name_is_held_as_a_header_not_as_arguments(provider: str) -> None:
    start, piece, end = OBJECT_NAMES[provider]
    sizes = grows(provider, start, piece)
    assert [markup for markup, _ in sizes][1:] == [
        sizes[0][0] + len(piece),
        sizes[0][0] + 2 * len(piece),
    ]
    assert len({arguments for _, arguments in sizes}) == 1  # the name is not arguments
    assert resolved(provider, start, piece, end) == (0, 0, True)
