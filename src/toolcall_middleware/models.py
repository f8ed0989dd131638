"""Tables keyed by model name: the one lookup rule every such option follows.

A key may be an ``fnmatch`` pattern (``claude-*``, ``moonshotai/Kimi-*``), matched
case-sensitively as model names are. An exact key wins over patterns; patterns are tried in
the order they were written.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import TypeVar

T = TypeVar("T")


def match_model(model: str, table: Mapping[str, T]) -> T | None:
    """The entry of ``table`` for ``model``: its exact key, else the first pattern that
    matches, else None."""
    if model in table:
        return table[model]
    for pattern, value in table.items():
        if fnmatchcase(model, pattern):
            return value
    return None
