"""JSON numbers as the fronts check them: ``bool`` is an ``int`` in Python, never in JSON."""

from __future__ import annotations

import math
import re
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


#: The range of a protocol buffer ``int32`` (Gemini's integer fields).
INT32 = (-(2**31), 2**31 - 1)
#: An integer as proto-JSON writes one in a string: ASCII digits only (``"²"`` and other
#: Unicode digits are not), and short enough for any int64.
_PROTO_INTEGER = re.compile(r"\s*-?[0-9]{1,20}\s*")


def proto_integer(value: Any) -> int | None:
    """A JSON integer, a number with no fraction, or a string of ASCII digits (proto-JSON
    writes int64 so); ``None`` for anything else."""
    if isinstance(value, str):
        return int(value) if _PROTO_INTEGER.fullmatch(value) else None
    if is_int(value):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None
