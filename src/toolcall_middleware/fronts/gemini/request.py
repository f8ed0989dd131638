"""Gemini ``GenerateContentRequest`` -> OpenAI Chat Completions request, validated on the way.

Everything is checked before the upstream is called: a bad request costs the client a 400
``INVALID_ARGUMENT`` naming the field (``contents[2].parts[0].functionResponse.name: ...``),
never an upstream round trip. Fields with no Chat Completions equivalent that clients send on
every request (``safetySettings``, ``labels``, ``speechConfig``, ...) are ignored; the ones
whose meaning cannot be kept (``cachedContent``, several candidates, non-text output) are
refused. Keys are read in lowerCamel or snake_case (``fields.get``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...models import match_model
from ..core.models import map_model
from ..core.numbers import INT32, is_number, proto_integer
from ..core.schema import clean_schema
from ..core.system import one_leading_system
from ..core.tokens import estimate_tokens
from .contents import ContentsTranslator
from .errors import invalid_argument
from .fields import get
from .schema import to_json_schema

#: ``thinkingLevel`` -> ``reasoning_effort``.
LEVELS = {"MINIMAL": "minimal", "LOW": "low", "MEDIUM": "medium", "HIGH": "high", "XHIGH": "high"}
#: Function calling modes that leave the choice to the model.
_AUTO_MODES = ("AUTO", "VALIDATED", "MODE_UNSPECIFIED")
_UNSPECIFIED_LEVEL = "THINKING_LEVEL_UNSPECIFIED"


@dataclass(frozen=True, slots=True)
class RequestOptions:
    #: Gemini model name (or ``fnmatch`` pattern such as ``gemini-*``) -> upstream model.
    model_map: Mapping[str, str] = field(default_factory=dict)
    #: Upstream model for names the map does not match (None: they pass as they are).
    default_model: str | None = None
    #: Set on every upstream request after translation (``core.options``).
    upstream_fields: Mapping[str, Any] = field(default_factory=dict)
    #: Upstream model pattern -> request fields that turn its thinking off, applied when a
    #: request says ``thinkingBudget: 0`` (Qwen3: ``{"chat_template_kwargs":
    #: {"enable_thinking": false}}``).
    thinking_off: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: Read the reasoning our ``thoughtSignature`` carries back into ``reasoning_content``.
    thought_signatures: bool = True


@dataclass(frozen=True, slots=True)
class GeminiRequest:
    body: dict[str, Any]  # the OpenAI Chat Completions request
    model: str  # the model the client asked for, echoed as modelVersion
    stream: bool
    include_thoughts: bool
    input_tokens: int  # local estimate (core.tokens)
    #: Fields set from the front's configuration (``upstream_fields``, ``thinking_off``),
    #: which the chat path's own configured fields leave as they are.
    own_fields: frozenset[str] = frozenset()


def translate_request(
    doc: Any,
    model: str,
    options: RequestOptions = RequestOptions(),
    *,
    stream: bool = False,
    count_only: bool = False,
) -> GeminiRequest:
    """Validate a ``generateContent`` body (or a ``countTokens`` one, with ``count_only``) for
    ``model`` (from the path) and build the upstream request. Raises ``GeminiError``."""
    if not isinstance(doc, Mapping):
        raise invalid_argument("request body must be a JSON object")
    if count_only and get(doc, "generateContentRequest") is not None:
        doc = get(doc, "generateContentRequest")
        if not isinstance(doc, Mapping):
            raise invalid_argument("generateContentRequest: must be an object")
    if get(doc, "cachedContent"):
        raise invalid_argument(
            "cachedContent: cached contents are not available on an OpenAI-compatible upstream"
        )
    upstream_model = map_model(model, options.model_map, options.default_model)
    messages = _system(get(doc, "systemInstruction"))
    contents = ContentsTranslator(signatures=options.thought_signatures, count_only=count_only)
    messages += contents.translate(get(doc, "contents"))
    body: dict[str, Any] = {"model": upstream_model, "messages": one_leading_system(messages)}
    tools = _tools(get(doc, "tools"))
    if tools:
        body["tools"] = tools
        body.update(_tool_choice(get(doc, "toolConfig"), tools))
    own = set(options.upstream_fields)
    config = get(doc, "generationConfig")
    include_thoughts = _generation(config, body, options, upstream_model, own)
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    body.update(options.upstream_fields)
    return GeminiRequest(
        body, model, stream, include_thoughts, estimate_tokens(body), frozenset(own)
    )


# --- system instruction ---------------------------------------------------------------------


def _system(instruction: Any) -> list[dict[str, Any]]:
    if instruction is None:
        return []
    if isinstance(instruction, str):
        text = instruction
    elif isinstance(instruction, Mapping):
        parts = instruction.get("parts")
        if not isinstance(parts, list):
            raise invalid_argument("systemInstruction.parts: must be a list of text parts")
        texts = []
        for j, part in enumerate(parts):
            value = get(part, "text") if isinstance(part, Mapping) else None
            if not isinstance(value, str):
                raise invalid_argument(f"systemInstruction.parts[{j}].text: field required")
            texts.append(value)
        text = "\n".join(texts)
    else:
        raise invalid_argument("systemInstruction: must be a Content object")
    return [{"role": "system", "content": text}] if text else []


# --- tools ----------------------------------------------------------------------------------


def _tools(tools: Any) -> list[dict[str, Any]]:
    """Function declarations as Chat tools; hosted tools (``googleSearch``, ``codeExecution``,
    ``urlContext``, ...) have no upstream to run on and are dropped."""
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise invalid_argument("tools: must be a list of Tool objects")
    out: list[dict[str, Any]] = []
    names: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            raise invalid_argument(f"tools[{i}]: must be a Tool object")
        declarations = get(tool, "functionDeclarations")
        if declarations is None:
            continue
        if not isinstance(declarations, list):
            raise invalid_argument(f"tools[{i}].functionDeclarations: must be a list")
        for j, declaration in enumerate(declarations):
            path = f"tools[{i}].functionDeclarations[{j}]"
            function = _function(declaration, path)
            if function["name"] in names:
                raise invalid_argument(f"{path}.name: duplicate function name {function['name']!r}")
            names.add(function["name"])
            out.append({"type": "function", "function": function})
    return out


def _function(declaration: Any, path: str) -> dict[str, Any]:
    if not isinstance(declaration, Mapping):
        raise invalid_argument(f"{path}: must be a FunctionDeclaration object")
    name = get(declaration, "name")
    if not isinstance(name, str) or not name:
        raise invalid_argument(f"{path}.name: field required (a string)")
    function: dict[str, Any] = {"name": name}
    description = get(declaration, "description")
    if description is not None:
        if not isinstance(description, str):
            raise invalid_argument(f"{path}.description: must be a string")
        function["description"] = description
    json_schema = get(declaration, "parametersJsonSchema")
    schema = get(declaration, "parameters")
    if json_schema is not None:
        if not isinstance(json_schema, Mapping):
            raise invalid_argument(f"{path}.parametersJsonSchema: must be an object")
        parameters = to_json_schema(json_schema)
    elif schema is not None:
        if not isinstance(schema, Mapping):
            raise invalid_argument(f"{path}.parameters: must be a Schema object")
        parameters = to_json_schema(schema)
    else:
        parameters = {"type": "object", "properties": {}}
    function["parameters"] = clean_schema(parameters)
    return function


def _tool_choice(config: Any, tools: list[dict[str, Any]]) -> dict[str, Any]:
    if config is None:
        return {}
    if not isinstance(config, Mapping):
        raise invalid_argument("toolConfig: must be an object")
    calling = get(config, "functionCallingConfig")
    if calling is None:
        return {}
    if not isinstance(calling, Mapping):
        raise invalid_argument("toolConfig.functionCallingConfig: must be an object")
    mode = get(calling, "mode")
    path = "toolConfig.functionCallingConfig"
    if mode is None:
        return {}
    if not isinstance(mode, str):
        raise invalid_argument(f"{path}.mode: must be a string")
    mode = mode.upper()
    if mode in _AUTO_MODES:
        return {"tool_choice": "auto"}
    if mode == "NONE":
        return {"tool_choice": "none"}
    if mode != "ANY":
        raise invalid_argument(f"{path}.mode: must be AUTO, ANY, NONE or VALIDATED")
    allowed = get(calling, "allowedFunctionNames")
    if not allowed:
        return {"tool_choice": "required"}
    if not isinstance(allowed, list) or not all(isinstance(n, str) for n in allowed):
        raise invalid_argument(f"{path}.allowedFunctionNames: must be a list of strings")
    offered = {t["function"]["name"] for t in tools}
    unknown = [n for n in allowed if n not in offered]
    if unknown:
        raise invalid_argument(f"{path}.allowedFunctionNames: no function named {unknown[0]!r}")
    tools[:] = [t for t in tools if t["function"]["name"] in allowed]
    if len(tools) == 1:
        only = tools[0]["function"]["name"]
        return {"tool_choice": {"type": "function", "function": {"name": only}}}
    return {"tool_choice": "required"}


# --- generation config ----------------------------------------------------------------------

# Gemini name -> (Chat name, check).
_NUMBERS = {
    "temperature": "temperature",
    "topP": "top_p",
    "presencePenalty": "presence_penalty",
    "frequencyPenalty": "frequency_penalty",
}
#: Integer fields: their chat field, and their least value (``None``: any int32). A negative
#: ``maxOutputTokens`` must not pass: llama.cpp reads -1 as no limit.
_INTEGERS: dict[str, tuple[str, int | None]] = {
    "topK": ("top_k", 1),
    "seed": ("seed", None),
    "maxOutputTokens": ("max_tokens", 1),
    "logprobs": ("top_logprobs", 0),
}


def _generation(
    config: Any,
    body: dict[str, Any],
    options: RequestOptions,
    upstream_model: str,
    own: set[str],
) -> bool:
    """Apply ``generationConfig`` to ``body``; return whether thoughts are wanted. ``own``
    gets the names of the configured fields set (``thinking_off``)."""
    if config is None:
        return False
    if not isinstance(config, Mapping):
        raise invalid_argument("generationConfig: must be an object")
    path = "generationConfig"
    for name, chat in _NUMBERS.items():
        value = get(config, name)
        if value is not None:
            if not is_number(value):
                raise invalid_argument(f"{path}.{name}: must be a number")
            body[chat] = value
    for name, (chat, least) in _INTEGERS.items():
        value = _integer(get(config, name), f"{path}.{name}", least)
        if value is not None:
            body[chat] = value
    stop = get(config, "stopSequences")
    if stop is not None:
        if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
            raise invalid_argument(f"{path}.stopSequences: must be a list of strings")
        if stop:
            body["stop"] = list(stop)
    logprobs = get(config, "responseLogprobs")
    if logprobs is not None:
        if not isinstance(logprobs, bool):
            raise invalid_argument(f"{path}.responseLogprobs: must be a boolean")
        body["logprobs"] = logprobs
    candidates = _integer(get(config, "candidateCount"), f"{path}.candidateCount", 1)
    if candidates is not None and candidates > 1:
        raise invalid_argument(f"{path}.candidateCount: only one candidate is supported")
    modalities = get(config, "responseModalities")
    modalities_path = f"{path}.responseModalities"
    if modalities is not None and any(
        str(m).upper() != "TEXT" for m in _list(modalities, modalities_path)
    ):
        raise invalid_argument(f"{modalities_path}: only TEXT output is supported")
    _response_format(config, body, path)
    return _thinking(get(config, "thinkingConfig"), body, options, upstream_model, own)


def _response_format(config: Mapping[str, Any], body: dict[str, Any], path: str) -> None:
    mime = get(config, "responseMimeType")
    if mime is None or mime == "text/plain":
        return
    if mime != "application/json":
        raise invalid_argument(
            f"{path}.responseMimeType: {mime!r} is not supported (text/plain or application/json)"
        )
    schema = get(config, "responseJsonSchema")
    if schema is None:
        schema = get(config, "responseSchema")
    if schema is None:
        body["response_format"] = {"type": "json_object"}
    elif isinstance(schema, Mapping):
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "response", "schema": clean_schema(to_json_schema(schema))},
        }
    else:
        raise invalid_argument(f"{path}.responseJsonSchema: must be an object")


def _thinking(
    config: Any,
    body: dict[str, Any],
    options: RequestOptions,
    upstream_model: str,
    own: set[str],
) -> bool:
    if config is None:
        return False
    path = "generationConfig.thinkingConfig"
    if not isinstance(config, Mapping):
        raise invalid_argument(f"{path}: must be an object")
    include = get(config, "includeThoughts")
    if include is not None and not isinstance(include, bool):
        raise invalid_argument(f"{path}.includeThoughts: must be a boolean")
    budget = _integer(get(config, "thinkingBudget"), f"{path}.thinkingBudget", -1)
    level = get(config, "thinkingLevel")
    if level is not None:
        if not isinstance(level, str) or level.upper() not in (*LEVELS, _UNSPECIFIED_LEVEL):
            raise invalid_argument(f"{path}.thinkingLevel: must be one of {', '.join(LEVELS)}")
        if level.upper() in LEVELS:
            body["reasoning_effort"] = LEVELS[level.upper()]
    elif budget == 0:
        fields = match_model(upstream_model, options.thinking_off) or {}
        body.update(fields)
        own.update(fields)
    elif budget is not None and budget > 0:
        body["reasoning_effort"] = effort_of_budget(budget)
    return include is True


def effort_of_budget(budget: int) -> str:
    """A thinking budget in tokens as an OpenAI ``reasoning_effort``."""
    if budget <= 1024:
        return "low"
    return "medium" if budget <= 8192 else "high"


# --- field helpers --------------------------------------------------------------------------


def _integer(value: Any, path: str, least: int | None = None) -> int | None:
    """An int32 field (Gemini's are), at least ``least``; proto-JSON may write it as a string
    of ASCII digits (``"1024"``)."""
    if value is None:
        return None
    number = proto_integer(value)
    if number is None or not INT32[0] <= number <= INT32[1]:
        raise invalid_argument(f"{path}: must be an integer (32 bits)")
    if least is not None and number < least:
        raise invalid_argument(f"{path}: must be at least {least}")
    return number


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise invalid_argument(f"{path}: must be a list")
    return value


__all__ = ["GeminiRequest", "RequestOptions", "translate_request"]
