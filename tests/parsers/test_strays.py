"""Stray special tokens: dropped and counted; markup-like text a model may write is kept.

A format's special tokens are never the model's text: one standing where the markup has no place
for it (an end marker with nothing open, a separator outside a call) is dropped and counted. XML
tags such as ``</tool_call>`` are text a model can write (XML in a code answer): only where they
can be nothing but leftover markup, right after a call, are they dropped.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import TOOLS, assemble, every_cut_agrees, run

from toolcall_middleware.parsers import create_parser, formats
from toolcall_middleware.parsers.deepseek import CALL_BEGIN, CALL_END_MARKER, CALLS_END, SEP
from toolcall_middleware.parsers.dsml import CLOSES as DSML_CLOSES
from toolcall_middleware.parsers.dsml import INVOKE_ENDS as DSML_INVOKE_ENDS
from toolcall_middleware.parsers.dsml import OPENS as DSML_OPENS
from toolcall_middleware.parsers.dsml import PARAMETER_ENDS as DSML_PARAMETER_ENDS
from toolcall_middleware.parsers.dsml import PARAMETERS as DSML_PARAMETERS
from toolcall_middleware.parsers.kimi_k2 import ARGUMENT_BEGIN
from toolcall_middleware.parsers.kimi_k2 import CALL_END_MARKER as KIMI_END
from toolcall_middleware.parsers.minimax_m3 import NS as M3

KIMI_CALL = "<|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>"
BASH = '{"command": "ls"}'

# provider: (text with strays, the text that must come out, its calls' arguments, strays)
STRAYS = {
    "kimi_k2": (
        f"a <|tool_calls_section_end|>b{ARGUMENT_BEGIN}c{KIMI_END}"
        f'{KIMI_CALL}{{"command": {ARGUMENT_BEGIN}"ls"}}'
        f"<|tool_calls_section_begin|>{KIMI_END} d",
        "a bc d",
        [BASH],
        5,
    ),
    "deepseek": (
        f"x{CALLS_END}y{SEP}z{CALL_END_MARKER}"
        f'{CALL_BEGIN}bash{SEP}{{"command": {SEP}"ls"}}{CALL_END_MARKER} w',
        "xyz w",
        [BASH],
        4,
    ),
    "deepseek_v32": (
        f"x{DSML_CLOSES[0]}y{DSML_PARAMETER_ENDS[0]}z{DSML_INVOKE_ENDS[1]}"
        f'<｜DSML｜invoke name="bash">{DSML_OPENS[1]}{DSML_PARAMETERS[0]} name="command" '
        f'string="true">ls{DSML_PARAMETER_ENDS[0]}{DSML_INVOKE_ENDS[0]} w',
        "xyz w",
        [BASH],
        4,
    ),
    "minimax_m3": (
        f'a</mm:think> {M3}<tool_call>{M3}</x>{M3}<invoke name="bash">{M3}<command>ls'
        f"{M3}</command>{M3}</invoke>{M3}</tool_call>",
        "a ",
        [BASH],
        2,
    ),
    "seed_oss": (
        "a</seed:think> b</seed:tool_call><seed:tool_call>\n<function=bash>\n"
        "<parameter=command>ls</parameter>\n</function>\n</seed:tool_call></seed:tool_call> c",
        "a b c",
        [BASH],
        3,
    ),
    "gigachat3": (
        f'a<|function_call|>{{"name": "bash", "arguments": {BASH}}}}}</s> b',
        "a b",
        [BASH],
        1,  # the "}" too many
    ),
    "gpt_oss": (
        "<|channel|>final<|message|>Done<|constrain|>.<|return|><|end|><|call|> ok",
        "Done. ok",
        [],
        3,
    ),
    "minimax_m2": (
        'ok</minimax:tool_call> <minimax:tool_call><invoke name="bash"><minimax:tool_call>'
        '<parameter name="command">ls</parameter></invoke></minimax:tool_call>',
        "ok ",
        [BASH],
        2,
    ),
    "llama3_json": (
        f'<|python_tag|>{{"name": "bash", "parameters": {BASH}}}<|eom_id|>\n<|eot_id|>',
        "\n",
        [BASH],
        2,
    ),
    "hermes": (
        f'<tool_call>\n{{"name": "bash", "arguments": {BASH}}}}}\n</tool_call></tool_call>\nDone.',
        "\nDone.",
        [BASH],
        2,
    ),
    "qwen3_coder": (
        "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n"
        "</tool_call></tool_call> Done.",
        " Done.",
        [BASH],
        1,
    ),
    "glm45": (
        "<tool_call>bash<arg_key>command</arg_key></arg_key><arg_value>ls<arg_value>"
        "</arg_value><arg_value></tool_call>",
        "",
        ['{"command": "ls"}'],
        3,
    ),
    "mistral": (
        f'[TOOL_CALLS][TOOL_CALLS] [{{"name": "bash", "arguments": {BASH}}}, "junk", 3] '
        f"[TOOL_CALLS]bash{BASH}}}] ok",
        "  ok",
        [BASH, BASH],
        5,
    ),
    "sniff": (
        f"text <|tool_call_end|> more{CALLS_END}. <|tool_calls_section_begin|>"
        f"{KIMI_CALL}{BASH}<|tool_call_end|>{CALLS_END}<|tool_calls_section_end|>",
        "text  more. ",
        [BASH],
        2,
    ),
}


@pytest.mark.parametrize("provider", STRAYS)
def test_stray_special_tokens_are_dropped_and_counted(provider: str) -> None:
    text, kept, arguments, strays = STRAYS[provider]
    result = assemble(every_cut_agrees(provider, text))
    assert result.text == kept
    assert [c.arguments for c in result.calls] == arguments
    parser = create_parser(provider, TOOLS)
    run(parser, [text])
    assert getattr(parser, "strays", 0) == strays


# provider: markup-like text a model may write, which must come out as it was
KEPT = {
    "hermes": "Wrap it as <tool_call>...</tool_call>; a </tool_call> alone closes nothing.",
    "qwen3_coder": "XML: <function> and </function>, </tool_call> and </parameter> are tags.",
    "glm45": "GLM writes <arg_key>k</arg_key><arg_value>v</arg_value> inside </tool_call>.",
    "minimax_m2": 'An <invoke name="x"> tag and </invoke> and <parameter name="y">.',
    "mistral": "usage: run [ARGS] ... [TOOL_CALLS] is a token",
    "llama3_json": "In Python: {'name': 'x'} and <|eom is not a token.",
    "qwen_xml": "<div><b>bold</b></div> and </bash> alone",
    "minimax_m3": "a[0] ]<] minimax [>[ <tool_call> </invoke> <think> text",
    "seed_oss": "Seed writes <seed:tool_ca and <seed:thinking> and <tool_call> as text.",
    "longcat": "A <longcat_tool_call> alone, and </longcat_tool_call> in prose.",
    "gigachat3": "<s>struck</s> <|message_sep|>\n\nfunction call is a role; <|function_call",
    "deepseek_v4": 'Tags: <function_calls>, <invoke name="x">, </parameter> and <｜DSM.',
}


@pytest.mark.parametrize("provider", KEPT)
def test_markup_like_text_is_kept(provider: str) -> None:
    text = KEPT[provider]
    result = assemble(every_cut_agrees(provider, text))
    assert (result.text, result.calls) == (text, [])
    parser = create_parser(provider, TOOLS)
    run(parser, [text])
    assert getattr(parser, "strays", 0) == 0


def test_whitespace_after_a_call_is_text_at_once() -> None:
    call = f'<tool_call>\n{{"name": "bash", "arguments": {BASH}}}\n</tool_call>'
    assert assemble(every_cut_agrees("hermes", call + "\n\nNext")).text == "\n\nNext"
    assert assemble(every_cut_agrees("hermes", call + "\n")).text == "\n"
    # Only the tag straight after is a stray: once text (even a space) came, it is text.
    assert assemble(every_cut_agrees("hermes", call + " </tool_call>")).text == " </tool_call>"


STRAY_FORMATS = [name for name, fmt in formats().items() if fmt.stray_tokens and fmt.markup_pieces]


@pytest.mark.parametrize("provider", STRAY_FORMATS)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_special_token_reaches_the_text_only_inside_markup_given_back(
    provider: str, data: st.DataObject
) -> None:
    fmt = formats()[provider]
    pieces = [*fmt.markup_pieces, *fmt.stray_tokens, "x", " ", "{", "}", '"', "\n"]
    if provider == "llama3_json":  # a "{" in prose holds an object, given back as written
        pieces = [p for p in pieces if not p.startswith("{")]
    text = data.draw(st.lists(st.sampled_from(pieces), max_size=25).map("".join))
    parser = create_parser(provider, TOOLS)
    result = assemble(run(parser, [text]))
    if not getattr(parser, "text_fallbacks", 0):
        leaked = [t for t in fmt.stray_tokens if t in result.text]
        assert not leaked, (text, result.text)
