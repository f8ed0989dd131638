"""Releasing held-back text when the upstream goes quiet.

A parser holds text that may be the start of a marker (``hello <``) until the next delta says
what it is; the events it came in are held with it. When the upstream then pauses (a model
thinking over a tool's arguments, keep-alives only), the client would see nothing for as long as
the pause lasts, and idle timeouts in between may drop the stream. After ``idle_release``
seconds without output, ``PauseRelease`` sends what the stream can release (see
``SSERewriter.release``); a keep-alive releases it at once (in ``sse_rewriter.py``).

It runs as an asyncio task beside the app, started only once something is held and cancelled
when the response ends (under another event loop there is no timer: held text waits for a
keep-alive or the next event). The app's path marks that it fed the stream (``active``) and
whether a send of its is in flight (``sending``: a release never overtakes it), and waits for a
release being sent (``releasing``), so the client gets events in order, one send at a time.
(Flags, not a count: an int past 256 is a new object on every step.)
"""

from __future__ import annotations

import asyncio
import logging

from .asgi import Send
from .hook import CompletionTap
from .sse_rewriter import SSERewriter

logger = logging.getLogger("toolcall_middleware")


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The asyncio loop this runs in; ``None`` under another event loop (no pause timer)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class PauseRelease:
    """One response's watch for pauses, over its SSE rewrite ``stream``."""

    __slots__ = (
        "_closed",
        "_interval",
        "_loop",
        "_send",
        "_stream",
        "_tap",
        "_task",
        "active",
        "releasing",
        "sending",
        "watching",
    )

    def __init__(
        self,
        stream: SSERewriter,
        send: Send,
        idle: float,
        loop: asyncio.AbstractEventLoop,
        tap: CompletionTap | None,
    ) -> None:
        self._stream = stream
        self._send = send
        # Looked at twice per idle time: a pause is seen between half of it and all of it.
        self._interval = idle / 2
        self._loop = loop
        self._tap = tap
        self._task: asyncio.Task[None] | None = None
        #: The app's path fed the stream since the watch last looked.
        self.active = False
        #: One of the app's sends is in flight: a release waits for it.
        self.sending = False
        #: Set while a release is being sent: the app's next send waits for it.
        self.releasing: asyncio.Event | None = None
        self.watching = False
        self._closed = False

    def watch(self) -> None:
        """Start watching: the stream holds events back (``SSERewriter.held``)."""
        self.watching = True
        self._task = self._loop.create_task(self._watch())

    def stop(self) -> None:
        """The response is over (or the app failed): no more releases."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _watch(self) -> None:
        stream = self._stream
        try:
            while not self._closed:
                self.active = False
                await asyncio.sleep(self._interval)
                if self._closed:
                    return
                if self.active or self.sending:
                    continue  # the stream moved, or output is being sent: no pause
                out = stream.release()
                if out:
                    await self._release(out)
                if not stream.held:
                    return  # the app's path starts a new watch when something is held again
        except Exception:  # the client is gone, most likely: the app's path will see it too
            logger.debug("releasing held text failed", exc_info=True)
        finally:
            self.watching = False

    async def _release(self, out: bytes) -> None:
        if self._tap is not None:
            self._tap.feed(out)
        done = self.releasing = asyncio.Event()
        try:
            await self._send({"type": "http.response.body", "body": out, "more_body": True})
        finally:
            self.releasing = None
            done.set()
