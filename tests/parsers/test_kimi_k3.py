"""Kimi K3 channels: the peers' cases (SGLang's and vLLM's K3 tests, rtp-llm's K3 renderer
tests) and our own, at the parser. The reasoning split of the think channel and the middleware
under ``provider="auto"`` are in ``tests/test_peer_cases.py``."""

from __future__ import annotations

import pytest
from parser_helpers import (
    any_cut_test,
    assemble,
    call,
    calls_of,
    cut,
    every_cut_agrees,
    make_context,
    normalise,
    parse,
    run,
)

from peer_cases import PeerCase
from peers_kimi_k3 import K3_LEAKED_TOOLS, KIMI_K3, k3_call
from toolcall_middleware.events import CallArgs, CallStart, Reasoning, Text
from toolcall_middleware.parsers import ParserContext, create_parser
from toolcall_middleware.parsers.kimi_k3 import (
    MESSAGE_CLOSE,
    RESPONSE_CLOSE,
    RESPONSE_OPEN,
    THINK_CLOSE,
    THINK_OPEN,
    TOOLS_CLOSE,
    TOOLS_OPEN,
    header_so_far,
    may_be_header,
)

P = "kimi_k3"
PYTHON = make_context(("python", {"code": {"type": "string"}}), "read_agent", "search")
LEAKED_TOOLS_SECTION = K3_LEAKED_TOOLS


def opened(case: PeerCase) -> ParserContext:
    """The context the middleware gives a case's parser: K3's template opens its think
    channel unless the request turned thinking off."""
    return ParserContext(PYTHON.tools, thinking_opened=not case.thinking_off)


@pytest.mark.parametrize("case", KIMI_K3, ids=lambda c: c.name)
def test_the_peers_cases(case: PeerCase) -> None:
    result = assemble(every_cut_agrees(P, case.text, opened(case)))
    assert (result.text, result.reasoning) == (case.content, case.reasoning)
    assert list(zip([c.name for c in result.calls], result.arguments(), strict=True)) == list(
        case.calls
    )
    assert all(c.id is None for c in result.calls)  # K3 writes no id: the rewriter makes one


@pytest.mark.parametrize("size", [1, 3, 7, 23])
def test_the_peers_fixed_chunk_sizes(size: int) -> None:
    for case in KIMI_K3:
        text = case.text
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        result = assemble(parse(P, pieces, opened(case)))
        assert (result.text, result.reasoning) == (case.content, case.reasoning)
        assert [c.name for c in result.calls] == [name for name, _ in case.calls]


def test_rtp_llm_chunks_split_inside_markers() -> None:
    chunks = [
        "OK<|close|>respo",
        "nse<|sep|><|open|>to",
        'ols<|sep|><|open|>call tool="get_wea',
        'ther" index="1"<|sep|><|open|>json type="object"<|sep|>{"ci',
        'ty": "杭州"}<|close|>js',
        "on<|sep|><|close|>call<|sep|><|close|>too",
        "ls<|sep|>",
    ]
    result = assemble(parse(P, chunks, PYTHON))
    assert (result.text, result.arguments()) == ("OK", [{"city": "杭州"}])


def test_the_think_channel_is_reasoning() -> None:
    text = f"{THINK_OPEN}secret{THINK_CLOSE}{RESPONSE_OPEN}visible{RESPONSE_CLOSE}"
    assert parse(P, [text], PYTHON) == [Reasoning("secret"), Text("visible")]
    spaced = "<|open|> think <|sep|>x<|close|>think <|sep|>"
    assert parse(P, [spaced], PYTHON) == [Reasoning("x")]


def test_a_think_channel_the_template_opened() -> None:
    opened = ParserContext(PYTHON.tools, thinking_opened=True)
    text = f"weighing{THINK_CLOSE}{RESPONSE_OPEN}visible{RESPONSE_CLOSE}{MESSAGE_CLOSE}"
    assert every_cut_agrees(P, text, opened) == [Reasoning("weighing"), Text("visible")]
    # The response (or a call) straight away: the channel was empty.
    assert every_cut_agrees(P, f"{RESPONSE_OPEN}hi", opened) == [Text("hi")]
    assert every_cut_agrees(P, LEAKED_TOOLS_SECTION, opened) == [
        *call("read_agent", '{"id": "worker_1"}')
    ]
    # Not opened: a close with nothing open is a stray, and the text before it is text.
    parser = create_parser(P, PYTHON)
    assert normalise(run(parser, ["answer<|close|>think<|sep|>still-visible"])) == [
        Text("answerstill-visible")
    ]
    assert parser.strays == 1


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("<|open|>", ""),
        ("<|close|>", ""),
        ("<|open|>tools", ""),
        ("<|close|>response", ""),
        ("all done<|open|>", "all done"),
        # Special tokens arrive whole: a part of one is the model's text.
        ("<|", "<|"),
        ("all done<", "all done<"),
        (f"{RESPONSE_OPEN}<|close|", "<|close|"),
    ],
)
def test_markers_cut_off_by_the_end_are_dropped_and_a_lone_start_is_text(
    text: str, kept: str
) -> None:
    assert calls_of(P, text, PYTHON).text == kept


@pytest.mark.parametrize("text", ["", "hello world", "a < b and c |> d", "is 3 < 4? yes <"])
def test_plain_text_is_untouched(text: str) -> None:
    result = calls_of(P, text, PYTHON)
    assert (result.text, result.calls) == (text, [])


def test_a_token_whose_header_is_no_channel_is_dropped_and_its_text_kept() -> None:
    # SGLang drops "<|open|>call" here; the token is never text, but the word is the model's.
    text = "calls open with <|open|>call, then attributes"
    parser = create_parser(P, PYTHON)
    assert assemble(run(parser, [text])).text == "calls open with call, then attributes"
    assert parser.strays == 1
    assert calls_of(P, "x<|open|>nope<|sep|>y", PYTHON).text == "xnopey"


def test_strays_are_dropped_and_counted() -> None:
    text = (
        f"a<|sep|>b{TOOLS_CLOSE}c<|close|>call<|sep|><|close|>argument<|sep|>"
        f'<|open|>argument key="k" type="string"<|sep|>d'
    )
    parser = create_parser(P, PYTHON)
    result = assemble(run(parser, [text]))
    assert (result.text, result.calls) == ("abcd", [])
    assert parser.strays == 5


def test_string_values_stream_verbatim_as_they_arrive() -> None:
    parser = create_parser(P, PYTHON)
    head = f'{TOOLS_OPEN}<|open|>call tool="python" index="1"<|sep|>'
    assert parser.feed(head) == [CallStart("python")]
    assert parser.feed('<|open|>argument key="code" type="string"<|sep|>\nif x:') == [
        CallArgs('{"code": "'),
        CallArgs("\\nif x:"),
    ]
    assert parser.feed('\n    print("a")\n') == [CallArgs('\\n    print(\\"a\\")\\n')]
    events = parser.feed("<|close|>argument<|sep|><|close|>call<|sep|>")
    assert events == [CallArgs('"'), CallArgs("}"), *call("")[1:]]


def test_typed_values_wait_for_their_close_and_untyped_ones_follow_the_schema() -> None:
    context = make_context(("f", {"n": {"type": "integer"}, "s": {"type": "string"}}))
    text = (
        f'{TOOLS_OPEN}<|open|>call tool="f" index="1"<|sep|>'
        '<|open|>argument key="n"<|sep|>7<|close|>argument<|sep|>'
        '<|open|>argument key="s"<|sep|>7<|close|>argument<|sep|>'
        '<|open|>argument key="x" type="integer"<|sep|>3.0<|close|>argument<|sep|>'
        '<|open|>argument key="y" type="null"<|sep|>null<|close|>argument<|sep|>'
        '<|open|>argument key="z" type="array"<|sep|>[1, "a"]<|close|>argument<|sep|>'
        '<|open|>argument key="w" type="custom"<|sep|>{"deep": [true]}<|close|>argument<|sep|>'
        f"<|close|>call<|sep|>{TOOLS_CLOSE}"
    )
    assert calls_of(P, text, context).arguments() == [
        {"n": 7, "s": "7", "x": 3, "y": None, "z": [1, "a"], "w": {"deep": [True]}}
    ]


def test_a_call_cut_off_keeps_what_arrived() -> None:
    # SGLang drops a call whose close never came; a call cut off by max_tokens keeps what
    # arrived here, as every format's does (finish_reason stays "length").
    text = TOOLS_OPEN + '<|open|>call tool="python" index="1"<|sep|><|open|>argument key="code"'
    assert calls_of(P, text + ' type="string"<|sep|>pri', PYTHON).arguments() == [{"code": "pri"}]
    assert calls_of(P, text, PYTHON).arguments() == [{}]


def test_a_call_without_its_close_ends_at_the_next_channel() -> None:
    text = (
        TOOLS_OPEN
        + '<|open|>call tool="python" index="1"<|sep|>'
        + '<|open|>argument key="code" type="string"<|sep|>a'
        + '<|open|>call tool="python" index="2"<|sep|>'
        + f"{MESSAGE_CLOSE}after"
    )
    result = calls_of(P, text, PYTHON)
    assert (result.text, result.arguments()) == ("after", [{"code": "a"}, {}])


def test_headers() -> None:
    assert header_so_far('call tool="a&amp;b" index="2"') == ("call", {"tool": "a&b", "index": "2"})
    assert header_so_far(" tools ") == ("tools", {})
    assert header_so_far("tools x") is None
    assert header_so_far("nope") is None
    assert header_so_far('call tool="a') is None
    for prefix in ("", "to", "call", "call ", 'call tool="a', "call tool=", 'argument key="k" t'):
        assert may_be_header(prefix), prefix
    for text in ("call,", "toolsx", "nope", 'call tool="a"x', "tools <"):
        assert not may_be_header(text), text


SAMPLES = [
    *(case.text for case in KIMI_K3),
    f"{THINK_OPEN}hm{THINK_CLOSE}{RESPONSE_OPEN}ok{RESPONSE_CLOSE}" + LEAKED_TOOLS_SECTION,
    "calls open with <|open|>call, then attributes <|",
]

test_any_cut_gives_the_same_events = any_cut_test(P, SAMPLES, PYTHON)


def test_text_around_calls_is_kept_in_order() -> None:
    text = f"a{TOOLS_OPEN}{k3_call('python', 1, {})}{TOOLS_CLOSE}b"
    assert parse(P, cut(text, [3, 30]), PYTHON) == [Text("a"), *call("python"), Text("b")]


def test_a_think_channel_split_off_upstream_is_not_the_parsers() -> None:
    parser = create_parser(P, ParserContext(PYTHON.tools, thinking_opened=True))
    parser.upstream_reasoning()  # type: ignore[attr-defined]
    assert parser.feed("thinking") == [Text("thinking")]
    assert parser.feed(f"{RESPONSE_OPEN}answer") == [Text("answer")]
