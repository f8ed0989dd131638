"""Structured logs for ``toolcall serve``: one JSON object per line, the same keys on each.

Every line has ``ts``, ``level``, ``logger``, ``pid`` (the worker's process), ``event`` (a short
name to filter on) and ``message`` (the text), then the record's own fields; a line logged while
a request is served also has that request's ``method`` and ``path``, as the client sent them, so
a warning from deep inside an API front names the API it came through. Our loggers pass their
fields as ``extra={"fields": {...}}`` with an ``event``; a record without one (uvicorn's own
lines, a traceback from the middleware) gets an ``event`` made from its message's fixed words
(``Started server process [%d]`` is ``started_server_process``), so a log shipper sees one
format.
"""

from __future__ import annotations

import logging
import re
import sys
from contextvars import ContextVar
from datetime import datetime, timezone
from typing import Any

import orjson

#: The method and path of the request being served in this context (``ProxyFront`` sets it).
REQUEST: ContextVar[tuple[str, str] | None] = ContextVar("toolcall_request", default=None)

#: What an event name leaves out of a message: %-placeholders, and what brackets hold.
_VARIABLE = re.compile(r"%[-#0 +]*[\d*]*(?:\.[\d*]+)?[a-zA-Z%]|\[[^\]]*\]|\([^)]*\)|\S*\d\S*")
_WORD = re.compile(r"[a-z]+")


def event_name(template: str) -> str:
    """A record's event when it gives none: the first words of its message's fixed text."""
    words = _WORD.findall(_VARIABLE.sub(" ", template.lower()))
    return "_".join(words[:4]) or "log"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        fields = getattr(record, "fields", None)
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
            "pid": record.process,
            "event": event_name(str(record.msg)),
            "message": message,
        }
        if isinstance(fields, dict):
            out.update(fields)
        request = REQUEST.get()
        if request is not None:
            out.setdefault("method", request[0])
            out.setdefault("path", request[1])
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
