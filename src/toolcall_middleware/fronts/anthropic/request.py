"""Anthropic Messages request -> OpenAI Chat Completions request, validated on the way.

Everything is checked before the upstream is called: a bad request costs the client a 400
``invalid_request_error`` naming the field (``messages.2.content.0.tool_use_id: ...``), never an
upstream round trip. Only what a Chat Completions upstream can express is translated; request
fields without an equivalent (``metadata``, ``thinking``, ``cache_control``, beta options) are
ignored rather than rejected, because Claude Code sends them on every request.

The request's fields and tools are translated here, its ``system`` and ``messages`` in
``request_messages.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.models import map_model
from ..core.numbers import is_int, is_number
from ..core.schema import clean_schema
from ..core.system import MidSystem, one_leading_system
from ..core.tokens import estimate_tokens
from .errors import invalid_request, str_field
from .request_messages import ThinkingHistory, chat_messages, system_messages


@dataclass(frozen=True, slots=True)
class RequestOptions:
    #: Anthropic model name -> upstream model. Keys may be ``fnmatch`` patterns (``claude-*``);
    #: an exact key wins over patterns, patterns are tried in order, unmatched names pass as is.
    model_map: Mapping[str, str] = field(default_factory=dict)
    #: What our own thinking blocks become when a client sends them back.
    thinking_history: ThinkingHistory = "reasoning_content"
    #: Fields set on the upstream request after translation, so they win over translated
    #: values of the same name (``{"skip_special_tokens": False}`` for vLLM). AnthropicOptions
    #: refuses the ones the translation back depends on.
    upstream_fields: Mapping[str, Any] = field(default_factory=dict)
    #: Upstream model for names ``model_map`` does not match (None: they pass as they are).
    default_model: str | None = None
    #: System messages after the first user message: merged into the leading one, or sent as
    #: user messages (``core.system``).
    mid_system: MidSystem = "merge"


@dataclass(frozen=True, slots=True)
class ChatRequest:
    body: dict[str, Any]  # the OpenAI Chat Completions request
    model: str  # the model the client asked for, echoed in the response
    stream: bool
    stop_sequences: tuple[str, ...]
    input_tokens: int  # local estimate, see tokens.py


def translate_request(
    doc: Any, options: RequestOptions = RequestOptions(), *, count_only: bool = False
) -> ChatRequest:
    """Validate an Anthropic request document and build the upstream request.

    ``count_only`` is for ``count_tokens``, whose requests carry no ``max_tokens``.
    Raises ``AnthropicError`` (400 ``invalid_request_error``) for anything malformed.
    """
    if not isinstance(doc, Mapping):
        raise invalid_request("request body must be a JSON object")
    model = doc.get("model")
    if not isinstance(model, str) or not model:
        raise invalid_request("model: field required (a non-empty string)")
    body: dict[str, Any] = {"model": map_model(model, options.model_map, options.default_model)}

    if not count_only:
        max_tokens = doc.get("max_tokens")
        if not is_int(max_tokens) or max_tokens < 1:
            raise invalid_request("max_tokens: field required (an integer >= 1)")
        body["max_tokens"] = max_tokens

    tools = _tools(doc.get("tools"))
    messages = system_messages(doc.get("system"))
    messages.extend(chat_messages(doc.get("messages"), options.thinking_history))
    body["messages"] = one_leading_system(messages, options.mid_system)
    if tools:
        body["tools"] = tools
        tool_choice = _tool_choice(doc.get("tool_choice"), {t["function"]["name"] for t in tools})
        body.update(tool_choice)

    stop = doc.get("stop_sequences")
    stop_sequences: tuple[str, ...] = ()
    if stop is not None:
        if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
            raise invalid_request("stop_sequences: must be a list of strings")
        stop_sequences = tuple(stop)
        if stop:
            body["stop"] = list(stop)
    for name in ("temperature", "top_p"):
        value = doc.get(name)
        if value is not None:
            if not is_number(value):
                raise invalid_request(f"{name}: must be a number")
            body[name] = value
    top_k = doc.get("top_k")
    if top_k is not None:
        if not is_int(top_k):
            raise invalid_request("top_k: must be an integer")
        body["top_k"] = top_k  # not OpenAI, but vLLM and SGLang honour it

    stream = doc.get("stream", False)
    if not isinstance(stream, bool):
        raise invalid_request("stream: must be a boolean")
    if stream and not count_only:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    body.update(options.upstream_fields)
    return ChatRequest(body, model, stream, stop_sequences, estimate_tokens(body))


# --- tools --------------------------------------------------------------------------------


def _tools(tools: Any) -> list[dict[str, Any]]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise invalid_request("tools: must be a list")
    out = []
    names: set[str] = set()
    for i, tool in enumerate(tools):
        path = f"tools.{i}"
        if not isinstance(tool, Mapping):
            raise invalid_request(f"{path}: must be an object")
        kind = tool.get("type")
        if kind not in (None, "custom"):
            raise invalid_request(
                f"{path}.type: server tool {kind!r} cannot run on an OpenAI-compatible upstream"
            )
        name = str_field(tool, "name", path)
        if name in names:
            raise invalid_request(f"{path}.name: tool names must be unique: {name}")
        names.add(name)
        schema = tool.get("input_schema")
        if not isinstance(schema, Mapping):
            raise invalid_request(f"{path}.input_schema: field required (an object)")
        function: dict[str, Any] = {"name": name}
        description = tool.get("description")
        if description is not None:
            if not isinstance(description, str):
                raise invalid_request(f"{path}.description: must be a string")
            function["description"] = description
        function["parameters"] = clean_schema(schema)
        out.append({"type": "function", "function": function})
    return out


def _tool_choice(choice: Any, names: set[str]) -> dict[str, Any]:
    if choice is None:
        return {}
    if not isinstance(choice, Mapping):
        raise invalid_request("tool_choice: must be an object")
    kind = choice.get("type")
    out: dict[str, Any]
    if kind == "auto":
        out = {"tool_choice": "auto"}
    elif kind == "any":
        out = {"tool_choice": "required"}
    elif kind == "none":
        out = {"tool_choice": "none"}
    elif kind == "tool":
        name = str_field(choice, "name", "tool_choice")
        if name not in names:
            raise invalid_request(f"tool_choice.name: no tool named {name!r} in tools")
        out = {"tool_choice": {"type": "function", "function": {"name": name}}}
    else:
        raise invalid_request("tool_choice.type: must be 'auto', 'any', 'tool' or 'none'")
    parallel = choice.get("disable_parallel_tool_use")
    if parallel is not None:
        if not isinstance(parallel, bool):
            raise invalid_request("tool_choice.disable_parallel_tool_use: must be a boolean")
        if parallel and kind != "none":
            out["parallel_tool_calls"] = False
    return out


__all__ = ["ChatRequest", "RequestOptions", "ThinkingHistory", "map_model", "translate_request"]
