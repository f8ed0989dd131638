"""Calls that name no function: resolved against the request's tools only when unambiguous.

A name slot can hold junk (Kimi's ``0``, ``call_3``, ``functions.bad.0``; an empty DeepSeek
header; ``[TOOL_CALLS]0{...}``). Such a call is held whole; it goes to the one offered tool its
arguments fit, or is dropped, counted and logged. A client never sees a call named ``0``.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from native_support import FakeReport, counter_ids
from toolcall_middleware.calls import ToolCallAssembler
from toolcall_middleware.events import CallArgs, CallEnd, CallStart
from toolcall_middleware.parsers import ParserContext, Tool, create_parser
from toolcall_middleware.parsers.kimi_k2 import name_from_call_id
from toolcall_middleware.parsers.names import is_function_name, sole_tool, tool_for_arguments


def tool(name: str, required: tuple[str, ...] = (), **properties: str) -> Tool:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {k: {"type": t} for k, t in properties.items()},
    }
    if required:
        schema["required"] = list(required)
    return Tool(name, schema)


BASH = tool("bash", ("command",), command="string", timeout="integer")
WEATHER = tool("get_weather", ("city",), city="string", days="integer")
TIME = tool("get_time")
READ = tool("read", ("path",), path="string")
OPEN = Tool("anything")  # no schema: any arguments fit
TOOLS = (BASH, WEATHER, TIME)


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("bash", True),
        ("mcp__portal__search-documents", True),
        ("a.b:c/d", True),
        ("x1", True),
        ("0", False),
        ("12", False),
        ("", False),
        ("get weather", False),
        ('"x"', False),
        ("a\nb", False),
    ],
)
def test_what_a_function_name_looks_like(name: str, valid: bool) -> None:
    assert is_function_name(name) is valid


@pytest.mark.parametrize(
    ("tools", "arguments", "chosen"),
    [
        (TOOLS, '{"command": "ls"}', BASH),
        (TOOLS, '{"command": "ls", "timeout": 3}', BASH),
        (TOOLS, '{"city": "Rome", "days": 2}', WEATHER),
        (TOOLS, "{}", TIME),  # the only tool without required parameters
        (TOOLS, "", TIME),
        (TOOLS, '{"city": "Rome", "command": "ls"}', None),  # no tool takes both
        (TOOLS, '{"timeout": 3}', None),  # bash's required command is missing
        (TOOLS, '{"nope": 1}', None),
        (TOOLS, '{"command": ', None),  # not JSON
        (TOOLS, '["ls"]', None),  # not an object
        ((BASH, READ, tool("cat", ("path",), path="string")), '{"path": "a"}', None),  # two fit
        ((BASH, OPEN), '{"command": "ls"}', BASH),  # a declared fit beats an open-ended one
        ((BASH, OPEN), '{"x": 1}', OPEN),
        ((), '{"command": "ls"}', None),
    ],
)
def test_the_one_tool_the_arguments_fit(
    tools: tuple[Tool, ...], arguments: str, chosen: Tool | None
) -> None:
    assert tool_for_arguments(tools, arguments) == chosen


def test_a_sole_tool_without_a_schema_needs_no_arguments_to_be_chosen() -> None:
    assert sole_tool((OPEN,)) == OPEN
    assert sole_tool((BASH,)) is None  # its arguments must still show they fit
    assert sole_tool((OPEN, TIME)) is None
    assert sole_tool(()) is None


@pytest.mark.parametrize(
    ("call_id", "name"),
    [
        ("functions.bash:0", "bash"),
        ("bash:3", "bash"),
        ("functions.a:b:12", "a:b"),
        ("functions.bash", "bash"),  # no :N, but exactly an offered tool's name
        ("get_time", "get_time"),
        ("0", None),
        ("call_3", None),
        ("functions.bad.0", None),
        ("functions.nosuch", None),
        ("functions.:0", None),
        ("toolu_01ABC", None),
        ("", None),
    ],
)
def test_which_kimi_ids_name_a_function(call_id: str, name: str | None) -> None:
    assert name_from_call_id(call_id, ParserContext(TOOLS)) == name


def kimi_call(call_id: str, arguments: str) -> str:
    return f"<|tool_call_begin|>{call_id}<|tool_call_argument_begin|>{arguments}<|tool_call_end|>"


@pytest.mark.parametrize(
    ("call_id", "arguments", "name"),
    [
        ("0", '{"command": "ls"}', "bash"),
        ("call_3", '{"city": "Rome"}', "get_weather"),
        ("functions.bad.0", "{}", "get_time"),
        ("call_3", '{"nope": 1}', ""),  # nothing fits: left unnamed, for the rewriter to drop
        ("7", '{"command": "ls", "city": "x"}', ""),
    ],
)
def test_the_kimi_parser_names_a_call_by_its_arguments(
    call_id: str, arguments: str, name: str
) -> None:
    parser = create_parser("kimi_k2", ParserContext(TOOLS))
    events = [*parser.feed(kimi_call(call_id, arguments)), *parser.finish()]
    assert events == [CallStart(name, call_id), CallArgs(arguments), CallEnd()]


def assembler(buffered: bool, tools: tuple[Tool, ...] = TOOLS) -> tuple[Any, FakeReport]:
    report = FakeReport()
    return ToolCallAssembler(counter_ids(), buffered=buffered, report=report, tools=tools), report


@pytest.mark.parametrize("buffered", [False, True])
def test_an_unnamed_call_leaves_whole_under_the_tool_its_arguments_fit(buffered: bool) -> None:
    calls, report = assembler(buffered)
    assert calls.start("0", "0") == []
    assert calls.arguments('{"command": ') == []
    assert calls.arguments('"ls"}') == []
    out = calls.end() + calls.close()
    assert out == [
        {
            "index": 0,
            "id": "0",
            "type": "function",
            "function": {"name": "bash", "arguments": '{"command": "ls"}'},
        }
    ]
    assert (calls.count, report.reasons, report.fallbacks) == (1, [], [])


@pytest.mark.parametrize("buffered", [False, True])
def test_an_unnamed_call_nothing_fits_is_dropped_counted_and_logged(
    buffered: bool, caplog: pytest.LogCaptureFixture
) -> None:
    calls, report = assembler(buffered)
    calls.start("", "call_9")
    calls.arguments('{"nope": 1}')
    with caplog.at_level(logging.WARNING, logger="toolcall_middleware"):
        assert calls.end() + calls.close() == []
    assert (calls.count, report.reasons, report.fallbacks) == (0, ["missing_name"], ["dropped"])
    assert "names no function" in caplog.text and "call_9" in caplog.text
    # The next call gets index 0: indexes stay dense.
    calls.start("get_time", None)
    calls.end()
    assert [e["index"] for e in calls.close()] in ([], [0])
    assert calls.count == 1


def test_a_sole_schemaless_tool_names_the_call_at_once() -> None:
    calls, _ = assembler(False, (OPEN,))
    header = calls.start("0", None)
    assert header[0]["function"]["name"] == "anything"
    assert calls.arguments("{") == [{"index": 0, "function": {"arguments": "{"}}]


def test_native_calls_are_not_renamed() -> None:
    calls, _ = assembler(False)
    assert calls.start("", "n1", key=("native", 0), native=True)[0]["function"]["name"] == ""


def test_a_name_the_request_offers_is_a_name_however_it_is_spelled() -> None:
    # Kimi K3 writes names XML-escaped (tool="a&amp;b"): an offered "a&b" is the client's own.
    calls, report = assembler(False, (*TOOLS, tool("a&b")))
    header = calls.start("a&b", None)
    assert header[0]["function"]["name"] == "a&b"
    assert calls.end() == [{"index": 0, "function": {"arguments": "{}"}}]
    assert report.reasons == []
