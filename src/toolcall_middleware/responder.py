"""One response's ``send``: decided once, at its start, then handed to the responder for it.

``ToolCallResponder`` reads ``http.response.start``: a 2xx ``text/event-stream`` with identity
encoding goes to an ``SSEResponder`` (rewritten event by event as it streams,
``sse_responder.py``), a 2xx ``application/json`` to a ``JSONResponder`` (collected and
rewritten as a whole, ``json_responder.py``); anything else passes through byte-for-byte.
Without rewriters a stream is only observed, for the completion hook (``TapResponder``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from .asgi import Message, Send, without_header
from .hook import CompletionTap
from .json_responder import JSONResponder
from .metrics import NULL_REPORT, Report
from .rewriters import Rewriters
from .sse_responder import SSEResponder, TapResponder


class BodyResponder(Protocol):
    """Where the body messages of a response go once its start decided what it is."""

    def send(self, message: Message) -> Awaitable[None]: ...

    def completion(self) -> dict[str, Any] | None:
        """What the client was sent, as one ``chat.completion`` (with a tap)."""

    @property
    def tool_calls(self) -> int:
        """Tool calls emitted so far."""

    def stop(self) -> None:
        """The app is done with the response."""


class ToolCallResponder:
    """Wraps one response's ``send``; its start picks the responder for its body.

    Without ``rewriters`` it only observes (for the completion hook, ``tap``). A stream's
    held-back text is released after ``idle_release`` seconds without output (see
    ``pause.py``); ``stop`` ends that watch.
    """

    __slots__ = (
        "_body",
        "_body_send",
        "_idle_release",
        "_json_report",
        "_max_json",
        "_rewriters",
        "_send",
        "_tap",
    )

    def __init__(
        self,
        send: Send,
        rewriters: Rewriters | None,
        *,
        tap: bool = False,
        max_json_bytes: int | None = None,
        json_report: Report = NULL_REPORT,
        idle_release: float = 0.0,
    ) -> None:
        self._send = send
        self._rewriters = rewriters
        self._tap = tap
        self._max_json = max_json_bytes
        self._json_report = json_report
        self._idle_release = idle_release
        self._body: BodyResponder | None = None
        self._body_send: Callable[[Message], Awaitable[None]] | None = None  # (its ``send``)

    def send(self, message: Message) -> Awaitable[None]:
        # Not a coroutine itself: it gives the awaitable of whoever handles the message, so a
        # body message costs one coroutine, the body responder's.
        body_send = self._body_send
        if body_send is not None and message["type"] == "http.response.body":
            return body_send(message)
        if message["type"] == "http.response.start":
            return self._start(message)
        return self._send(message)

    def stop(self) -> None:
        """The app is done with this response: stop watching it for pauses."""
        if self._body is not None:
            self._body.stop()

    def completion(self) -> dict[str, Any] | None:
        """What the client was sent, as one ``chat.completion`` (needs ``tap``)."""
        return None if self._body is None else self._body.completion()

    @property
    def tool_calls(self) -> int:
        """Tool calls emitted so far in this response."""
        return 0 if self._body is None else self._body.tool_calls

    async def _start(self, message: Message) -> None:
        status = message.get("status", 200)
        headers = message.get("headers", [])
        content_type, encoding = b"", b"identity"
        for name, value in headers:
            lname = name.lower()
            if lname == b"content-type":
                content_type = value.split(b";", 1)[0].strip().lower()
            elif lname == b"content-encoding":
                encoding = value.strip().lower()
        if 200 <= status < 300 and encoding == b"identity":
            if content_type == b"application/json":
                self._use(
                    JSONResponder(
                        self._send,
                        message,
                        self._rewriters,
                        self._tap,
                        self._max_json,
                        self._json_report,
                    )
                )
                return  # the start is held until the body is complete and its length known
            if content_type == b"text/event-stream":
                tap = CompletionTap() if self._tap else None
                if self._rewriters is not None:
                    message = {**message, "headers": without_header(headers, b"content-length")}
                    self._use(
                        SSEResponder(self._send, self._rewriters.sse(), tap, self._idle_release)
                    )
                elif tap is not None:
                    self._use(TapResponder(self._send, tap))
        await self._send(message)

    def _use(self, body: BodyResponder) -> None:
        self._body, self._body_send = body, body.send
