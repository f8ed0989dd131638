"""Middleware options: keyword arguments, with ``TOOLCALL_*`` environment variables as defaults.

vLLM builds middleware with the app alone (``--middleware toolcall_middleware.ToolCallMiddleware``),
so every option can also come from the environment. Explicit keyword arguments win.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from .limits import MAX_BUFFERED, MAX_HELD
from .parsers.base import UnknownTools
from .upstream_fields import CHAT_PATH_FIELDS, CHAT_PATH_WHY, by_model_problem, fields_problem

DEFAULT_PATHS = ("/v1/chat/completions", "/chat/completions")
Mode = Literal["stream", "buffered"]
MODES: tuple[Mode, ...] = ("stream", "buffered")
ThinkTags = Literal["auto", "split", "keep"]
#: Other names an option's environment variable goes by (the first is the name the debug
#: capture's variable had in the proxy this package replaces).
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
    #: Rewrite responses to requests that offered no ``tools`` (off: those pass untouched,
    #: but for one that starts inside the reasoning block its template opened: that is split).
    rewrite_without_tools: bool = False
    #: Calls to tools the request did not offer: ``forward``, ``drop`` or ``text``.
    unknown_tools: UnknownTools = "forward"
    #: ``stream``: tool-call arguments flow as they arrive. ``buffered``: each call leaves
    #: whole when its choice ends, arguments checked as JSON (invalid ones wrapped as
    #: ``{"input": ...}``, nameless calls dropped). Text streams immediately either way.
    mode: Mode = "stream"
    #: Unresolved markup a parser may hold back per choice (a marker prefix, a call header);
    #: past it the stream ends with an error event.
    max_held_bytes: int = MAX_HELD
    #: Tool-call arguments held per stream (buffered mode, or a call a parser must see whole
    #: to name), and the largest single SSE event or JSON body rewritten.
    max_buffered_bytes: int = MAX_BUFFERED
    #: The largest chat request body read; a larger one gets a 413 and never reaches the app.
    max_body_bytes: int = 32 * 1024 * 1024
    #: Count calls, malformed calls and fallbacks in Prometheus (needs the ``metrics`` extra).
    metrics: bool = True
    #: ``X-Admin-Key`` for ``GET debug_path``; empty (the default) disables debug capture.
    admin_key: str = field(default="", repr=False)
    #: Recent tool-call chunks the debug capture keeps (env also ``TOOL_CALL_DEBUG_MAX``).
    debug_max: int = 200
    #: Where the middleware answers the debug endpoint when ``admin_key`` is set.
    debug_path: str = "/debug/tool-calls"
    #: Seconds without output after which text held back as a possible marker start is sent
    #: (0: only when a keep-alive comes).
    idle_release: float = 0.2
    #: ``<think>`` blocks in ``content``: ``auto`` splits the one the content starts with (or
    #: starts in, for a model whose template opens it) into the reasoning fields, ``split``
    #: every one, ``keep`` none.
    think_tags: ThinkTags = "auto"
    #: Fields set on every chat request (``paths``) before it reaches the app, over the
    #: client's values (``{"skip_special_tokens": false}`` for Kimi, DeepSeek and gpt-oss on
    #: vLLM); then the ``upstream_fields_by_model`` entry of its model.
    upstream_fields: Mapping[str, Any] = field(default_factory=dict)
    #: Model name or ``fnmatch`` pattern -> fields, set over ``upstream_fields`` on that
    #: model's requests (the exact name wins, else the first pattern that matches).
    upstream_fields_by_model: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

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
        for name in ("max_held_bytes", "max_buffered_bytes", "max_body_bytes", "debug_max"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be a positive integer, not {getattr(self, name)}")
        if not self.idle_release >= 0:  # (NaN too)
            raise ConfigError(
                f"idle_release must be zero or a positive number of seconds, "
                f"not {self.idle_release}"
            )
        if not self.debug_path.startswith("/"):
            raise ConfigError(f"debug_path must start with '/': {self.debug_path!r}")
        if self.think_tags not in ("auto", "split", "keep"):
            raise ConfigError(f"think_tags must be auto, split or keep, not {self.think_tags!r}")
        for name in FIELDS_OPTIONS:
            problem = _fields_problem(name, getattr(self, name))
            if problem:
                raise ConfigError(f"{name} {problem}")

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
    if isinstance(default, float):
        try:
            return float(raw)
        except ValueError:
            raise ConfigError(f"{var} must be a number, not {raw!r}") from None
    if isinstance(default, tuple):
        return tuple(p.strip() for p in raw.split(",") if p.strip())
    if name == "provider_overrides":
        return _parse_mapping(var, raw)
    if name in FIELDS_OPTIONS:
        return parse_json_option(var, raw, lambda value: _fields_problem(name, value))
    return raw


def parse_json_option(var: str, raw: str, problem: Callable[[Any], str | None]) -> Any:
    """A variable's JSON value; ``problem`` says what is wrong with it, if anything."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ConfigError(f"{var} is not valid JSON: {exc}") from None
    wrong = problem(value)
    if wrong:
        raise ConfigError(f"{var} {wrong}")
    return value


#: Options holding request fields: a JSON object in the environment, a table in the file.
FIELDS_OPTIONS = ("upstream_fields", "upstream_fields_by_model")


def _fields_problem(name: str, value: Any) -> str | None:
    check = by_model_problem if name == "upstream_fields_by_model" else fields_problem
    return check(value, CHAT_PATH_FIELDS, CHAT_PATH_WHY)


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


# --- `toolcall serve`: proxy settings and the one precedence for every option ------------------
#
# Every option has one name, used as the TOML key, as ``TOOLCALL_<NAME>`` and (for the few that
# have one) as ``--name`` on the command line. A value comes from the first of:
#     command-line flag > TOOLCALL_* environment variable > config file (TOML) > default.
# The middleware options above and the proxy settings below share that namespace.


@dataclass(frozen=True)
class ServeSettings:
    #: Base URL of the OpenAI-compatible server to forward to (a path is a prefix); none
    #: serves the bundled replay of recorded sessions.
    upstream: str | None = None
    #: Address the proxy listens on.
    host: str = "127.0.0.1"
    #: Port the proxy listens on (0: any free port).
    port: int = 8080
    #: Seconds to connect to the upstream.
    connect_timeout: float = 5.0
    #: Longest silence between two upstream reads, time to first token included: a 504
    #: before the response starts, an error event after (a reasoning model may think for
    #: minutes before its first token).
    read_timeout: float = 600.0
    #: Seconds to send a request to the upstream.
    write_timeout: float = 60.0
    #: Seconds to wait for a free upstream connection.
    pool_timeout: float = 30.0
    #: Upstream connections: at least the number of concurrent streams you expect.
    max_connections: int = 1000
    #: Idle upstream connections kept.
    max_keepalive_connections: int = 100
    #: Seconds an idle upstream connection is kept: below the upstream's own idle timeout
    #: (uvicorn and vLLM: 5 s), or a reused connection may be closing as a request is sent.
    keepalive_expiry: float = 4.0
    #: One JSON line per request on the ``toolcall_middleware.access`` logger.
    access_log: bool = True
    #: ``debug``, ``info``, ``warning``, ``error`` or ``critical``; ``debug`` also logs each
    #: repair (the format chosen, each call found, each fallback).
    log_level: str = "info"
    #: Seconds between events of the bundled replay (no upstream): streams like a model would.
    replay_pace: float = 0.02
    #: Processes serving the port, each serving every API; with more than one, ``/metrics``
    #: sums them all.
    workers: int = 1
    #: Seconds open requests may still run after SIGTERM before they end with an error event
    #: (raise it to what your longest answers need).
    drain_timeout: float = 30.0
    #: Path ``GET /readyz`` asks the upstream (any answer below 500 means it is up).
    ready_path: str = "/health"

    def __post_init__(self) -> None:
        if self.upstream is not None:
            scheme, sep, rest = self.upstream.partition("://")
            if scheme not in ("http", "https") or not sep or not rest.strip("/"):
                raise ConfigError(
                    f"upstream must be an http:// or https:// URL, not {self.upstream!r}"
                )
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"port must be between 0 and 65535, not {self.port}")
        for name in (
            "connect_timeout",
            "read_timeout",
            "write_timeout",
            "pool_timeout",
            "keepalive_expiry",
        ):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{name} must be a positive number of seconds")
        if self.replay_pace < 0:
            raise ConfigError("replay_pace must be zero or a positive number of seconds")
        if self.workers < 1:
            raise ConfigError(f"workers must be a positive integer, not {self.workers}")
        if not 0 <= self.drain_timeout < float("inf"):  # (NaN too)
            raise ConfigError(
                f"drain_timeout must be zero or a positive number of seconds, "
                f"not {self.drain_timeout}"
            )
        if self.max_connections < 1 or self.max_keepalive_connections < 0:
            raise ConfigError("max_connections must be >= 1 and max_keepalive_connections >= 0")
        if not self.ready_path.startswith("/"):
            raise ConfigError(f"ready_path must start with '/': {self.ready_path!r}")
        if self.log_level.lower() not in ("critical", "error", "warning", "info", "debug"):
            raise ConfigError(
                f"log_level must be one of critical, error, warning, info, debug, "
                f"not {self.log_level!r}"
            )


#: Config-file tables of the API fronts ``toolcall serve`` stacks, each front's options,
#: checked when the front is built (its ``TOOLCALL_<FRONT>_*`` variables win over them).
FRONT_TABLES = ("anthropic", "responses", "gemini")


@dataclass(frozen=True)
class ServeConfig:
    settings: ServeSettings
    options: Options
    #: The file's front tables by name (``[anthropic]``, ``[responses]``); absent ones empty.
    fronts: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: The config file read, if any (logged at startup).
    path: str | None = None

    @property
    def anthropic(self) -> Mapping[str, Any]:
        return self.fronts.get("anthropic", {})

    def front(self, name: str) -> Mapping[str, Any]:
        return self.fronts.get(name, {})


def load_serve_config(
    cli: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    config_file: str | os.PathLike[str] | None = None,
) -> ServeConfig:
    """Resolve every option by the documented precedence; raise ``ConfigError`` if invalid.

    ``cli`` holds command-line values (``None`` means not given); the config file is
    ``config_file``, else ``TOOLCALL_CONFIG``, else none.
    """
    env = os.environ if env is None else env
    cli = {k: v for k, v in (cli or {}).items() if v is not None}
    path = config_file or env.get("TOOLCALL_CONFIG") or None
    from_file = _read_toml(path) if path else {}
    fronts: dict[str, Mapping[str, Any]] = {}
    for name in FRONT_TABLES:
        table = from_file.pop(name, {})
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {name} must be a table ([{name}])")
        fronts[name] = table
    fields = {f.name: f for cls in (ServeSettings, Options) for f in dataclasses.fields(cls)}
    unknown = sorted(set(from_file) - set(fields))
    if unknown:
        raise ConfigError(
            f"{path}: unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(fields))}"
        )
    # Every value in the file is checked, also one a flag or variable overrides: a typo in
    # the file should not lie in wait until the override is removed.
    from_file = {k: _check_file_value(k, v, _default_of(fields[k])) for k, v in from_file.items()}
    layers: dict[str, dict[str, Any]] = {}
    for cls in (ServeSettings, Options):
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            default = _default_of(f)
            if f.name in cli:
                values[f.name] = cli[f.name]
            elif raw := env.get("TOOLCALL_" + f.name.upper(), "").strip():
                # ``None`` defaults (upstream) are plain strings in the environment.
                values[f.name] = _parse_env(f.name, raw, "" if default is None else default)
            elif f.name in from_file:
                values[f.name] = from_file[f.name]
        layers[cls.__name__] = values
    opts = layers["Options"]
    if "paths" in opts:
        opts["paths"] = tuple(opts["paths"])
    return ServeConfig(
        ServeSettings(**layers["ServeSettings"]),
        Options(**opts),
        fronts,
        None if path is None else os.fspath(path),
    )


def _default_of(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def _read_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # the conditional ``tomli`` dependency: tomllib before it joined the stdlib
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        with open(path, "rb") as fh:
            data: dict[str, Any] = tomllib.load(fh)
            return data
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None


def _check_file_value(name: str, value: Any, default: Any) -> Any:
    """TOML values are typed already: check them against the option's default."""

    def wrong(kind: str) -> ConfigError:
        return ConfigError(f"config option {name} must be {kind}, not {value!r}")

    if name in FIELDS_OPTIONS:
        problem = _fields_problem(name, value)
        if problem:
            raise ConfigError(f"config option {name} {problem}")
    elif isinstance(default, bool):
        if not isinstance(value, bool):
            raise wrong("true or false")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise wrong("an integer")
    elif isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise wrong("a number")
        value = float(value)
    elif isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise wrong("a list of strings")
    elif isinstance(default, Mapping):
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise wrong("a table of strings")
    elif not isinstance(value, str):
        raise wrong("a string")
    return value
