"""``AnthropicMiddleware`` options: keyword arguments, else ``TOOLCALL_ANTHROPIC_*`` variables.

The environment matters where the middleware is built with the app alone (``toolcall serve``,
an ASGI server's ``--middleware`` flag). A bad value fails at construction with a message naming
the variable, not on the first request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ...config import ConfigError
from ..core import options as core_options
from ..core.options import RESERVED_UPSTREAM_FIELDS, FrontOptions
from ..core.responder import MAX_UPSTREAM_BYTES
from ..core.system import MID_SYSTEM, MidSystem
from .request import RequestOptions, ThinkingHistory

FRONT = "anthropic"
ENV_PREFIX = core_options.env_prefix(FRONT)
DEFAULT_PING_INTERVAL = 10.0  # seconds of upstream silence before a ping
DEFAULT_MAX_BODY = 32 * 1024 * 1024  # Anthropic's own request limit for Messages

__all__ = ["ENV_PREFIX", "RESERVED_UPSTREAM_FIELDS", "AnthropicOptions"]


@dataclass(frozen=True, slots=True)
class AnthropicOptions(FrontOptions):
    FRONT: ClassVar[str] = FRONT
    PATH_OPTIONS: ClassVar[tuple[str, ...]] = ("messages_path",)

    model_map: Mapping[str, str] = field(default_factory=dict)
    #: Upstream model for names ``model_map`` does not match (None: they pass as they are).
    default_model: str | None = None
    #: Seconds without output before a ``ping`` event (None or 0: no pings).
    ping_interval: float | None = DEFAULT_PING_INTERVAL
    #: What thinking blocks sent back become upstream: ``reasoning_content``, or dropped.
    thinking_history: ThinkingHistory = "reasoning_content"
    #: Where the Messages API is served (``count_tokens`` beside it).
    messages_path: str = "/v1/messages"
    upstream_path: str = "/v1/chat/completions"
    max_body_bytes: int = DEFAULT_MAX_BODY
    #: The largest upstream SSE event or JSON body, and one call's arguments, held.
    max_upstream_bytes: int = MAX_UPSTREAM_BYTES
    #: Send each call's arguments whole and valid at the end of the call (see StreamTranslator)
    #: rather than as they stream. ``"auto"``: stream them to clients known to take tool input
    #: that does not parse (Claude Code), buffer them for every other client (the Anthropic
    #: SDKs' stream helpers fail the whole response on it). See ``buffers_tool_input``.
    buffer_tool_input: bool | Literal["auto"] = "auto"
    #: Set on every upstream chat request, over the translated values (see RequestOptions).
    upstream_fields: Mapping[str, Any] = field(default_factory=dict)
    #: System messages after the first user message: merged into the leading one, or sent as
    #: user messages (``core.system``).
    mid_system: MidSystem = "merge"

    @property
    def request(self) -> RequestOptions:
        return RequestOptions(
            self.model_map,
            self.thinking_history,
            self.upstream_fields,
            self.default_model,
            self.mid_system,
        )

    def buffers_tool_input(self, user_agent: bytes) -> bool:
        """Whether this request's tool input is sent whole (``buffer_tool_input``).

        Claude Code (``User-Agent: claude-cli/...``) answers input that does not parse with a
        tool error the model can act on, and shows input as it streams; an Anthropic SDK's
        ``messages.stream()`` raises on it and fails the whole turn.
        """
        if self.buffer_tool_input == "auto":
            return not user_agent.startswith(b"claude-cli/")
        return self.buffer_tool_input

    def __post_init__(self) -> None:
        interval = core_options.check_interval("ping_interval", self.ping_interval)
        object.__setattr__(self, "ping_interval", interval)

    def check_own(self) -> None:
        if self.thinking_history not in ("reasoning_content", "drop"):
            raise ConfigError("thinking_history must be 'reasoning_content' or 'drop'")
        if self.buffer_tool_input != "auto" and not isinstance(self.buffer_tool_input, bool):
            raise ConfigError("buffer_tool_input must be true, false or 'auto'")
        core_options.check_choice("mid_system", self.mid_system, MID_SYSTEM)


def _parse_buffer_tool_input(raw: str) -> bool | str:
    return "auto" if raw.lower() == "auto" else core_options.parse_bool(raw)


AnthropicOptions.PARSERS = {
    "model_map": core_options.model_map_parser(FRONT),
    "default_model": str,
    "ping_interval": core_options.parse_float,
    "thinking_history": core_options.choice_parser("reasoning_content", "drop"),
    "messages_path": str,
    "upstream_path": str,
    "max_body_bytes": int,
    "max_upstream_bytes": int,
    "buffer_tool_input": _parse_buffer_tool_input,
    "upstream_fields": core_options.upstream_fields_parser(FRONT),
    "mid_system": core_options.choice_parser(*MID_SYSTEM),
}
