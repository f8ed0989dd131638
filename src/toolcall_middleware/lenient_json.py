"""JSON as clients read it: orjson first, the standard library for what orjson refuses.

The OpenAI SDK decodes every event with Python's ``json.loads``, which accepts text orjson
refuses: lone surrogate escapes (``"\\ud83d"``, half an emoji cut by a gateway that splits
strings in UTF-16 units) and ``NaN``/``Infinity``/``-Infinity`` (what Python's ``json.dumps``
writes by default). An upstream event with one of them must still be read and rewritten, or its
markup leaks and its calls are lost. orjson takes nearly every event, fast; the standard library
takes the rare one it refuses, and writes back what orjson cannot write (a string holding a lone
surrogate, an integer past 64 bits).

orjson writes ``NaN`` and the infinities as ``null``; the standard library, used only for a value
orjson cannot write at all, writes them as it reads them.

``loads_well_formed`` reads the same text for a consumer that writes a new document for clients
whose parsers refuse lone surrogates (the API fronts): each becomes U+FFFD, as JavaScript's
``String.prototype.toWellFormed`` does (docs/clients.md, "Text no encoder writes").

``loads_keeping_bytes`` reads bytes that are not all UTF-8 for a consumer that must send the
same bytes on (the chat path): ``dumps_keeping_bytes`` writes each back as it came.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any

import orjson

__all__ = [
    "dumps",
    "dumps_keeping_bytes",
    "loads",
    "loads_keeping_bytes",
    "loads_undecoded",
    "loads_well_formed",
]

#: In JSON text: an escaped backslash or a pair of surrogate escapes (kept), a lone surrogate
#: escape or (in a ``str``) a raw surrogate (group 1 or 2: replaced by the escape of U+FFFD).
#: Outside strings a valid document has neither backslash nor surrogate.
_LONE_SURROGATE = re.compile(
    r"\\(?:\\|u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|(u[dD][89a-fA-F][0-9a-fA-F]{2}))|([\ud800-\udfff])"
)


def loads(data: bytes | str) -> Any:
    """Decode ``data`` as ``json.loads`` would, with orjson whenever orjson can.

    Raises ``ValueError`` (a ``json.JSONDecodeError``, or ``UnicodeDecodeError`` for bytes that
    are not UTF-8) when it is not JSON a client would accept, including JSON nested deeper than
    the interpreter's recursion limit.
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    return _loads_standard(data)


def loads_well_formed(data: bytes | str, *, nan: bool = True) -> Any:
    """``loads``, with every lone surrogate in the value's strings (keys too) read as U+FFFD:
    strings orjson writes and any JSON parser reads back. A valid pair of escapes is one
    character, as every decoder reads it. Only a value orjson refused to read can hold a lone
    surrogate, so the usual value costs what ``orjson.loads`` does. ``nan=False``: ``NaN`` and
    the infinities are refused, as JSON's grammar refuses them."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return _loads_standard(_LONE_SURROGATE.sub(_replacement, text), nan)


def loads_undecoded(data: bytes) -> Any:
    """``loads_well_formed`` for bytes that are not all UTF-8 (a server that writes Latin-1,
    or cuts a character between two events): each byte that is not part of a UTF-8 character
    becomes a lone surrogate U+DC80..U+DCFF in the value's strings (Python's
    ``surrogateescape``), for the caller to decode or replace. Lone surrogate escapes still
    become U+FFFD, so the surrogates left stand for such bytes only. Raises ``ValueError``
    when it is not JSON."""
    text = data.decode("utf-8", "surrogateescape")
    return _loads_standard(_LONE_SURROGATE.sub(_escape_replacement, text))


def loads_keeping_bytes(data: bytes) -> Any:
    """``loads`` for bytes that are not all UTF-8, losing none of them: each byte that is not
    part of a UTF-8 character is read as a lone surrogate U+DC80..U+DCFF (Python's
    ``surrogateescape``), which ``dumps_keeping_bytes`` writes back as that byte. Raises
    ``ValueError`` when it is not JSON, or when it also holds the escape of such a surrogate
    (``"\\udce9"``), which would read the same as a byte."""
    text = data.decode("utf-8", "surrogateescape")
    for match in _LONE_SURROGATE.finditer(text):
        escape = match[1]
        if escape is not None and 0xDC80 <= int(escape[1:], 16) <= 0xDCFF:
            raise ValueError("a lone surrogate escape beside bytes that are not UTF-8")
    return _loads_standard(text)


def dumps_keeping_bytes(value: Any) -> bytes:
    """``dumps``, with each U+DC80..U+DCFF written as the byte ``loads_keeping_bytes`` read it
    from (any other lone surrogate as its escape, as ``dumps`` writes it)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        return text.encode("utf-8", _KEEP_BYTES)


def _bytes_back(error: UnicodeError) -> tuple[bytes, int]:
    """The encoding error handler of ``dumps_keeping_bytes``."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    out = bytearray()
    for char in error.object[error.start : error.end]:
        code = ord(char)
        out += bytes((code - 0xDC00,)) if 0xDC80 <= code <= 0xDCFF else b"\\u%04x" % code
    return bytes(out), error.end


_KEEP_BYTES = "toolcall_middleware.keep_bytes"
codecs.register_error(_KEEP_BYTES, _bytes_back)


def _escape_replacement(match: re.Match[str]) -> str:
    return "\\ufffd" if match.lastindex == 1 else match[0]


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _replacement(match: re.Match[str]) -> str:
    return "\\ufffd" if match.lastindex else match[0]


def _loads_standard(data: bytes | str, nan: bool = True) -> Any:
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    try:
        return json.loads(text) if nan else json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ValueError("JSON nested too deeply to decode") from None


def dumps(value: Any) -> bytes:
    """Encode ``value`` as orjson does (compact UTF-8); what orjson cannot write goes through
    the standard library, a lone surrogate as its ``\\uXXXX`` escape."""
    try:
        return orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError: a lone surrogate, an integer past 64 bits
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        # Surrogates are the only code points UTF-8 cannot encode, and they occur only in
        # strings, where the escape Python writes for them is JSON's own.
        return text.encode("utf-8", "backslashreplace")
