"""The chunk rewrite, sans-I/O: chunk dicts in, one ``Rewrite`` out for each.

A ``Rewrite`` says what to send (``chunks``; ``None``: the chunk as it came) and where the
stream stands after it; these tests read nothing else.
"""

from __future__ import annotations

import itertools
from typing import Any

import orjson

from toolcall_middleware.chunk_rewriter import ChunkRewriter
from toolcall_middleware.chunk_template import ChunkTemplate, one_text_choice
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
    rewrite = rewriter().chunk(chunk({"content": "Hello"}))
    assert rewrite.chunks is None
    assert rewrite.text_only and rewrite.idle and not rewrite.lag
    assert rewrite.exceeded is None


def test_markup_becomes_tool_calls_and_the_stream_is_busy_until_it_ends() -> None:
    r = rewriter()
    call = r.chunk(chunk({"content": f"On it.{SB}{CB}functions.bash:0{AB}" + '{"command":'}))
    assert deltas(call.chunks) == [
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
    assert not call.text_only and not call.idle and call.lag
    end = r.chunk(chunk({"content": f' "ls"}}{CE}{SE}'}))
    assert deltas(end.chunks) == [
        {"tool_calls": [{"index": 0, "function": {"arguments": ' "ls"}'}}]}
    ]
    done = r.chunk(chunk({"content": "Done."}))
    assert done.chunks is None and done.idle and not done.lag


def test_a_held_marker_start_lags_then_comes_back_as_text() -> None:
    r = rewriter()
    held = r.chunk(chunk({"content": "Let me check <"}))
    assert deltas(held.chunks) == [{"content": "Let me check "}]
    assert held.text_only and held.lag and not held.idle
    back = r.chunk(chunk({"content": "b> now"}))
    assert deltas(back.chunks) == [{"content": "<b> now"}]
    assert back.text_only and not back.lag


def test_the_finish_becomes_tool_calls_on_a_chunk_of_its_own_after_the_last_entry() -> None:
    r = rewriter()
    r.chunk(chunk({"content": f"{SB}{CB}functions.bash:0{AB}"}))
    rewrite = r.chunk(chunk({"content": f"{{}}{CE}{SE}"}, "stop"))
    assert rewrite.chunks is not None
    assert [c["choices"][0]["finish_reason"] for c in rewrite.chunks] == [None, "tool_calls"]
    assert deltas(rewrite.chunks) == [
        {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]},
        {},
    ]
    # Each chunk made carries the upstream's metadata.
    assert all(c["id"] == "chatcmpl-t" and c["model"] == "k2" for c in rewrite.chunks)


def test_other_delta_keys_ride_on_the_first_text_delta() -> None:
    rewrite = rewriter().chunk(chunk({"role": "assistant", "content": f"Hi{SB}"}))
    assert deltas(rewrite.chunks) == [{"role": "assistant", "content": "Hi"}]


def test_usage_goes_on_the_last_chunk_made_and_an_empty_output_keeps_it() -> None:
    r = rewriter()
    spread = r.chunk(
        chunk({"content": f"Hi{SB}{CB}functions.bash:0{AB}"}, usage={"total_tokens": 3})
    )
    assert spread.chunks is not None and len(spread.chunks) == 2
    assert "usage" not in spread.chunks[0]
    assert spread.chunks[-1]["usage"] == {"total_tokens": 3}
    nothing = rewriter().chunk(chunk({"content": SB}, usage=None))  # all markup: no choice
    assert nothing.chunks is not None and nothing.chunks[0]["choices"] == []
    assert nothing.chunks[0]["usage"] is None


def test_each_choice_has_its_own_parser_and_chunks_carry_one_choice_each() -> None:
    r = rewriter()
    both = chunk({"content": f"A{SB}"})
    both["choices"].append(
        {"index": 1, "delta": {"content": "B"}, "logprobs": None, "finish_reason": None}
    )
    rewrite = r.chunk(both)
    assert rewrite.chunks is not None
    assert [(c["choices"][0]["index"], c["choices"][0]["delta"]) for c in rewrite.chunks] == [
        (0, {"content": "A"}),
        (1, {"content": "B"}),
    ]
    assert not rewrite.idle  # choice 0 is inside a tool section


def test_a_native_call_left_open_keeps_the_stream_from_being_idle() -> None:
    r = rewriter("openai")
    opened = r.chunk(
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
    assert not opened.idle
    text = r.chunk(chunk({"content": "meanwhile"}))
    assert text.chunks is None and not text.idle  # the end would still close the call
    end = r.finish()
    assert deltas(end.chunks) == [{"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}]


def test_the_end_flushes_what_is_held_with_the_latest_metadata() -> None:
    r = rewriter()
    r.chunk(chunk({"content": "Checking <|tool"}))
    r.chunk(chunk({"content": ""}, id="chatcmpl-later"))
    end = r.finish()
    assert end.chunks is not None
    assert [(c["id"], c["choices"][0]["delta"]) for c in end.chunks] == [
        ("chatcmpl-later", {"content": "<|tool"})
    ]
    assert end.text_only  # the held text was text after all


def template_of(obj: dict[str, Any]) -> ChunkTemplate:
    found = one_text_choice(obj)
    assert found is not None
    template = ChunkTemplate.learn(orjson.dumps(obj), obj, *found)
    assert template is not None
    return template


def test_a_template_read_chunk_gives_what_the_decoded_chunk_would() -> None:
    template = template_of(chunk({"content": "a"}))
    for text in ("plain", f"x{SB}{CB}functions.bash:0{AB}{{}}{CE}", "<", "b"):
        decoded, read = rewriter(), rewriter()
        decoded.chunk(chunk({"content": "a"}))
        read.chunk(chunk({"content": "a"}))
        by_chunk = decoded.chunk(chunk({"content": text}))
        chunks, state = by_chunk.chunks, (by_chunk.text_only, by_chunk.lag, by_chunk.idle)
        by_template = read.text(template, ("content",), text)
        assert by_template is not None
        assert (by_template.text_only, by_template.lag, by_template.idle) == state
        if by_template.delta is not None:
            assert chunks is not None and deltas(chunks) == [by_template.delta]
        else:
            assert by_template.chunks == chunks


def test_a_template_read_is_declined_while_the_stream_has_other_choices() -> None:
    r = rewriter()
    r.chunk(chunk({"content": "a"}))
    r.chunk(chunk({"content": "b"}, index=1))
    assert r.text(template_of(chunk({"content": "a"})), ("content",), "c") is None


def test_a_cap_passed_is_said_with_the_output_that_still_goes() -> None:
    r = rewriter(max_held_bytes=64)
    r.chunk(chunk({"content": f"Sure.{SB}{CB}functions."}))
    rewrite = r.chunk(chunk({"content": "x" * 2048}))
    assert rewrite.exceeded is not None and "held-back" in str(rewrite.exceeded)
