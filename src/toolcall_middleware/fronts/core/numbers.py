"""JSON numbers as the fronts check them: ``bool`` is an ``int`` in Python, never in JSON."""

from __future__ import annotations

from typing import Any, TypeGuard


def is_int(value: Any) -> TypeGuard[int]:
    """A JSON integer (not ``true``/``false``)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number, integer or not (not ``true``/``false``)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def count(value: Any) -> int:
    """A token count from an upstream's usage: the integer, or 0 for anything else."""
    return value if is_int(value) else 0
