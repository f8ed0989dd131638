"""Events written from slot templates (``fronts/core/rendered.py``): exactly the bytes encoding
the events built the general way gives, or no template."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolcall_middleware.fronts.core.plumbing import named_events
from toolcall_middleware.fronts.core.rendered import Plan, SlotTemplate
from toolcall_middleware.fronts.responses import items
from toolcall_middleware.fronts.responses.written import (
    CallTemplates,
    TextTemplates,
    call_done,
    text_closing,
    text_opening,
)

#: Text every encoder writes (no lone surrogates: orjson refuses them).
TEXT = st.text(st.characters(blacklist_categories=("Cs",)))
NUMBERS = st.integers(0, 1 << 62)


def two_events(seq: int, item_id: str, text: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("a", {"n": seq, "id": item_id, "t": text, "percent": "100%d%%s"}),
        ("b", {"n": seq + 1, "t": text}),
    ]


SLOTS = (int, str, str)
PLAN: Plan = ((0, 0), (1, None), (2, None), (0, 1), (2, None))


@given(seq=NUMBERS, item_id=TEXT, text=TEXT)
def test_a_slot_template_writes_what_the_encoder_writes(seq: int, item_id: str, text: str) -> None:
    template = SlotTemplate.build(named_events, two_events, SLOTS, PLAN)
    assert template is not None
    written_id, written_text = orjson.dumps(item_id), orjson.dumps(text)
    written = template.pattern % (seq, written_id, written_text, seq + 1, written_text)
    assert written == named_events(two_events(seq, item_id, text))


@pytest.mark.parametrize(
    "make, plan",
    [
        (two_events, ((0, 0), (2, None), (1, None), (0, 1), (2, None))),  # another order
        (two_events, PLAN[:-1]),  # a value it writes, left out
        (lambda n, i, t: [("a", {"n": n, "id": i, "t": t, "size": len(t)})], PLAN[:3]),
        (lambda n, i, t: [("a", {"n": n, "id": i.upper(), "t": t})], PLAN[:3]),
        (lambda n, i, t: [("a", {"n": n + 5, "id": i, "t": t})], PLAN[:3]),
        (lambda n, i, t: [("a", {"n": n, "id": i, "t": t, "twice": n * 2})], PLAN[:3]),
    ],
)
def test_events_not_made_of_the_values_as_planned_get_no_template(
    make: Callable[..., list[tuple[str, dict[str, Any]]]], plan: Plan
) -> None:
    assert SlotTemplate.build(named_events, make, SLOTS, plan) is None


@pytest.mark.parametrize("kind", ["reasoning", "output_text", "refusal"])
@pytest.mark.parametrize("reasoning_as", ["content", "summary"])
@given(index=NUMBERS, seq=NUMBERS, text=TEXT)
def test_a_responses_item_opens_and_closes_from_templates(
    kind: str, reasoning_as: str, index: int, seq: int, text: str
) -> None:
    item_id = f"msg_00ff_{index}"
    templates = TextTemplates.learn(named_events, kind, reasoning_as)
    assert templates is not None  # every item kind has them: the fast path relies on them
    opening = templates.opened(item_id, index, seq)
    assert opening[1][0] == named_events(text_opening(kind, reasoning_as, item_id, index, seq))
    closing, kept = templates.closed(item_id, index, seq, text)
    expected = named_events(text_closing(kind, reasoning_as, item_id, index, seq, text))
    assert closing[1][0] == expected
    # What the encoder writes for them in any batch, and built again for a large one.
    assert (
        named_events([opening, closing])
        == named_events(text_opening(kind, reasoning_as, item_id, index, seq)) + expected
    )
    assert named_events([closing], large=True) == named_events(
        text_closing(kind, reasoning_as, item_id, index, seq, text), large=True
    )
    # The done item, as the translator keeps it.
    assert kept == orjson.dumps(items.whole(kind, item_id, text, reasoning_as, False))


@given(item_id=TEXT, index=NUMBERS, seq=NUMBERS, call_id=TEXT, name=TEXT, arguments=TEXT)
def test_a_function_call_opens_and_closes_from_templates(
    item_id: str, index: int, seq: int, call_id: str, name: str, arguments: str
) -> None:
    templates = CallTemplates.learn(named_events)
    assert templates is not None  # the fast path relies on them
    # What the general path sends: the call's item as it opens, then completed.
    item = items.call_item(False, item_id, call_id, name, None)
    opening = named_events([items.call_added(seq, index, item)])
    closing = named_events(items.call_closing(item, index, seq + 1, arguments))
    opened = templates.opened(item_id, index, seq, call_id, name)
    closed, kept = templates.closed(item_id, index, seq + 1, call_id, name, arguments)
    assert opened[1][0] == opening
    assert closed[1][0] == closing
    assert kept == orjson.dumps(item)  # the done item, as the translator keeps it
    # In any batch, and built again for a large one.
    assert named_events([opened, closed]) == opening + closing
    assert named_events([closed], large=True) == named_events(
        items.call_closing(
            items.call_item(False, item_id, call_id, name, None), index, seq + 1, arguments
        ),
        large=True,
    )


#: Where a done call's item holds its id, call id, name and arguments.
DONE_PLAN: Plan = ((0, None), (1, None), (2, None), (3, None))


def test_call_templates_are_proved_on_the_builders_the_general_path_uses() -> None:
    # A done item not built as the closing's item is: no template for its JSON.
    def not_alike(item_id: str, call_id: str, name: str, arguments: str) -> dict[str, Any]:
        return {"id": item_id, "call_id": call_id, "name": name.upper(), "arguments": arguments}

    assert SlotTemplate.build(orjson.dumps, not_alike, (str, str, str, str), DONE_PLAN) is None
    assert SlotTemplate.build(orjson.dumps, call_done, (str, str, str, str), DONE_PLAN) is not None
