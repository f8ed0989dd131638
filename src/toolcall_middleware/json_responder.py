"""A JSON response: collected, its ``chat.completion`` rewritten as a whole, then sent.

The start message waits for the body, whose length changes when it is rewritten. A body past
``max_json`` bytes is not held: what came so far, then the rest, goes on as it came.
"""

from __future__ import annotations

import logging
from typing import Any

from . import lenient_json
from .asgi import Message, Send, without_header
from .metrics import Report
from .rewriters import Rewriters

logger = logging.getLogger("toolcall_middleware")


class JSONResponder:
    """One JSON body (after its ``start``), rewritten by ``rewriters`` (``None``: only kept
    for the completion hook, ``tap``)."""

    __slots__ = (
        "_completion",
        "_max",
        "_parts",
        "_report",
        "_rewriters",
        "_send",
        "_size",
        "_start",
        "_tap",
        "tool_calls",
    )

    def __init__(
        self,
        send: Send,
        start: Message,
        rewriters: Rewriters | None,
        tap: bool,
        max_json: int | None,
        report: Report,
    ) -> None:
        self._send = send
        self._start = start
        self._rewriters = rewriters
        self._tap = tap
        self._max = max_json
        self._report = report
        #: The body so far (``None``: past ``max_json``, the rest goes on as it comes).
        self._parts: list[bytes] | None = []
        self._size = 0
        self._completion: dict[str, Any] | None = None
        self.tool_calls = 0

    async def send(self, message: Message) -> None:
        parts = self._parts
        if parts is None:
            await self._send(message)
            return
        body = message.get("body", b"")
        more = message.get("more_body", False)
        parts.append(body)
        self._size += len(body)
        if self._max is not None and self._size > self._max:
            # Too large to hold for a rewrite: what came so far, then the rest, as it is.
            logger.warning("JSON response over %d bytes: passed through unrewritten", self._max)
            self._report.fallback("limit-exceeded")
            self._parts = None
            await self._send(self._start)
            await self._send(
                {"type": "http.response.body", "body": b"".join(parts), "more_body": more}
            )
            return
        if not more:
            self._parts = []
            await self._send_whole(b"".join(parts))

    async def _send_whole(self, body: bytes) -> None:
        original = body
        start = self._start
        try:
            completion: Any = lenient_json.loads(body)
        except ValueError:
            completion = None  # not JSON a client would read: it goes as it came
        else:
            try:
                if self._rewriters is not None:
                    changed, self.tool_calls = self._rewriters.completion(completion)
                else:
                    changed = False
                if changed:
                    body = lenient_json.dumps(completion)
                    headers = without_header(start.get("headers", []), b"content-length")
                    headers.append((b"content-length", str(len(body)).encode()))
                    start = {**start, "headers": headers}
                    self._report.rewritten()
            except Exception:
                logger.exception("tool-call rewrite of a JSON response failed; sending it as is")
                self._report.fallback("rewrite-error")
                body, start = original, self._start
                completion = lenient_json.loads(original)  # it decoded once: it does again
        if self._tap and isinstance(completion, dict):
            self._completion = completion
        await self._send(start)
        await self._send({"type": "http.response.body", "body": body, "more_body": False})

    def completion(self) -> dict[str, Any] | None:
        return self._completion

    def stop(self) -> None:
        pass
