"""``ResponsesMiddleware`` options: keyword arguments, else ``TOOLCALL_RESPONSES_*`` variables,
else the ``[responses]`` table of ``toolcall serve``'s config file (``core.options``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ...config import ConfigError
from ..core import options as core_options
from ..core.numbers import is_int
from ..core.options import FrontOptions
from ..core.responder import MAX_UPSTREAM_BYTES
from ..core.system import MID_SYSTEM, MidSystem
from .store.base import DEFAULT_MAX_BYTES, DEFAULT_STORE, DEFAULT_TTL, check_spec

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
    responses_path: str = "/v1/responses"
    upstream_path: str = "/v1/chat/completions"
    max_body_bytes: int = DEFAULT_MAX_BODY
    #: The largest upstream JSON body, SSE event or tool-call arguments held.
    max_upstream_bytes: int = MAX_UPSTREAM_BYTES
    #: Where responses are kept for ``previous_response_id``, ``item_reference`` and
    #: ``GET /v1/responses/{id}``: ``sqlite`` (a file at the default path, shared by the
    #: workers of one ``toolcall serve``), ``sqlite:PATH``, ``redis://…`` (shared by replicas;
    #: the ``redis`` extra) or ``off`` (docs/responses-store.md).
    store: str = DEFAULT_STORE
    #: Seconds a stored response is kept.
    store_ttl: float = DEFAULT_TTL
    #: The most bytes the stored responses may take; past it the oldest are evicted.
    store_max_bytes: int = DEFAULT_MAX_BYTES

    def __post_init__(self) -> None:
        interval = core_options.check_interval("keepalive_interval", self.keepalive_interval)
        object.__setattr__(self, "keepalive_interval", interval)
        if is_int(self.store_ttl):
            object.__setattr__(self, "store_ttl", float(self.store_ttl))

    def check_own(self) -> None:
        core_options.check_choice("mid_system", self.mid_system, MID_SYSTEM)
        core_options.check_choice("reasoning_as", self.reasoning_as, REASONING_AS)
        check_spec(self.store)
        ttl = self.store_ttl
        if not isinstance(ttl, float) or not 0 < ttl < float("inf"):
            raise ConfigError("store_ttl must be a positive number of seconds")
        core_options.check_positive_int("store_max_bytes", self.store_max_bytes)


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
    "store": str,
    "store_ttl": core_options.parse_float,
    "store_max_bytes": int,
}
