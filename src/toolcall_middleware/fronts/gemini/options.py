"""``GeminiMiddleware`` options: keyword arguments, else ``TOOLCALL_GEMINI_*`` variables, else
the ``[gemini]`` table of ``toolcall serve``'s config file (``core.options.build_options``).

A bad value fails at construction with a message naming the variable or option, not on the
first request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ...config import ConfigError, parse_json_option
from ...upstream_fields import by_model_problem
from ..core import options as core_options
from ..core.numbers import is_int
from ..core.options import FrontOptions
from ..core.responder import MAX_UPSTREAM_BYTES
from .request import RequestOptions

FRONT = "gemini"
ENV_PREFIX = core_options.env_prefix(FRONT)
#: The Gemini API's own limit for a request with inline data.
DEFAULT_MAX_BODY = 20 * 1024 * 1024

__all__ = ["ENV_PREFIX", "GeminiOptions"]


@dataclass(frozen=True, slots=True)
class GeminiOptions(FrontOptions):
    FRONT: ClassVar[str] = FRONT

    #: Gemini model name or ``fnmatch`` pattern (``gemini-*``) -> upstream model. gemini-cli
    #: sends its side requests (routing, summaries, loop detection) to fixed Gemini model ids.
    model_map: Mapping[str, str] = field(default_factory=dict)
    #: Upstream model for names ``model_map`` does not match (None: they pass as they are).
    default_model: str | None = None
    #: Set on every upstream chat request, over the translated values (``core.options``).
    upstream_fields: Mapping[str, Any] = field(default_factory=dict)
    #: Upstream model pattern -> request fields that turn its thinking off, for requests with
    #: ``thinkingBudget: 0``.
    thinking_off: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: Carry the reasoning before a turn's calls in the first call's ``thoughtSignature``, and
    #: send it back upstream as ``reasoning_content`` when the client returns the call.
    thought_signatures: bool = True
    #: Multiplies the reported ``promptTokenCount`` and ``countTokens`` (1: off).
    context_scale: float = 1.0
    #: The upstream's API key, sent as ``Authorization: Bearer`` in place of the client's key.
    api_key: str | None = field(default=None, repr=False)
    upstream_path: str = "/v1/chat/completions"
    max_body_bytes: int = DEFAULT_MAX_BODY
    #: The largest upstream SSE event or JSON body, and one call's arguments, held.
    max_upstream_bytes: int = MAX_UPSTREAM_BYTES

    @property
    def request(self) -> RequestOptions:
        return RequestOptions(
            self.model_map,
            self.default_model,
            self.upstream_fields,
            self.thinking_off,
            self.thought_signatures,
        )

    def __post_init__(self) -> None:
        if is_int(self.context_scale):
            object.__setattr__(self, "context_scale", float(self.context_scale))

    def check_own(self) -> None:
        problem = thinking_off_problem(self.thinking_off)
        if problem:
            raise ConfigError(f"thinking_off {problem}")
        core_options.check_bool("thought_signatures", self.thought_signatures)
        if not isinstance(self.context_scale, float) or not 0 < self.context_scale <= 1000:
            raise ConfigError("context_scale must be a number above 0 (1: counts as they are)")
        if self.api_key is not None and not isinstance(self.api_key, str):
            raise ConfigError("api_key must be a string")


def thinking_off_problem(value: Any) -> str | None:
    return by_model_problem(
        value,
        core_options.RESERVED_UPSTREAM_FIELDS,
        "fields the Gemini front builds",
        '{"Qwen/Qwen3-*": {"chat_template_kwargs": {"enable_thinking": false}}}',
    )


def _parse_thinking_off(raw: str) -> dict[str, Any]:
    return dict(parse_json_option(ENV_PREFIX + "THINKING_OFF", raw, thinking_off_problem))


GeminiOptions.PARSERS = {
    "model_map": core_options.model_map_parser(FRONT),
    "default_model": str,
    "upstream_fields": core_options.upstream_fields_parser(FRONT),
    "thinking_off": _parse_thinking_off,
    "thought_signatures": core_options.parse_bool,
    "context_scale": core_options.parse_float,
    "api_key": str,
    "upstream_path": str,
    "max_body_bytes": int,
    "max_upstream_bytes": int,
}
