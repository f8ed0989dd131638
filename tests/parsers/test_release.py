"""``release()``: what a parser gives back when the stream pauses.

Formats whose markers are special tokens (sent whole) give back a possible marker start held
in plain text; a marker that then comes whole is still a marker. Formats whose markers are
spelled over several tokens give nothing back: their marker may continue after the pause.
"""

from __future__ import annotations

import pytest
from parser_helpers import TOOLS, normalise, run

from toolcall_middleware.events import CallStart, Text
from toolcall_middleware.parsers import create_parser, providers, releases_held_text
from toolcall_middleware.parsers.deepseek import CALL_BEGIN, CALL_END_MARKER, CALLS_BEGIN, SEP

# provider: (text ending in a marker's start, a whole call after the pause)
WHOLE = {
    "kimi_k2": (
        "a <",
        "<|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{}<|tool_call_end|>",
    ),
    "deepseek": ("a <", f"{CALLS_BEGIN}{CALL_BEGIN}get_time{SEP}{{}}{CALL_END_MARKER}"),
    "gpt_oss": ("a <", "<|start|>assistant to=functions.get_time<|message|>{}<|call|>"),
    "gemma4": ("a <", "<|tool_call>call:get_time{}<tool_call|>"),
    "glm45": ("a <", "<tool_call>get_time</tool_call>"),
    "kimi_k3": (
        "a <",
        '<|open|>tools<|sep|><|open|>call tool="get_time" index="1"<|sep|><|close|>call<|sep|>'
        "<|close|>tools<|sep|>",
    ),
    "mistral": ("see [", "[TOOL_CALLS]get_time{}"),
}


def test_the_formats_that_release_are_the_special_token_ones() -> None:
    assert {p for p in providers() if releases_held_text(p)} == set(WHOLE)


@pytest.mark.parametrize("provider", WHOLE)
def test_a_held_marker_start_is_given_back_and_a_whole_marker_after_it_still_parses(
    provider: str,
) -> None:
    before, call = WHOLE[provider]
    parser = create_parser(provider, TOOLS)
    assert normalise(parser.feed(before)) == [Text(before[:-1])]
    assert parser.release() == [Text(before[-1])]
    assert parser.release() == []  # nothing held any more
    events = normalise(run(parser, [call]))
    assert [e.name for e in events if isinstance(e, CallStart)] == ["get_time"]
    assert not [e for e in events if isinstance(e, Text)]


@pytest.mark.parametrize("provider", WHOLE)
def test_nothing_is_released_inside_markup(provider: str) -> None:
    call = WHOLE[provider][1]
    parser = create_parser(provider, TOOLS)
    parser.feed(call[:-2])  # inside the call: what is held is markup
    assert parser.release() == []


@pytest.mark.parametrize("provider", sorted(set(providers()) - set(WHOLE)))
def test_formats_spelled_over_several_tokens_release_nothing(provider: str) -> None:
    parser = create_parser(provider, TOOLS)
    parser.feed("a <")
    release = getattr(parser, "release", None)
    assert release is None or release() == []
