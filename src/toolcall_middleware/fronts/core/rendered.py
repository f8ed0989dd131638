"""Several wire events written at once from a template (``fastpath.py`` states the rule).

When an item or block opens or closes, a front sends a few events whose data differ from one
item to the next only in a few values: sequence numbers, the item's id and index, its text.
Building those dicts and encoding them costs several times what writing the values does, so
a front that streams may write them from a ``SlotTemplate`` instead: bytes learnt once per
process from the very function the general path builds them with, with a ``%d`` or ``%s``
where each value goes, in an order the front declares (its ``plan``) and the template proves.
The front formats the template's ``pattern`` with its values in that order.

The events go into the translator's output as one wire event ``(RENDERED, (data, make,
values))``: ``data`` is exactly what encoding ``make(*values)`` gives, and the encoder writes
it as it is, or builds the events when it must write a batch otherwise (``large``:
``plumbing.named_events``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from functools import partial
from typing import Any

import orjson

from .templates import WireEvent

_dumps = orjson.dumps

#: The kind of a wire event whose data is ``(data, make, values)``: events written already.
RENDERED = "\0rendered"
#: An integer may also be written plus 1 .. MAX_OFFSET (the next events' sequence numbers).
MAX_OFFSET = 3

#: A builder of wire events from the slots' values, in order (or of one JSON document, whose
#: template is learnt with ``orjson.dumps`` as its encoder: a done item a front keeps, say).
Builder = Callable[..., list[WireEvent] | Any]
#: How a template's events (or document) are encoded: ``templates.Encoder`` or ``orjson.dumps``.
AnyEncoder = Callable[[Any], bytes]
#: Where values are written, in order: a slot and the offset added to it (``None``: a
#: string, written as JSON).
Plan = tuple[tuple[int, int | None], ...]


class SlotTemplate:
    """The bytes of the events ``make(*values)`` builds, for every value of each slot (an
    ``int``, or a ``str``): ``pattern % written`` is ``encode(make(*values))``, byte for byte,
    where ``written`` holds each value the ``plan`` names, in its order (an integer plus its
    offset; a string as its JSON, ``orjson.dumps``). ``build`` proves it on ``make`` itself,
    or gives no template."""

    __slots__ = ("make", "pattern", "plan")

    def __init__(self, pattern: bytes, plan: Plan, make: Builder) -> None:
        self.pattern = pattern
        self.plan = plan
        #: The general path's builder of these events (``RENDERED``'s ``make``).
        self.make = make

    @classmethod
    def build(
        cls, encode: AnyEncoder, make: Builder, slots: tuple[type, ...], plan: Plan
    ) -> SlotTemplate | None:
        """The template, or ``None`` unless ``make`` puts each value in the events as it is
        (an integer, or that integer plus 1 .. ``MAX_OFFSET``; a string, as JSON), exactly
        where ``plan`` says, and nothing made from them: proved on a second set of values,
        with escapes, other lengths and other numbers."""
        samples = tuple(_sample(kind, slot) for slot, kind in enumerate(slots))
        markers: dict[bytes, tuple[int, int | None]] = {}
        for slot, value in enumerate(samples):
            if isinstance(value, int):
                for offset in range(MAX_OFFSET + 1):
                    markers[b"%d" % (value + offset)] = (slot, offset)
            else:
                markers[_dumps(value)] = (slot, None)
        longest_first = sorted(markers, key=len, reverse=True)
        found = re.compile(b"(" + b"|".join(map(re.escape, longest_first)) + b")")
        pieces = found.split(encode(make(*samples)))
        if tuple(markers[marker] for marker in pieces[1::2]) != plan:
            return None
        pattern = [pieces[0].replace(b"%", b"%%")]
        for (_, add), literal in zip(plan, pieces[2::2], strict=True):
            pattern += (b"%s" if add is None else b"%d", literal.replace(b"%", b"%%"))
        template = cls(b"".join(pattern), plan, make)
        checks = tuple(_check(kind, slot) for slot, kind in enumerate(slots))
        return template if template._render(checks) == encode(make(*checks)) else None

    def _render(self, values: tuple[Any, ...]) -> bytes:
        """What a front writes, the plan followed step by step (for the proof only)."""
        written = [
            _dumps(values[slot]) if add is None else values[slot] + add for slot, add in self.plan
        ]
        rendered: bytes = self.pattern % tuple(written)
        return rendered


_LEARNT: dict[Hashable, SlotTemplate | None] = {}


def learnt(
    encode: AnyEncoder,
    build: Builder,
    fixed: tuple[Hashable, ...],
    slots: tuple[type, ...],
    plan: Plan,
) -> SlotTemplate | None:
    """The template of the events ``build(*fixed, *values)`` builds, for ``values`` of these
    ``slots``, learnt once per process (``SlotTemplate.build``)."""
    key = (build, fixed, encode)
    try:
        return _LEARNT[key]
    except KeyError:
        template = _LEARNT[key] = SlotTemplate.build(encode, partial(build, *fixed), slots, plan)
        return template


def _sample(kind: type, slot: int) -> int | str:
    """A value no real event holds, one per slot (integers far apart: no offset meets
    another slot's value)."""
    if kind is int:
        return 7_340_182_906_551_270_139 + slot * 1_000_003
    return f"\ue004slot {slot}\ue005"


def _check(kind: type, slot: int) -> int | str:
    """Another value per slot: small numbers, and text to escape, longer than any sample."""
    if kind is int:
        return 12 + 10 * slot
    return 'a"\\\u2028\x00é' + "x" * (10 + slot)
