"""The events that open and close a function call, written from templates (``rendered.py``).

A function call without a namespace differs from the next only in its item's id and index, the
sequence numbers, its call id, name and arguments: its ``output_item.added`` and its closing
(``function_call_arguments.done`` and ``output_item.done``) are written from ``SlotTemplate``s
learnt from the builders the general path uses (``items.py``), and so is the done item's JSON,
which the translator keeps for the response's ``output`` (no item encoded twice). A custom
call, a call with a namespace and a large one go the general way.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..core.rendered import RENDERED, SlotTemplate, learnt
from ..core.templates import Encoder
from .items import Event, call_added, call_closing, call_item, completed_call

_dumps = orjson.dumps


def opening(item_id: str, index: int, seq: int, call_id: str, name: str) -> list[Event]:
    """A function call's ``output_item.added``, in its slots' order (its template's builder)."""
    return [call_added(seq, index, call_item(False, item_id, call_id, name, None))]


def closing(
    item_id: str, index: int, seq: int, call_id: str, name: str, arguments: str
) -> list[Event]:
    """A function call's closing events, in its slots' order (its template's builder)."""
    return call_closing(call_item(False, item_id, call_id, name, None), index, seq, arguments)


def done_item(item_id: str, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """A function call's item once done, in its slots' order (its JSON's template's builder)."""
    return completed_call(call_item(False, item_id, call_id, name, None), arguments)


# The slots of ``opening`` and ``closing`` and where their events hold them, in order.
_ID, _INDEX, _SEQ, _CALL_ID, _NAME, _ARGUMENTS = range(6)
_OPENING_SLOTS = (str, int, int, str, str)
_OPENING_PLAN = ((_SEQ, 0), (_INDEX, 0), (_ID, None), (_CALL_ID, None), (_NAME, None))
_CLOSING_SLOTS = (str, int, int, str, str, str)
_CLOSING_PLAN = (
    *((_SEQ, 0), (_ID, None), (_INDEX, 0), (_ARGUMENTS, None)),  # the arguments' "done"
    *((_SEQ, 1), (_INDEX, 0), (_ID, None), (_CALL_ID, None), (_NAME, None), (_ARGUMENTS, None)),
)
_DONE_SLOTS = (str, str, str, str)
_DONE_PLAN = ((0, None), (1, None), (2, None), (3, None))


class CallTemplates:
    """The templates of a function call's opening, closing and done item for one encoder."""

    __slots__ = ("closing", "done", "opening")

    def __init__(self, opening: SlotTemplate, closing: SlotTemplate, done: SlotTemplate) -> None:
        self.opening, self.closing, self.done = opening, closing, done

    @classmethod
    def learn(cls, encode: Encoder) -> CallTemplates | None:
        """The templates for streams that encode with ``encode``, or ``None``: one is missing."""
        opened = learnt(encode, opening, (), _OPENING_SLOTS, _OPENING_PLAN)
        closed = learnt(encode, closing, (), _CLOSING_SLOTS, _CLOSING_PLAN)
        done = learnt(_dumps, done_item, (), _DONE_SLOTS, _DONE_PLAN)
        if opened is None or closed is None or done is None:
            return None
        return cls(opened, closed, done)

    def opened(
        self, item_id: str, index: int, seq: int, call_id: str, name: str
    ) -> tuple[str, Any]:
        """``opening``'s event, written."""
        template = self.opening
        data = template.pattern % (seq, index, _dumps(item_id), _dumps(call_id), _dumps(name))
        return RENDERED, (data, template.make, (item_id, index, seq, call_id, name))

    def closed(
        self, item_id: str, index: int, seq: int, call_id: str, name: str, arguments: str
    ) -> tuple[tuple[str, Any], bytes]:
        """``closing``'s events, written, and the done item's JSON (``orjson.dumps(done_item(
        item_id, call_id, name, arguments))``)."""
        template = self.closing
        id_json, call_id_json, name_json = _dumps(item_id), _dumps(call_id), _dumps(name)
        arguments_json = _dumps(arguments)
        data = template.pattern % (
            seq,
            id_json,
            index,
            arguments_json,
            seq + 1,
            index,
            id_json,
            call_id_json,
            name_json,
            arguments_json,
        )
        values = (item_id, index, seq, call_id, name, arguments)
        kept = self.done.pattern % (id_json, call_id_json, name_json, arguments_json)
        return (RENDERED, (data, template.make, values)), kept
