"""The pieces of a ``GenerateContentResponse``: finish reasons, usage, the final chunk.

Every chunk is a whole response: ``candidates[0]`` (``index`` 0, ``content.role`` ``model``),
``modelVersion`` (the model the client asked for) and ``responseId`` (the same in every chunk).
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Mapping
from typing import Any

from ..core.finish import Outcome, outcome
from ..core.numbers import count

#: An upstream ``finish_reason``'s outcome (``core.finish``) -> ``finishReason``. Gemini has no
#: reason for tool calls: a turn that ends in calls is ``STOP``. An answer stopped early for
#: another reason, or one no table knows, is ``OTHER``; a failed one never gets here (it ends
#: with the API's error).
FINISH_REASONS: dict[Outcome, str] = {
    "complete": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
    "incomplete": "OTHER",
}

_ALPHABET = string.ascii_letters + string.digits


def new_response_id() -> str:
    return "tcm-" + "".join(secrets.choice(_ALPHABET) for _ in range(20))


def new_call_id() -> str:
    """An id for a call the upstream gave none."""
    return "call_" + "".join(secrets.choice(_ALPHABET) for _ in range(24))


def finish_reason(reason: str) -> str:
    return FINISH_REASONS.get(outcome(reason), "OTHER")


def usage_metadata(
    usage: Mapping[str, Any] | None, input_tokens: int, output_tokens: int, scale: float = 1.0
) -> dict[str, int]:
    """OpenAI usage -> ``usageMetadata``. Without usage from the upstream, the local estimates.

    ``scale`` multiplies the prompt count (and so the total): gemini-cli compresses its history
    at a fraction of the context window it assumes for unknown models (1,048,576 tokens), so a
    smaller model's window can be mapped onto that (``context_scale``)."""
    if usage is None:
        prompt, completion, total, thoughts, cached = input_tokens, output_tokens, 0, None, 0
    else:
        prompt = count(usage.get("prompt_tokens"))
        completion = count(usage.get("completion_tokens"))
        total = count(usage.get("total_tokens"))
        details = usage.get("completion_tokens_details")
        thoughts = (
            count(details.get("reasoning_tokens"))
            if isinstance(details, Mapping) and "reasoning_tokens" in details
            else None
        )
        prompt_details = usage.get("prompt_tokens_details")
        cached = (
            count(prompt_details.get("cached_tokens")) if isinstance(prompt_details, Mapping) else 0
        ) or count(usage.get("prompt_cache_hit_tokens"))  # DeepSeek
    total = total or prompt + completion
    scaled = round(prompt * scale) if scale != 1.0 else prompt
    out = {
        "promptTokenCount": scaled,
        "candidatesTokenCount": max(completion - (thoughts or 0), 0),
        "totalTokenCount": total + scaled - prompt,
    }
    if thoughts is not None:
        out["thoughtsTokenCount"] = thoughts
    if cached:
        out["cachedContentTokenCount"] = cached
    return out


def response(
    parts: list[dict[str, Any]],
    model: str,
    response_id: str,
    finish: str | None = None,
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
    if finish is not None:
        candidate["finishReason"] = finish
    candidate["index"] = 0
    doc: dict[str, Any] = {"candidates": [candidate]}
    if usage is not None:
        doc["usageMetadata"] = usage
    doc["modelVersion"] = model
    doc["responseId"] = response_id
    return doc
