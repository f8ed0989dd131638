"""Fields set on every upstream chat request, globally and per model (``upstream_fields``).

Kimi K2, DeepSeek and gpt-oss write their tool calls in special tokens, which vLLM strips unless
the request says ``"skip_special_tokens": false``, and clients such as Cline, Cursor or Codex
cannot add that field: the operator configures it once. A configured field is set over the
client's value of the same name (top-level: a configured object replaces the client's whole).

Order, the last one winning: the client's request, ``upstream_fields``, the
``upstream_fields_by_model`` table of the request's model, then the fields an API front in the
same process set on the request it translated (it names them in the scope, ``front_scope``):
the table closest to the client's API wins.

Fields the chat path or the fronts' translation read from each request are refused at
construction (``fields_problem``). Sans-I/O but for the scope helpers.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from .asgi import Scope
from .models import match_model

#: Fields an API front builds from each request and reads the answer by: ``messages`` and
#: ``tools`` carry the conversation and the tools the client can run; ``stream``,
#: ``stream_options`` and ``n`` decide how the answer comes back (one choice, streamed or not,
#: with usage).
TRANSLATION_FIELDS = frozenset({"messages", "tools", "stream", "stream_options", "n"})
#: The chat path's fields reach the fronts' requests too (``toolcall serve``), and it reads
#: ``model`` itself: the model picks the tool-call format and the per-model table.
CHAT_PATH_FIELDS = TRANSLATION_FIELDS | {"model"}
CHAT_PATH_WHY = "fields the tool-call repair and the API fronts read from each request"

#: The scope extension by which a front names the fields it set (``front_scope``).
EXTENSION = "toolcall.upstream_fields"

_EXAMPLE = '{"skip_special_tokens": false}'


def fields_problem(value: Any, reserved: Collection[str], why: str) -> str | None:
    """What is wrong with a set of upstream fields, or None. ``why`` says why the reserved
    fields are (``fields the Anthropic front builds from each request``)."""
    if not isinstance(value, Mapping):
        return f"must be an object of request fields, like {_EXAMPLE}"
    refused = sorted(set(reserved).intersection(value))
    if refused:
        return f"cannot set {', '.join(refused)} ({why})"
    try:
        orjson.dumps(dict(value))
    except orjson.JSONEncodeError as exc:
        return f"must hold JSON values under string keys: {exc}"
    return None


def by_model_problem(
    value: Any, reserved: Collection[str], why: str, example: str = ""
) -> str | None:
    """What is wrong with a model pattern -> fields table, or None."""
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, Mapping) for k, v in value.items()
    ):
        example = example or '{"moonshotai/Kimi-*": ' + _EXAMPLE + "}"
        return f"must map model names or patterns to request fields, like {example}"
    for pattern, fields in value.items():
        problem = fields_problem(fields, reserved, why)
        if problem:
            return f"[{pattern!r}] {problem}"
    return None


@dataclass(frozen=True, slots=True)
class UpstreamFields:
    """The chat path's configured fields: global, and model pattern -> fields."""

    fields: Mapping[str, Any]
    by_model: Mapping[str, Mapping[str, Any]]

    def __bool__(self) -> bool:
        return bool(self.fields or self.by_model)

    def apply(self, request: dict[str, Any], keep: Collection[str] = ()) -> None:
        """Set the fields on a decoded chat request, except those named in ``keep``."""
        model = request.get("model")
        per_model = match_model(model if isinstance(model, str) else "", self.by_model) or {}
        for fields in (self.fields, per_model):
            for name, value in fields.items():
                if name not in keep:
                    request[name] = value


def front_scope(scope: Scope, fields: Collection[str]) -> Scope:
    """``scope`` naming ``fields`` (a front's own ``upstream_fields``) as set by the front,
    so the chat path's configured fields leave them alone (the caller's scope is unchanged)."""
    if not fields:
        return scope
    extensions = scope.get("extensions")
    extensions = dict(extensions) if isinstance(extensions, dict) else {}
    extensions[EXTENSION] = {"fields": frozenset(fields)}
    return {**scope, "extensions": extensions}


def front_fields(scope: Scope) -> Collection[str]:
    """The fields a front named in ``scope`` (``front_scope``)."""
    extensions = scope.get("extensions")
    entry = extensions.get(EXTENSION) if type(extensions) is dict else None
    names = entry.get("fields") if isinstance(entry, dict) else None
    return names if isinstance(names, frozenset) else frozenset()
