"""The chunk rewrite, sans-I/O: chunk dicts in, the chunks to send out for each.

Each rewrite gives what to send (``None``: the chunk as it came); the rewriter's ``state`` says
where the stream stands after it. These tests read nothing else.
"""

from __future__ import annotations

import itertools
from typing import Any

import orjson
import pytest

from toolcall_middleware.chunk_rewriter import ChunkRewriter
from toolcall_middleware.chunk_template import ChunkTemplate, one_text_choice
from toolcall_middleware.deltas import piece_delta
from toolcall_middleware.parsers import ParserContext, Tool, create_parser

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
TOOLS = (Tool("bash", {"properties": {"command": {}}}),)


def chunk(
    delta: dict[str, Any], finish: str | None = None, index: int = 0, **meta: Any
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-t",
        "object": "chat.completion.chunk",
        "created": 7,
        "model": "k2",
        **meta,
        "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def rewriter(provider: str = "kimi_k2", **options: Any) -> ChunkRewriter:
    ids = itertools.count()
    return ChunkRewriter(
        lambda: create_parser(provider, ParserContext(TOOLS)),
        lambda: f"call_{next(ids)}",
        **options,
    )


def deltas(chunks: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    assert chunks is not None
    return [c["delta"] for ch in chunks for c in ch["choices"]]


def test_plain_text_is_unchanged_and_leaves_the_stream_idle() -> None:
    r = rewriter()
    assert r.chunk(chunk({"content": "Hello"})) is None
    assert r.state.text_only and r.state.idle and not r.state.lag
    assert r.state.exceeded is None


def test_markup_becomes_tool_calls_and_the_stream_is_busy_until_it_ends() -> None:
    r = rewriter()
    call = r.chunk(chunk({"content": f"On it.{SB}{CB}functions.bash:0{AB}" + '{"command":'}))
    assert deltas(call) == [
        {"content": "On it."},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "functions.bash:0",
                    "type": "function",
                    "function": {"name": "bash", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"command":'}}]},
    ]
    assert not r.state.text_only and not r.state.idle and r.state.lag
    end = r.chunk(chunk({"content": f' "ls"}}{CE}{SE}'}))
    assert deltas(end) == [{"tool_calls": [{"index": 0, "function": {"arguments": ' "ls"}'}}]}]
    assert r.chunk(chunk({"content": "Done."})) is None
    assert r.state.idle and not r.state.lag


def test_a_held_marker_start_lags_then_comes_back_as_text() -> None:
    r = rewriter()
    held = r.chunk(chunk({"content": "Let me check <"}))
    assert deltas(held) == [{"content": "Let me check "}]
    assert r.state.text_only and r.state.lag and not r.state.idle
    back = r.chunk(chunk({"content": "b> now"}))
    assert deltas(back) == [{"content": "<b> now"}]
    assert r.state.text_only and not r.state.lag


def test_the_finish_becomes_tool_calls_on_a_chunk_of_its_own_after_the_last_entry() -> None:
    r = rewriter()
    r.chunk(chunk({"content": f"{SB}{CB}functions.bash:0{AB}"}))
    chunks = r.chunk(chunk({"content": f"{{}}{CE}{SE}"}, "stop"))
    assert chunks is not None
    assert [c["choices"][0]["finish_reason"] for c in chunks] == [None, "tool_calls"]
    assert deltas(chunks) == [
        {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]},
        {},
    ]
    # Each chunk made carries the upstream's metadata.
    assert all(c["id"] == "chatcmpl-t" and c["model"] == "k2" for c in chunks)


def test_other_delta_keys_ride_on_the_first_text_delta() -> None:
    chunks = rewriter().chunk(chunk({"role": "assistant", "content": f"Hi{SB}"}))
    assert deltas(chunks) == [{"role": "assistant", "content": "Hi"}]


def test_usage_goes_on_the_last_chunk_made_and_an_empty_output_keeps_it() -> None:
    r = rewriter()
    spread = r.chunk(
        chunk({"content": f"Hi{SB}{CB}functions.bash:0{AB}"}, usage={"total_tokens": 3})
    )
    assert spread is not None and len(spread) == 2
    assert "usage" not in spread[0]
    assert spread[-1]["usage"] == {"total_tokens": 3}
    nothing = rewriter().chunk(chunk({"content": SB}, usage=None))  # all markup: no choice
    assert nothing is not None and nothing[0]["choices"] == []
    assert nothing[0]["usage"] is None


def test_each_choice_has_its_own_parser_and_chunks_carry_one_choice_each() -> None:
    r = rewriter()
    both = chunk({"content": f"A{SB}"})
    both["choices"].append(
        {"index": 1, "delta": {"content": "B"}, "logprobs": None, "finish_reason": None}
    )
    chunks = r.chunk(both)
    assert chunks is not None
    assert [(c["choices"][0]["index"], c["choices"][0]["delta"]) for c in chunks] == [
        (0, {"content": "A"}),
        (1, {"content": "B"}),
    ]
    assert not r.state.idle  # choice 0 is inside a tool section


def test_a_native_call_left_open_keeps_the_stream_from_being_idle() -> None:
    r = rewriter("openai")
    r.chunk(
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "n1",
                        "type": "function",
                        "function": {"name": "bash", "arguments": ""},
                    }
                ]
            }
        )
    )
    assert not r.state.idle
    assert r.chunk(chunk({"content": "meanwhile"})) is None
    assert not r.state.idle  # the end would still close the call
    end = r.finish()
    assert deltas(end) == [{"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}]


def test_the_end_flushes_what_is_held_with_the_latest_metadata() -> None:
    r = rewriter()
    r.chunk(chunk({"content": "Checking <|tool"}))
    r.chunk(chunk({"content": ""}, id="chatcmpl-later"))
    end = r.finish()
    assert [(c["id"], c["choices"][0]["delta"]) for c in end] == [
        ("chatcmpl-later", {"content": "<|tool"})
    ]
    assert r.state.text_only  # the held text was text after all


def reading(obj: dict[str, Any]) -> ChunkRewriter:
    """A rewriter that read ``obj`` as a decoded chunk and reads chunks like it by ``text``."""
    r = rewriter()
    found = one_text_choice(obj)
    template = None if found is None else ChunkTemplate.learn(orjson.dumps(obj), obj, *found)
    assert template is not None
    r.text_chunks(template.meta, template.choice)
    r.chunk(obj)
    return r


def test_a_chunk_read_as_its_text_gives_what_the_decoded_chunk_would() -> None:
    for text in ("plain", f"x{SB}{CB}functions.bash:0{AB}{{}}{CE}", "<", "b"):
        decoded, read = reading(chunk({"content": "a"})), reading(chunk({"content": "a"}))
        chunks = decoded.chunk(chunk({"content": text}))
        state = (decoded.state.text_only, decoded.state.lag, decoded.state.idle)
        out = read.text(0, ("content",), text)
        assert (read.state.text_only, read.state.lag, read.state.idle) == state
        if out is None or type(out) is list:
            assert out == chunks
        else:
            one = piece_delta(out) if type(out) is tuple else out
            assert chunks is not None and deltas(chunks) == [one]


def test_only_the_streams_one_choice_is_read_as_its_text() -> None:
    r = reading(chunk({"content": "a"}))
    r.chunk(chunk({"content": "b"}, index=1))
    assert r.one_index is None
    with pytest.raises(ValueError, match="one choice"):
        r.text(0, ("content",), "c")


def test_a_cap_passed_is_said_with_the_output_that_still_goes() -> None:
    r = rewriter(max_held_bytes=64)
    r.chunk(chunk({"content": f"Sure.{SB}{CB}functions."}))
    assert r.chunk(chunk({"content": "x" * 2048})) is not None
    assert r.state.exceeded is not None and "held-back" in str(r.state.exceeded)
