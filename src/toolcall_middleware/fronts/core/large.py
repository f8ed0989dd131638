"""Documents that hold a large string (a whole answer's text), written with little memory.

orjson reserves several times a string's length to escape it (about 10x, measured with
tracemalloc on orjson 3.13: 63 MiB for 7 MiB of text), and the standard library's
``ensure_ascii`` output is six bytes per character of Latin text. So each string of
``LARGE_STRING`` characters or more is escaped once by the standard library, without
``ensure_ascii`` (about one and a half times the text, transient), and written by orjson as an
``orjson.Fragment``: copied, never escaped again. Events that carry the same text (the Responses
API repeats an item's whole text in four events) share that one escape (``Escapes``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

#: A string this long is "large" (see the module).
LARGE_STRING = 64 * 1024

_Fragment = orjson.Fragment


class Escapes:
    """Large strings escaped once for the documents written together (keyed by the string's
    identity: every one stays alive while they are written). ``line_breaks`` rewrites each
    escape (Gemini escapes U+2028, U+2029 and U+0085)."""

    __slots__ = ("_done", "_line_breaks")

    def __init__(self, line_breaks: Callable[[bytes], bytes] | None = None) -> None:
        self._done: dict[int, orjson.Fragment] = {}
        self._line_breaks = line_breaks

    def fragment(self, text: str) -> orjson.Fragment:
        found = self._done.get(id(text))
        if found is None:
            data = json.dumps(text, ensure_ascii=False).encode()
            if self._line_breaks is not None:
                data = self._line_breaks(data)
            found = self._done[id(text)] = _Fragment(data)
        return found

    def apply(self, value: Any) -> Any:
        """``value`` with each large string in it a fragment of its JSON: containers that hold
        one are copied, the rest are shared."""
        kind = type(value)
        if kind is str:
            return self.fragment(value) if len(value) >= LARGE_STRING else value
        if kind is dict:
            return {key: self.apply(item) for key, item in value.items()}
        if kind is list or kind is tuple:
            return [self.apply(item) for item in value]
        return value


def dumps_large(doc: Any, escapes: Escapes | None = None) -> bytes:
    """``doc`` as compact JSON (non-ASCII characters as they are), each large string escaped
    once (``escapes``: shared with the documents written with it)."""
    escapes = escapes or Escapes()
    try:
        return orjson.dumps(escapes.apply(doc))
    except (orjson.JSONEncodeError, RecursionError):  # nested past orjson's 255 levels
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()
