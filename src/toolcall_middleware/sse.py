"""Incremental Server-Sent Events decoding and encoding on bytes (WHATWG framing rules).

The decoder splits a byte stream, cut anywhere, into whole events and keeps each event's exact
bytes, so an event the rewrite leaves alone goes out byte-for-byte as it came. It accepts
``\\n``, ``\\r\\n`` and ``\\r`` line endings, multi-line ``data:``, comments, other fields and a
leading BOM. UTF-8 is never decoded here: a character split across reads is just bytes.
``encode_chunks`` writes the chunks the rewrite makes as events, in the stream's line ending.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import orjson

from . import lenient_json

BOM = b"\xef\xbb\xbf"
#: The data of an OpenAI stream's last event. Clients test ``data.startswith("[DONE]")``: bytes
#: after it (a trailing space) do not make it something else.
DONE = b"[DONE]"


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
    if one_data_line(raw):
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
    """Bytes in, whole events out. ``newline`` is the line ending the stream itself uses.

    Linear in the bytes received, however they are cut: an unfinished event is kept in one
    growing buffer, and the search for its end resumes where the last read left it, so an
    event that trickles in over many reads is not copied or scanned again with each one.
    """

    def __init__(self) -> None:
        self._buf = bytearray()  # the start of an event not complete yet
        #: Bytes held for the unfinished event.
        self.buffered = 0
        self.newline = b"\n"
        self._newline_known = False
        #: Nothing is buffered and the stream's line ending is known to be ``\\n``: a body
        #: ending in a blank line is whole events.
        self.at_boundary = False
        self._cr = False  # a "\r" was seen: lines may end in "\r", "\r\n" or "\n"
        # Where the search for the held event's end resumes, and where its last line starts.
        self._scan = 0
        self._line_start = 0

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        held = self._buf
        if not held and self._newline_known and one_data_line(chunk):
            return [SSEEvent(chunk, chunk[6:-2], ())]  # one event per read, as servers send
        if not chunk:
            return []
        if not held and not self._cr and chunk[-2:] == b"\n\n" and chunk.find(b"\r") < 0:
            whole = _data_lines(chunk)  # several events in one read, each one "data:" line
            if whole is not None:
                self._newline_known = self.at_boundary = True  # (the newline is "\n")
                return whole
        if not self._newline_known:
            self._learn_newline(chunk, held[-1:])
        if not self._cr and chunk.find(b"\r") >= 0:
            self._cr = True
            # From here lines are told apart one by one: find where the held one starts.
            self._line_start = held.rfind(b"\n") + 1
            self._scan = max(self._line_start, len(held) - 1)
        buf: bytes | bytearray
        if held:
            held += chunk
            buf = held
        else:
            buf = chunk
        events: list[SSEEvent] = []
        start = 0
        while True:
            end = self._event_end_cr(buf, start) if self._cr else self._event_end_lf(buf, start)
            if end < 0:
                break
            events.append(parse_event(bytes(buf[start:end])))
            start = self._scan = self._line_start = end
        if buf is held:
            if start:
                del held[:start]
        elif start < len(buf):
            held += memoryview(buf)[start:]
        if start:
            self._scan -= start
            self._line_start -= start
        self.buffered = len(held)
        self.at_boundary = not held and self._newline_known and self.newline == b"\n"
        return events

    def close(self) -> list[SSEEvent]:
        """End of stream: an unterminated last event is still delivered (nothing is lost)."""
        rest = bytes(self._buf)
        self._buf = bytearray()
        self.buffered = self._scan = self._line_start = 0
        self.at_boundary = self._newline_known and self.newline == b"\n"
        return [parse_event(rest)] if rest else []

    def _learn_newline(self, chunk: bytes, before: bytes | bytearray) -> None:
        """The first line ending: ``before`` is the held byte before ``chunk`` (a "\\r" that
        waited for the next byte to tell "\\r" from "\\r\\n")."""
        if before == b"\r":
            self.newline = b"\r\n" if chunk[:1] == b"\n" else b"\r"
            self._newline_known = True
            return
        lf, cr = chunk.find(b"\n"), chunk.find(b"\r")
        if cr >= 0 and (lf < 0 or cr < lf):
            if cr + 1 == len(chunk):
                return  # "\r" or "\r\n": the next byte decides
            self.newline = b"\r\n" if chunk[cr + 1 : cr + 2] == b"\n" else b"\r"
        elif lf < 0:
            return
        self._newline_known = True

    def _event_end_lf(self, buf: bytes | bytearray, start: int) -> int:
        """Where the event starting at ``start`` ends (after its blank line), or -1 if not yet;
        a stream whose lines all end in "\\n"."""
        if buf[start : start + 1] == b"\n":  # a blank line with no event before it
            return start + 1
        i = buf.find(b"\n\n", max(start, self._scan))
        if i < 0:
            self._scan = max(start, len(buf) - 1)  # a "\n" at the end may pair with the next
            return -1
        return i + 2

    def _event_end_cr(self, buf: bytes | bytearray, start: int) -> int:
        """As ``_event_end_lf``, for a stream with "\\r" in it: line by line."""
        pos = max(start, self._scan)
        line_start = max(start, self._line_start)
        size = len(buf)
        while True:
            match = _LINE_END.search(buf, pos)
            if match is None:
                self._scan, self._line_start = size, line_start
                return -1
            i = match.start()
            if buf[i] == 13:  # "\r": a "\n" may follow in the next read
                if i + 1 == size:
                    self._scan, self._line_start = i, line_start
                    return -1
                after = i + 2 if buf[i + 1] == 10 else i + 1
            else:
                after = i + 1
            if i == line_start:  # an empty line ends the event
                return after
            line_start = pos = after


_LINE_END = re.compile(rb"[\r\n]")


def _data_lines(chunk: bytes) -> list[SSEEvent] | None:
    """``chunk``, whole events with no "\\r" each of one ``data: `` line, as those events
    (what the decoder's loop makes of them, without its line-by-line search); else ``None``."""
    events = []
    for line in chunk[:-2].split(b"\n\n"):
        if line[:6] != b"data: " or line.find(b"\n") >= 0:
            return None
        events.append(SSEEvent(line + b"\n\n", line[6:], ()))
    return events


def one_data_line(raw: bytes) -> bool:
    """``raw`` is exactly ``data: ...\\n\\n``, one event of one data line: the shape of nearly
    every event, which the decoder makes ``SSEEvent(raw, raw[6:-2], ())``.

    (On the paths every event takes, a byte string is looked for with ``find``: ``in`` first
    tries the needle as an integer, which raises and clears a ``TypeError`` inside CPython,
    about twice the cost of the search itself.)"""
    return (
        raw.startswith(b"data: ")
        and raw.find(b"\n") == len(raw) - 2
        and raw.endswith(b"\n")
        and raw.find(b"\r") < 0
    )


def encode_event(data: bytes, fields: Iterable[bytes] = (), newline: bytes = b"\n") -> bytes:
    """One event: the given non-data lines, then ``data`` (split on newlines), then a blank line."""
    lines = [*fields]
    lines.extend(b"data: " + part for part in data.split(b"\n"))
    return newline.join(lines) + newline + newline


def encode_chunks(
    chunks: list[dict[str, Any]],
    fields: tuple[bytes, ...] = (),
    newline: bytes = b"\n",
    dumps: Callable[[Any], bytes] = lenient_json.dumps,
) -> bytes:
    """Chunks as events in the stream's line ending: the event's other lines (``fields``) go on
    each, its comments on the first only. JSON by orjson, which writes an unchanged chunk as
    compactly as it came; ``dumps`` for what only the standard library writes (see
    lenient_json)."""
    if fields:
        rest = tuple(f for f in fields if not f.startswith(b":"))
        return b"".join(
            [
                encode_event(dumps(chunk), fields if i == 0 else rest, newline)
                for i, chunk in enumerate(chunks)
            ]
        )
    events = []
    for chunk in chunks:
        try:
            data = orjson.dumps(chunk)
        except TypeError:  # (``dumps`` tries orjson first: inline on the path every rewrite takes)
            data = dumps(chunk)
        events.append(b"data: " + data + newline + newline)  # JSON has no line breaks
    return events[0] if len(events) == 1 else b"".join(events)
