"""How one response to a chat request is rewritten, as the middleware decided from its request.

``Rewriters`` holds what the options, the provider and the request settle (the parser to
make, the reasoning split, the caps, the metrics and debug capture of this response) and makes
the rewriter a response needs: an ``SSERewriter`` for a stream, or the in-place rewrite of a
non-streamed ``chat.completion``. The responder asks it once it knows which.
"""

from __future__ import annotations

from typing import Any

from . import repair_log
from .chunk_rewriter import ChunkRewriter
from .config import Options
from .debug import DebugCapture
from .detect import Provider
from .message_rewriter import rewrite_completion
from .metrics import NULL_REPORT, Metrics, Report
from .parsers import (
    ParserContext,
    ToolCallParser,
    create_parser,
    parser_triggers,
)
from .parsers.family import family_of
from .parsers.sniff import family_parser
from .parsers.unknown_tools import apply_unknown_tools
from .repair_log import RepairLog
from .request import RequestFacts
from .sse_rewriter import SSERewriter
from .think import template_opens_think, think_config


class Rewriters:
    """The rewriters of one response from ``provider`` to ``request``."""

    def __init__(
        self,
        options: Options,
        provider: Provider,
        request: RequestFacts,
        *,
        metrics: Metrics | None = None,
        debug: DebugCapture | None = None,
        hand: bool = False,
    ) -> None:
        """``hand``: an API front in this process takes what the stream reads of its events
        (``handoff.py``)."""
        self._hand = hand
        self._options = options
        self._detected = provider
        self._provider = provider.name
        self._by_family = provider.by_family
        self._request = request
        self._debug = debug
        off, asked = request.thinking_off, request.thinking_asked
        self._think = think_config(options.think_tags, request.model, off, asked)
        opened = template_opens_think(request.model, off, asked)
        self._context = request.parser_context(options.unknown_tools, opened)
        self.stream_report = _report(metrics, provider.name, "stream")
        #: What happens to a JSON body, rewritten or not, is counted here.
        self.json_report = _report(metrics, provider.name, "json")
        #: The ``debug`` log of this repair, when that level is on (``repair_log``).
        self.log = (
            RepairLog(options.provider, provider, request.model) if repair_log.enabled() else None
        )

    def sse(self) -> SSERewriter:
        """The rewriter of a streamed response."""
        options = self._options
        if self._by_family:
            triggers: str | None = family_of(self._provider).triggers
        else:
            triggers = parser_triggers(self._provider)
        if self._think is not None and triggers is not None and "<" not in triggers:
            triggers += "<"  # a <think> tag is markup too
        rewriter = ChunkRewriter(
            self.new_parser,
            mode=options.mode,
            max_held_bytes=options.max_held_bytes,
            max_buffered_bytes=options.max_buffered_bytes,
            report=self.stream_report,
            tools=self._request.tools,
            think=self._think,
        )
        return SSERewriter(
            rewriter,
            triggers,
            max_event_bytes=options.max_buffered_bytes,
            report=self.stream_report,
            capture=None if self._debug is None else self._stream_seen,
            hand=self._hand,
        )

    def completion(self, completion: Any) -> tuple[bool, int]:
        """Rewrite a non-streamed ``chat.completion`` in place: whether anything changed, and
        the number of calls it has."""
        return rewrite_completion(
            completion,
            self.new_parser,
            buffered=self._options.mode == "buffered",
            report=self.json_report,
            tools=self._request.tools,
            think=self._think,
            capture=None if self._debug is None else self._message_seen,
        )

    def new_parser(self) -> ToolCallParser:
        """A parser for one choice."""
        parser = self._new_parser(self._detected, self._context)
        if self.log is not None:
            self.log.parsers.append(parser)
        return parser

    @staticmethod
    def _new_parser(provider: Provider, context: ParserContext) -> ToolCallParser:
        if provider.by_family:
            return apply_unknown_tools(family_parser(provider.name, context), context)
        return apply_unknown_tools(create_parser(provider.name, context), context)

    def _stream_seen(self, raw: bytes, chunks: list[Any]) -> None:
        assert self._debug is not None
        self._debug.record("stream", self._provider, self._request.model, raw, chunks)

    def _message_seen(self, raw: bytes, message: dict[str, Any]) -> None:
        assert self._debug is not None
        self._debug.record("json", self._provider, self._request.model, raw, message)


def _report(metrics: Metrics | None, provider: str, stage: str) -> Report:
    report = NULL_REPORT if metrics is None else metrics.report(provider, stage)
    return repair_log.logged_report(report, provider, stage)
