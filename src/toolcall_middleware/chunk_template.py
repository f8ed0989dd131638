"""Chunk templates: reading and rewriting the usual streamed event without decoding it.

A server streams a response as chunks that differ only in their delta's text: the same id,
created, model and choice index, and a null ``finish_reason``. Once such a chunk was decoded and
found to be exactly in orjson's compact form, its bytes before the delta's members (the head,
through ``"delta":{``) and after them (the tail) make a template. A later event that is the
head, one text member list and the tail is that same chunk with another text: JSON members can
be swapped for other complete members without changing how the rest parses. So it can be read
by slicing, and rewritten as head + new members + tail, which is byte-for-byte what decoding,
rewriting and re-encoding it with orjson would give.
"""

from __future__ import annotations

from typing import Any

import orjson

from .text_fields import (
    CONTENT,
    REASONING,
    REASONING_CONTENT,
    REASONING_CONTENT_FIRST,
    REASONING_FIRST,
)

_DELTA = b'"delta":'
_loads = orjson.loads


class ChunkTemplate:
    """The bytes around the delta members of one stream's text chunks (SSE framing included)."""

    __slots__ = (
        "_head_size",
        "_string_tail",
        "_tail_size",
        "choice",
        "delta_head",
        "delta_tail",
        "head",
        "index",
        "meta",
        "prefix",
        "tail",
    )

    def __init__(
        self,
        head: bytes,
        tail: bytes,
        index: int,
        meta: dict[str, Any],
        choice: dict[str, Any] | None = None,
    ) -> None:
        self.head = head
        self.tail = tail
        self.index = index
        #: The chunk's keys other than ``choices``: the metadata chunks made for it carry.
        self.meta = meta
        #: The choice's keys other than ``delta`` (``index``, ``logprobs``, the null finish).
        self.choice = {"index": index} if choice is None else choice
        #: Around a whole new delta object: ``delta_head + orjson.dumps(delta) + delta_tail``.
        self.delta_head = head[:-1]
        self.delta_tail = tail[1:]
        #: The head without its SSE framing: how the chunk's data begins.
        self.prefix = head[len(b"data: ") :]
        self._head_size = len(head)
        self._tail_size = len(tail)
        self._string_tail = b'"' + tail  # how an event ends whose members end in a string

    @classmethod
    def learn(
        cls, data: bytes, chunk: dict[str, Any], index: int, delta: dict[str, Any]
    ) -> ChunkTemplate | None:
        """The template of ``data``, decoded as ``chunk`` (not yet rewritten) whose one choice
        has this ``index`` and text ``delta`` (see ``one_text_choice``), when ``data`` is in
        orjson's compact form."""
        if orjson.dumps(chunk) != data:
            return None
        members = _DELTA + orjson.dumps(delta)
        at = data.find(members)
        # Found once in a canonical document: it is the choice's delta, not a lookalike.
        if at < 0 or data.find(members, at + 1) >= 0:
            return None
        head = b"data: " + data[: at + len(_DELTA) + 1]
        tail = data[at + len(members) - 1 :] + b"\n\n"
        meta = {k: v for k, v in chunk.items() if k != "choices"}
        choice = {k: v for k, v in chunk["choices"][0].items() if k != "delta"}
        return cls(head, tail, index, meta, choice)

    def read(self, body: bytes) -> tuple[tuple[str, ...], str] | None:
        """The usual event, read by slicing: for a body that is this template's head, the
        members of one text and its tail, the text fields (as ``text_fields.only_text`` names
        them) and the text; else ``None``. The text is one JSON string with nothing around it:
        JSON whitespace there could hold a line break, and the body would not be one event."""
        # (The opening quote is read with the member's name and the closing one with the tail.)
        if not body.endswith(self._string_tail) or not body.startswith(self.head):
            return None
        start, end = self._head_size, len(body) - self._tail_size
        if body.startswith(b'"reasoning":"', start):
            value, both, second = body[start + 12 : end].partition(b',"reasoning_content":')
            fields = REASONING_FIRST if both else REASONING
        elif body.startswith(b'"content":"', start):
            value, both, second = body[start + 10 : end], b"", b""
            fields = CONTENT
        elif body.startswith(b'"reasoning_content":"', start):
            value, both, second = body[start + 20 : end].partition(b',"reasoning":')
            fields = REASONING_CONTENT_FIRST if both else REASONING_CONTENT
        else:
            return None
        # Both reasoning fields: one text only when both carry the same bytes. (The separator
        # cannot occur inside a JSON string, where every quote is escaped.)
        if both and value != second:
            return None
        try:
            text = _loads(value)
        except orjson.JSONDecodeError:  # (a lone quote, both ends of the members at once)
            return None
        return fields, text


def one_text_choice(chunk: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    """``(index, delta)`` of a chunk with one choice, no finish and no usage, whose delta is
    some text (which text shapes a template reads is ``ChunkTemplate.read``'s business)."""
    choices = chunk.get("choices")
    if type(choices) is not list or len(choices) != 1 or "usage" in chunk:
        return None
    choice = choices[0]
    if type(choice) is not dict or choice.get("finish_reason") is not None:
        return None
    index, delta = choice.get("index", 0), choice.get("delta")
    if type(index) is not int or type(delta) is not dict or not 0 < len(delta) <= 2:
        return None
    for value in delta.values():
        if type(value) is not str:
            return None
    return index, delta
