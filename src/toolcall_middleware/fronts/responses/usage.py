"""Chat Completions usage as Responses usage (sans-I/O)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.numbers import count, is_int


def usage_of(usage: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Chat usage as Responses usage (Codex rejects a partial one: then none at all)."""
    if usage is None:
        return None
    prompt, completion, total = (
        usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")
    )
    if not (is_int(prompt) and is_int(completion)):
        return None
    prompt, completion = count(prompt), count(completion)
    total = count(total) if is_int(total) else prompt + completion
    return {
        "input_tokens": prompt,
        "input_tokens_details": {
            "cached_tokens": _detail(usage, "prompt_tokens_details", "cached_tokens"),
            "cache_write_tokens": 0,
        },
        "output_tokens": completion,
        "output_tokens_details": {
            "reasoning_tokens": _detail(usage, "completion_tokens_details", "reasoning_tokens")
        },
        "total_tokens": total,
    }


def _detail(usage: Mapping[str, Any], group: str, key: str) -> int:
    details = usage.get(group)
    value = details.get(key) if isinstance(details, Mapping) else None
    return count(value)
