"""Responses tools -> Chat Completions tools, and the names calls go back out under.

Responses tools are flat (``{"type": "function", "name", "parameters"}``); Chat nests them.
``custom`` tools (Codex's freeform ``apply_patch``) become functions taking ``{"input": str}``
and their calls go back out as ``custom_tool_call`` with the input unwrapped; ``namespace``
tools (Codex's MCP tools) are flattened to ``ns__name`` and their calls carry the namespace
again. Hosted tools (web search, code interpreter, ...) cannot run on a Chat upstream: dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.schema import clean_schema
from .errors import invalid

logger = logging.getLogger("toolcall_middleware.responses")

HOSTED = frozenset(
    {
        "web_search",
        "web_search_preview",
        "web_search_preview_2025_03_11",
        "web_search_2025_08_26",
        "file_search",
        "computer",
        "computer_use",
        "computer_use_preview",
        "code_interpreter",
        "image_generation",
        "mcp",
        "local_shell",
        "shell",
        "apply_patch",
        "tool_search",
    }
)
EMPTY_PARAMETERS = {"type": "object", "properties": {}}
CUSTOM_PARAMETERS = {
    "type": "object",
    "properties": {"input": {"type": "string"}},
    "required": ["input"],
}


def flat_name(namespace: str | None, name: str) -> str:
    if not namespace:
        return name
    return namespace + name if namespace.endswith("__") else f"{namespace}__{name}"


@dataclass
class ToolNames:
    """What a call's upstream name stands for: a custom tool, a namespaced function."""

    custom: set[str] = field(default_factory=set)
    #: flat name -> (namespace, name)
    namespaced: dict[str, tuple[str, str]] = field(default_factory=dict)

    def client_name(self, flat: str) -> tuple[str | None, str]:
        """``(namespace, name)`` for a call the upstream made to ``flat``."""
        if flat in self.namespaced:
            return self.namespaced[flat]
        return None, flat


@dataclass
class Tools:
    chat: list[dict[str, Any]] = field(default_factory=list)
    names: ToolNames = field(default_factory=ToolNames)
    dropped: set[str] = field(default_factory=set)  # hosted tool types left out


def translate_tools(tools: Any) -> Tools:
    out = Tools()
    if tools is None:
        return out
    if not isinstance(tools, list):
        raise invalid("must be a list", "tools")
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        path = f"tools[{i}]"
        if not isinstance(tool, Mapping):
            raise invalid("must be an object", path)
        kind = tool.get("type")
        if kind == "namespace":
            namespace = _name(tool, path)
            inner = tool.get("tools")
            if not isinstance(inner, list):
                raise invalid("must be a list of function tools", f"{path}.tools")
            for j, sub in enumerate(inner):
                spath = f"{path}.tools[{j}]"
                if not isinstance(sub, Mapping) or sub.get("type", "function") != "function":
                    raise invalid("must be a function tool", spath)
                flat = flat_name(namespace, _name(sub, spath))
                out.names.namespaced[flat] = (namespace, sub["name"])
                out.chat.append(_function(sub, spath, flat, seen))
        elif kind == "function":
            out.chat.append(_function(tool, path, _name(tool, path), seen))
        elif kind == "custom":
            name = _name(tool, path)
            out.names.custom.add(name)
            out.chat.append(_custom(tool, path, name, seen))
        elif isinstance(kind, str) and (kind in HOSTED or kind.startswith("web_search")):
            logger.debug("dropping hosted tool %s: a Chat Completions upstream cannot run it", kind)
            out.dropped.add(kind)
        else:
            raise invalid(f"unsupported tool type {kind!r}", f"{path}.type")
    return out


def _name(tool: Mapping[str, Any], path: str) -> str:
    name = tool.get("name")
    if not isinstance(name, str) or not name:
        raise invalid("field required (a non-empty string)", f"{path}.name")
    return name


def _unique(name: str, path: str, seen: set[str]) -> None:
    if name in seen:
        raise invalid(f"tool names must be unique: {name}", f"{path}.name")
    seen.add(name)


def _description(tool: Mapping[str, Any], path: str) -> str | None:
    description = tool.get("description")
    if description is not None and not isinstance(description, str):
        raise invalid("must be a string", f"{path}.description")
    return description


def _function(tool: Mapping[str, Any], path: str, flat: str, seen: set[str]) -> dict[str, Any]:
    _unique(flat, path, seen)
    parameters = tool.get("parameters")
    if parameters is None:
        parameters = EMPTY_PARAMETERS
    elif not isinstance(parameters, Mapping):
        raise invalid("must be an object (a JSON schema)", f"{path}.parameters")
    function: dict[str, Any] = {"name": flat}
    description = _description(tool, path)
    if description is not None:
        function["description"] = description
    function["parameters"] = clean_schema(parameters)
    strict = tool.get("strict")
    if isinstance(strict, bool):
        function["strict"] = strict
    return {"type": "function", "function": function}


def _custom(tool: Mapping[str, Any], path: str, name: str, seen: set[str]) -> dict[str, Any]:
    _unique(name, path, seen)
    description = _description(tool, path) or ""
    fmt = tool.get("format")
    if isinstance(fmt, Mapping) and isinstance(fmt.get("definition"), str):
        syntax = fmt.get("syntax") or "grammar"
        description += (
            f"\n\nPut the whole input in the `input` string; it must follow this {syntax} "
            f"grammar:\n{fmt['definition']}"
        )
    function = {"name": name, "description": description.strip(), "parameters": CUSTOM_PARAMETERS}
    return {"type": "function", "function": function}


def _namespace(holder: Mapping[str, Any], path: str) -> str | None:
    """A ``tool_choice`` entry's optional ``namespace``: a string, or the 400 naming it."""
    namespace = holder.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        raise invalid("must be a string", f"{path}.namespace")
    return namespace


def translate_tool_choice(choice: Any, tools: Tools) -> dict[str, Any]:
    """The Chat ``tool_choice`` (and a narrowed ``tools`` list for ``allowed_tools``)."""
    if choice is None:
        return {}
    names = {t["function"]["name"] for t in tools.chat}
    if choice in ("auto", "none", "required"):
        return {"tool_choice": choice}
    if not isinstance(choice, Mapping):
        raise invalid("must be 'auto', 'none', 'required' or an object", "tool_choice")
    kind = choice.get("type")
    if kind in ("function", "custom"):
        name = choice.get("name")
        if not isinstance(name, str):
            raise invalid("field required (a string)", "tool_choice.name")
        flat = flat_name(_namespace(choice, "tool_choice"), name)
        if flat not in names:
            raise invalid(f"no tool named {name!r} in tools", "tool_choice.name")
        return {"tool_choice": {"type": "function", "function": {"name": flat}}}
    if kind == "allowed_tools":
        mode = choice.get("mode", "auto")
        if mode not in ("auto", "required"):
            raise invalid("must be 'auto' or 'required'", "tool_choice.mode")
        allowed = choice.get("tools")
        if not isinstance(allowed, list):
            raise invalid("must be a list", "tool_choice.tools")
        keep = set()
        for i, entry in enumerate(allowed):
            if isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
                keep.add(flat_name(_namespace(entry, f"tool_choice.tools[{i}]"), entry["name"]))
        tools.chat = [t for t in tools.chat if t["function"]["name"] in keep]
        return {"tool_choice": mode}
    if isinstance(kind, str) and (kind in HOSTED or kind.startswith("web_search")):
        raise invalid(
            f"tool_choice forces the hosted tool {kind!r}, which this server cannot run",
            "tool_choice",
        )
    raise invalid(f"unsupported tool_choice type {kind!r}", "tool_choice.type")
