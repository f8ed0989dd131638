"""The loop every format parser runs on (``parsers.driver``), and its one shortcut's rule.

A toy format exercises the loop itself: ``[[name:arguments]]`` is a call, ``[[`` not followed
by a name and ``:`` is text again, ``]]`` outside a call is a stray.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import TOOLS, assemble, cut, normalise, parse

from toolcall_middleware.events import CALL_END, CallArgs, CallEnd, CallStart, Event, Text
from toolcall_middleware.parsers import ParserContext, create_parser, formats
from toolcall_middleware.parsers.base import MarkerSearch
from toolcall_middleware.parsers.driver import (
    OptionalClose,
    StreamParser,
    literal_at,
    marker_tables,
    scan_markers,
    search_table,
    skip_space,
)


class _State(enum.IntEnum):
    TEXT = 0
    NAME = 1  # read by the state itself: letters, then ":"
    ARGS = 2  # a marker state: up to "]]"


_TEXT, _NAME, _ARGS = _State
_SEARCH, _STRAYS = marker_tables(_State, {_TEXT: ("[[",), _ARGS: ("]]",)}, strays={_TEXT: ("]]",)})
_NOT_LETTER = re.compile(r"[^a-z]")


class Toy(StreamParser):
    TRIGGERS = "["
    _searches = _SEARCH
    _strays = _STRAYS
    _SHORTCUT_STATES = (_ARGS,)

    def __init__(self, context: ParserContext = TOOLS) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._name = ""

    def _shortcut(self, text: str) -> list[Event] | None:
        return [CallArgs(text)]  # all of an ARGS delta with no "]" is arguments

    def _marker(self, marker: str, out: list[Event]) -> None:
        if self._state is _TEXT:  # "[["
            self._name = ""
            self._state = _NAME
        else:  # "]]"
            out.append(CALL_END)
            self._state = _TEXT

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        match = _NOT_LETTER.search(buf, pos)
        if match is None:
            self._name += buf[pos:]
            return len(buf)
        self._name += buf[pos : match.start()]
        if match.group() == ":" and self._name:
            out.append(CallStart(self._name))
            self._state = _ARGS
            return match.end()
        self._give_back("[[" + self._name, out)
        self._state = _TEXT
        return match.start()

    def _segment(self, segment: str, out: list[Event]) -> None:  # ARGS
        out.append(CallArgs(segment))

    def _held_markup(self) -> int:
        return 2 + len(self._name) if self._state is _NAME else 0

    def _close(self, out: list[Event]) -> None:
        if self._state is _NAME:
            self._give_back("[[" + self._name, out)
        elif self._state is _ARGS:
            out.append(CALL_END)
        self._state = _TEXT


TOY_TEXT = "a [[ls:-la x]] b [[no]] c [[f:]]"
TOY_EVENTS = [
    Text("a "),
    CallStart("ls"),
    CallArgs("-la x"),
    CallEnd(),
    Text(" b [[no c "),
    CallStart("f"),
    CallEnd(),
]


def run_toy(pieces: Iterable[str], parser: StreamParser | None = None) -> list[Event]:
    parser = parser or Toy()
    events = [event for piece in pieces for event in parser.feed(piece)]
    return normalise([*events, *parser.finish()])


def test_the_toy_format_through_the_loop() -> None:
    parser = Toy()
    assert run_toy([TOY_TEXT], parser) == TOY_EVENTS
    assert (parser.text_fallbacks, parser.strays) == (1, 1)  # "[[no", its "]]"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, len(TOY_TEXT) - 1), max_size=12))
def test_the_toy_format_under_any_cut(cuts: list[int]) -> None:
    assert run_toy(cut(TOY_TEXT, cuts)) == TOY_EVENTS


def test_a_cut_marker_is_held_then_taken_whole() -> None:
    parser = Toy()
    assert parser.feed("a [") == [Text("a ")]
    assert parser.held == 1  # the "[" that may start "[["
    assert parser.feed("[") == []
    assert parser.held == 2  # "[[" and no name yet: text again if no call follows
    assert parser.feed("ls") == []
    assert parser.held == 4
    assert parser.feed(":x") == [CallStart("ls"), CallArgs("x")]
    assert parser.held == 0
    assert parser.feed("]") == []  # the start of "]]", held
    assert parser.feed("]") == [CallEnd()]


def test_finish_gives_back_what_the_state_held() -> None:
    assert run_toy(["x [[ab"]) == [Text("x [[ab")]
    assert run_toy(["x ["]) == [Text("x [")]
    assert run_toy(["[[f:1"]) == [CallStart("f"), CallArgs("1"), CallEnd()]


def test_plain_text_where_markers_start_with_different_characters() -> None:
    class Two(enum.IntEnum):
        TEXT = 0

    class Brackets(StreamParser):
        TRIGGERS = "<{"
        _searches = search_table(Two, {Two.TEXT: MarkerSearch(("<a>", "{b}"))})

        def __init__(self) -> None:
            super().__init__(TOOLS)
            self._state = Two.TEXT

        def _marker(self, marker: str, out: list[Event]) -> None:
            out.append(Text(marker.upper()))

        def _close(self, out: list[Event]) -> None:
            pass

    parser = Brackets()
    assert parser.feed("plain") == [Text("plain")]
    assert parser.feed("") == []
    assert parser.feed("x {b} <") == [Text("x "), Text("{B}"), Text(" ")]
    assert parser.feed("a>") == [Text("<A>")]


def check_shortcut_rule(new: Callable[[], StreamParser], pieces: list[str]) -> int:
    """Feed ``pieces`` three ways: with the shortcut, without it, and by the step loop alone;
    every feed and the finish must give the same events. Returns how many deltas the shortcut
    took."""
    with_shortcut, without, by_steps = new(), new(), new()
    without._SHORTCUT_STATES = ()
    taken = 0
    shortcut = with_shortcut._shortcut

    def counted(text: str) -> list[Event] | None:
        nonlocal taken
        events = shortcut(text)
        taken += events is not None
        return events

    with_shortcut._shortcut = counted  # type: ignore[method-assign]
    for piece in pieces:
        expected = by_steps.feed_by_steps(piece)
        assert with_shortcut.feed(piece) == expected, piece
        assert without.feed(piece) == expected, piece
    assert with_shortcut.finish() == without.finish() == by_steps.finish()
    return taken


def test_the_rule_catches_a_shortcut_that_says_more_than_the_loop() -> None:
    class Wrong(Toy):
        def _shortcut(self, text: str) -> list[Event] | None:
            return [CallArgs(text.upper())]

    assert check_shortcut_rule(Toy, cut(TOY_TEXT, range(len(TOY_TEXT)))) == len("-la x")
    with pytest.raises(AssertionError):
        check_shortcut_rule(Wrong, cut(TOY_TEXT, range(len(TOY_TEXT))))


# Every format that runs on the driver, with markup to feed it: random soup of its pieces, and
# two calls written as the format writes them, between prose.
DRIVEN = [
    name
    for name, fmt in formats().items()
    if isinstance(create_parser(name, TOOLS), StreamParser) and fmt.markup_pieces
]
COMMON = ["<", ">", "{", "}", "[", "]", '"', "\\", "\n", " ", "x", "null", "3", ";", ","]
# What a detokenizer sends: special tokens and tags whole, words and punctuation apart.
_TOKEN = re.compile(r"<[^<>\s]*>|\[[A-Z_]+\]|\w+|\s+|.")


def written(provider: str) -> str:
    writer = formats()[provider].write_calls
    assert writer is not None
    calls = [
        ("bash", '{"command": "grep -rn \\"a b\\" logs/ | head"}'),
        ("write_file", '{"path": "a.txt", "content": "one\\ntwo"}'),
    ]
    return f"Let me look. {writer(calls)} Done."


def texts(provider: str) -> st.SearchStrategy[str]:
    pieces = [*formats()[provider].markup_pieces, *COMMON]
    soup = st.lists(st.sampled_from(pieces), max_size=30).map("".join)
    return st.one_of(soup, st.just(written(provider)))


def test_every_format_runs_on_the_driver() -> None:
    assert set(DRIVEN) == set(formats()) - {"openai", "sniff"}


@pytest.mark.parametrize("provider", DRIVEN)
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_a_shortcut_yields_what_the_step_loop_would(provider: str, data: st.DataObject) -> None:
    text = data.draw(texts(provider))
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=12))

    def new() -> StreamParser:
        parser = create_parser(provider, TOOLS)
        assert isinstance(parser, StreamParser)
        return parser

    check_shortcut_rule(new, cut(text, cuts))
    check_shortcut_rule(new, list(text))
    check_shortcut_rule(new, _TOKEN.findall(text))


def test_the_rule_holds_for_a_format_with_nothing_to_find() -> None:
    def new() -> StreamParser:
        parser = create_parser("qwen_xml", ParserContext())  # no tools: no tag is a call
        assert isinstance(parser, StreamParser)
        return parser

    text = "a <read><filePath>x</filePath></read> <b> <"
    assert check_shortcut_rule(new, list(text)) == 0
    assert check_shortcut_rule(new, [text]) == 0


@pytest.mark.parametrize(
    "provider", [name for name in DRIVEN if formats()[name].parser._SHORTCUT_STATES]
)  # type: ignore[attr-defined]
def test_a_formats_shortcut_takes_its_arguments_as_a_detokenizer_sends_them(
    provider: str,
) -> None:
    def new() -> StreamParser:
        parser = create_parser(provider, TOOLS)
        assert isinstance(parser, StreamParser)
        return parser

    text = written(provider)
    calls = assemble(parse(provider, [text], TOOLS)).calls
    assert [call.name for call in calls] == ["bash", "write_file"]
    taken = check_shortcut_rule(new, _TOKEN.findall(text))
    assert taken >= 10, taken  # most pieces of "grep -rn ..." go out as written


def test_search_table_needs_states_numbered_in_order() -> None:
    class Gap(enum.IntEnum):
        A = 0
        B = 2

    with pytest.raises(ValueError, match="numbered"):
        search_table(Gap, {})
    search = MarkerSearch(("]]",))
    assert search_table(_State, {_ARGS: search}) == (None, None, search)


def test_marker_tables_refuse_a_marker_that_begins_another() -> None:
    with pytest.raises(ValueError, match="begins another"):
        marker_tables(_State, {_TEXT: ("<a", "<ab>")})
    searches, strays = marker_tables(_State, {_TEXT: ("<a>",)}, strays={_TEXT: ("<b>",)})
    assert searches[0] is not None and searches[0].marker_set == {"<a>", "<b>"}
    assert strays == (frozenset({"<b>"}), frozenset(), frozenset())


def test_marker_search_holds_only_what_can_still_grow_into_a_marker() -> None:
    search = MarkerSearch(("<|a|>", "<|bc|>"))
    assert (search.lead, search.starts) == ("<", "<")
    assert search.held_suffix("text <|b") == 3
    assert search.held_suffix("text <|x") == 0
    assert search.held_suffix("<|a|") == 4
    assert "<|" in search.bare_prefixes and "<|a|>" not in search.bare_prefixes
    assert MarkerSearch(("<a>", "{b}")).lead == ""
    with pytest.raises(ValueError):
        MarkerSearch(("",))


def test_scan_markers_finds_the_next_marker_or_holds_a_possible_start() -> None:
    search = MarkerSearch(("]]",))
    assert scan_markers("ab]]cd", 0, search, final=False) == (2, "]]", 4)
    assert scan_markers("ab]", 0, search, final=False) == (2, None, 2)
    assert scan_markers("ab]", 0, search, final=True) == (3, None, 3)
    assert scan_markers("]", 0, search, final=False) is None


def test_literal_at_tells_which_literal_starts_or_that_more_text_decides() -> None:
    assert literal_at("  </a> x", 2, ("</a>", "</b>"), final=False) == "</a>"
    assert literal_at("</", 0, ("</a>",), final=False) is None
    assert literal_at("</", 0, ("</a>",), final=True) == ""
    assert literal_at("<x", 0, ("</a>",), final=False) == ""
    assert (skip_space(" \n\tx", 0), skip_space("   ", 1)) == (3, 3)


def step_all(close: OptionalClose, pieces: list[str]) -> tuple[list[Event], str]:
    """Run ``close`` over ``pieces`` as a parser does (the stream ending after the last):
    the events, and ``closing|rest`` once it decided."""
    out: list[Event] = []
    buf = ""
    for i, piece in enumerate(pieces):
        buf += piece
        resume, closing = close.step(buf, 0, out, final=i == len(pieces) - 1)
        if resume is not None:
            buf = buf[resume:]
        if closing is not None:
            return out, f"{closing}|{buf}"
    close.flush(out)
    return out, f"|{buf}"


def test_optional_close_takes_the_tag_or_gives_the_whitespace_back() -> None:
    assert step_all(OptionalClose("</t>"), [" \n</t> after"]) == ([], "</t>| after")
    assert step_all(OptionalClose("</t>"), [" \n", "</", "t> x"]) == ([], "</t>| x")
    assert step_all(OptionalClose("</t>"), [" \ntext"]) == ([Text(" \n")], "|text")
    assert step_all(OptionalClose("</t>"), [" \n"]) == ([Text(" \n")], "|")


def test_optional_close_drops_tails_and_repeats_as_strays() -> None:
    close = OptionalClose("</t>", tail="}", repeat=True)
    out, rest = step_all(close, ["}} </t></t></t> x"])
    assert (out, rest, close.strays) == ([], "</t>| x", 4)
    assert close.held == 0
    held = OptionalClose("</t>")
    held.step("  \n", 0, [], False)
    assert held.held == 3
