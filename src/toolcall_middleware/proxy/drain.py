"""Graceful drain: after SIGTERM, open requests finish, up to a deadline, then end properly.

``Drain`` is one worker's state: ``ProxyFront`` counts the requests in flight, answers
``/healthz`` with 503 while draining (a load balancer stops sending) and closes each connection
after its response. ``DrainGuard`` wraps the innermost app (the upstream proxy or the bundled
replay), so every API's request passes through it: at the deadline it stops that app and ends
the response with ``ResponseCut`` (``cut.py``), an error in the chat API's shape that the
middleware and the fronts above turn into their own API's error event. The server
(``server.py``) begins the drain on the signal and expires it at the deadline.
"""

from __future__ import annotations

import logging
import time

import anyio

from ..asgi import ASGIApp, Message, Receive, Scope, Send
from .cut import ResponseCut

log = logging.getLogger("toolcall_middleware.serve")


class Drain:
    def __init__(self) -> None:
        self.draining = False
        self.expired = False
        self.began = 0.0
        self.deadline = 0.0
        #: HTTP requests in flight in this worker (``ProxyFront`` counts them).
        self.active = 0
        self._open: set[_Guarded] = set()

    def begin(self, timeout: float) -> None:
        if not self.draining:
            self.draining = True
            self.began = time.monotonic()
            self.deadline = self.began + timeout

    def expire(self) -> None:
        """End every request still open (each at its next event boundary)."""
        self.expired = True
        for guarded in list(self._open):
            guarded.expire()


class _Guarded:
    """One request through ``DrainGuard``."""

    __slots__ = ("cut", "downstream", "expired", "scope", "sending")

    def __init__(self, downstream: Send) -> None:
        self.downstream = downstream
        self.cut = ResponseCut()
        self.scope = anyio.CancelScope()
        self.sending = False
        self.expired = False

    def expire(self) -> None:
        self.expired = True
        if not self.sending:  # a send in progress finishes first: never cut a layer mid-write
            self.scope.cancel()

    async def send(self, message: Message) -> None:
        if self.expired and self.scope.cancel_called:
            return  # the app is being stopped: what it sends now is not the client's
        out = self.cut.feed(message)
        if out is not None:
            self.sending = True
            try:
                await self.downstream(out)
            finally:
                self.sending = False
            if self.expired:
                self.scope.cancel()


class DrainGuard:
    """Ends the responses of ``app`` still open when the drain expires (see the module doc)."""

    def __init__(self, app: ASGIApp, drain: Drain) -> None:
        self.app = app
        self.drain = drain

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        guarded = _Guarded(send)
        drain = self.drain
        drain._open.add(guarded)
        if drain.expired:
            guarded.expire()
        try:
            with guarded.scope:
                await self.app(scope, receive, guarded.send)
        except Exception:
            if not guarded.expired:
                raise  # a failure of the app's own: the layers above report it
        finally:
            drain._open.discard(guarded)
        if not guarded.expired:
            return
        started = guarded.cut.started
        ending = guarded.cut.ending()
        if ending != []:  # (an empty ending: the response had been sent whole)
            how = "aborted" if ending is None else "error_event" if started else "503"
            log.warning(
                "cut_by_drain",
                extra={"fields": {"event": "cut_by_drain", "ending": how}},
            )
        if ending is None:
            raise RuntimeError("the drain timeout ended a response that is not a stream")
        for message in ending:
            await send(message)
