"""Front options: keyword arguments, else ``TOOLCALL_<FRONT>_*`` variables, else a config table.

Every front has an options dataclass whose fields are its option names, on ``FrontOptions``:
its ``build`` fills it by one precedence (keyword > environment > the ``[front]`` table of
``toolcall serve``'s config file > default, ``build_options``) with a parser per option for the
environment's strings, and checks the options every front has before the front's own. A bad
value fails at construction with a message naming the variable or option, not on the first
request.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, TypeVar

from ...config import ConfigError, _parse_mapping, parse_json_option
from ...upstream_fields import TRANSLATION_FIELDS, fields_problem
from .numbers import is_int
from .reader import MAX_ARGUMENTS_BYTES

T = TypeVar("T")
FrontOptionsT = TypeVar("FrontOptionsT", bound="FrontOptions")
EnvParser = Callable[[str], Any]

#: Chat request fields ``upstream_fields`` may not set: the translation back depends on them
#: (``upstream_fields.TRANSLATION_FIELDS``). Any other field is the upstream's business.
RESERVED_UPSTREAM_FIELDS = TRANSLATION_FIELDS


def build_options(
    cls: Callable[..., T],
    front: str,
    parsers: Mapping[str, EnvParser],
    environ: Mapping[str, str] | None,
    file: Mapping[str, Any] | None,
    overrides: Mapping[str, Any],
) -> T:
    """``cls(**values)`` from ``overrides`` (not None), then ``TOOLCALL_<FRONT>_<NAME>``
    variables, then ``file`` (the ``[front]`` config table), then ``cls``'s defaults."""
    env = os.environ if environ is None else environ
    prefix = env_prefix(front)
    unknown = sorted(set(file or {}) - set(parsers))
    if unknown:
        raise ConfigError(f"unknown [{front}] option(s): {', '.join(unknown)}")
    values: dict[str, Any] = dict(file or {})
    for name, parse in parsers.items():
        raw = env.get(prefix + name.upper())
        if raw is not None and raw.strip():
            try:
                values[name] = parse(raw.strip())
            except ConfigError:
                raise
            except ValueError as exc:
                raise ConfigError(f"{prefix}{name.upper()}: {exc}") from None
    unknown = sorted(set(overrides) - set(parsers))
    if unknown:
        raise TypeError(f"unknown {front} option(s): {', '.join(unknown)}")
    values.update({k: v for k, v in overrides.items() if v is not None})
    return cls(**values)


def env_prefix(front: str) -> str:
    return f"TOOLCALL_{front.upper()}_"


class FrontOptions:
    """What every front's options dataclass shares: ``build``, the checks of the options every
    front has, and the cap on one call's arguments."""

    __slots__ = ()

    #: The front's name: ``TOOLCALL_<FRONT>_*`` variables, the ``[front]`` config table.
    FRONT: ClassVar[str]
    #: A parser per option (every option has one) for the environment's strings.
    PARSERS: ClassVar[Mapping[str, EnvParser]]
    #: The options that are paths of the front's own.
    PATH_OPTIONS: ClassVar[tuple[str, ...]] = ()

    # Every front has these options.
    #: Requested model name or ``fnmatch`` pattern (``claude-*``) -> upstream model; the exact
    #: name wins over patterns, unmatched names pass as they are.
    model_map: Mapping[str, str]
    #: Upstream model for names ``model_map`` does not match (none: they pass as they are).
    default_model: str | None
    #: Fields set on every upstream chat request, after translation, so they win over
    #: translated values of the same name (``{"skip_special_tokens": false}`` for Kimi,
    #: DeepSeek and gpt-oss on vLLM); ``messages``, ``tools``, ``stream``, ``stream_options``
    #: and ``n`` are refused: the translation back depends on them.
    upstream_fields: Mapping[str, Any]
    #: The wrapped app's chat completions path.
    upstream_path: str
    #: The largest request body read; a larger one is refused in the API's error shape.
    max_body_bytes: int
    #: The largest upstream JSON body, SSE event or tool-call arguments held; past it the
    #: response ends with an error in the API's shape.
    max_upstream_bytes: int

    @classmethod
    def build(
        cls: type[FrontOptionsT],
        environ: Mapping[str, str] | None = None,
        file: Mapping[str, Any] | None = None,
        **overrides: Any,
    ) -> FrontOptionsT:
        """Options from ``overrides`` (not None), then the environment, then ``file`` (the
        front's table of ``toolcall serve``'s config file), then the defaults."""
        options = build_options(cls, cls.FRONT, cls.PARSERS, environ, file, overrides)
        options.check()
        return options

    @property
    def max_arguments_bytes(self) -> int:
        """The most one call's arguments (and the text held for calls waiting) may hold."""
        return min(self.max_upstream_bytes, MAX_ARGUMENTS_BYTES)

    def check(self) -> None:
        """Raise ``ConfigError`` naming the first bad option."""
        check_model_map(self.model_map, self.default_model)
        check_upstream_fields(self.upstream_fields, self.FRONT)
        for name in (*self.PATH_OPTIONS, "upstream_path"):
            check_path(name, getattr(self, name))
        for name in ("max_body_bytes", "max_upstream_bytes"):
            check_positive_int(name, getattr(self, name))
        self.check_own()

    def check_own(self) -> None:
        """The front's own options (``check`` has checked the shared ones)."""


# --- environment parsers ----------------------------------------------------------------------


def parse_bool(raw: str) -> bool:
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected true or false, not {raw!r}")


def parse_float(raw: str) -> float:
    return float(raw)


def model_map_parser(front: str) -> EnvParser:
    """A JSON object, or ``name=model`` pairs separated by commas (as other TOOLCALL_* maps)."""
    var = env_prefix(front) + "MODEL_MAP"
    return lambda raw: _parse_mapping(var, raw)


def upstream_fields_parser(front: str) -> EnvParser:
    var = env_prefix(front) + "UPSTREAM_FIELDS"
    return lambda raw: dict(
        parse_json_option(var, raw, lambda value: upstream_fields_problem(value, front))
    )


def choice_parser(*allowed: str) -> EnvParser:
    def parse(raw: str) -> str:
        if raw not in allowed:
            raise ValueError("expected " + " or ".join(repr(a) for a in allowed))
        return raw

    return parse


# --- checks shared by the fronts' options ---------------------------------------------------


def upstream_fields_problem(value: Any, front: str) -> str | None:
    """What is wrong with an ``upstream_fields`` value, or None."""
    why = f"fields the {front.capitalize()} front builds from each request"
    return fields_problem(value, RESERVED_UPSTREAM_FIELDS, why)


def check_model_map(model_map: Any, default_model: Any = None) -> None:
    if not isinstance(model_map, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in model_map.items()
    ):
        raise ConfigError("model_map must map model names to model names (strings)")
    if default_model is not None and not isinstance(default_model, str):
        raise ConfigError("default_model must be a model name (a string)")


def check_path(name: str, value: Any) -> None:
    if not isinstance(value, str) or not value.startswith("/"):
        raise ConfigError(f"{name} must be a path starting with '/'")


def check_positive_int(name: str, value: Any) -> None:
    if not is_int(value) or value < 1:
        raise ConfigError(f"{name} must be a positive integer")


def check_choice(name: str, value: Any, allowed: Iterable[str]) -> None:
    allowed = tuple(allowed)
    if value not in allowed:
        raise ConfigError(f"{name} must be one of: {', '.join(allowed)}")


def check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false")


def check_interval(name: str, value: Any) -> float | None:
    """A number of seconds >= 0 (0 or None: off), as a float."""
    if is_int(value):
        value = float(value)
    if value is not None and (not isinstance(value, float) or value < 0):
        raise ConfigError(f"{name} must be a number >= 0 (0 disables it)")
    return value


def check_upstream_fields(value: Any, front: str) -> None:
    problem = upstream_fields_problem(value, front)
    if problem:
        raise ConfigError(f"upstream_fields {problem}")
