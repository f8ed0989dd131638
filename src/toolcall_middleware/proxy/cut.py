"""What a response has sent so far, so a drain can end it properly (sans-I/O).

``ResponseCut`` sees every ASGI message a response sends on its way to the client. An SSE body
is forwarded one whole event at a time: a partial event (a chunk that ends mid-frame) is held
until its end arrives, so a cut always falls between two events. ``ending()`` then gives the
messages that end the response in the chat API's shape, which the middleware and the API fronts
above already read as an upstream failure and render in their own API's error event:

- nothing sent yet: a ``503`` with an OpenAI error body;
- an SSE stream: ``data: {"error": ...}`` and the end of the body;
- a body that is not a stream: no proper ending exists (``None``), the connection is aborted.
"""

from __future__ import annotations

from ..asgi import Message
from .upstream import error_body

#: A partial SSE event held past this size is a stream that does not frame its events: it is
#: forwarded as it comes, and a cut closes the frame it is in before the error event.
MAX_HELD_FRAME = 1024 * 1024
#: The ends of an SSE event: a line terminator (LF, CRLF or CR) followed by an empty line.
EVENT_ENDS = (b"\n\n", b"\r\r", b"\n\r\n", b"\r\n\r\n")

SHUTDOWN_MESSAGE = (
    "the server is shutting down: the request was still open when its drain timeout ended; retry it"
)
SHUTDOWN_TYPE = "service_unavailable"
SHUTDOWN_CODE = "server_shutting_down"


def last_event_end(data: bytes) -> int:
    """The offset just past the last complete SSE event in ``data`` (0: none)."""
    end = 0
    for mark in EVENT_ENDS:
        at = data.rfind(mark)
        if at >= 0:
            end = max(end, at + len(mark))
    return end


class ResponseCut:
    __slots__ = ("complete", "framed", "held", "sse", "started")

    def __init__(self) -> None:
        self.started = False
        self.sse = False  # a text/event-stream body without a Content-Length
        self.framed = True  # every forwarded SSE byte ended at an event boundary
        self.complete = False  # the last body message went out
        self.held = bytearray()  # the start of an event not yet forwarded

    def feed(self, message: Message) -> Message | None:
        """The message to forward now for ``message`` (``None``: nothing yet)."""
        kind = message["type"]
        if kind == "http.response.body":
            if not self.sse:
                self.complete = not message.get("more_body", False)
                return message
            return self._sse_body(message)
        if kind == "http.response.start":
            self.started = True
            ctype = b""
            for name, value in message.get("headers", ()):
                name = name.lower()
                if name == b"content-length":
                    return message
                if name == b"content-type":
                    ctype = value.lower()
            self.sse = 200 <= message["status"] < 300 and ctype.startswith(b"text/event-stream")
        return message

    def _sse_body(self, message: Message) -> Message | None:
        body: bytes = message.get("body", b"")
        held = self.held
        if not message.get("more_body", False):
            self.complete = True
            if held:
                self.held = bytearray()
                return {
                    "type": "http.response.body",
                    "body": bytes(held) + body,
                    "more_body": False,
                }
            return message
        if not held and body[-2:] == b"\n\n":  # the usual chunk: whole events
            return message
        if not self.framed:
            return message
        # Only the new bytes are searched (with the end of what is held: a mark may be split
        # between reads), so an event that trickles in costs time linear in its size.
        tail = bytes(held[-3:])
        end = last_event_end(tail + body) - len(tail)
        if end <= 0:
            held += body
            if len(held) > MAX_HELD_FRAME:
                self.framed = False
                self.held = bytearray()
                return {"type": "http.response.body", "body": bytes(held), "more_body": True}
            return None
        out = bytes(held) + body[:end] if held else body[:end]
        self.held = bytearray(body[end:])
        return {"type": "http.response.body", "body": out, "more_body": True}

    def ending(self) -> list[Message] | None:
        """The messages that end the response now; ``None`` when it cannot end properly."""
        if self.complete:
            return []
        if not self.started:
            body = error_body(SHUTDOWN_MESSAGE, SHUTDOWN_TYPE, SHUTDOWN_CODE)
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(body)),
                (b"connection", b"close"),
            ]
            return [
                {"type": "http.response.start", "status": 503, "headers": headers},
                {"type": "http.response.body", "body": body, "more_body": False},
            ]
        if not self.sse:
            return None
        self.held = bytearray()  # a partial event never went out: drop it
        close = b"" if self.framed else b"\n\n"
        event = close + b"data: " + error_body(SHUTDOWN_MESSAGE, SHUTDOWN_TYPE, SHUTDOWN_CODE)
        self.complete = True
        return [{"type": "http.response.body", "body": event + b"\n\n", "more_body": False}]
