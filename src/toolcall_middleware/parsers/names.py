"""What a function name looks like, and which offered tool a call that names none must be.

Shared by the parsers (a JSON call object whose name is not one is text; a Kimi call id that
names no function) and by the call assembler (a call whose name slot holds junk is resolved
against the request's tools, or dropped): no client can run a call named ``0`` or ``""``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

from .base import Tool
from .jsonscan import object_keys

_NAME = re.compile(r"[\w.:\-/]+")


@functools.lru_cache(maxsize=1024)  # asked once per call; a response's calls share names
def is_function_name(name: str) -> bool:
    """A name a client could dispatch: word characters with ``.:-/`` (MCP names like
    ``mcp__portal__search-documents``), not a bare number."""
    return _NAME.fullmatch(name) is not None and not name.isdigit()


def _schema(tool: Tool) -> tuple[frozenset[str] | None, frozenset[str]]:
    """``(properties, required)`` of a tool; properties ``None`` when it accepts any keys."""
    parameters = tool.parameters
    required = parameters.get("required")
    needed = (
        frozenset(k for k in required if isinstance(k, str))
        if isinstance(required, list)
        else frozenset()
    )
    properties = parameters.get("properties")
    if not isinstance(properties, Mapping) or parameters.get("additionalProperties") is True:
        return None, needed
    return frozenset(properties), needed


def sole_tool(tools: Sequence[Tool]) -> Tool | None:
    """The tool a call that names none must be whatever its arguments: the only tool offered,
    when it takes any arguments (no schema to check them against)."""
    if len(tools) == 1:
        properties, required = _schema(tools[0])
        if properties is None and not required:
            return tools[0]
    return None


def tool_for_arguments(tools: Sequence[Tool], arguments: str) -> Tool | None:
    """The one offered tool a call's arguments fit, or ``None`` when none or several do.

    Arguments fit a tool when they carry its required parameters and no key its declared
    properties lack. A tool that declares properties and fits beats one that declares none.
    """
    keys = object_keys(arguments) if arguments.strip() else []  # no recursion, any depth
    if keys is None:
        return None
    return _only_fit(tools, frozenset(keys))


def _only_fit(tools: Sequence[Tool], keys: frozenset[str]) -> Tool | None:
    declared: list[Tool] = []
    open_ended: list[Tool] = []
    for tool in tools:
        properties, required = _schema(tool)
        if not required <= keys:
            continue
        if properties is None:
            open_ended.append(tool)
        elif properties.issuperset(keys):
            declared.append(tool)
    fits = declared or open_ended
    return fits[0] if len(fits) == 1 else None
