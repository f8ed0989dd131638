"""Every format's parser stays under the memory caps of a hostile upstream.

Each stream opens a call (or a call header) and then never closes it. Through the whole
middleware, with small caps, the client must get the OpenAI error event and ``[DONE]``, and the
parser must never have held more than the cap, plus the text fed between two measurements by
the rewriter (``CHECK_EVERY``), plus one delta.
"""

from __future__ import annotations

from typing import Any

import pytest

from helpers import chunk, request_json, sse
from native_support import endless_upstream, error_of
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.limits import CHECK_EVERY
from toolcall_middleware.parsers import ToolCallParser
from toolcall_middleware.parsers.deepseek import CALL_BEGIN, SEP
from toolcall_middleware.replay import run_app
from toolcall_middleware.rewriters import Rewriters

pytestmark = pytest.mark.anyio

MAX_HELD, MAX_BUFFERED = 2048, 4096
PIECE = 100  # characters per hostile delta
KIMI_CALL, KIMI_ARGS = "<|tool_call_begin|>", "<|tool_call_argument_begin|>"

# provider: (what opens the markup, the character it then goes on with forever)
HEADERS = {
    "hermes": ("<tool_call>", " "),
    "qwen3_coder": ("<tool_call>\n<function=", "x"),
    "deepseek": (CALL_BEGIN, "x"),
    "glm45": ("<tool_call>", "x"),
    "minimax_m2": ('<minimax:tool_call><invoke name="', "x"),
    "mistral": ("[TOOL_CALLS]", "x"),
    "llama3_json": ("<|python_tag|>", " "),
    "gpt_oss": ("<|start|>assistant", "x"),
    "kimi_k2": (KIMI_CALL, "x"),
    "sniff": ("<tool_call>\n<function=", "x"),  # recognised as qwen3_coder, which holds it
}
# A fence line that never ends: the special-token formats hold it as possible framing.
FENCES = {
    "deepseek": f"{CALL_BEGIN}bash{SEP}```",
    "gpt_oss": "<|channel|>commentary to=functions.bash<|message|>```",
}
# provider: (the start of a call whose arguments are held until it ends, then more forever)
ARGUMENTS = {
    "hermes": ('<tool_call>{"arguments": {"a": "', "x"),  # the name may still come last
    "qwen3_coder": ("<function=bash><parameter=n>", "1"),  # an integer is typed when it ends
    "qwen_xml": ("<bash><command>", "x"),  # a call is held until its closing tag
    "glm45": ("<tool_call>bash<arg_key>n</arg_key><arg_value>", "1"),
    "minimax_m2": ('<minimax:tool_call><invoke name="bash"><parameter name="n">', "1"),
    "mistral": ('[TOOL_CALLS][{"arguments": {"a": "', "x"),
    "llama3_json": ('{"parameters": {"a": "', "x"),  # an object is held until it is a call
    "kimi_k2": (f'{KIMI_CALL}call_9{KIMI_ARGS}{{"command": "', "x"),  # the keys pick the tool
    "sniff": ('<tool_call>{"arguments": {"a": "', "x"),  # recognised as hermes
}
REQUEST = request_json(
    "any-model",
    ("bash", "write_file"),
    properties={"command": {"type": "string"}, "n": {"type": "integer"}},
)


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[ToolCallParser]:
    """The parsers the middleware makes, kept to measure them."""
    parsers: list[ToolCallParser] = []
    new_parser = Rewriters._new_parser

    def record(provider: str, context: Any) -> ToolCallParser:
        parsers.append(new_parser(provider, context))
        return parsers[-1]

    monkeypatch.setattr(Rewriters, "_new_parser", staticmethod(record))
    return parsers


async def hostile(
    provider: str, opening: str, char: str, size: str, made: list[ToolCallParser]
) -> tuple[dict[str, Any], int]:
    """The error the client gets, and the largest ``size`` of the parser over the stream."""
    largest = [0]

    def measure() -> None:
        largest[0] = max([largest[0], *(getattr(p, size) for p in made)])

    upstream = endless_upstream(
        sse(chunk({"content": "Let me see. " + opening})),
        sse(chunk({"content": char * PIECE})),
        200,
        [0],
        measure,
    )
    app = ToolCallMiddleware(
        upstream, provider, max_held_bytes=MAX_HELD, max_buffered_bytes=MAX_BUFFERED, metrics=False
    )
    status, _, bodies = await run_app(app, REQUEST)
    assert status == 200 and len(made) == 1
    return error_of(b"".join(bodies)), largest[0]


@pytest.mark.parametrize("provider", HEADERS)
async def test_a_header_that_never_ends_is_cut_at_the_held_cap(
    provider: str, made: list[ToolCallParser]
) -> None:
    error, largest = await hostile(provider, *HEADERS[provider], "held", made)
    assert "held-back" in error["message"]
    assert MAX_HELD < largest <= MAX_HELD + CHECK_EVERY + PIECE


@pytest.mark.parametrize("provider", FENCES)
async def test_a_fence_line_that_never_ends_is_cut_at_the_held_cap(
    provider: str, made: list[ToolCallParser]
) -> None:
    error, largest = await hostile(provider, FENCES[provider], "x", "held", made)
    assert "held-back" in error["message"]
    assert MAX_HELD < largest <= MAX_HELD + CHECK_EVERY + PIECE


@pytest.mark.parametrize("provider", ARGUMENTS)
async def test_arguments_held_for_a_call_that_never_ends_are_cut_at_the_buffered_cap(
    provider: str, made: list[ToolCallParser]
) -> None:
    error, largest = await hostile(provider, *ARGUMENTS[provider], "held_arguments", made)
    assert "buffered tool calls" in error["message"]
    assert MAX_BUFFERED < largest <= MAX_BUFFERED + CHECK_EVERY + PIECE


# A call object's name (or a key) that never ends is a call header, under the held cap.
NAMES = {
    "hermes": '<tool_call>{"name": "',
    "mistral": '[TOOL_CALLS][{"name": "',
    "llama3_json": '<|python_tag|>{"name": "',
    "sniff": '<tool_call>\n{"arguments": {}, "',  # recognised as hermes: a key, after arguments
}


@pytest.mark.parametrize("provider", NAMES)
async def test_a_call_objects_name_that_never_ends_is_cut_at_the_held_cap(
    provider: str, made: list[ToolCallParser]
) -> None:
    error, largest = await hostile(provider, NAMES[provider], "x", "held", made)
    assert "held-back" in error["message"]
    assert MAX_HELD < largest <= MAX_HELD + CHECK_EVERY + PIECE
    assert max(getattr(p, "held_arguments", 0) for p in made) < MAX_HELD
