"""provider="auto": the model name chooses a family, the stream's markers the format in it."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import TOOLS, assemble, cut, normalise, parse, run

from toolcall_middleware.events import Event, Text
from toolcall_middleware.parsers import ParserContext, formats
from toolcall_middleware.parsers.descriptor import EVERY_FAMILY, family_members
from toolcall_middleware.parsers.family import family_of
from toolcall_middleware.parsers.sniff import SniffingParser, family_parser

BASH = [("bash", '{"command": "ls"}')]
HERMES = formats()["hermes"].write_calls(BASH)  # type: ignore[misc]
CODER = formats()["qwen3_coder"].write_calls(BASH)  # type: ignore[misc]
TAGS = formats()["qwen_xml"].write_calls(BASH)  # type: ignore[misc]
# The formats a model name picks: each is the default of its family.
DEFAULTS = [name for name, fmt in formats().items() if fmt.model_names]


def by_family(default: str, pieces: Iterable[str], context: ParserContext = TOOLS) -> list[Event]:
    return normalise(run(family_parser(default, context), pieces))


def assert_cut_invariant(default: str, text: str, cuts: Iterable[int]) -> list[Event]:
    whole = by_family(default, [text])
    assert by_family(default, cut(text, cuts)) == whole
    assert by_family(default, list(text)) == whole
    return whole


def test_every_format_has_a_family_and_kimi_deepseek_minimax_qwen_are_families() -> None:
    assert all(fmt.family for name, fmt in formats().items() if name != "sniff"), [
        name for name, fmt in formats().items() if not fmt.family
    ]
    families: dict[str, set[str]] = {}
    for name, fmt in formats().items():
        families.setdefault(fmt.family, set()).add(name)
    assert {"hermes", "qwen3_coder"} <= families["qwen"]
    for family, prefix in (("kimi", "kimi"), ("deepseek", "deepseek"), ("minimax", "minimax")):
        assert {n for n in formats() if n.startswith(prefix)} == families[family]
    assert families[EVERY_FAMILY] == {"qwen_xml"}
    assert [f.name for f in family_members(formats()["glm45"])] == ["glm45", "qwen_xml"]


@pytest.mark.parametrize("default", ["hermes", "qwen3_coder"])
def test_in_the_qwen_family_what_follows_tool_call_says_which_format(default: str) -> None:
    for markup, fmt in ((HERMES, "hermes"), (CODER, "qwen3_coder")):
        text = f"Let me look. {markup} done"
        parser = family_parser(default, TOOLS)
        events = normalise(run(parser, [text]))
        assert isinstance(parser, SniffingParser) and parser.detected == fmt
        assert events == normalise([Text("Let me look. "), *parse(fmt, [markup + " done"], TOOLS)])
        assert assemble(events).arguments() == [{"command": "ls"}]


def test_the_name_format_stays_the_default_for_its_own_markup() -> None:
    bare = "<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>"
    assert assemble(by_family("qwen3_coder", [bare])).arguments() == [{"command": "ls"}]
    assert assemble(by_family("hermes", [bare])).text == bare  # only Qwen3-Coder writes it bare
    llama = '{"name": "bash", "parameters": {"command": "ls"}}'
    assert assemble(by_family("llama3_json", [llama])).arguments() == [{"command": "ls"}]


@pytest.mark.parametrize("default", DEFAULTS)
def test_a_stream_in_the_default_format_reads_as_the_default_parser_reads_it(default: str) -> None:
    writer = formats()[default].write_calls
    assert writer is not None
    text = "Sure: " + writer([*BASH, ("get_time", "{}")]) + " done <"
    for context in (TOOLS, ParserContext()):
        assert by_family(default, [text], context) == parse(default, [text], context)
        assert by_family(default, list(text), context) == parse(default, [text], context)


def test_markup_of_another_family_is_text() -> None:
    kimi = formats()["kimi_k2"].write_calls(BASH)  # type: ignore[misc]
    assert assemble(by_family("hermes", [kimi])).calls == []
    assert assemble(by_family("kimi_k2", [CODER])).text == CODER
    glm = "<tool_call>bash<arg_key>command</arg_key><arg_value>ls</arg_value></tool_call>"
    assert assemble(by_family("hermes", [glm])).text == glm


def test_a_family_with_nothing_to_choose_is_its_formats_parser() -> None:
    assert type(family_parser("glm45", ParserContext())).__name__ == "Glm45Parser"
    assert isinstance(family_parser("glm45", TOOLS), SniffingParser)  # tool tags to look for
    assert isinstance(family_parser("kimi_k2", ParserContext()), SniffingParser)  # K2 or K3
    assert isinstance(family_parser("hermes", ParserContext()), SniffingParser)
    # A default whose parser does not tell what it looks for in plain text reads it all.
    assert not family_of("openai").default_known
    assert type(family_parser("openai", TOOLS)).__name__ == "PassthroughParser"


def test_the_defaults_id_style_holds_until_a_marker_decides() -> None:
    parser = family_parser("mistral", TOOLS)
    assert parser.id_style == "mistral9"
    assert family_parser("hermes", TOOLS).id_style is None


QWEN_PIECES = [
    *formats()["hermes"].markup_pieces,
    *formats()["qwen3_coder"].markup_pieces,
    "<bash>",
    "</bash>",
    "<command>",
    "</command>",
    "<b>",
    "\n",
    " ",
    "x",
    "{",
    "<",
]


@pytest.mark.parametrize("default", ["hermes", "qwen3_coder", "kimi_k2"])
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_any_cut_of_a_soup_gives_the_same_events(default: str, data: st.DataObject) -> None:
    text = data.draw(st.lists(st.sampled_from(QWEN_PIECES), max_size=30).map("".join))
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=10))
    whole = assert_cut_invariant(default, text, cuts)
    assembled = assemble(whole)  # well-formed: calls open, take arguments, close
    assert "".join(e.text for e in whole if isinstance(e, Text)) == assembled.text


SAMPLES = [
    f"Here.\n{CODER}\nthen {HERMES}",
    f"Reading.\n\n{TAGS}\n{HERMES} and {CODER}",
    "Use <bash> like this: <bash><command>ls</command></bash>.\n" + TAGS,
    "<tool_call>\n<b>no</b></tool_call> " + CODER,
]


@pytest.mark.parametrize("default", ["hermes", "qwen3_coder"])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_any_cut_of_the_samples_gives_the_same_events(default: str, data: st.DataObject) -> None:
    text = data.draw(st.sampled_from(SAMPLES))
    cuts = data.draw(st.lists(st.integers(1, len(text) - 1), max_size=12))
    assert_cut_invariant(default, text, cuts)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (SAMPLES[0], ["bash"]),  # the first marker decides: Hermes after it is text
        (SAMPLES[1], ["bash", "bash"]),  # a tool tag decides nothing: Hermes still can
        (SAMPLES[2], ["bash"]),  # only the tag with a line break after it
        (SAMPLES[3], ["bash"]),
    ],
)
def test_which_markup_in_a_sample_is_a_call(text: str, names: list[str]) -> None:
    result = assemble(by_family("hermes", [text]))
    assert [c.name for c in result.calls] == names


@pytest.mark.parametrize("default", DEFAULTS)
def test_the_triggers_a_stream_is_given_keep_their_promise(default: str) -> None:
    """The stream path passes text without the family's triggers unread: the parser, having
    echoed its input, echoes such text unchanged."""
    triggers = family_of(default).triggers
    for context in (TOOLS, ParserContext()):
        parser = family_parser(default, context)
        assert set(getattr(parser, "TRIGGERS", "")) <= set(triggers)
        assert parser.feed("plain words ") == [Text("plain words ")]
        free = "".join(c for c in "more: ok (x) <a> [b] {c}\n" if c not in triggers)
        assert parser.feed(free) == [Text(free)]


def test_in_the_kimi_family_the_channels_say_k3() -> None:
    k3 = formats()["kimi_k3"].write_calls(BASH)  # type: ignore[misc]
    parser = family_parser("kimi_k2", TOOLS)  # a Kimi name that says nothing of K3
    result = assemble(normalise(run(parser, [f"Let me look. {k3}"])))
    assert isinstance(parser, SniffingParser) and parser.detected == "kimi_k3"
    assert (result.text, result.arguments()) == ("Let me look. ", [{"command": "ls"}])
    # K3 by name, its template opening the think channel: K3's parser reads from the start.
    opened = ParserContext(TOOLS.tools, thinking_opened=True)
    assert type(family_parser("kimi_k3", opened)).__name__ == "KimiK3Parser"
    assert isinstance(family_parser("kimi_k3", TOOLS), SniffingParser)


def test_a_format_registered_later_is_picked_for_a_name_asked_before() -> None:
    """The name lookup keeps its answers; a format registered since answers for its names."""
    from toolcall_middleware.parsers import descriptor

    name = "zz-registered-later-7b"
    assert descriptor.format_for_model(name) is None
    hermes = formats()["hermes"]
    late = descriptor.Format(
        "zz_registered_later", hermes.parser, (descriptor.NameRule(("zz-registered-later",), 9),)
    )
    try:
        descriptor.register(late)
        assert descriptor.format_for_model(name) is late
    finally:
        del descriptor._FORMATS[late.name]
        descriptor.format_for_model.cache_clear()
    assert descriptor.format_for_model(name) is None
