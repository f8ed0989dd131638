"""JSON-in-text formats: a text that only looks like a call goes out as the text it was.

Llama 3 JSON, Hermes and Mistral's call arrays write a call as a JSON object. One whose name is
not a function name, or whose arguments begin as no arguments begin (a number, a list, a bare
word, a string that holds no object), is not a call: the client gets the text, never a call
whose arguments are not JSON.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import TOOLS, assemble, every_cut_agrees, parse

# provider: (what opens a call object, what closes it)
FRAMES = {
    "hermes": ("<tool_call>", "</tool_call>"),
    "llama3_json": ("", ""),
    "mistral": ("[TOOL_CALLS] ", ""),
}
LOOKALIKES = [
    '{"name": "bash", "arguments": oops}',
    '{"name": "bash", "arguments": 5}',
    '{"name": "bash", "parameters": [1, 2]}',
    '{"name": "bash", "arguments": nope}',
    '{"name": "bash", "arguments": "rm -rf"}',
    '{"name": "", "arguments": {"a": 1}}',
    '{"name": "0", "parameters": {}}',
    '{"name": "get weather", "arguments": {}}',
    '{"name": 7, "arguments": {}}',
    '{"arguments": {"command": "ls"}}',
]
CALLS = [
    ('{"name": "bash", "arguments": {"command": "ls"}}', '{"command": "ls"}'),
    ('{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}', '{"command": "ls"}'),
    ('{"arguments": " {}", "name": "bash"}', " {}"),
    ('{"name": "bash", "arguments": null}', ""),
    ('{"name": "mcp__portal__search-documents", "parameters": {}}', "{}"),
]


@pytest.mark.parametrize("provider", FRAMES)
@pytest.mark.parametrize("lookalike", LOOKALIKES)
def test_a_text_that_only_looks_like_a_call_is_text(provider: str, lookalike: str) -> None:
    opening, closing = FRAMES[provider]
    text = f"Before {opening}{lookalike}{closing} after"
    result = assemble(every_cut_agrees(provider, text))
    assert (result.text, result.calls) == (text, [])


@pytest.mark.parametrize("provider", FRAMES)
@pytest.mark.parametrize(("call", "arguments"), CALLS)
def test_a_call_is_still_a_call(provider: str, call: str, arguments: str) -> None:
    opening, closing = FRAMES[provider]
    result = assemble(every_cut_agrees(provider, f"Before {opening}{call}{closing} after"))
    assert result.text == "Before  after"
    assert [c.arguments for c in result.calls] == [arguments]


PIECES = [
    '{"name": "bash"',
    '{"name": ""',
    '{"name": 1',
    ', "arguments": ',
    ', "parameters": ',
    "{",
    "}",
    "[1]",
    "oops",
    "null",
    "nul",
    '"x"',
    '"{}"',
    '" {\\"a\\": 1}"',
    ", ",
    " ",
]


@pytest.mark.parametrize("provider", FRAMES)
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_every_call_from_any_text_has_object_arguments(provider: str, data: st.DataObject) -> None:
    opening, _ = FRAMES[provider]
    text = opening + data.draw(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
    for call in assemble(parse(provider, [text], TOOLS)).calls:
        assert call.arguments == "" or call.arguments.lstrip().startswith("{"), text
