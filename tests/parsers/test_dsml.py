"""DeepSeek DSML calls (V3.2 ``function_calls``, V4 ``tool_calls``, V4.1 `` calls``)."""

from __future__ import annotations

from parser_helpers import (
    TOOLS,
    any_cut_test,
    call,
    calls_of,
    every_cut_agrees,
    make_context,
    parse,
    run,
)

from toolcall_middleware.events import CallArgs, CallEnd, CallStart, Text
from toolcall_middleware.parsers import create_parser
from toolcall_middleware.parsers.deepseek_v4 import write_v41_calls
from toolcall_middleware.parsers.dsml import DSML

P = "deepseek_v32"
FC, FC_END = f"<{DSML}function_calls>", f"</{DSML}function_calls>"
TC, TC_END = f"<{DSML}tool_calls>", f"</{DSML}tool_calls>"
INV, INV_END = f"<{DSML}invoke", f"</{DSML}invoke>"
PAR, PAR_END = f"<{DSML}parameter", f"</{DSML}parameter>"


def param(key: str, string: str, value: str) -> str:
    return f'{PAR} name="{key}" string="{string}">{value}{PAR_END}\n'


BLOCK = (
    f'I will check.\n\n{FC}\n{INV} name="get_weather">\n{param("city", "true", "Hangzhou")}'
    f'{param("days", "false", "3")}{INV_END}\n{INV} name="get_time">\n{INV_END}\n{FC_END} Done.'
)
SAMPLES = [
    BLOCK,
    BLOCK.replace("function_calls", "tool_calls"),
    write_v41_calls([("bash", '{"command": "ls <b>"}')]),
    f'{TC}\n{INV} name="write_file">\n{param("path", "true", "a.txt")}'
    f'{PAR} name="content" string="true">line 1\nli',
    f'{FC}\n{INV} name="bash">\n  {{"command": "echo \\"<{DSML}\\""}}\n{INV_END}\n{FC_END}',
    f'text {INV} name="get_ti',
    f"a <｜DSM b {FC_END} c {INV_END}",
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES)
test_any_cut_gives_the_same_events_under_v4 = any_cut_test("deepseek_v4", SAMPLES)


def test_block_with_typed_values_and_a_call_without_parameters() -> None:
    assert every_cut_agrees(P, BLOCK) == [
        Text("I will check.\n\n"),
        *call("get_weather", '{"city": "Hangzhou", "days": 3}'),
        *call("get_time"),
        Text(" Done."),
    ]


def test_every_block_name_is_read_by_both_providers() -> None:
    for provider in ("deepseek_v32", "deepseek_v4"):
        for sample in SAMPLES[:3]:
            assert calls_of(provider, sample).calls, (provider, sample)
    assert calls_of("deepseek_v4", SAMPLES[2]).arguments() == [{"command": "ls <b>"}]


def test_string_values_stream_while_they_arrive() -> None:
    parser = create_parser(P, TOOLS)
    head = f'{FC}\n{INV} name="bash">\n{PAR} name="command" string="true">ls '
    assert parser.feed(head) == [CallStart("bash"), CallArgs('{"command": '), CallArgs('"ls ')]
    assert parser.feed("-la\n") == [CallArgs("-la\\n")]  # no newline is framing here
    assert parser.feed(f"{PAR_END}\n{INV_END}") == [CallArgs('"'), CallArgs("}"), CallEnd()]


def test_a_string_flag_true_keeps_the_word_null_and_spaces() -> None:
    text = f'{INV} name="bash">{param("command", "true", "null")}{INV_END}'
    assert calls_of(P, text).arguments() == [{"command": "null"}]
    text = f'{INV} name="bash">' + param("command", "true", " x \n") + INV_END
    assert calls_of(P, text).arguments() == [{"command": " x \n"}]


def test_a_parameter_without_flag_is_typed_like_the_xml_formats() -> None:
    text = f'{INV} name="get_weather">{PAR} name="days">4{PAR_END}{INV_END}'
    assert calls_of(P, text).arguments() == [{"days": 4}]


def test_a_wrapper_whose_keys_do_not_fit_the_tool_stays_a_parameter() -> None:
    tools = make_context(("get_weather", {"location": {"type": "string"}}))
    text = f'{INV} name="get_weather">' + param("arguments", "false", '{"town": "x"}') + INV_END
    assert calls_of(P, text, tools).arguments() == [{"arguments": {"town": "x"}}]
    text = f'{INV} name="get_weather">{param("input", "true", "plain")}{INV_END}'
    assert calls_of(P, text, tools).arguments() == [{"input": "plain"}]
    # Unwrapped, then more parameters after it.
    text = (
        f'{INV} name="get_weather">'
        + param("arguments", "false", '{"location": "x"}')
        + param("units", "true", "c")
        + INV_END
    )
    assert calls_of(P, text, tools).arguments() == [{"location": "x", "units": "c"}]


def test_a_json_body_streams_as_written() -> None:
    parser = create_parser(P, TOOLS)
    assert parser.feed(f'{INV} name="bash">\n {{"command": "l') == [
        CallStart("bash"),
        CallArgs('{"command": "l'),
    ]
    assert parser.feed(f's"}}\n{INV_END}') == [CallArgs('s"}'), CallEnd()]
    assert calls_of(P, SAMPLES[4]).arguments() == [{"command": f'echo "<{DSML}"'}]


def test_cut_off_call_keeps_what_arrived_and_cut_off_header_is_text() -> None:
    assert calls_of("deepseek_v4", SAMPLES[3]).arguments() == [
        {"path": "a.txt", "content": "line 1\nli"}
    ]
    result = calls_of(P, SAMPLES[5])
    assert (result.text, result.calls) == (SAMPLES[5], [])


def test_stray_tags_are_dropped_and_counted() -> None:
    parser = create_parser(P, TOOLS)
    result = run(parser, [SAMPLES[6]])
    assert "".join(e.text for e in result if isinstance(e, Text)) == "a <｜DSM b  c "
    assert parser.strays == 2  # type: ignore[attr-defined]


def test_calls_in_reasoning_style_text() -> None:
    events = parse(P, ["We need the time.", f'{FC}{INV} name="get_time">{INV_END}{FC_END}'])
    assert events == [Text("We need the time."), *call("get_time")]
