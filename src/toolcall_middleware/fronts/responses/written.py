"""The events that open and close a Response's items, written from templates (``rendered.py``).

Items differ from one to the next only in a few values: their id and index, the sequence
numbers, their text; a function call also in its call id, name and arguments. A stream that
takes the fast path writes a reasoning or message item's opening and closing, and a function
call's ``output_item.added`` and closing (``function_call_arguments.done`` and
``output_item.done``), from ``SlotTemplate``s learnt from the builders the general path uses
(``items.py``); and the done item's JSON too, which the translator keeps for the response's
``output`` (no item is encoded twice). Encrypted reasoning, a custom call, a call with a
namespace and anything large go the general way.

Each written event is ``(RENDERED, (data, make, values))`` (see ``rendered.py``).
"""

from __future__ import annotations

from typing import Any

import orjson

from ..core.rendered import RENDERED, SlotTemplate, learnt
from ..core.templates import Encoder
from .items import Event, call_added, call_closing, call_item, closed, completed_call, opened, whole

_dumps = orjson.dumps

# --- the builders of the templates: the general path's, the fixed arguments first -----------


def text_opening(kind: str, reasoning_as: str, item_id: str, index: int, seq: int) -> list[Event]:
    """``items.opened``'s events."""
    return opened(kind, item_id, index, seq, reasoning_as)[1]


def text_closing(
    kind: str, reasoning_as: str, item_id: str, index: int, seq: int, text: str
) -> list[Event]:
    """``items.closed``'s events for an item without encrypted reasoning."""
    return closed(kind, item_id, index, seq, text, reasoning_as, False)[1]


def text_done(kind: str, reasoning_as: str, item_id: str, text: str) -> dict[str, Any]:
    """``items.whole`` without encrypted reasoning."""
    return whole(kind, item_id, text, reasoning_as, False)


def call_opening(item_id: str, index: int, seq: int, call_id: str, name: str) -> list[Event]:
    """A function call's ``output_item.added``."""
    return [call_added(seq, index, call_item(False, item_id, call_id, name, None))]


def call_closing_events(
    item_id: str, index: int, seq: int, call_id: str, name: str, arguments: str
) -> list[Event]:
    """A function call's closing events."""
    return call_closing(call_item(False, item_id, call_id, name, None), index, seq, arguments)


def call_done(item_id: str, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """A function call's item once done."""
    return completed_call(call_item(False, item_id, call_id, name, None), arguments)


# The values each builder takes after its fixed arguments (its slots), and where its events
# (or document) hold them, in order (``rendered.SlotTemplate``): an item's id, its index and
# the first event's sequence number, then its text, or a call's id, name and arguments.
_ID, _INDEX, _SEQ, _TEXT = 0, 1, 2, 3
_CALL_ID, _NAME, _ARGUMENTS = 3, 4, 5
_TEXT_OPENING = (
    (str, int, int),
    ((_SEQ, 0), (_INDEX, 0), (_ID, None), (_SEQ, 1), (_ID, None), (_INDEX, 0)),
)
_TEXT_CLOSING = (
    (str, int, int, str),
    (
        *((_SEQ, 0), (_ID, None), (_INDEX, 0), (_TEXT, None)),  # the text's "done"
        *((_SEQ, 1), (_ID, None), (_INDEX, 0), (_TEXT, None)),  # the content part's
        *((_SEQ, 2), (_INDEX, 0), (_ID, None), (_TEXT, None)),  # the item's
    ),
)
_TEXT_DONE = ((str, str), ((0, None), (1, None)))  # (item id, text)
_CALL_OPENING = (
    (str, int, int, str, str),
    ((_SEQ, 0), (_INDEX, 0), (_ID, None), (_CALL_ID, None), (_NAME, None)),
)
_CALL_CLOSING = (
    (str, int, int, str, str, str),
    (
        *((_SEQ, 0), (_ID, None), (_INDEX, 0), (_ARGUMENTS, None)),  # the arguments' "done"
        *(  # the item's
            *((_SEQ, 1), (_INDEX, 0), (_ID, None)),
            *((_CALL_ID, None), (_NAME, None), (_ARGUMENTS, None)),
        ),
    ),
)
# (item id, call id, name, arguments)
_CALL_DONE = ((str, str, str, str), ((0, None), (1, None), (2, None), (3, None)))


class TextTemplates:
    """The templates of one kind of reasoning or message item (``reasoning_as``: how reasoning
    is sent) for one encoder: its opening, its closing and its done item's JSON."""

    __slots__ = ("closing", "done", "opening")

    def __init__(self, opening: SlotTemplate, closing: SlotTemplate, done: SlotTemplate) -> None:
        self.opening, self.closing, self.done = opening, closing, done

    @classmethod
    def learn(cls, encode: Encoder, kind: str, reasoning_as: str) -> TextTemplates | None:
        """The templates (learnt once per process), or ``None``: one is missing."""
        fixed = (kind, reasoning_as)
        opening = learnt(encode, text_opening, fixed, *_TEXT_OPENING)
        closing = learnt(encode, text_closing, fixed, *_TEXT_CLOSING)
        done = learnt(_dumps, text_done, fixed, *_TEXT_DONE)
        if opening is None or closing is None or done is None:
            return None
        return cls(opening, closing, done)

    def opened(self, item_id: str, index: int, seq: int) -> tuple[str, Any]:
        """``text_opening``'s events, written."""
        template = self.opening
        id_json = _dumps(item_id)
        data = template.pattern % (seq, index, id_json, seq + 1, id_json, index)
        return RENDERED, (data, template.make, (item_id, index, seq))

    def closed(
        self, item_id: str, index: int, seq: int, text: str
    ) -> tuple[tuple[str, Any], bytes]:
        """``text_closing``'s events, written, and the done item's JSON (``orjson.dumps`` of
        ``text_done``'s item)."""
        template = self.closing
        id_json, text_json = _dumps(item_id), _dumps(text)
        # (A flat tuple: unpacking one per event costs as much again.)
        data = template.pattern % (
            seq, id_json, index, text_json,
            seq + 1, id_json, index, text_json,
            seq + 2, index, id_json, text_json,
        )  # fmt: skip
        event = RENDERED, (data, template.make, (item_id, index, seq, text))
        return event, self.done.pattern % (id_json, text_json)


class CallTemplates:
    """The templates of a function call (no namespace) for one encoder: its opening, its
    closing and its done item's JSON."""

    __slots__ = ("closing", "done", "opening")

    def __init__(self, opening: SlotTemplate, closing: SlotTemplate, done: SlotTemplate) -> None:
        self.opening, self.closing, self.done = opening, closing, done

    @classmethod
    def learn(cls, encode: Encoder) -> CallTemplates | None:
        """The templates (learnt once per process), or ``None``: one is missing."""
        opening = learnt(encode, call_opening, (), *_CALL_OPENING)
        closing = learnt(encode, call_closing_events, (), *_CALL_CLOSING)
        done = learnt(_dumps, call_done, (), *_CALL_DONE)
        if opening is None or closing is None or done is None:
            return None
        return cls(opening, closing, done)

    def opened(
        self, item_id: str, index: int, seq: int, call_id: str, name: str
    ) -> tuple[str, Any]:
        """``call_opening``'s event, written."""
        template = self.opening
        data = template.pattern % (seq, index, _dumps(item_id), _dumps(call_id), _dumps(name))
        return RENDERED, (data, template.make, (item_id, index, seq, call_id, name))

    def closed(
        self, item_id: str, index: int, seq: int, call_id: str, name: str, arguments: str
    ) -> tuple[tuple[str, Any], bytes]:
        """``call_closing_events``' events, written, and the done item's JSON (``orjson.dumps``
        of ``call_done``'s item)."""
        template = self.closing
        id_json, call_id_json, name_json = _dumps(item_id), _dumps(call_id), _dumps(name)
        arguments_json = _dumps(arguments)
        data = template.pattern % (
            seq, id_json, index, arguments_json,
            seq + 1, index, id_json, call_id_json, name_json, arguments_json,
        )  # fmt: skip
        values = (item_id, index, seq, call_id, name, arguments)
        kept = self.done.pattern % (id_json, call_id_json, name_json, arguments_json)
        return (RENDERED, (data, template.make, values)), kept
