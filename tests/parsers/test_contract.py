"""Properties every format parser keeps, checked on random markup soup."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import TOOLS, assemble, cut, normalise, parse

from toolcall_middleware.events import Text
from toolcall_middleware.parsers import create_parser, formats
from toolcall_middleware.parsers.descriptor import EVERY_FAMILY, family_members
from toolcall_middleware.parsers.family import family_of
from toolcall_middleware.parsers.xmlargs import XmlCallParser

# Every format that declares pieces of its markup: shuffled into random text, they make whole
# markers, cut markers and values.
FORMATS = [name for name, fmt in formats().items() if fmt.markup_pieces]
XML_FORMATS = [name for name in FORMATS if issubclass(formats()[name].parser, XmlCallParser)]  # type: ignore[arg-type]
#: What markup starts with (``]``: MiniMax M3's namespace); see ``test_triggers_promise``.
MARKUP_STARTS = "<[{]"
COMMON = ["<", ">", "{", "}", "[", "]", '"', "\\", "\n", " ", "x", "null", "3", ";", ","]


def test_every_format_is_held_to_the_contract() -> None:
    assert set(FORMATS) == set(formats()) - {"openai", "sniff"}  # (sniff: by the formats')
    assert "kimi_k2" in FORMATS


def soup(provider: str, common: list[str] = COMMON) -> st.SearchStrategy[str]:
    pieces = [*formats()[provider].markup_pieces, *common]
    return st.lists(st.sampled_from(pieces), max_size=30).map("".join)


@pytest.mark.parametrize("provider", FORMATS)
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_any_cut_of_any_text_gives_the_same_events(provider: str, data: st.DataObject) -> None:
    text = data.draw(soup(provider))
    whole = parse(provider, [text], TOOLS)
    assemble(whole)  # a well-formed event sequence: calls open, take arguments, close
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=10))
    assert parse(provider, cut(text, cuts), TOOLS) == whole
    assert parse(provider, list(text), TOOLS) == whole


@pytest.mark.parametrize("provider", XML_FORMATS)
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_xml_formats_always_emit_a_json_object(provider: str, data: st.DataObject) -> None:
    common = COMMON
    if getattr(formats()[provider].parser, "FORWARDS_MODEL_JSON", False):
        # A call may hold the model's own JSON, forwarded as written: the end of the stream
        # may cut it. The soup keeps whole objects only (its markup pieces).
        common = [c for c in COMMON if c not in ("{", "[")]
    text = data.draw(soup(provider, common))
    for call in assemble(parse(provider, [text], TOOLS)).calls:
        assert call.arguments == "" or isinstance(json.loads(call.arguments), dict)


@pytest.mark.parametrize("provider", FORMATS)
@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_characters="<[{"), max_size=40))
def test_text_without_markup_characters_passes_unchanged(provider: str, text: str) -> None:
    parser = create_parser(provider, TOOLS)
    assert normalise([*parser.feed(text), *parser.finish()]) == ([Text(text)] if text else [])


@pytest.mark.parametrize("provider", FORMATS)
def test_triggers_promise(provider: str) -> None:
    """After echoing its input, a parser echoes text without trigger characters unchanged."""
    parser = create_parser(provider, TOOLS)
    triggers = type(parser).TRIGGERS  # type: ignore[attr-defined]
    assert triggers
    if not all(c in MARKUP_STARTS for c in triggers):
        # A character prose holds often costs the fast path on every delta holding it: only a
        # format that its model name alone picks (a family of its own, no marker sniffed) may
        # start its markup with one, so that only its streams pay.
        fmt = formats()[provider]
        assert not fmt.sniff_markers
        assert {m.name for m in family_members(fmt) if m.family != EVERY_FAMILY} == {provider}
    assert parser.feed("plain words ") == [Text("plain words ")]
    assert parser.feed("more: ok") == [Text("more: ok")]


def test_text_characters_reach_no_other_stream() -> None:
    """A name-picked format's text characters are triggers of its own family's streams only."""
    own = {
        name
        for name, fmt in formats().items()
        if name != "sniff" and not set(fmt.triggers or "") <= set(MARKUP_STARTS)
    }
    assert own  # (Phi-4-mini's "f")
    assert set(family_of(None).triggers) <= set(MARKUP_STARTS)
    for name in set(formats()) - own - {"sniff"}:
        assert set(family_of(name).triggers) <= set(MARKUP_STARTS), name


@pytest.mark.parametrize("provider", FORMATS)
def test_lone_marker_start_at_end_of_stream_is_text(provider: str) -> None:
    for tail in ("<", "[", "{", "<tool", "<|", "[TOOL"):
        result = assemble(parse(provider, ["before ", tail], TOOLS))
        assert (result.text, result.calls) == ("before " + tail, [])
