"""Gemini's wire: JSON on one line, and the framing of a streamed response (``Chunks``).

Every streamed chunk is one whole ``GenerateContentResponse`` holding one part. Framing
(``Framing``):

- ``sse`` (``alt=sse``, what both SDKs ask for): exactly ``data: <one line of JSON>`` and a blank
  line per chunk; no ``event:``, ``id:``, comments, keep-alives or ``[DONE]``, and U+2028,
  U+2029 and U+0085 escaped (the JS SDK's line match stops at them, Python's splitlines too);
- ``array`` (REST's default): one JSON array, ``[{...}\\n,{...}\\n]``.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import orjson

from ..core.large import Escapes, dumps_large

Framing = Literal["sse", "array"]
#: Strings of this many characters or more are escaped once, apart (``dump``, ``core.large``).
LARGE = 64 * 1024

_LINE_BREAKS = (
    (b"\xe2\x80\xa8", b"\\u2028"),
    (b"\xe2\x80\xa9", b"\\u2029"),
    (b"\xc2\x85", b"\\u0085"),
)


def one_line(data: bytes) -> bytes:
    """JSON text with the characters JavaScript or Python take for line ends escaped (orjson
    writes them raw; they can only stand inside strings, where the escape means the same)."""
    for raw, escaped in _LINE_BREAKS:
        if raw in data:
            data = data.replace(raw, escaped)
    return data


def dump_text(text: str) -> bytes:
    """A string as JSON on one line."""
    data = orjson.dumps(text)
    return data if text.isascii() else one_line(data)


def dump(doc: Any, size: int) -> bytes:
    """``doc`` as JSON on one line. Past ``LARGE`` characters of strings in it (``size``), each
    large string escaped once (``core.large``): orjson reserves several times the length of a
    string it escapes, so one large call or answer would cost far more memory than it holds.
    The standard library writes what orjson refuses to (call arguments nested past its 255
    levels)."""
    if size < LARGE:
        try:
            return one_line(orjson.dumps(doc))
        except orjson.JSONEncodeError:
            return one_line(json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode())
    return one_line(dumps_large(doc, Escapes(one_line)))


class Chunks:
    """The bytes of one streamed response in its framing. Each chunk but the last is a fixed
    head, its one part and a fixed tail (framing included): a text part is bytes around the
    escaped text, with no template to prove. The last chunk (``last``) or the error
    (``error``) ends the response (and the array)."""

    __slots__ = ("_first", "_head", "_sse", "_tail")

    def __init__(self, framing: Framing, model: str, response_id: str) -> None:
        self._sse = framing == "sse"
        self._first = True  # array framing: no separator before the first element
        head = b'{"candidates":[{"content":{"role":"model","parts":['
        tail = (
            b']},"index":0}],"modelVersion":'
            + one_line(orjson.dumps(model))
            + b',"responseId":"'
            + response_id.encode()
            + b'"}'
        )
        self._head = b"data: " + head if self._sse else head
        self._tail = tail + b"\n\n" if self._sse else tail

    def start(self) -> bytes:
        """The response's first bytes, before any chunk."""
        return b"" if self._sse else b"["

    def part(self, part: bytes) -> bytes:
        """The chunk holding ``part`` (its JSON on one line)."""
        if self._sse:
            return self._head + part + self._tail
        if self._first:
            self._first = False
            return self._head + part + self._tail
        return b"\n," + self._head + part + self._tail

    def text(self, text: str) -> bytes:
        """The chunk of a ``{"text"}`` part."""
        return self.part(b'{"text":' + dump_text(text) + b"}")

    def thought(self, text: str) -> bytes:
        """The chunk of a ``{"text", "thought": true}`` part."""
        return self.part(b'{"text":' + dump_text(text) + b',"thought":true}')

    def last(self, doc: dict[str, Any]) -> bytes:
        """The last chunk, ``doc`` (the one with ``finishReason`` and ``usageMetadata``)."""
        data = one_line(orjson.dumps(doc))
        if self._sse:
            return b"data: " + data + b"\n\n"
        return (data if self._first else b"\n," + data) + b"\n]"

    def error(self, error: bytes) -> bytes:
        """The error object that ends the response: bare in SSE (the middleware sends it in a
        write of its own), the array's last element otherwise."""
        if self._sse:
            return error
        return (b"" if self._first else b"\n,") + error + b"\n]"


__all__ = ["LARGE", "Chunks", "Framing", "dump", "dump_text", "one_line"]
