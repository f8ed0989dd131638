"""The SSE fast path gives exactly what decoding every event would, or declines.

Its one rule, tested as stated: a stream through an SSE rewriter with the fast path gives the
same bytes as through one that decodes every event, whatever the stream, however it is cut,
with or without chunk templates.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any
from unittest import mock

import orjson
from hypothesis import example, given, settings
from hypothesis import strategies as st

from native_support import FakeReport
from toolcall_middleware import fast_path as fast_path_module
from toolcall_middleware.chunk_rewriter import ChunkRewriter
from toolcall_middleware.metrics import NULL_REPORT, Report
from toolcall_middleware.parsers import ParserContext, Tool, create_parser, parser_triggers
from toolcall_middleware.sse_rewriter import SSERewriter
from toolcall_middleware.think import ThinkConfig

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
DONE = b"data: [DONE]\n\n"
TOOLS = (Tool("bash", {"properties": {"command": {}}}),)


def chunk(
    delta: dict[str, Any], finish: str | None = None, index: Any = 0, **meta: Any
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-t",
        "object": "chat.completion.chunk",
        "created": 7,
        "model": "k2",
        **meta,
        "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def event(data: bytes) -> bytes:
    return b"data: " + data + b"\n\n"


# How the middleware builds a stream: (provider, mode, reasoning split).
CONFIGS: dict[str, tuple[str, str, ThinkConfig | None]] = {
    "kimi": ("kimi_k2", "stream", None),
    "kimi-buffered": ("kimi_k2", "buffered", None),
    "kimi-split": ("kimi_k2", "stream", ThinkConfig(every=True)),
    "hermes": ("hermes", "stream", None),
    "openai-buffered": ("openai", "buffered", None),
}


def sse_stream(config: str, fast: str = "on", report: Report = NULL_REPORT) -> SSERewriter:
    """``fast``: ``on``; ``no-templates`` (as under debug capture); ``off``: decode all."""
    provider, mode, think = CONFIGS[config]
    ids = itertools.count()
    rewriter = ChunkRewriter(
        lambda: create_parser(provider, ParserContext(TOOLS)),
        lambda: f"call_{next(ids)}",
        mode=mode,  # the same ids each run
        think=think,
        report=report,
    )
    triggers = parser_triggers(provider)
    if think is not None and triggers is not None and "<" not in triggers:
        triggers += "<"  # a <think> tag is markup too, as the middleware has it
    tries = 0 if fast == "no-templates" else fast_path_module.TEMPLATE_TRIES
    with mock.patch.object(fast_path_module, "TEMPLATE_TRIES", tries):
        return SSERewriter(rewriter, triggers, report=report, fast_path=fast != "off")


def run(bodies: list[bytes], config: str = "kimi", fast: str = "on") -> bytes:
    report = FakeReport()
    stream = sse_stream(config, fast, report)
    out = b"".join([stream.feed(b) for b in bodies]) + stream.close()
    assert "rewrite-error" not in report.fallbacks  # a path that fails would hide the rest
    return out


_TEXTS = st.one_of(
    st.sampled_from(
        [
            SB,
            SE,
            CB,
            AB,
            CE,
            "functions.bash:0",
            '{"command": "ls"}',
            "<|tool",
            "<",
            "_call_end|>",
            " ",
            "\n",
            '"',
            "\\",
            "é",
            "<think>",
            "</think>",
            '<tool_call>{"name": "bash", "arguments": {}}</tool_call>',
            "<tool_call>",
            '{"name": "bash"',
            "</tool_call>",
        ]
    ),
    st.text(st.sampled_from('ab <|"\\\n\té{}:'), max_size=6),
)


@st.composite
def events(draw: st.DrawFn) -> bytes:
    text = draw(_TEXTS)
    kind = draw(
        st.sampled_from(
            [
                "content",
                "reasoning",
                "reasoning_content",
                "both",
                "both-differ",
                "role",
                "native",
                "native-call",
                "finish",
            ]
        )
    )
    delta: dict[str, Any] = {
        "content": {"content": text},
        "reasoning": {"reasoning": text},
        "reasoning_content": {"reasoning_content": text},
        "both": {"reasoning": text, "reasoning_content": text},
        "both-differ": {"reasoning": text, "reasoning_content": text + "."},
        "role": {"role": "assistant", "content": text},
        "native": {"tool_calls": [{"index": 0, "function": {"arguments": text}}]},
        "native-call": {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "n1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": ""},
                }
            ]
        },
        "finish": {},
    }[kind]
    meta = draw(st.sampled_from([{}, {}, {}, {"id": "chatcmpl-other"}, {"usage": None}]))
    # n=2: servers send one choice per chunk; an index that is no number is read by no one.
    index = draw(st.sampled_from([0, 0, 0, 1, [0]]))
    obj = chunk(delta, "stop" if kind == "finish" else None, index, **meta)
    form = draw(st.sampled_from(["compact", "compact", "compact", "spaced", "crlf", "raw"]))
    if form == "raw":  # not JSON, or a comment: forwarded as it is
        return draw(st.sampled_from([b"data: {not json\n\n", b": ping\n\n", event(b"{}")]))
    if form == "crlf":
        return b"data: " + orjson.dumps(obj) + b"\r\n\r\n"
    return event(orjson.dumps(obj) if form == "compact" else json.dumps(obj).encode())


_BRIEF_CASE = [
    *[event(json.dumps(chunk({"content": SB})).encode())] * 2,
    *[event(orjson.dumps(chunk({"content": SB}, usage=None)))] * 2,
    event(orjson.dumps(chunk({"content": ""}, usage=None))),
    event(orjson.dumps(chunk({"content": "_call_end|>"}))),
]


# A choice first seen after the template was learned: its reasoning must reach its split before
# the "<think>" of its content does (the event once passed unread, and the tag was lost).
_NEW_CHOICE_CASE = [
    event(orjson.dumps(chunk({"reasoning": ":"}, index=1))),
    event(orjson.dumps(chunk({"reasoning": ":"}, index=0))),
    event(orjson.dumps(chunk({"content": "<think>"}, index=0))),
]


# A line break before the text: the body is not one "data:" line, however it is framed around
# the text (the template once read it as the text, and the markup became a call).
_LINE_BREAK_CASE = [
    event(orjson.dumps(chunk({"content": "a"}))),
    event(orjson.dumps(chunk({"content": SB}))).replace(b'"content":"', b'"content":\n"'),
    event(orjson.dumps(chunk({"content": SB}))).replace(b'"content":"', b'"content":\r"'),
]


@settings(max_examples=250, deadline=None)
@given(st.sampled_from(sorted(CONFIGS)), st.lists(events(), max_size=30), st.data())
@example("kimi", _BRIEF_CASE, None)  # an empty text once made the stream idle inside markup
@example("kimi-split", _NEW_CHOICE_CASE, None)
@example("kimi", _LINE_BREAK_CASE, None)
def test_the_fast_path_changes_no_byte_of_the_output(
    config: str, bodies: list[bytes], data: st.DataObject | None
) -> None:
    bodies = [*bodies, DONE]
    expected = run(bodies, config, fast="off")
    assert run(bodies, config) == expected
    assert run(bodies, config, fast="no-templates") == expected
    # Cut anywhere, events go through the decoder: the same bytes again.
    whole = b"".join(bodies)
    assert run([whole], config) == expected
    if data is not None:
        cuts = sorted(data.draw(st.lists(st.integers(0, len(whole)), max_size=8)))
        pieces = [whole[a:b] for a, b in itertools.pairwise([0, *cuts, len(whole)])]
        assert run(pieces, config) == expected


def test_after_the_first_text_chunk_a_canonical_stream_is_not_decoded() -> None:
    pieces = [
        "Let",
        " me",
        " look",
        SB,
        CB,
        "functions.bash:0",
        AB,
        '{"command":',
        ' "ls"}',
        CE,
        SE,
        "Done",
        ".",
    ]
    bodies = [event(orjson.dumps(chunk({"reasoning": p, "reasoning_content": p}))) for p in pieces]
    stream = sse_stream("kimi")
    decoded = []
    original = SSERewriter._data

    def spy(self: SSERewriter, raw: bytes, data: bytes | None, fields: Any) -> bytes:
        decoded.append(data)
        return original(self, raw, data, fields)

    with mock.patch.object(SSERewriter, "_data", spy):
        out = b"".join([stream.feed(b) for b in bodies]) + stream.close()
    assert decoded == [bodies[0][6:-2]]
    assert out == run(bodies, fast="off")
    assert b'"tool_calls":[{"index":0,"function":{"arguments":" \\"ls\\"}"}}]' in out


def test_text_order_is_kept_when_a_held_prefix_comes_again() -> None:
    # "<|tool" is held; the next "<|tool" gives the first back and holds itself: the parser
    # echoed its input yet still holds text, so the ":" after it must not skip the parser.
    pieces = ["<|tool", "<|tool", ":", " done"]
    for fast in ("on", "no-templates", "off"):
        spaced = [event(json.dumps(chunk({"content": p})).encode()) for p in pieces]
        out = run([*spaced, DONE], fast=fast)
        text = "".join(
            json.loads(line[6:])["choices"][0]["delta"].get("content", "")
            for line in out.decode().split("\n\n")
            if line.startswith("data: {")
        )
        assert text == "".join(pieces)


def decoded_events(stream: SSERewriter, bodies: list[bytes]) -> list[bytes | None]:
    """The data of the events the general path decoded while ``stream`` took ``bodies``."""
    decoded: list[bytes | None] = []
    original: Callable[..., bytes] = SSERewriter._data

    def spy(self: SSERewriter, raw: bytes, data: bytes | None, fields: Any) -> bytes:
        decoded.append(data)
        return original(self, raw, data, fields)

    with mock.patch.object(SSERewriter, "_data", spy):
        for body in bodies:
            stream.feed(body)
    return decoded


def test_plain_text_passes_undecoded_only_while_nothing_is_pending() -> None:
    # Spaced JSON: no template, so only the unchanging-event shortcut can skip decoding.
    text = [event(json.dumps(chunk({"content": t})).encode()) for t in ("a", "b", "c")]
    call = event(
        json.dumps(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "n1",
                            "type": "function",
                            "function": {"name": "bash", "arguments": "{}"},
                        }
                    ]
                }
            )
        ).encode()
    )
    with mock.patch.object(fast_path_module, "TEMPLATE_TRIES", 0):
        idle = SSERewriter(ChunkRewriter(lambda: create_parser("openai", ParserContext())), "")
        busy = SSERewriter(ChunkRewriter(lambda: create_parser("openai", ParserContext())), "")
    assert len(decoded_events(idle, text)) == 1  # the first event tells the stream's state
    # A native call open: the end of the choice would still close it, so text is decoded.
    assert len(decoded_events(busy, [call, *text])) == 4
