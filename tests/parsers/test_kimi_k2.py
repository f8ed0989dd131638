from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import cut_at
from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Event, Text
from toolcall_middleware.parsers import ParserContext, Tool, create_parser
from toolcall_middleware.parsers.kimi_k2 import name_from_call_id

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"

TOOLS = ParserContext(
    (
        Tool("bash", {"type": "object", "properties": {"command": {"type": "string"}}}),
        Tool("get_weather", {"type": "object", "properties": {"city": {"type": "string"}}}),
    )
)


def normalise(events: list[Event]) -> list[Event]:
    """Merge adjacent text and adjacent argument pieces: cuts may only move these boundaries."""
    out: list[Event] = []
    for e in events:
        if out and type(e) is Text and type(out[-1]) is Text:
            out[-1] = Text(out[-1].text + e.text)
        elif out and type(e) is CallArgs and type(out[-1]) is CallArgs:
            out[-1] = CallArgs(out[-1].fragment + e.fragment)
        else:
            out.append(e)
    return out


def parse(pieces: list[str], context: ParserContext = TOOLS) -> list[Event]:
    parser = create_parser("kimi_k2", context)
    events: list[Event] = []
    for piece in pieces:
        events += parser.feed(piece)
    return normalise(events + parser.finish())


def cut(text: str, points: list[int]) -> list[str]:
    pieces: list[str] = cut_at(text, points)
    return pieces


TWO_CALLS = (
    f'Let me look. {SB}\n{CB}functions.bash:0{AB}{{"command": "ls"}}{CE}\n'
    f'{CB}functions.get_weather:1{AB} {{"city": "Paris"}} {CE}\n{SE} done'
)
EXPECTED_TWO = [
    Text("Let me look. "),
    CallStart("bash", "functions.bash:0"),
    CallArgs('{"command": "ls"}'),
    CallEnd(),
    CallStart("get_weather", "functions.get_weather:1"),
    CallArgs('{"city": "Paris"}'),
    CallEnd(),
    Text(" done"),
]


def test_two_calls_with_text_around() -> None:
    assert parse([TWO_CALLS]) == EXPECTED_TWO


def test_every_character_its_own_delta() -> None:
    assert parse(list(TWO_CALLS)) == EXPECTED_TWO


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=40))
def test_any_cut_gives_the_same_events(points: list[int]) -> None:
    assert parse(cut(TWO_CALLS, points)) == EXPECTED_TWO


kimi_texts = st.lists(
    st.one_of(
        st.sampled_from(
            [
                SB,
                SE,
                CB,
                AB,
                CE,
                "<|tool_call_section_begin|>",
                "functions.bash:3",
                "<",
                "<|",
                "|>",
                "{}",
                '{"a": 1}',
                " ",
                "\n",
            ]
        ),
        st.text(alphabet='ab<|>_:.{}" \n', max_size=8),
    ),
    max_size=25,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(kimi_texts, st.lists(st.integers(min_value=0, max_value=10_000), max_size=30))
def test_arbitrary_markup_soup_is_cut_invariant(text: str, points: list[int]) -> None:
    assert parse(cut(text, points)) == parse([text])


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60).filter(lambda t: "<|" not in t))
def test_text_without_markers_is_kept_exactly(text: str) -> None:
    events = parse(list(text))
    assert events == ([Text(text)] if text else [])


def test_singular_section_markers_and_name_colon_id() -> None:
    text = (
        "<|tool_call_section_begin|><|tool_call_begin|>bash:7<|tool_call_argument_begin|>{}"
        "<|tool_call_end|><|tool_call_section_end|>after"
    )
    assert parse([text]) == [CallStart("bash", "bash:7"), CallArgs("{}"), CallEnd(), Text("after")]


def test_several_sections_and_text_between() -> None:
    one = f"{SB}{CB}functions.bash:0{AB}{{}}{CE}{SE}"
    events = parse([f"a{one}b{one.replace(':0', ':1')}c"])
    assert [e for e in events if isinstance(e, Text)] == [Text("a"), Text("b"), Text("c")]
    assert [e.id for e in events if isinstance(e, CallStart)] == [
        "functions.bash:0",
        "functions.bash:1",
    ]


def test_empty_arguments_give_a_call_without_argument_events() -> None:
    assert parse([f"{SB}{CB}functions.bash:0{AB}{CE}{SE}"]) == [
        CallStart("bash", "functions.bash:0"),
        CallEnd(),
    ]


def test_call_cut_off_at_end_of_stream_keeps_what_arrived() -> None:
    assert parse([f'{SB}{CB}functions.bash:0{AB}{{"command": "l']) == [
        CallStart("bash", "functions.bash:0"),
        CallArgs('{"command": "l'),
        CallEnd(),
    ]


def test_header_cut_off_is_delivered_as_text() -> None:
    assert parse([f"x{SB}{CB}functions.ba"]) == [Text(f"x{CB}functions.ba")]


def test_lone_marker_prefix_at_end_is_text() -> None:
    assert parse(["a <", "|tool"]) == [Text("a <|tool")]


def test_mcp_names_with_dots_and_dashes() -> None:
    events = parse([f"{SB}{CB}functions.mcp__portal__search-documents.v2:4{AB}{{}}{CE}{SE}"])
    assert events[0] == CallStart(
        "mcp__portal__search-documents.v2", "functions.mcp__portal__search-documents.v2:4"
    )


def test_foreign_id_takes_the_name_from_the_best_matching_tool() -> None:
    events = parse([f'{SB}{CB}call_3{AB}{{"city": "Rome"}}{CE}{SE}'])
    assert events == [CallStart("get_weather", "call_3"), CallArgs('{"city": "Rome"}'), CallEnd()]


def test_bare_number_id_with_a_single_tool_streams_arguments_at_once() -> None:
    parser = create_parser("kimi_k2", ParserContext((Tool("bash"),)))
    first = parser.feed(f'{SB}{CB}3{AB}{{"command"')
    assert first == [CallStart("bash", "3"), CallArgs('{"command"')]


def test_call_without_section_marker() -> None:
    assert parse([f"hi {CB}functions.bash:0{AB}{{}}{CE} bye"]) == [
        Text("hi "),
        CallStart("bash", "functions.bash:0"),
        CallArgs("{}"),
        CallEnd(),
        Text(" bye"),
    ]


def test_arguments_stream_in_pieces_before_the_call_ends() -> None:
    parser = create_parser("kimi_k2", TOOLS)
    assert parser.feed(f"{SB}{CB}functions.bash:0{AB}") == [CallStart("bash", "functions.bash:0")]
    big = json.dumps({"command": "x" * 200_000})
    pieces = [big[i : i + 1000] for i in range(0, len(big), 1000)]
    sizes = [
        sum(len(e.fragment) for e in parser.feed(p) if isinstance(e, CallArgs)) for p in pieces
    ]
    assert all(size > 0 for size in sizes[:-1])
    assert sum(sizes) + sum(
        len(e.fragment) for e in parser.finish() if isinstance(e, CallArgs)
    ) == len(big)


def test_name_from_call_id_rules() -> None:
    empty = ParserContext()
    assert name_from_call_id("functions.bash:0", empty) == "bash"
    assert name_from_call_id("functions.a:b:12", empty) == "a:b"
    assert name_from_call_id("get_weather:3", empty) == "get_weather"
    assert name_from_call_id("3", TOOLS) is None
    assert name_from_call_id("toolu_01ABC", TOOLS) is None
    assert name_from_call_id("bash", TOOLS) == "bash"
    assert name_from_call_id("nosuch", TOOLS) is None
