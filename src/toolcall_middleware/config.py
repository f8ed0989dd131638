"""Middleware options: keyword arguments, with ``TOOLCALL_*`` environment variables as defaults.

vLLM builds middleware with the app alone (``--middleware toolcall_middleware.ToolCallMiddleware``),
so every option can also come from the environment. Explicit keyword arguments win.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from .parsers.base import UnknownTools

DEFAULT_PATHS = ("/v1/chat/completions", "/chat/completions")
MODES = ("stream", "buffered")
#: Other names an option's environment variable goes by (seed 003 documents the first).
ENV_ALIASES = {"debug_max": ("TOOL_CALL_DEBUG_MAX",)}


class ConfigError(ValueError):
    """An option has a value the middleware cannot work with."""


@dataclass(frozen=True)
class Options:
    #: Provider format name, or ``"auto"`` to pick from the model name (and the stream).
    provider: str = "auto"
    #: POST paths whose responses are rewritten.
    paths: tuple[str, ...] = DEFAULT_PATHS
    #: Model name (case-insensitive) → provider, consulted first by ``provider="auto"``.
    provider_overrides: Mapping[str, str] = field(default_factory=dict)
    #: Rewrite responses to requests that offered no ``tools`` (off: those pass untouched).
    rewrite_without_tools: bool = False
    #: Calls to tools the request did not offer: ``forward``, ``drop`` or ``text``.
    unknown_tools: UnknownTools = "forward"
    #: ``stream``: tool-call arguments flow as they arrive. ``buffered``: each call leaves
    #: whole when its choice ends, arguments checked as JSON (invalid ones wrapped as
    #: ``{"input": ...}``, nameless calls dropped). Text streams immediately either way.
    mode: str = "stream"
    #: Unresolved markup a parser may hold back per choice (a marker prefix, a call header);
    #: past it the stream ends with an error event.
    max_held_bytes: int = 10 * 1024
    #: Tool-call arguments held per stream (buffered mode, or a call a parser must see whole
    #: to name), and the largest single SSE event or JSON body rewritten.
    max_buffered_bytes: int = 1024 * 1024
    #: Count calls, malformed calls and fallbacks in Prometheus (needs the ``metrics`` extra).
    metrics: bool = True
    #: ``X-Admin-Key`` for ``GET debug_path``; empty (the default) disables debug capture.
    admin_key: str = field(default="", repr=False)
    #: Recent tool-call chunks the debug capture keeps (env also ``TOOL_CALL_DEBUG_MAX``).
    debug_max: int = 200
    #: Where the middleware answers the debug endpoint when ``admin_key`` is set.
    debug_path: str = "/debug/tool-calls"

    def __post_init__(self) -> None:
        from .parsers import providers  # parsers import config-free modules only

        known = (*providers(), "auto")
        if self.provider not in known:
            raise ConfigError(f"provider {self.provider!r} is not one of: {', '.join(known)}")
        for model, provider in self.provider_overrides.items():
            if provider not in providers():
                raise ConfigError(
                    f"provider_overrides[{model!r}] = {provider!r} is not one of: "
                    f"{', '.join(providers())}"
                )
        if self.unknown_tools not in ("forward", "drop", "text"):
            raise ConfigError(
                f"unknown_tools must be forward, drop or text, not {self.unknown_tools!r}"
            )
        if isinstance(self.paths, str) or not all(p.startswith("/") for p in self.paths):
            raise ConfigError(f"paths must be paths starting with '/': {self.paths!r}")
        if self.mode not in MODES:
            raise ConfigError(f"mode {self.mode!r} is not one of: {', '.join(MODES)}")
        for name in ("max_held_bytes", "max_buffered_bytes", "debug_max"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be a positive integer, not {getattr(self, name)}")
        if not self.debug_path.startswith("/"):
            raise ConfigError(f"debug_path must start with '/': {self.debug_path!r}")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Options:
        """Options from ``TOOLCALL_*`` variables, then ``overrides`` (``None`` values ignored)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            raw = env.get("TOOLCALL_" + f.name.upper())
            for alias in ENV_ALIASES.get(f.name, ()):
                raw = raw if raw is not None and raw.strip() else env.get(alias)
            if raw is not None and raw.strip():
                values[f.name] = _parse_env(f.name, raw.strip(), f.default)
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(overrides) - names)
        if unknown:
            raise TypeError(f"unknown option(s): {', '.join(unknown)}; known: {sorted(names)}")
        values.update({k: v for k, v in overrides.items() if v is not None})
        if "paths" in values:
            values["paths"] = tuple(values["paths"])
        return cls(**values)


def _parse_env(name: str, raw: str, default: Any) -> Any:
    var = "TOOLCALL_" + name.upper()
    if isinstance(default, bool):
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{var} must be true or false, not {raw!r}")
    if isinstance(default, int):
        try:
            return int(raw)
        except ValueError:
            raise ConfigError(f"{var} must be an integer, not {raw!r}") from None
    if isinstance(default, tuple):
        return tuple(p.strip() for p in raw.split(",") if p.strip())
    if name == "provider_overrides":
        return _parse_mapping(var, raw)
    return raw


def _parse_mapping(var: str, raw: str) -> dict[str, str]:
    """A JSON object, or ``model=provider`` pairs separated by commas."""
    if raw.startswith("{"):
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ConfigError(f"{var} is not valid JSON: {exc}") from None
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise ConfigError(f"{var} must map model names to provider names")
        return value
    pairs: dict[str, str] = {}
    for item in raw.split(","):
        model, eq, provider = item.partition("=")
        if not eq or not model.strip() or not provider.strip():
            raise ConfigError(f"{var} entries must look like model=provider, not {item!r}")
        pairs[model.strip()] = provider.strip()
    return pairs
