"""A streamed response's body messages: through its ``SSERewriter``, and out, one at a time.

Each body message goes to the stream (``sse_rewriter.py``) and what it gives goes out in one
body message: the upstream's own message when nothing changed, else a new one, with what the
stream read of the event for an in-process front (``handoff.py``). While the stream holds
events back, a ``PauseRelease`` (``pause.py``) may send them between two of these sends.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from .asgi import Message, Send
from .handoff import KEY
from .hook import CompletionTap
from .pause import PauseRelease, running_loop
from .sse_rewriter import SSERewriter


class SSEResponder:
    """A stream's body messages through its ``SSERewriter``, and what it gives sent on.

    After a stream ended early (a limit, an upstream error event), the rest of the app's body
    is discarded. ``tap``: what is sent is also assembled for the completion hook.
    """

    __slots__ = ("_ended", "_pause", "_send", "_stream", "_tap")

    def __init__(
        self, send: Send, stream: SSERewriter, tap: CompletionTap | None, idle_release: float
    ) -> None:
        self._send = send
        self._stream = stream
        self._tap = tap
        self._ended = False
        loop = running_loop() if idle_release > 0 else None
        self._pause = None if loop is None else PauseRelease(stream, send, idle_release, loop, tap)

    async def send(self, message: Message) -> None:
        pause = self._pause
        if pause is not None and pause.releasing is not None:
            await pause.releasing.wait()  # held text going out now came before this
        stream = self._stream
        try:  # both keys, as servers send a body mid-stream (cheaper than two ``get``)
            body, more = message["body"], message["more_body"]
        except KeyError:
            body, more = message.get("body", b""), message.get("more_body", False)
        out = stream.feed(body)  # (nothing, once the stream ended)
        if stream.ended:  # a limit or an upstream error: the response ends, the rest is dropped
            if self._ended:
                return
            self._ended = True
            more = False
        elif not more:
            out += stream.close()
        if self._tap is not None:
            self._tap.feed(out)
        # What the stream read of the body, for an in-process front (handoff.py).
        handed = stream.reading.handed
        if more and out is body:  # nothing changed and nothing is held: the upstream's message
            if handed is not None:
                message = dict(message)  # (a copy: cheaper than ``{**message, KEY: ...}``)
                message[KEY] = handed
            await self._send(message)
            return
        if out or not more:  # (else nothing to send yet)
            message = {"type": "http.response.body", "body": out, "more_body": more}
            if handed is not None and more:
                message[KEY] = handed
            if pause is None:
                await self._send(message)
                return
            pause.sending = True  # (a release waits for it)
            if not more:
                pause.stop()
            await self._send(message)
            pause.sending = False
            if not more:
                return
        elif pause is None:
            return
        pause.active = True  # the stream moved: no pause now; watch it while it holds events
        if stream.held and not pause.watching:
            pause.watch()

    def completion(self) -> dict[str, Any] | None:
        return None if self._tap is None else self._tap.completion()

    @property
    def tool_calls(self) -> int:
        return self._stream.rewriter.tool_call_count

    def stop(self) -> None:
        if self._pause is not None:
            self._pause.stop()


class TapResponder:
    """A stream sent on as it came, observed for the completion hook."""

    __slots__ = ("_send", "_tap")

    def __init__(self, send: Send, tap: CompletionTap) -> None:
        self._send = send
        self._tap = tap

    def send(self, message: Message) -> Awaitable[None]:
        self._tap.feed(message.get("body", b""))
        return self._send(message)

    def completion(self) -> dict[str, Any] | None:
        return self._tap.completion()

    @property
    def tool_calls(self) -> int:
        return 0

    def stop(self) -> None:
        pass
