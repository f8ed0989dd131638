"""``ToolCallResponder``: one response's ``send``, rewritten per what the response is.

At ``http.response.start`` it decides once: a 2xx ``text/event-stream`` with identity encoding
goes through the SSE rewriter as it streams; a 2xx ``application/json`` is collected and
rewritten as a whole; anything else passes through byte-for-byte.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from . import lenient_json
from .asgi import Message, Send
from .handoff import KEY, Handed
from .hook import CompletionTap
from .metrics import NULL_REPORT, Report
from .pause import PauseRelease, running_loop
from .rewriters import Rewriters
from .sse_rewriter import SSERewriter

logger = logging.getLogger("toolcall_middleware")


class ToolCallResponder:
    """Wraps one response's ``send``: decides per response whether and how to rewrite it.

    Without ``rewriters`` it only observes (for the completion hook, ``tap``). After a stream
    ended early (a limit), the rest of the app's body is discarded. A stream's held-back text
    is released after ``idle_release`` seconds without output (see ``pause.py``); ``stop``
    ends that watch.
    """

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
        self._want_tap = tap
        self._max_json = max_json_bytes
        self._json_report = json_report
        self._mode = "pass"
        self._stream: SSERewriter | None = None
        self._tap: CompletionTap | None = None
        self._start: Message | None = None
        self._json_parts: list[bytes] = []
        self._json_size = 0
        self._json_completion: dict[str, Any] | None = None
        self._json_calls = 0
        self._done_stream: SSERewriter | None = None  # a stream a limit ended
        self._idle_release = idle_release
        self._pause: PauseRelease | None = None  # watches the rewritten stream for pauses
        #: Set while the pause watch sends a release (``pause.Gate``): sends wait for it.
        self.releasing: asyncio.Event | None = None

    def stop(self) -> None:
        """The app is done with this response: stop watching it for pauses."""
        if self._pause is not None:
            self._pause.stop()

    def completion(self) -> dict[str, Any] | None:
        """What the client was sent, as one ``chat.completion`` (needs ``tap``)."""
        if self._tap is not None:
            return self._tap.completion()
        return self._json_completion

    @property
    def tool_calls(self) -> int:
        """Tool calls emitted so far in this response."""
        stream = self._stream or self._done_stream
        return stream.rewriter.tool_call_count if stream else self._json_calls

    async def send(self, message: Message) -> None:
        if self.releasing is not None:
            await self.releasing.wait()  # held text going out now came before this
        stream = self._stream
        if stream is not None and message["type"] == "http.response.body":  # the SSE hot path
            try:  # both keys, as servers send a body mid-stream (cheaper than two ``get``)
                body, more = message["body"], message["more_body"]
            except KeyError:
                body, more = message.get("body", b""), message.get("more_body", False)
            out = stream.feed(body)
            if more and self._tap is None and not stream.ended:  # mid-stream, as most are
                # What the stream read of it, for an in-process front (handoff.py).
                handed = stream.reading.handed
                if out is body:
                    # Nothing changed: the upstream's own message (a copy, with the reading).
                    if handed is not None:
                        message = dict(message)  # (cheaper than ``{**message, KEY: ...}``)
                        message[KEY] = handed
                    await self._send(message)
                elif (pause := self._pause) is None:
                    if out:
                        await self._send(_more(out, handed))
                else:
                    if out:
                        pause.active = pause.sending = True
                        await self._send(  # (``_more``, inline: once per rewritten event)
                            {"type": "http.response.body", "body": out, "more_body": True}
                            if handed is None
                            else {
                                "type": "http.response.body",
                                "body": out,
                                "more_body": True,
                                KEY: handed,
                            }
                        )
                        pause.sending = False
                    else:
                        pause.active = True
                    if not pause.watching and stream.holding:
                        pause.watch()
                return
            if stream.ended:  # a limit: the response ends here, the rest is discarded
                more = False
                self._stream, self._done_stream = None, stream
                self._mode = "ended"
            elif not more:
                out += stream.close()
            if self._tap is not None:
                self._tap.feed(out)
            pause = self._pause
            if pause is not None:
                pause.active = pause.sending = True
                if not more:
                    pause.stop()
            if out is body and not stream.ended:
                await self._send(message)  # nothing changed: the upstream's own message
            elif out or not more:
                await self._send({"type": "http.response.body", "body": out, "more_body": more})
            if pause is not None:
                pause.sending = False
                if more and not pause.watching and stream.holding:
                    pause.watch()
            return
        kind = message["type"]
        if kind == "http.response.start":
            await self._on_start(message)
        elif kind == "http.response.body" and self._mode != "pass":
            await self._on_body(message)
        else:
            await self._send(message)

    async def _on_start(self, message: Message) -> None:
        status = message.get("status", 200)
        headers = message.get("headers", [])
        content_type, encoding = b"", b"identity"
        for name, value in headers:
            lname = name.lower()
            if lname == b"content-type":
                content_type = value.split(b";", 1)[0].strip().lower()
            elif lname == b"content-encoding":
                encoding = value.strip().lower()
        if not 200 <= status < 300 or encoding != b"identity":
            self._mode = "pass"
        elif content_type == b"text/event-stream":
            self._mode = "sse"
            if self._want_tap:
                self._tap = CompletionTap()
            if self._rewriters is not None:
                self._stream = self._rewriters.sse()
                message = {**message, "headers": _without(headers, b"content-length")}
                loop = running_loop() if self._idle_release > 0 else None
                if loop is not None:
                    self._pause = PauseRelease(
                        self._stream, self._send, self._idle_release, loop, self._tap, self
                    )
        elif content_type == b"application/json":
            self._mode = "json"
            self._start = message  # held until the body is complete and its length known
            return
        await self._send(message)

    async def _on_body(self, message: Message) -> None:
        """A JSON response body (collected, rewritten as a whole at its end), or an SSE body
        only observed for the completion hook."""
        body = message.get("body", b"")
        more = message.get("more_body", False)
        if self._mode == "ended":
            return
        if self._mode != "json":
            if self._tap is not None:
                self._tap.feed(body)
            await self._send(message)
            return
        self._json_parts.append(body)
        self._json_size += len(body)
        if self._max_json is not None and self._json_size > self._max_json:
            # Too large to hold for a rewrite: what came so far, then the rest, as it is.
            logger.warning(
                "JSON response over %d bytes: passed through unrewritten", self._max_json
            )
            self._json_report.fallback("limit-exceeded")
            assert self._start is not None
            self._mode = "pass"
            parts, self._json_parts = self._json_parts, []
            await self._send(self._start)
            await self._send(
                {"type": "http.response.body", "body": b"".join(parts), "more_body": more}
            )
            return
        if not more:
            await self._send_json()

    async def _send_json(self) -> None:
        assert self._start is not None
        original = body = b"".join(self._json_parts)
        self._json_parts = []
        start = self._start
        try:
            completion: Any = lenient_json.loads(body)
        except ValueError:
            completion = None  # not JSON a client would read: it goes as it came
        else:
            try:
                if self._rewriters is not None:
                    changed, self._json_calls = self._rewriters.completion(completion)
                else:
                    changed = False
                if changed:
                    body = lenient_json.dumps(completion)
                    headers = _without(start.get("headers", []), b"content-length")
                    headers.append((b"content-length", str(len(body)).encode()))
                    start = {**start, "headers": headers}
                    self._json_report.rewritten()
            except Exception:
                logger.exception("tool-call rewrite of a JSON response failed; sending it as is")
                self._json_report.fallback("rewrite-error")
                body, start = original, self._start
                completion = lenient_json.loads(original)  # it decoded once: it does again
        if self._want_tap and isinstance(completion, dict):
            self._json_completion = completion
        await self._send(start)
        await self._send({"type": "http.response.body", "body": body, "more_body": False})


def _without(headers: Any, name: bytes) -> list[tuple[bytes, bytes]]:
    return [(k, v) for k, v in headers if k.lower() != name]


def _more(body: bytes, handed: Handed | None) -> Message:
    """A body message that is not the last, with what the stream read of it, if anything."""
    message = {"type": "http.response.body", "body": body, "more_body": True}
    if handed is not None:
        message[KEY] = handed
    return message
