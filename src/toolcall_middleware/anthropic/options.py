"""``AnthropicMiddleware`` options: keyword arguments, else ``TOOLCALL_ANTHROPIC_*`` variables.

The environment matters where the middleware is built with the app alone (``toolcall serve``,
an ASGI server's ``--middleware`` flag). A bad value fails at construction with a message naming
the variable, not on the first request.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..config import ConfigError, _parse_mapping
from .request import RequestOptions, ThinkingHistory

ENV_PREFIX = "TOOLCALL_ANTHROPIC_"
DEFAULT_PING_INTERVAL = 10.0  # seconds of upstream silence before a ping
DEFAULT_MAX_BODY = 32 * 1024 * 1024  # Anthropic's own request limit for Messages
#: Chat request fields ``upstream_fields`` may not set: the translation back depends on them.
#: ``messages`` and ``tools`` carry the conversation and the tools the client can run;
#: ``stream``, ``stream_options`` and ``n`` decide how the answer comes back (one choice,
#: streamed or not, with usage). Any other field is the upstream's business.
RESERVED_UPSTREAM_FIELDS = frozenset({"messages", "tools", "stream", "stream_options", "n"})


@dataclass(frozen=True, slots=True)
class AnthropicOptions:
    model_map: Mapping[str, str] = field(default_factory=dict)
    ping_interval: float | None = DEFAULT_PING_INTERVAL  # None or 0: no pings
    thinking_history: ThinkingHistory = "reasoning_content"
    messages_path: str = "/v1/messages"
    upstream_path: str = "/v1/chat/completions"
    max_body_bytes: int = DEFAULT_MAX_BODY
    #: Send each call's arguments whole and valid at the end of the call (see StreamTranslator).
    buffer_tool_input: bool = False
    #: Set on every upstream chat request, over the translated values (see RequestOptions).
    upstream_fields: Mapping[str, Any] = field(default_factory=dict)

    @property
    def request(self) -> RequestOptions:
        return RequestOptions(self.model_map, self.thinking_history, self.upstream_fields)

    @classmethod
    def build(
        cls,
        environ: Mapping[str, str] | None = None,
        file: Mapping[str, Any] | None = None,
        **overrides: Any,
    ) -> AnthropicOptions:
        """Options from ``overrides`` (not None), then the environment, then ``file`` (the
        ``[anthropic]`` table of ``toolcall serve``'s config file), then the defaults."""
        env = os.environ if environ is None else environ
        unknown = sorted(set(file or {}) - set(_PARSERS))
        if unknown:
            raise ConfigError(f"unknown [anthropic] option(s): {', '.join(unknown)}")
        values: dict[str, Any] = dict(file or {})
        for name, parse in _PARSERS.items():
            raw = env.get(ENV_PREFIX + name.upper())
            if raw is not None and raw.strip():
                try:
                    values[name] = parse(raw.strip())
                except ConfigError:
                    raise
                except ValueError as exc:
                    raise ConfigError(f"{ENV_PREFIX}{name.upper()}: {exc}") from None
        unknown = sorted(set(overrides) - set(_PARSERS))
        if unknown:
            raise TypeError(f"unknown AnthropicMiddleware option(s): {', '.join(unknown)}")
        values.update({k: v for k, v in overrides.items() if v is not None})
        if isinstance(values.get("ping_interval"), int):
            values["ping_interval"] = float(values["ping_interval"])
        options = cls(**values)
        options._check()
        return options

    def _check(self) -> None:
        if not isinstance(self.model_map, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in self.model_map.items()
        ):
            raise ConfigError("model_map must map model names to model names (strings)")
        if self.thinking_history not in ("reasoning_content", "drop"):
            raise ConfigError("thinking_history must be 'reasoning_content' or 'drop'")
        interval = self.ping_interval
        if interval is not None and (not isinstance(interval, float) or interval < 0):
            raise ConfigError("ping_interval must be a number >= 0 (0 disables pings)")
        for name in ("messages_path", "upstream_path"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.startswith("/"):
                raise ConfigError(f"{name} must be a path starting with '/'")
        size = self.max_body_bytes
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ConfigError("max_body_bytes must be a positive integer")
        if not isinstance(self.buffer_tool_input, bool):
            raise ConfigError("buffer_tool_input must be true or false")
        problem = _upstream_fields_problem(self.upstream_fields)
        if problem:
            raise ConfigError(f"upstream_fields {problem}")


def _model_map(raw: str) -> dict[str, str]:
    """A JSON object, or ``name=model`` pairs separated by commas (as TOOLCALL_* maps)."""
    return _parse_mapping(ENV_PREFIX + "MODEL_MAP", raw)


def _float(raw: str) -> float:
    return float(raw)


def _bool(raw: str) -> bool:
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected true or false, not {raw!r}")


def _thinking(raw: str) -> str:
    if raw not in ("reasoning_content", "drop"):
        raise ValueError("expected 'reasoning_content' or 'drop'")
    return raw


def _upstream_fields(raw: str) -> dict[str, Any]:
    var = ENV_PREFIX + "UPSTREAM_FIELDS"
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ConfigError(f"{var} is not valid JSON: {exc}") from None
    problem = _upstream_fields_problem(value)
    if problem:
        raise ConfigError(f"{var} {problem}")
    return dict(value)


def _upstream_fields_problem(value: Any) -> str | None:
    """What is wrong with an ``upstream_fields`` value, or None."""
    if not isinstance(value, Mapping):
        return 'must be an object of request fields, like {"skip_special_tokens": false}'
    reserved = sorted(RESERVED_UPSTREAM_FIELDS.intersection(value))
    if reserved:
        names = ", ".join(reserved)
        return f"cannot set {names} (fields the Anthropic front builds from each request)"
    try:
        orjson.dumps(dict(value))
    except orjson.JSONEncodeError as exc:
        return f"must hold JSON values under string keys: {exc}"
    return None


_PARSERS: dict[str, Any] = {
    "model_map": _model_map,
    "ping_interval": _float,
    "thinking_history": _thinking,
    "messages_path": str,
    "upstream_path": str,
    "max_body_bytes": int,
    "buffer_tool_input": _bool,
    "upstream_fields": _upstream_fields,
}
