"""The parser base, the request context parsers are built from, and the marker search.

A parser is a synchronous state machine over model text. It knows nothing of ASGI, SSE or JSON
chunk framing: ``feed`` takes any cut of the text and ``finish`` flushes what is held at the end
of the stream. Cutting the same text differently must give the same events.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ..events import Event


class ToolCallParser:
    """What every provider parser is: ``feed`` and ``finish``, and members with defaults that
    a parser overrides when it holds more than a marker's start.

    A parser class may also set ``TRIGGERS: str``, the characters any of its markup can start
    with. It promises: after ``feed`` returned exactly ``[Text(text)]`` for the text it was
    given, feeding text without any of these characters returns that text unchanged. The
    stream path uses this to forward such deltas without decoding them.

    In plain text a parser holds back only what may start a marker. A pause of the stream never
    makes that text: a server may split even a special token over several deltas, so what was
    held waits for the next delta or the end of the stream.

    The sizes are read about once per KiB fed, or at the end, so that memory stays bounded;
    they count characters of model text once, not the copies a parser derives from them.
    """

    #: The form of call ids a format's next turn needs (``None``: OpenAI's ``call_...``;
    #: ``"mistral9"``: nine alphanumeric characters): the format class says it.
    ID_STYLE: ClassVar[str | None] = None

    def feed(self, text: str) -> list[Event]:
        """The events for ``text``, the next piece of the model's text (any cut of it)."""
        raise NotImplementedError

    def finish(self) -> list[Event]:
        """The end of the model's text: events for whatever is held."""
        raise NotImplementedError

    @property
    def held(self) -> int:
        """Characters of model text held back unresolved right now (a possible marker prefix,
        an unfinished call header, whitespace kept until more arguments come). Past the
        ``max_held_bytes`` option (default 10 KiB) the stream ends with an error event."""
        return 0

    @property
    def held_arguments(self) -> int:
        """Characters of a call, or of what may still be one, held back rather than streamed:
        arguments until the tool is chosen from their keys, a call held until its closing
        tag, a JSON object until it is known to be a call, a value typed only when it ends.
        Checked against ``max_buffered_bytes`` (default 1 MiB) with buffered-mode calls."""
        return 0

    @property
    def text_fallbacks(self) -> int:
        """How many times markup was given back as text because it did not turn out to be a
        call (counted as the ``passed-as-text`` fallback at the end)."""
        return 0

    @property
    def strays(self) -> int:
        """Special tokens (and tails of a call's markup) dropped because they stood where the
        format has no place for them (counted as the ``stray-dropped`` fallback)."""
        return 0

    @property
    def detected(self) -> str | None:
        """The format recognised from the markup, for a parser that reads several (``None``:
        not one, or none recognised yet)."""
        return None

    @property
    def id_style(self) -> str | None:
        """The form of call ids this parser asks for, as each id is made (``ID_STYLE``)."""
        return self.ID_STYLE

    def upstream_reasoning(self) -> None:
        """Called before anything is fed when the choice's first text comes in a reasoning
        field: the upstream splits reasoning into its own fields, so a reasoning block the
        chat template opened is not the parser's to read (Kimi K3's think channel; see
        ``ParserContext.thinking_opened``)."""


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool the request offered: its name and JSON-schema ``parameters`` (``{}`` if none)."""

    name: str
    parameters: Mapping[str, Any] = field(default_factory=dict)

    @property
    def property_names(self) -> frozenset[str]:
        props = self.parameters.get("properties")
        return frozenset(props) if isinstance(props, Mapping) else frozenset()

    @property
    def required_names(self) -> frozenset[str]:
        required = self.parameters.get("required")
        if not isinstance(required, list):
            return frozenset()
        return frozenset(name for name in required if isinstance(name, str))


#: What to do with a call to a tool the request did not offer (see ``parsers.unknown_tools``).
UnknownTools = Literal["forward", "drop", "text"]


@dataclass(frozen=True, slots=True)
class ParserContext:
    """What a parser may know about the request: the tools it offered, and whether the chat
    template opened the model's reasoning block (its text starts inside it: see ``think.py``)."""

    tools: tuple[Tool, ...] = ()
    unknown_tools: UnknownTools = "forward"
    thinking_opened: bool = False

    def tool(self, name: str) -> Tool | None:
        for tool in self.tools:
            if tool.name == name:
                return tool
        return None


def held_size(pieces: list[str]) -> int:
    """The total length of text held as ``pieces``, which are joined in place on the way.

    Sizes are read about once per KiB fed; joining makes the next count look only at what came
    since, where summing piece by piece every time would grow with the square of the text.
    """
    if len(pieces) > 1:
        pieces[:] = ["".join(pieces)]
    return len(pieces[0]) if pieces else 0


class MarkerSearch:
    """Finds the earliest of a fixed set of markers in text that arrives in pieces.

    ``find`` is a single C-level regex scan from a position; ``held_suffix`` tells how many
    trailing characters could still grow into a marker and so must be held back. Together they
    keep parsers linear: every character is looked at a bounded number of times.
    """

    def __init__(self, markers: Iterable[str]) -> None:
        ordered = sorted(set(markers), key=len, reverse=True)
        if not ordered or not all(ordered):
            raise ValueError("markers must be non-empty strings")
        self.markers = tuple(ordered)
        self.marker_set = frozenset(ordered)
        self._pattern = re.compile("|".join(re.escape(m) for m in ordered))
        self._prefixes = frozenset(m[:i] for m in ordered for i in range(1, len(m)))
        #: The proper marker prefixes with no marker in them: a text that is one is all held.
        self.bare_prefixes = frozenset(p for p in self._prefixes if not self._pattern.search(p))
        self._window = max(map(len, ordered)) - 1
        #: The characters markers start with: a text without any has no marker start.
        self.starts = "".join(sorted({m[0] for m in ordered}))
        #: The character all markers start with ("" when they start differently): a text
        #: without it has no marker start, which ``lead not in text`` tells without a call
        #: (and never for "", which is in every text).
        self.lead = self.starts if len(self.starts) == 1 else ""

    def find(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self._pattern.search(text, pos)

    def held_suffix(self, text: str, start: int = 0) -> int:
        """Length of the longest suffix of ``text[start:]`` that is a proper marker prefix."""
        lo = max(start, len(text) - self._window)
        longest = 0
        for first in self.starts:
            i = text.find(first, lo)
            while i != -1:
                if text[i:] in self._prefixes:
                    longest = max(longest, len(text) - i)
                    break
                i = text.find(first, i + 1)
        return longest
