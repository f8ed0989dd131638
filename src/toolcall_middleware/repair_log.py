"""The ``debug`` log of each repair: the format chosen, each call found, each fallback taken.

Off (``toolcall_middleware.repair`` not enabled for ``DEBUG``), a response pays one
``isEnabledFor`` when its rewriters are made and nothing after: ``logged_report`` returns the
metrics report itself, and ``RepairLog`` is not made.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .detect import Provider
from .metrics import Report

if TYPE_CHECKING:
    from .parsers.base import ToolCallParser

logger = logging.getLogger("toolcall_middleware.repair")


def enabled() -> bool:
    return logger.isEnabledFor(logging.DEBUG)


def debug(event: str, **fields: Any) -> None:
    logger.debug(event, extra={"fields": {"event": event, **fields}})


class LoggedReport:
    """A metrics report that also logs each malformed call and fallback."""

    __slots__ = ("_inner", "_provider", "_stage")

    def __init__(self, inner: Report, provider: str, stage: str) -> None:
        self._inner, self._provider, self._stage = inner, provider, stage

    def tool_call(self, native: bool) -> None:
        self._inner.tool_call(native)

    def call_found(self, index: int, call_id: str, name: str, native: bool) -> None:
        """A call the client gets (``calls.ToolCallAssembler``; the fronts' readers of the
        repaired stream report to reports of their own, so a call is logged once)."""
        source = "native" if native else "parsed"
        debug(
            "repair_call",
            provider=self._provider,
            index=index,
            id=call_id,
            name=name,
            source=source,
        )

    def malformed(self, reason: str) -> None:
        self._inner.malformed(reason)
        debug("repair_malformed", provider=self._provider, stage=self._stage, reason=reason)

    def fallback(self, action: str) -> None:
        self._inner.fallback(action)
        debug("repair_fallback", provider=self._provider, stage=self._stage, action=action)

    def rewritten(self) -> None:
        self._inner.rewritten()


def logged_report(report: Report, provider: str, stage: str) -> Report:
    return LoggedReport(report, provider, stage) if enabled() else report


class RepairLog:
    """One response's repair, logged as it is decided and when it ends."""

    __slots__ = ("model", "parsers", "provider")

    def __init__(self, configured: str, provider: Provider, model: str) -> None:
        self.provider, self.model = provider.name, model
        self.parsers: list[ToolCallParser] = []
        debug(
            "repair_format",
            model=model,
            configured=configured,
            provider=provider.name,
            # The model name chose a family: the stream's markers may choose another format
            # of it (``provider`` is its default).
            by_family=provider.by_family,
        )

    def done(self, tool_calls: int) -> None:
        """``tool_calls``: the calls the client got. A parser that chooses a format from the
        stream (a sniffing or a family parser) says which it found."""
        found = sorted({p.detected for p in self.parsers if p.detected is not None})
        debug(
            "repair_done",
            model=self.model,
            provider=self.provider,
            detected=found or None,
            tool_calls=tool_calls,
        )
