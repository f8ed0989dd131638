"""``ResponsesMiddleware`` options: keyword arguments, else ``TOOLCALL_RESPONSES_*`` variables,
else the ``[responses]`` table of ``toolcall serve``'s config file (``core.options``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ..core import options as core_options
from ..core.options import FrontOptions
from ..core.responder import MAX_UPSTREAM_BYTES
from ..core.system import MID_SYSTEM, MidSystem

FRONT = "responses"
ENV_PREFIX = core_options.env_prefix(FRONT)
DEFAULT_MAX_BODY = 32 * 1024 * 1024
DEFAULT_KEEPALIVE = 15.0
ReasoningAs = Literal["content", "summary"]
REASONING_AS: tuple[ReasoningAs, ...] = ("content", "summary")


@dataclass(frozen=True, slots=True)
class ResponsesOptions(FrontOptions):
    FRONT: ClassVar[str] = FRONT
    PATH_OPTIONS: ClassVar[tuple[str, ...]] = ("responses_path",)

    #: Requested model name or ``fnmatch`` pattern -> upstream model.
    model_map: Mapping[str, str] = field(default_factory=dict)
    #: Upstream model for names ``model_map`` does not match (None: they pass as they are).
    default_model: str | None = None
    #: Set on every upstream chat request, over the translated values.
    upstream_fields: Mapping[str, Any] = field(default_factory=dict)
    #: System/developer text after the first user message: merged into the leading system
    #: message, or sent as user messages starting with ``[developer]``.
    mid_system: MidSystem = "merge"
    #: Reasoning as ``reasoning_text`` content (what vLLM sends) or as a summary (what Codex
    #: shows without ``show_raw_agent_reasoning``).
    reasoning_as: ReasoningAs = "content"
    #: Seconds without output before an SSE comment keeps the stream open (0: none).
    keepalive_interval: float | None = DEFAULT_KEEPALIVE
    #: Where the Responses API is served.
    responses_path: str = "/v1/responses"
    upstream_path: str = "/v1/chat/completions"
    max_body_bytes: int = DEFAULT_MAX_BODY
    #: The largest upstream JSON body, SSE event or tool-call arguments held.
    max_upstream_bytes: int = MAX_UPSTREAM_BYTES

    def __post_init__(self) -> None:
        interval = core_options.check_interval("keepalive_interval", self.keepalive_interval)
        object.__setattr__(self, "keepalive_interval", interval)

    def check_own(self) -> None:
        core_options.check_choice("mid_system", self.mid_system, MID_SYSTEM)
        core_options.check_choice("reasoning_as", self.reasoning_as, REASONING_AS)


ResponsesOptions.PARSERS = {
    "model_map": core_options.model_map_parser(FRONT),
    "default_model": str,
    "upstream_fields": core_options.upstream_fields_parser(FRONT),
    "mid_system": core_options.choice_parser(*MID_SYSTEM),
    "reasoning_as": core_options.choice_parser(*REASONING_AS),
    "keepalive_interval": core_options.parse_float,
    "responses_path": str,
    "upstream_path": str,
    "max_body_bytes": int,
    "max_upstream_bytes": int,
}
