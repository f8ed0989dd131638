"""Incremental Server-Sent Events decoding and encoding on bytes (WHATWG framing rules).

The decoder splits a byte stream, cut anywhere, into whole events and keeps each event's exact
bytes, so an event the rewrite leaves alone goes out byte-for-byte as it came. It accepts
``\\n``, ``\\r\\n`` and ``\\r`` line endings, multi-line ``data:``, comments, other fields and a
leading BOM. UTF-8 is never decoded here: a character split across reads is just bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

BOM = b"\xef\xbb\xbf"


class SSEEvent(NamedTuple):
    raw: bytes  # exactly as received, through the blank line that ended it
    data: bytes | None  # the data lines joined with "\n"; None when there were none
    fields: tuple[bytes, ...]  # every other line (comments, event:, id:, retry:), in order

    @property
    def event_type(self) -> bytes | None:
        for line in self.fields:
            name, _, value = line.partition(b":")
            if name == b"event":
                return value[1:] if value.startswith(b" ") else value
        return None


def parse_event(raw: bytes) -> SSEEvent:
    if _is_one_data_line(raw):
        return SSEEvent(raw, raw[6:-2], ())
    body = raw[len(BOM) :] if raw.startswith(BOM) else raw
    data: list[bytes] = []
    fields: list[bytes] = []
    for line in body.splitlines():
        if line.startswith(b"data"):
            if line[4:5] == b":":
                value = line[5:]
                data.append(value[1:] if value.startswith(b" ") else value)
                continue
            if len(line) == 4:  # a bare "data" line is an empty data value
                data.append(b"")
                continue
        if line:
            fields.append(line)
    return SSEEvent(raw, b"\n".join(data) if data else None, tuple(fields))


class SSEDecoder:
    """Bytes in, whole events out. ``newline`` is the line ending the stream itself uses."""

    def __init__(self) -> None:
        #: The start of an event not complete yet.
        self.pending = b""
        self.newline = b"\n"
        self._newline_known = False

    @property
    def buffered(self) -> int:
        return len(self.pending)

    @property
    def at_boundary(self) -> bool:
        """Nothing is buffered and the stream's line ending is known to be ``\\n``."""
        return not self.pending and self._newline_known and self.newline == b"\n"

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        if not self.pending and self._newline_known and _is_one_data_line(chunk):
            return [SSEEvent(chunk, chunk[6:-2], ())]  # one event per read, as servers send
        buf = self.pending + chunk if self.pending else chunk
        if not self._newline_known:
            self._learn_newline(buf)
        events: list[SSEEvent] = []
        start = 0
        crlf = b"\r" in buf
        while True:
            end = _event_end_cr(buf, start) if crlf else _event_end_lf(buf, start)
            if end < 0:
                break
            events.append(parse_event(buf[start:end]))
            start = end
        self.pending = buf[start:]
        return events

    def close(self) -> list[SSEEvent]:
        """End of stream: an unterminated last event is still delivered (nothing is lost)."""
        rest, self.pending = self.pending, b""
        return [parse_event(rest)] if rest else []

    def _learn_newline(self, buf: bytes) -> None:
        lf, cr = buf.find(b"\n"), buf.find(b"\r")
        if cr >= 0 and (lf < 0 or cr < lf):
            if cr + 1 == len(buf):
                return  # "\r" or "\r\n": the next byte decides
            self.newline = b"\r\n" if buf[cr + 1 : cr + 2] == b"\n" else b"\r"
        elif lf < 0:
            return
        self._newline_known = True


def _is_one_data_line(raw: bytes) -> bool:
    """``raw`` is exactly ``data: ...\\n\\n``: the shape of nearly every event."""
    return (
        raw.startswith(b"data: ")
        and raw.find(b"\n") == len(raw) - 2
        and raw.endswith(b"\n")
        and b"\r" not in raw
    )


def _event_end_lf(buf: bytes, start: int) -> int:
    if buf[start : start + 1] == b"\n":  # a blank line with no event before it
        return start + 1
    i = buf.find(b"\n\n", start)
    return -1 if i < 0 else i + 2


def _event_end_cr(buf: bytes, start: int) -> int:
    """Where the event starting at ``start`` ends (after its blank line), or -1 if not yet."""
    line_start = pos = start
    size = len(buf)
    while True:
        lf = buf.find(b"\n", pos)
        cr = buf.find(b"\r", pos, lf if lf >= 0 else size)
        i = cr if cr >= 0 else lf
        if i < 0:
            return -1
        if buf[i] == 13:  # "\r": a "\n" may follow in the next read
            if i + 1 == size:
                return -1
            after = i + 2 if buf[i + 1] == 10 else i + 1
        else:
            after = i + 1
        if i == line_start:  # an empty line ends the event
            return after
        line_start = pos = after


def encode_event(data: bytes, fields: Iterable[bytes] = (), newline: bytes = b"\n") -> bytes:
    """One event: the given non-data lines, then ``data`` (split on newlines), then a blank line."""
    lines = [*fields]
    lines.extend(b"data: " + part for part in data.split(b"\n"))
    return newline.join(lines) + newline + newline
