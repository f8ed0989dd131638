"""MiniMax M3 calls: the namespaced XML, nested values, the think block."""

from __future__ import annotations

from parser_helpers import TOOLS, any_cut_test, call, calls_of, every_cut_agrees, make_context, run

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Reasoning, Text
from toolcall_middleware.parsers import create_parser
from toolcall_middleware.parsers.minimax_m3 import NS

P = "minimax_m3"
BLOCK = (
    f'Checking.\n{NS}<tool_call>\n{NS}<invoke name="get_weather">{NS}<city>Bei jing{NS}</city>'
    f'{NS}<days>2{NS}</days>{NS}</invoke>\n{NS}<invoke name="get_time">{NS}</invoke>\n'
    f"{NS}</tool_call>\nDone."
)
ORDER = make_context(
    (
        "order",
        {
            "shipping": {
                "type": "object",
                "properties": {"zip": {"type": "integer"}, "tags": {"type": "array"}},
            },
            "items": {"type": "array", "items": {"type": "integer"}},
            "note": {"type": "string"},
        },
    )
)
NESTED = (
    f'{NS}<tool_call>{NS}<invoke name="order">{NS}<shipping>\n  {NS}<zip>018956{NS}</zip>'
    f"{NS}<tags>{NS}<item>a{NS}</item>{NS}<item>b{NS}</item>{NS}</tags>{NS}</shipping>"
    f"{NS}<items>{NS}<item>1{NS}</item>{NS}<item>2{NS}</item>{NS}</items>"
    f"{NS}<note>{NS}</note>{NS}</invoke>{NS}</tool_call>"
)
SAMPLES = [
    BLOCK,
    NESTED,
    f"<mm:think>\nI should call bash.{NS}<tool_call> is how.\n</mm:think>\n\nOK {NS}<tool_ca",
    f'{NS}<tool_call>{NS}<invoke name="write_file">{NS}<path>a.txt{NS}</path>{NS}<content>l1\nl',
    f'a ]<]x {NS} <tool_call>{NS} <invoke name="bash">{NS}<command>ls <b>{NS}</command>',
    f"{NS}<tool_call>\n{NS}</user_id> after {NS}<nope",
    f'</mm:think>Hi {NS}<tool_call>{NS}<invoke name="bash">{NS}<command>{NS}<x>1',
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)
test_any_cut_of_nested_values_gives_the_same_events = any_cut_test(P, SAMPLES[1:2], ORDER)


def test_block_with_several_invokes() -> None:
    assert every_cut_agrees(P, BLOCK) == [
        Text("Checking.\n"),
        *call("get_weather", '{"city": "Bei jing", "days": 2}'),
        *call("get_time"),
        Text("\nDone."),
    ]


def test_nested_values_are_typed_by_the_schema_at_every_level() -> None:
    assert calls_of(P, NESTED, ORDER).arguments() == [
        {"shipping": {"zip": 18956, "tags": ["a", "b"]}, "items": [1, 2], "note": ""}
    ]
    # Without a schema, elements make objects and a repeated key a list.
    text = NESTED.replace('"order"', '"unknown"')
    assert calls_of(P, text, ORDER).arguments() == [
        {
            "shipping": {"zip": "018956", "tags": {"item": ["a", "b"]}},
            "items": {"item": ["1", "2"]},
            "note": "",
        }
    ]


def test_raw_values_stream_while_they_arrive_and_nested_ones_when_they_close() -> None:
    parser = create_parser(P, TOOLS)
    start = f'{NS}<tool_call>{NS}<invoke name="bash">{NS}<command>ls '
    assert parser.feed(start) == [CallStart("bash"), CallArgs('{"command": '), CallArgs('"ls ')]
    assert parser.feed(f"-la\n{NS}</command>") == [CallArgs("-la\\n"), CallArgs('"')]
    assert parser.feed(f"{NS}<opts>{NS}<a>1{NS}</a>") == []
    assert parser.feed(f"{NS}</opts>{NS}</invoke>") == [
        CallArgs(', "opts": {"a": "1"}'),
        CallArgs("}"),
        CallEnd(),
    ]


def test_the_think_block_is_reasoning_and_a_call_in_it_is_not_a_call() -> None:
    events = every_cut_agrees(P, SAMPLES[2])
    assert events == [
        Reasoning(f"I should call bash.{NS}<tool_call> is how.\n"),
        Text(f"OK {NS}<tool_ca"),
    ]


def test_whitespace_after_the_namespace_token_and_text_that_is_no_tag() -> None:
    result = calls_of(P, SAMPLES[4])
    assert (result.text, result.arguments()) == ("a ]<]x ", [{"command": "ls <b>"}])


def test_cut_off_calls_keep_what_arrived() -> None:
    assert calls_of(P, SAMPLES[3]).arguments() == [{"path": "a.txt", "content": "l1\nl"}]
    assert calls_of(P, SAMPLES[6]).arguments() == [{"command": {"x": "1"}}]


def test_strays_are_dropped_and_counted() -> None:
    parser = create_parser(P, TOOLS)
    result = run(parser, [SAMPLES[5], SAMPLES[6]])
    # Prose ended the block: the namespace token after it is text, as is what turned out to be
    # no tag (up to its ">": a tag has no "<" in it).
    text = "".join(e.text for e in result if isinstance(e, Text))
    assert text == f"after {NS}<nope</mm:think>Hi "
    assert parser.strays == 1  # type: ignore[attr-defined]  # </user_id> in the block
    assert parser.text_fallbacks == 1  # type: ignore[attr-defined]
