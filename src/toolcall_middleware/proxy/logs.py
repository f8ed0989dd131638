"""Structured logs for ``toolcall serve``: one JSON object per line.

Our loggers pass their fields as ``extra={"fields": {...}}``; the formatter puts them after the
timestamp, level and logger name. Anything else (a traceback from the middleware, say) is kept as
``message``/``exc_info`` in the same JSON shape, so a log shipper sees one format.
"""

from __future__ import annotations

import logging
import sys
from datetime import datetime, timezone
from typing import Any

import orjson


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update(fields)
        else:
            out["message"] = record.getMessage()
        if record.exc_info:
            out["exc_info"] = self.formatException(record.exc_info)
        return orjson.dumps(out, default=str).decode()


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to ``sys.stderr`` as it is when a record comes, not as it was at setup (a
    replaced or closed stream, as under a test runner, must not break logging later)."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)

    @property
    def stream(self) -> Any:
        return sys.stderr


def configure_logging(level: str) -> None:
    """JSON lines on stderr for the ``toolcall_middleware`` loggers and uvicorn's own (its
    startup and shutdown lines; ``toolcall serve`` runs it without a log config of its own)."""
    handler = StderrHandler()
    handler.setFormatter(JsonFormatter())
    for name in ("toolcall_middleware", "uvicorn"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
