"""Upstream text that is not UTF-8, decoded so that nothing is lost and nothing is made up.

A server may cut a character between two events (llama.cpp has) or write text in another
encoding (Latin-1). Such an event is read with each byte that is not part of a UTF-8 character
kept as a lone surrogate, U+DC80..U+DCFF (``lenient_json.loads_undecoded``). Its text and call
arguments go through ``HeldBytes``: a character cut at the end of a channel's piece is held and
joined with that channel's next piece, and each byte that is truly not UTF-8 becomes U+FFFD,
counted. Every other string of the chunk (an id, a name, a message) gets U+FFFD for such bytes
at once (``undecoded_chunk``); so does a whole JSON body (``cleaned``), which has no next piece.

One channel holds bytes at a time: the reasoning, the content, the refusal, or one call slot's
arguments. Whatever comes next that is not more of that channel (other text, another call, the
finish) ends it first, its held bytes becoming U+FFFD, so text and calls keep their order.
"""

from __future__ import annotations

import codecs
import logging
import re
from collections.abc import Hashable
from typing import Any

import orjson

from ...lenient_json import loads_undecoded, loads_well_formed
from ...metrics import Metrics

logger = logging.getLogger("toolcall_middleware.fronts")

#: The delta fields a reader takes text from, in the order it reads them.
TEXT_FIELDS = ("reasoning_content", "reasoning", "content", "refusal")
#: A byte that was not UTF-8, as ``surrogateescape`` keeps it.
_BYTE = re.compile("[\udc80-\udcff]")
_REPLACEMENT = "\ufffd"
_FIRST = (0, None)
_loads, _JSONDecodeError = orjson.loads, orjson.JSONDecodeError


def decode_chunk(data: bytes) -> Any:
    """One upstream event's JSON, read as the chat path reads it, or ``None`` when it is not
    JSON a client would read (logged and skipped).

    Every front decodes upstream chunks through here. What orjson refuses (a lone surrogate
    escape, ``NaN``) is read by ``lenient_json.loads_well_formed``: each lone surrogate becomes
    U+FFFD, so whatever a front writes from it is JSON every client parses (docs/clients.md,
    "Text no encoder writes"). An event that is not all UTF-8 is read with its text left for
    the reader to decode (this module): nothing of it is dropped."""
    try:
        return _loads(data)
    except _JSONDecodeError:
        pass
    try:
        return loads_well_formed(data)
    except UnicodeDecodeError:
        chunk = undecoded_chunk(data)
    except ValueError:
        chunk = None
    if chunk is None:
        logger.warning("skipping a non-JSON upstream event: %r", data[:200])
    return chunk


def decode_body(data: bytes) -> tuple[Any, int]:
    """A whole upstream JSON body, as ``decode_chunk`` reads an event, and how many of its
    bytes were not UTF-8 (each read as U+FFFD: a whole body has no next piece to join)."""
    try:
        return _loads(data), 0
    except _JSONDecodeError:
        pass
    try:
        return loads_well_formed(data), 0
    except UnicodeDecodeError:
        try:
            return cleaned(loads_undecoded(data))
        except ValueError:
            return None, 0
    except ValueError:
        return None, 0


class UndecodedChoices(list[Any]):
    """The choices of a chunk whose text may hold bytes that are not UTF-8: a reader decodes
    them (``decoded_chunks``) before it reads the chunk. ``replaced``: bytes already replaced
    in the chunk's other strings."""

    replaced = 0


def undecoded_chunk(data: bytes) -> dict[str, Any] | None:
    """The chunk of an event that is not all UTF-8, its text and arguments left for a reader
    to decode; ``None`` when it is not a JSON object."""
    try:
        doc = loads_undecoded(data)
    except ValueError:
        return None
    if type(doc) is not dict:
        return None
    raw: list[tuple[dict[str, Any], str, str]] = []  # (holder, key, text with bytes)
    choices = doc.get("choices")
    for choice in choices if type(choices) is list else ():
        delta = choice.get("delta") if type(choice) is dict else None
        if type(delta) is not dict or choice.get("index") not in _FIRST:
            continue
        for name in TEXT_FIELDS:
            if type(delta.get(name)) is str:
                raw.append((delta, name, delta.pop(name)))
        entries = delta.get("tool_calls")
        for entry in entries if type(entries) is list else ():
            function = entry.get("function") if type(entry) is dict else None
            holder = function if type(function) is dict else entry  # (Kilo: on the entry)
            if type(holder) is dict and type(holder.get("arguments")) is str:
                raw.append((holder, "arguments", holder.pop("arguments")))
    _, replaced = cleaned(doc)
    for holder, key, text in raw:
        holder[key] = text
    marked = UndecodedChoices(choices if type(choices) is list else ())
    marked.replaced = replaced
    chunk: dict[str, Any] = doc
    chunk["choices"] = marked
    return chunk


def cleaned(doc: Any) -> tuple[Any, int]:
    """``doc`` with each byte that was not UTF-8, in every string and key, as U+FFFD; and how
    many there were. Walked without recursion (a body may nest as deep as JSON decoders go)."""
    count = 0

    def clean(text: str) -> str:
        nonlocal count
        text, found = _BYTE.subn(_REPLACEMENT, text)
        count += found
        return text

    if type(doc) is str:
        return clean(doc), count
    stack = [doc]
    while stack:
        value = stack.pop()
        if type(value) is dict:
            items = [(clean(k) if type(k) is str else k, v) for k, v in value.items()]
            value.clear()
            for key, item in items:
                value[key] = clean(item) if type(item) is str else item
                if type(item) in (dict, list):
                    stack.append(item)
        elif type(value) is list:
            for i, item in enumerate(value):
                if type(item) is str:
                    value[i] = clean(item)
                elif type(item) in (dict, list):
                    stack.append(item)
    return doc, count


class HeldBytes:
    """The bytes a channel's last piece ended with, a character cut short (see the module)."""

    __slots__ = ("_decoder", "channel", "replaced")

    def __init__(self) -> None:
        #: The channel that holds bytes (``None``: none does).
        self.channel: Hashable | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        #: Bytes that were not UTF-8, each sent on as U+FFFD.
        self.replaced = 0

    def decode(self, channel: Hashable, text: str) -> str:
        """``channel``'s next piece: with the bytes it held before it, and without a character
        cut at its end (held now). Call ``end`` first when another channel holds bytes."""
        if self.channel is None and _BYTE.search(text) is None:
            return text
        out = self._decoder.decode(text.encode("utf-8", "surrogateescape"))
        self.channel = channel if self._decoder.getstate()[0] else None
        return self._replaced(out)

    def end(self) -> tuple[Hashable, str] | None:
        """The held channel ends: its channel and what its bytes became (U+FFFD each)."""
        channel = self.channel
        if channel is None:
            return None
        self.channel = None
        return channel, self._replaced(self._decoder.decode(b"", final=True))

    def _replaced(self, text: str) -> str:
        text, count = _BYTE.subn(_REPLACEMENT, text)
        self.replaced += count
        return text


def decoded_chunks(held: HeldBytes, chunk: dict[str, Any]) -> list[dict[str, Any]]:
    """``chunk`` (its choices ``UndecodedChoices``, or any chunk while ``held`` holds bytes) as
    the plain chunks a reader reads in its place: choice 0's text and arguments decoded, in
    deltas cut where a held channel ends (a delta of its U+FFFD between them). The last chunk
    carries the finish, the usage and every other member."""
    choices = chunk.get("choices")
    held.replaced += getattr(choices, "replaced", 0)
    rest = {k: v for k, v in chunk.items() if k != "choices"}
    if type(choices) is not list and type(choices) is not UndecodedChoices:
        return [chunk]
    deltas: list[dict[str, Any]] = []
    others: list[Any] = []
    last: dict[str, Any] = {}
    for choice in choices:
        delta = choice.get("delta") if type(choice) is dict else None
        if type(delta) is not dict or choice.get("index") not in _FIRST or last:
            others.append(choice)
            continue
        last = {k: v for k, v in choice.items() if k != "delta"}
        deltas = _decoded_deltas(held, delta, choice.get("finish_reason") is not None)
    if not last:
        return [{**rest, "choices": list(choices)}]
    head = {k: v for k, v in rest.items() if k not in ("usage", "error")}
    plain = {k: v for k, v in last.items() if k not in ("finish_reason", "stop_reason")}
    out = [{**head, "choices": [{**plain, "delta": delta}]} for delta in deltas[:-1]]
    out.append({**rest, "choices": [{**last, "delta": deltas[-1]}, *others]})
    return out


def _decoded_deltas(held: HeldBytes, delta: dict[str, Any], finish: bool) -> list[dict[str, Any]]:
    """One delta's text and arguments decoded, as the deltas a reader reads in its place."""
    out: list[dict[str, Any]] = []
    current: dict[str, Any] = {k: v for k, v in delta.items() if k not in TEXT_FIELDS}
    entries = current.pop("tool_calls", None)

    def end_other(channel: Hashable) -> None:
        nonlocal current
        if held.channel is None or held.channel == channel:
            return
        ended = held.end()
        assert ended is not None
        if current:
            out.append(current)
        out.append(_piece(*ended))
        current = {}

    reasoning = delta.get("reasoning_content") or delta.get("reasoning")
    for name, text in (
        ("reasoning_content", reasoning),
        ("content", delta.get("content")),
        ("refusal", delta.get("refusal")),
    ):
        if text and type(text) is str:
            end_other(name)
            current[name] = held.decode(name, text)
    if type(entries) is list:
        decoded: list[Any] = []
        for entry in entries:
            function = entry.get("function") if type(entry) is dict else None
            holder = function if type(function) is dict else entry
            arguments = holder.get("arguments") if type(holder) is dict else None
            if type(arguments) is not str:
                decoded.append(entry)
                continue
            channel = ("arguments", entry.get("index"))
            if held.channel != channel and held.channel is not None:
                if decoded:
                    current["tool_calls"] = decoded
                    decoded = []
                end_other(channel)
            text = held.decode(channel, arguments)
            if holder is entry:  # (Kilo's shorthand: the arguments on the entry)
                decoded.append({**entry, "arguments": text})
            else:
                decoded.append({**entry, "function": {**holder, "arguments": text}})
        if decoded:
            current["tool_calls"] = decoded
    if finish:
        end_other(object())  # (no channel goes on past the finish)
    out.append(current)
    return out


def _piece(channel: Hashable, text: str) -> dict[str, Any]:
    """The delta of a held channel's end."""
    if type(channel) is tuple:
        return {"tool_calls": [{"index": channel[1], "function": {"arguments": text}}]}
    return {str(channel): text}


def report_replaced(count: int, metrics: Metrics | None, api: str) -> None:
    """Text that was not UTF-8 is never replaced silently: logged and counted (``api``: the
    front's name), once per response."""
    logger.warning(
        "the upstream's answer held %d bytes that are not UTF-8: each was sent as U+FFFD", count
    )
    if metrics is not None:
        metrics.invalid_utf8_bytes(api, count)
