"""The tool-call assembler: every call a client sees leaves through it, in the shape clients
need; the one policy for a call's whole arguments; call ids."""

from __future__ import annotations

import json
import re

import pytest

from native_support import FakeReport, client_view, counter_ids
from toolcall_middleware.calls import (
    ToolCallAssembler,
    arguments_object,
    call_ids_for,
    checked_arguments,
    mistral_call_id,
    openai_call_id,
)
from toolcall_middleware.limits import Budget, LimitExceeded
from toolcall_middleware.parsers import ToolCallParser


def test_a_parsed_call_is_a_header_then_its_fragments_with_dense_indexes() -> None:
    calls = ToolCallAssembler(counter_ids())
    first = calls.start("bash", "functions.bash:0")
    assert first == [
        {
            "index": 0,
            "id": "functions.bash:0",
            "type": "function",
            "function": {"name": "bash", "arguments": ""},
        }
    ]
    assert calls.arguments('{"command": "ls"}') == [
        {"index": 0, "function": {"arguments": '{"command": "ls"}'}}
    ]
    assert calls.arguments("") == []  # nothing to say
    assert calls.end() == []
    second = calls.start("get_time", None)  # no id of its own: one is made
    assert second[0]["index"] == 1 and second[0]["id"] == "call_gen1"
    assert calls.end() == [{"index": 1, "function": {"arguments": "{}"}}]
    assert calls.count == 2


def test_a_start_while_a_call_is_open_ends_it_first() -> None:
    calls = ToolCallAssembler(counter_ids())
    calls.start("a", "x")
    out = calls.start("b", "y")
    assert [e["index"] for e in out] == [0, 1]
    assert out[0] == {"index": 0, "function": {"arguments": "{}"}}


def test_holding_says_whether_the_end_of_the_choice_would_still_send_something() -> None:
    stream = ToolCallAssembler(counter_ids())
    assert not stream.holding
    stream.start("bash", None)
    assert stream.holding
    stream.end()
    assert not stream.holding
    buffered = ToolCallAssembler(counter_ids(), buffered=True)
    buffered.start("bash", None)
    buffered.end()
    assert buffered.holding  # held whole until the choice ends
    assert client_view(buffered.close()) == [("call_gen1", "bash", "{}")]
    assert not buffered.holding


def test_stream_mode_forwards_arguments_as_written_and_counts_what_is_malformed() -> None:
    report = FakeReport()
    calls = ToolCallAssembler(counter_ids(), report=report)
    out = calls.start("bash", None) + calls.arguments('{"command": ') + calls.end()
    assert client_view(out) == [("call_gen1", "bash", '{"command": ')]
    assert report.reasons == ["invalid_json"] and report.calls == [False]


def test_buffered_arguments_count_against_the_budget() -> None:
    budget = Budget(8)
    calls = ToolCallAssembler(counter_ids(), buffered=True, budget=budget)
    calls.start("bash", None)
    calls.arguments('{"a": 1}')
    assert budget.used == 8
    with pytest.raises(LimitExceeded, match="buffered tool calls exceeded the limit of 8"):
        calls.arguments(" ")


def test_the_one_policy_for_whole_arguments() -> None:
    assert arguments_object('{"a": 1}') == ({"a": 1}, '{"a": 1}', None)
    assert arguments_object("  ") == ({}, "{}", None)
    value, text, problem = arguments_object("[1]")
    assert value == {"input": "[1]"} and json.loads(text) == value and problem == "not_object"
    value, text, problem = arguments_object('{"a": ')
    assert value == {"input": '{"a": '} and json.loads(text) == value
    assert problem == "invalid_json"


def test_call_ids_follow_the_style_the_parser_asks_for_as_each_is_made() -> None:
    assert re.fullmatch(r"call_[0-9a-f]{24}", openai_call_id())
    assert re.fullmatch(r"[A-Za-z0-9]{9}", mistral_call_id())

    class Sniffing(ToolCallParser):
        style: str | None = None

        @property
        def id_style(self) -> str | None:
            return self.style

    parser = Sniffing()
    new_id = call_ids_for(parser)
    assert new_id().startswith("call_")
    parser.style = "mistral9"  # the markup showed the format only now
    assert re.fullmatch(r"[A-Za-z0-9]{9}", new_id())


def test_checked_arguments_rules() -> None:
    assert checked_arguments('{"a": 1}') == ('{"a": 1}', None)
    assert checked_arguments(' {"a" : 1} \n') == (' {"a" : 1} \n', None)  # kept as written
    assert checked_arguments("") == ("{}", None)
    assert checked_arguments("  ") == ("{}", None)
    wrapped, problem = checked_arguments('{"a": "unterminated')
    assert problem == "invalid_json" and json.loads(wrapped) == {"input": '{"a": "unterminated'}
    wrapped, problem = checked_arguments('"Oslo"')
    assert problem == "not_object" and json.loads(wrapped) == {"input": '"Oslo"'}
    assert checked_arguments("NaN")[1] == "invalid_json"  # strict JSON only


def test_buffered_parser_calls_are_checked_too() -> None:
    calls = ToolCallAssembler(counter_ids(), buffered=True)
    assert calls.start("bash", "functions.bash:0") == []
    assert calls.arguments('{"command": "ls') == []
    assert calls.end() == []
    assert calls.start("get_time", None) == []
    assert calls.end() == []  # a parser's call without arguments is the explicit empty call
    assert client_view(calls.close()) == [
        ("functions.bash:0", "bash", '{"input":"{\\"command\\": \\"ls"}'),
        ("call_gen1", "get_time", "{}"),
    ]
