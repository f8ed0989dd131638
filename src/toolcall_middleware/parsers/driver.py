"""The feed/finish loop the format parsers share.

A parser is a set of states; each ``_step`` consumes text from a position and returns where it
got to, or ``None`` when the rest could still grow into a marker and must wait for more text
(held as ``_pending``, at most a marker's length). At the end of the stream the same steps run
with ``final=True`` (nothing may be held), then ``_close`` flushes unfinished markup.

Most states only look for their next marker: such a state has a ``MarkerSearch`` in the
parser's ``_searches`` table, its text goes to ``_segment`` and each marker to ``_marker``.
A state without one (``None``) reads the text itself in ``_read``.

``feed_by_steps`` is what feeding means: the step loop alone. ``feed`` gives the same events
faster for the deltas nearly every stream is made of: plain text, a piece of arguments, one
special token, a few characters of a marker. It takes them in three ways, each yielding exactly
what the step loop would: plain text in state 0 (no character a state-0 marker starts with);
the format's one ``_shortcut``; and the loop's first step done directly where that is a single
check. A state compared on every delta is a module name, not ``_State.X``: looking a member up
on its enum class runs Python code.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import TypeVar

from ..events import Event, Text
from .base import MarkerSearch, ParserContext, ToolCallParser
from .jsonscan import skip_space as skip_space  # (the parsers take it from here)

S = TypeVar("S", bound=enum.IntEnum)


def search_table(
    states: type[S], searches: Mapping[S, MarkerSearch]
) -> tuple[MarkerSearch | None, ...]:
    """``searches`` as a tuple indexed by state, ``None`` for the states not in it.

    A tuple, because hashing an enum member runs Python code on every lookup; so the states
    must be numbered 0, 1, 2... in order.
    """
    if [int(state) for state in states] != list(range(len(states))):
        raise ValueError(f"{states.__name__} is not numbered 0, 1, 2...")
    return tuple(searches.get(state) for state in states)


def marker_tables(
    states: type[S],
    markers: Mapping[S, Iterable[str]],
    strays: Mapping[S, Iterable[str]] = {},
) -> tuple[tuple[MarkerSearch | None, ...], tuple[frozenset[str], ...]]:
    """The ``_searches`` and ``_strays`` tables of a parser, indexed by state.

    ``markers``: what each marker state looks for. ``strays``: the special tokens that have no
    place in a state: they are found like markers, and dropped (counted) instead of read.
    """
    searches = {}
    for state in states:
        found = (*markers.get(state, ()), *strays.get(state, ()))
        if any(a != b and b.startswith(a) for a in found for b in found):
            # A search takes the shorter as soon as it is whole, before the rest can come.
            raise ValueError(f"{state!r}: a marker begins another")
        if found:
            searches[state] = MarkerSearch(found)
    return search_table(states, searches), tuple(frozenset(strays.get(s, ())) for s in states)


class StreamParser(ToolCallParser):
    """Base of the format parsers.

    A subclass has ``TRIGGERS`` (see ``ToolCallParser``), an ``IntEnum`` of states whose 0 is
    plain model text, the ``_searches`` table (see ``search_table``) and ``_close``; plus
    ``_segment`` and ``_marker`` for its marker states and ``_read`` for the others; and may
    have one ``_shortcut``.
    """

    TRIGGERS: str
    #: The states in which ``feed`` asks ``_shortcut`` first (none: the format has no shortcut).
    _SHORTCUT_STATES: tuple[enum.IntEnum, ...] = ()
    _state: enum.IntEnum
    _searches: tuple[MarkerSearch | None, ...]
    #: Per state, the special tokens found there that are strays (see ``marker_tables``).
    _strays: tuple[frozenset[str], ...] = ()

    def __init__(self, context: ParserContext) -> None:
        self._context = context
        self._pending = ""
        # Read on every delta: an instance's own attributes are the fastest to read.
        self._searches = self._searches
        self._strays = self._strays
        self._SHORTCUT_STATES = self._SHORTCUT_STATES
        self._given_back = 0  # markup given back as text
        self._dropped = 0  # stray tokens dropped

    @property
    def text_fallbacks(self) -> int:
        """Markup given back as text because no call followed (see ``ToolCallParser``)."""
        return self._given_back

    @property
    def strays(self) -> int:
        """Stray special tokens and markup tails dropped (see ``ToolCallParser``)."""
        return self._dropped + self._more_strays()

    # The sizes below are read at most once per KiB fed, so they are counted when read.
    @property
    def held(self) -> int:
        """Characters of unresolved markup held back (see ``ToolCallParser``): a possible
        marker prefix, and what the state holds that is text again if no call follows."""
        return len(self._pending) + self._held_markup()

    @property
    def held_arguments(self) -> int:
        """Characters of a call, or of a possible one, held back rather than streamed."""
        return 0

    def feed(self, text: str) -> list[Event]:
        state = self._state
        search = self._searches[state]
        pending = self._pending
        if pending:  # a marker's start, held: the rest may complete it
            text = pending + text
            self._pending = ""
        elif search is None or search.lead not in text:  # all of the text is the state's
            if not text:
                return []
            if not state:  # plain text (state 0 without a search: nothing to find in it)
                return [Text(text)]
            if state in self._SHORTCUT_STATES:
                events = self._shortcut(text)
                if events is not None:
                    return events
            out: list[Event] = []
            if search is not None:
                self._segment(text, out)
                return out
            read = self._read(text, 0, out, False)
            if read is None:
                self._pending = text
            elif read < len(text):
                self._pending = text[self._run(text, read, out, final=False) :]
            return out
        elif not state and not search.lead:  # plain text, where markers start differently
            for start in search.starts:
                if start in text:
                    break
            else:
                return [Text(text)] if text else []
        if search is not None:
            if text in search.marker_set:  # one whole marker: a special token, a cut one's rest
                out = []
                strays = self._strays
                if strays and text in strays[state]:
                    self._dropped += 1  # (as _take_marker)
                else:
                    self._marker(text, out)
                return out
            if text in search.bare_prefixes:  # a marker cut up: only its start so far
                self._pending = text
                return []
        out = []
        self._pending = text[self._run(text, 0, out, final=False) :]
        return out

    def feed_by_steps(self, text: str) -> list[Event]:
        """``feed`` without any of its shortcuts: the step loop alone. ``feed`` returns exactly
        what this returns, and leaves the parser as this does."""
        out: list[Event] = []
        buf, self._pending = self._pending + text, ""
        self._pending = buf[self._run(buf, 0, out, final=False) :]
        return out

    def _shortcut(self, text: str) -> list[Event] | None:
        """The one shortcut a format may add to ``feed``, for its most common delta (a piece
        of arguments that goes out as written, say), in the states ``_SHORTCUT_STATES``.

        ``feed`` asks it for a non-empty ``text`` when nothing is held and all of ``text`` is
        the state's (in a marker state: no marker starts in it). It returns exactly the events
        ``feed_by_steps(text)`` would, leaving the parser as that would, or declines with
        ``None`` having changed nothing. (Tested for every format: the same input, cut
        anywhere, fed with and without the shortcut, gives the same events feed by feed.)
        A shortcut earns its place by a measured gain over the step loop.
        """
        return None

    def finish(self) -> list[Event]:
        out: list[Event] = []
        buf, self._pending = self._pending, ""
        stopped = self._run(buf, 0, out, final=True)
        if stopped < len(buf):  # a state that held at the end: its text is still the model's
            out.append(Text(buf[stopped:]))
        self._close(out)
        return out

    def _run(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Step through ``buf`` from ``pos``; return where it stopped (what is left is held)."""
        end = len(buf)
        while pos < end:
            nxt = self._step(buf, pos, out, final)
            if nxt is None:
                break
            pos = nxt
        return pos

    def _step(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        state = self._state
        search = self._searches[state]
        if search is None:
            if not state:  # plain text with nothing to find in it
                out.append(Text(buf[pos:]))
                return len(buf)
            return self._read(buf, pos, out, final)
        found = scan_markers(buf, pos, search, final)
        if found is None:
            return None
        end, marker, resume = found
        if end > pos:
            if state:
                self._segment(buf[pos:end], out)
            else:  # the text between markups is the model's
                out.append(Text(buf[pos:end]))
        if marker is not None:
            self._take_marker(marker, out)
        return resume

    def _take_marker(self, marker: str, out: list[Event]) -> None:
        strays = self._strays
        if strays and marker in strays[self._state]:
            self._dropped += 1  # a special token with no place here: never the model's text
        else:
            self._marker(marker, out)

    def _more_strays(self) -> int:
        """Strays a part of the parser counts itself (see ``OptionalClose``)."""
        return 0

    def _held_markup(self) -> int:
        """The state's share of ``held``: opening markup, a call header, framing whitespace."""
        return 0

    def _give_back(self, markup: str, out: list[Event]) -> None:
        """Markup that turned out not to be a call: the model's text after all."""
        out.append(Text(markup))
        self._given_back += 1

    def _segment(self, segment: str, out: list[Event]) -> None:
        """Text before the next marker in a markup state; by default framing, dropped."""

    def _marker(self, marker: str, out: list[Event]) -> None:
        raise NotImplementedError

    def _read(self, buf: str, pos: int, out: list[Event], final: bool) -> int | None:
        """A step of a state that reads without a marker search (see ``_step``)."""
        raise NotImplementedError

    def _close(self, out: list[Event]) -> None:
        raise NotImplementedError


def plain_text_markers(parser: object) -> tuple[tuple[str, ...], frozenset[str]] | None:
    """What a ``StreamParser`` looks for in plain text (state 0): every marker there, and which
    of them are strays; ``None`` for other parsers (unknown)."""
    if not isinstance(parser, StreamParser):
        return None
    search = parser._searches[0]
    strays = parser._strays[0] if parser._strays else frozenset()
    return (() if search is None else search.markers), strays


def scan_markers(
    buf: str, pos: int, search: MarkerSearch, final: bool
) -> tuple[int, str | None, int] | None:
    """The next marker at or after ``pos``: ``(segment_end, marker, resume)``.

    ``marker`` is ``None`` when there is none: ``buf[pos:segment_end]`` is plain text of the
    current state and the rest (a possible marker prefix) is held. ``None`` when all is held.
    """
    match = search.find(buf, pos)
    if match is not None:
        return match.start(), match.group(), match.end()
    end = len(buf) if final else len(buf) - search.held_suffix(buf, pos)
    if end <= pos:
        return None
    return end, None, end


def literal_at(buf: str, pos: int, literals: Iterable[str], final: bool) -> str | None:
    """Which of ``literals`` starts at ``pos``: the literal, ``""`` if none can, ``None`` if the
    text ends while it still could (more text decides)."""
    rest = buf[pos : pos + 64]
    undecided = False
    for literal in literals:
        if rest.startswith(literal):
            return literal
        if not final and len(rest) < len(literal) and literal.startswith(rest):
            undecided = True
    return None if undecided else ""


class OptionalClose:
    """After a call: whitespace, then maybe a closing tag that may be missing.

    With the tag, the whitespace before it is framing; without it (text follows, or the stream
    ends) the whitespace is the model's text after all. Two kinds of leftover markup are dropped
    and counted as strays: ``tail`` characters coming first (a ``}`` too many after a JSON call
    object: no text the model writes starts there), and, with ``repeat``, the closing tag again
    straight after the first (``</tool_call></tool_call>``). (Whitespace after the closing tag
    is text at once: holding it to see whether a tag follows would cost every call.)
    """

    __slots__ = ("_closed", "_literals", "_repeat", "_space", "_tail", "strays")

    def __init__(self, *literals: str, tail: str = "", repeat: bool = False) -> None:
        self._literals = literals
        self._tail = tail
        self._repeat = repeat
        self._space = ""
        self._closed = ""  # with ``repeat``: the closing tag taken, while it may come again
        self.strays = 0

    @property
    def held(self) -> int:
        """The whitespace held until the closing tag, or its absence, decides what it is."""
        return len(self._space)

    def step(
        self, buf: str, pos: int, out: list[Event], final: bool
    ) -> tuple[int | None, str | None]:
        """``(resume, closing)``: ``closing`` is ``None`` until decided, then the tag or ``""``."""
        if self._closed:
            return self._repeats(buf, pos, final)
        at = pos
        while True:
            start = skip_space(buf, at)
            self._space += buf[at:start]
            if start == len(buf):
                return start, None
            if buf[start] in self._tail:
                self._space = ""
                self.strays += 1
                at = start + 1
                continue
            closing = literal_at(buf, start, self._literals, final)
            if closing is None:
                return (None if start == pos else start), None
            if not closing:
                self.flush(out)
                return start, closing
            self._space = ""
            if not self._repeat:
                return start + len(closing), closing
            self._closed = closing
            end = start + len(closing)
            resume, decided = self._repeats(buf, end, final)
            return (end if resume is None else resume), decided

    def _repeats(self, buf: str, pos: int, final: bool) -> tuple[int | None, str | None]:
        """Straight after the closing tag: the same tag again is a stray."""
        at = pos
        while True:
            again = literal_at(buf, at, self._literals, final)
            if again is None:  # the text so far cannot tell (it may have ended)
                return (None if at == pos else at), None
            if not again:
                closed, self._closed = self._closed, ""
                return at, closed
            self.strays += 1
            at += len(again)

    def flush(self, out: list[Event]) -> None:
        """The stream ended while waiting: the whitespace was text."""
        self._closed = ""
        if self._space:
            out.append(Text(self._space))
            self._space = ""
