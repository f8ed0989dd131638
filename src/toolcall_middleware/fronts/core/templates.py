"""The byte templates the fronts' fast path writes its events from (``fast_path.py`` states the
rule they follow): ``EventTemplate``, the bytes of one kind of wire event around a number and a
text, proved on the very builder the general path uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import orjson

_dumps, _join = orjson.dumps, b"".join

WireEvent = tuple[str, dict[str, Any]]
#: How a stream encodes a list of wire events (``EventStream.encode``).
Encoder = Callable[[Iterable[WireEvent]], bytes]
#: A front's own builder of one wire event's data from a number and a text.
Maker = Callable[[int, str], dict[str, Any]]

# Values no real event holds: where they land in a sample event is where the slots are.
_NUMBER = 7_340_182_906_551_270_139
_TEXT = "\ue000fast path\ue001"
_CHECK_NUMBER, _CHECK_TEXT = 12, 'a"\\\u2028\x00é'
# The sample values as they are written in the sample event.
_NUMBER_DIGITS, _TEXT_JSON = b"%d" % _NUMBER, _dumps(_TEXT)


class EventTemplate:
    """The bytes a stream sends for one kind of wire event whose data differ from one event
    to the next only in one integer (optional: ``numbered``) and one string.

    ``render(number, text)`` (or ``render_text(text)``) is ``encode([(kind, make(number,
    text))])``, byte for byte, for every number and text: ``build`` proves it on the event's
    own builder, or gives no template.
    """

    __slots__ = ("head", "middle", "tail")

    def __init__(self, head: bytes, middle: bytes, tail: bytes) -> None:
        self.head = head
        self.middle = middle
        self.tail = tail

    @classmethod
    def build(
        cls,
        encode: Encoder,
        kind: str,
        make: Maker,
        *,
        numbered: bool = True,
        check: bool = True,
    ) -> EventTemplate | None:
        """The template of ``kind`` events whose data ``make(number, text)`` builds (the same
        function the general path builds them with), or ``None`` unless ``make`` puts the
        number (if ``numbered``) and then the text in the event as they are, once each, and
        nothing made from them (``check``: proved on a second sample, which costs as much
        again; a caller may prove it once for events that ``make`` builds alike)."""
        sample = encode([(kind, make(_NUMBER, _TEXT))])
        if sample.count(_TEXT_JSON) != 1:
            return None
        before, _, tail = sample.partition(_TEXT_JSON)
        if numbered:
            if before.count(_NUMBER_DIGITS) != 1:
                return None
            head, _, middle = before.partition(_NUMBER_DIGITS)
            template = cls(head, middle, tail)
        else:
            template = cls(before, b"", tail)
        # Nothing else in the event may depend on the number or the text (a length, say).
        if check and template._render(numbered, _CHECK_NUMBER, _CHECK_TEXT) != encode(
            [(kind, make(_CHECK_NUMBER, _CHECK_TEXT))]
        ):
            return None
        return template

    def render(self, number: int, text: str) -> bytes:
        return _join((self.head, b"%d" % number, self.middle, _dumps(text), self.tail))

    def render_text(self, text: str) -> bytes:
        """For a template built with ``numbered=False``."""
        return _join((self.head, _dumps(text), self.tail))

    def _render(self, numbered: bool, number: int, text: str) -> bytes:
        return self.render(number, text) if numbered else self.render_text(text)
