"""The Responses request fields besides ``input`` and tools, as Chat Completions fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.numbers import is_int, is_number
from .errors import invalid

_EFFORT = {
    "minimal": "minimal",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "high",
    "max": "high",
}


def translate_fields(doc: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("temperature", "top_p"):
        value = doc.get(name)
        if value is not None:
            if not is_number(value):
                raise invalid("must be a number", name)
            out[name] = value
    max_output = doc.get("max_output_tokens")
    if max_output is not None:
        if not is_int(max_output) or max_output < 1:
            raise invalid("must be an integer >= 1", "max_output_tokens")
        out["max_tokens"] = max_output
    top_logprobs = doc.get("top_logprobs")
    if top_logprobs is not None:
        if not is_int(top_logprobs) or top_logprobs < 0:
            raise invalid("must be an integer >= 0", "top_logprobs")
        out["logprobs"] = True
        out["top_logprobs"] = top_logprobs
    reasoning = doc.get("reasoning")
    if reasoning is not None:
        if not isinstance(reasoning, Mapping):
            raise invalid("must be an object", "reasoning")
        effort = reasoning.get("effort")
        if effort is not None and effort != "none":
            if not isinstance(effort, str) or effort not in _EFFORT:
                raise invalid(f"unsupported effort {effort!r}", "reasoning.effort")
            out["reasoning_effort"] = _EFFORT[effort]
    text = doc.get("text")
    if text is not None:
        if not isinstance(text, Mapping):
            raise invalid("must be an object", "text")
        out.update(_text_format(text.get("format")))
    for name in ("user", "safety_identifier"):
        value = doc.get(name)
        if value is not None:
            if not isinstance(value, str):
                raise invalid("must be a string", name)
            out["user"] = value
    return out


def _text_format(fmt: Any) -> dict[str, Any]:
    if fmt is None:
        return {}
    if not isinstance(fmt, Mapping):
        raise invalid("must be an object", "text.format")
    kind = fmt.get("type")
    if kind == "text":
        return {}
    if kind == "json_object":
        return {"response_format": {"type": "json_object"}}
    if kind == "json_schema":
        schema = fmt.get("schema")
        if not isinstance(schema, Mapping):
            raise invalid("field required (an object)", "text.format.schema")
        json_schema: dict[str, Any] = {"name": fmt.get("name") or "response", "schema": schema}
        for key in ("strict", "description"):
            if fmt.get(key) is not None:
                json_schema[key] = fmt[key]
        return {"response_format": {"type": "json_schema", "json_schema": json_schema}}
    raise invalid("must be 'text', 'json_object' or 'json_schema'", "text.format.type")
