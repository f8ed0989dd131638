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

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Options:
        """Options from ``TOOLCALL_*`` variables, then ``overrides`` (``None`` values ignored)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            raw = env.get("TOOLCALL_" + f.name.upper())
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
