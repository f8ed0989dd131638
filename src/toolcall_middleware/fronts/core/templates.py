"""The byte templates the fronts' fast path writes its events from (``fast_path.py`` states the
rule they follow).

``EventTemplate`` is the bytes of one kind of wire event around a number (a sequence number)
and a text. Each front declares its templates beside the builders of the events they stand
for (``responses/items.py``, ``anthropic/stream.py``), written from the same fixed parts;
``tests/fronts/test_templates.py`` proves each equal to its encoded builder on hostile values
(escapes, U+2028, NUL, non-ASCII, any number).
"""

from __future__ import annotations

import orjson

_dumps, _join = orjson.dumps, b"".join


class EventTemplate:
    """``head + number + middle + text as JSON + tail``: the whole SSE event, for every
    number and text (``render``); a template of no number has an empty ``middle`` and is
    written by ``render_text``."""

    __slots__ = ("head", "middle", "tail")

    def __init__(self, head: bytes, middle: bytes, tail: bytes) -> None:
        self.head = head
        self.middle = middle
        self.tail = tail

    def render(self, number: int, text: str) -> bytes:
        return _join((self.head, b"%d" % number, self.middle, _dumps(text), self.tail))

    def render_text(self, text: str) -> bytes:
        """For a template of no number."""
        return _join((self.head, _dumps(text), self.tail))
