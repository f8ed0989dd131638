"""The unknown_tools policy: forward, drop or text."""

from __future__ import annotations

import dataclasses
import json

import pytest
from parser_helpers import TOOLS, assemble, normalise, run

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Text
from toolcall_middleware.parsers import ParserContext, create_parser
from toolcall_middleware.parsers.unknown_tools import UnknownToolsFilter, apply_unknown_tools

TEXT = (
    'a <tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call> b '
    '<tool_call>{"name": "get_time"}</tool_call> c <tool_call>{"name": "nope"}</tool_call>'
)


def run_policy(policy: str, pieces: list[str], context: ParserContext = TOOLS) -> list[object]:
    context = dataclasses.replace(context, unknown_tools=policy)  # type: ignore[arg-type]
    parser = apply_unknown_tools(create_parser("hermes", context), context)
    return normalise(run(parser, pieces))


@pytest.mark.parametrize("pieces", [[TEXT], list(TEXT)])
def test_forward_is_the_default(pieces: list[str]) -> None:
    assert TOOLS.unknown_tools == "forward"
    names = [c.name for c in assemble(run_policy("forward", pieces)).calls]  # type: ignore[arg-type]
    assert names == ["rm_rf", "get_time", "nope"]


@pytest.mark.parametrize("pieces", [[TEXT], list(TEXT)])
def test_drop_removes_unknown_calls(pieces: list[str]) -> None:
    assert run_policy("drop", pieces) == [
        Text("a  b "),
        CallStart("get_time"),
        CallEnd(),
        Text(" c "),
    ]


@pytest.mark.parametrize("pieces", [[TEXT], list(TEXT)])
def test_text_turns_unknown_calls_into_text(pieces: list[str]) -> None:
    events = run_policy("text", pieces)
    result = assemble(events)  # type: ignore[arg-type]
    assert [c.name for c in result.calls] == ["get_time"]
    first, rest = result.text.split(" b ", 1)
    assert json.loads(first[2:]) == {"name": "rm_rf", "arguments": {"path": "/"}}
    assert json.loads(rest.split(" c ", 1)[1]) == {"name": "nope", "arguments": {}}


def test_without_tools_every_call_is_forwarded() -> None:
    events = run_policy("drop", [TEXT], ParserContext())
    assert sum(isinstance(e, CallStart) for e in events) == 3
    assert apply_unknown_tools(create_parser("hermes", ParserContext()), ParserContext())


def test_wrapper_keeps_parser_attributes_and_forward_returns_the_parser_itself() -> None:
    parser = create_parser("mistral", TOOLS)
    assert apply_unknown_tools(parser, TOOLS) is parser
    wrapped = UnknownToolsFilter(parser, TOOLS, "drop")
    assert wrapped.id_style == "mistral9"
    assert wrapped.held == parser.held == 0 and wrapped.strays == parser.strays
    assert wrapped.feed("[TOOL_CALLS]bash{}") == [CallStart("bash"), CallArgs("{}"), CallEnd()]
