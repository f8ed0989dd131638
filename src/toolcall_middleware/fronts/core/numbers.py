"""JSON numbers as the fronts check them: ``bool`` is an ``int`` in Python, never in JSON."""

from __future__ import annotations

from typing import Any, TypeGuard


def is_int(value: Any) -> TypeGuard[int]:
    """A JSON integer (not ``true``/``false``)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number, integer or not (not ``true``/``false``)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


#: The largest count a front writes: the largest integer every JSON client reads exactly
#: (JavaScript's ``Number.MAX_SAFE_INTEGER``), and far from what sums of a few overflow.
MAX_COUNT = 2**53 - 1


def count(value: Any) -> int:
    """A token count from an upstream's usage: the integer, clamped to ``0..MAX_COUNT`` (an
    upstream may send any number: ``2**64 - 1`` must not make the answer's last event
    unwritable); 0 for anything else."""
    if not is_int(value):
        return 0
    return value if 0 <= value <= MAX_COUNT else min(max(value, 0), MAX_COUNT)
