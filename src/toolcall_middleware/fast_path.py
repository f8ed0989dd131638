"""The SSE fast path: events rewritten without decoding them.

The rule: for a body of events, ``FastPath.rewrite`` gives exactly the bytes the general path
(decode the chunks, ``ChunkRewriter.chunk``, encode) would give for it, leaving the stream
(``ChunkRewriter.state`` included) as the general path would; or it declines (``None``) having
changed nothing (``unchanging`` is the first shortcut alone, for events the decoder split).
``tests/test_fast_path.py`` checks exactly that, on streams cut anywhere.

Two shortcuts, each resting on one invariant:

- **Unchanging events.** While the stream is idle (``StreamState.idle``: every parser in plain text,
  nothing held or pending), an event with no trigger character of the parser (raw or escaped),
  no ``"tool_calls"``, no finish and no ``[DONE]`` comes out unchanged and changes nothing.
  Invariant: a parser gives back text without its triggers as it came
  (``ToolCallParser.TRIGGERS``).
- **Chunk templates** (``chunk_template.py``). An event that is the stream's template around one
  text is the template's chunk with that text: the text is read by slicing
  (``ChunkTemplate.read``) and goes to ``ChunkRewriter.text``; a one-delta output is written
  into the template.
  Invariant: an event that is the template's head, one member list and its tail decodes to the
  template's chunk with those members, and orjson writes that chunk with other members as
  head + members + tail.
"""

from __future__ import annotations

from typing import cast

import orjson

from . import lenient_json
from .chunk_rewriter import ChunkRewriter
from .chunk_template import ChunkTemplate, one_text_choice
from .deltas import PIECE_HEAD, PIECE_MIDDLE, PIECE_TAIL, Chunk, piece_delta
from .handoff import ArgsPiece, DeltaPiece, Reading, TextPiece
from .sse import DONE, encode_chunks

#: Chunks a stream may try to learn a template from (each try re-encodes one chunk).
TEMPLATE_TRIES = 16

# Module names for the calls on the per-event path: a global is cheaper than a module's attribute.
_dumps, _join = orjson.dumps, b"".join


def trigger_patterns(triggers: str) -> tuple[bytes, ...]:
    """Byte strings whose absence from an event proves it has no native ``tool_calls`` and no
    trigger character, raw or escaped as ``\\uXXXX`` (matched on the first three hex digits,
    so a few other escapes also count as triggers: a slower path, never a wrong one)."""
    patterns: list[bytes] = [b'"tool_calls"']
    for char in triggers:
        code = f"{ord(char):04x}"[:3]
        patterns += [char.encode(), f"\\u{code}".encode(), f"\\u{code.upper()}".encode()]
    return tuple(dict.fromkeys(patterns))


class FastPath(Reading):
    """One stream's undecoded events: its template, learned from chunks the general path
    decoded, and the parser's ``triggers`` (``None``: unknown, so nothing passes unread).
    ``templates=False``: no template is learned (debug capture wants every decoded chunk)."""

    __slots__ = (
        "_index",
        "_index_keys",
        "_patterns",
        "_piece_call",
        "_piece_head",
        "_piece_tail",
        "_rewriter",
        "_tries",
        "_trigger",
        "_triggers",
        "hand",
        "template",
    )

    def __init__(
        self,
        rewriter: ChunkRewriter,
        triggers: str | None,
        *,
        templates: bool = True,
        hand: bool = False,
    ) -> None:
        self._rewriter = rewriter
        self._triggers = triggers
        # The one trigger character, when there is one (most formats): one ``in`` test.
        self._trigger = triggers if triggers is not None and len(triggers) == 1 else None
        self._patterns = None if triggers is None else trigger_patterns(triggers)
        self._tries = TEMPLATE_TRIES if templates else 0
        # The byte forms of the stream's one choice's index (``unchanging``), for ``_index``.
        self._index = -1
        self._index_keys: tuple[bytes, ...] = ()
        self.template: ChunkTemplate | None = None
        # The template's bytes around a piece of arguments of the output call ``_piece_call``.
        self._piece_call = -1
        self._piece_head = self._piece_tail = b""
        #: Keep what the template read (``handoff.py``) in ``handed``: every ``rewrite``
        #: that does not decline sets it, to the reading of the one event it gives back, or to
        #: ``None``: not read through the template, or not one event. Without ``hand`` it stays
        #: ``None``.
        self.hand = hand
        self.handed = None

    def learn(self, data: bytes, chunk: Chunk) -> None:
        """``chunk``, just decoded from ``data`` in a stream of ``\\n`` line endings and not yet
        rewritten: its template, if it is a one-text chunk the current template does not read."""
        if not self._tries:
            return
        template = self.template
        if template is not None and data.startswith(template.prefix):
            return  # it holds: this chunk was cut across reads, or is not one text
        text_choice = one_text_choice(chunk)
        if text_choice is not None:
            self._tries -= 1
            learnt = ChunkTemplate.learn(data, chunk, *text_choice)
            if learnt is not None:  # its bytes around a piece of a call's arguments
                self.template = learnt
                self._piece_call, self._piece_tail = -1, PIECE_TAIL + learnt.delta_tail
                self._rewriter.text_chunks(learnt.meta, learnt.choice)

    def rewrite(self, raw: bytes, idle: bool) -> bytes | None:
        """What the general path would send for the body ``raw``, which starts an event in a
        stream of ``\\n`` line endings (``raw`` itself: it goes as it came); ``None``: declined,
        nothing done. ``idle``: the stream is idle and holds no event back."""
        template = self.template
        if template is not None and (read := template.read(raw)) is not None:
            fields, text = read
            if idle:  # without a trigger the parsers give it back as it came
                trigger = self._trigger
                if (
                    trigger not in text
                    if trigger is not None
                    else self._triggers is not None
                    and not any(char in text for char in self._triggers)
                ):
                    if self.hand:  # see handoff
                        self.handed = TextPiece(template.index, fields, text)
                    return raw
            rewriter = self._rewriter
            if rewriter.one_index == template.index:  # (else: decoded, as the general path)
                out = rewriter.text(template.index, fields, text)
                if type(out) is tuple:  # a piece of arguments, written unbuilt
                    call, fragment = out
                    try:
                        written = _dumps(fragment)
                    except TypeError:  # what only the standard library writes
                        self.handed = None
                        members = lenient_json.dumps(piece_delta(out))
                        return template.delta_head + members + template.delta_tail
                    if self.hand:
                        self.handed = ArgsPiece(template.index, call, fragment)
                    if call != self._piece_call:  # kept for the call streaming now
                        self._piece_call = call
                        self._piece_head = _join(
                            (template.delta_head, PIECE_HEAD, b"%d" % call, PIECE_MIDDLE)
                        )
                    return self._piece_head + written + self._piece_tail
                if out is None:  # unchanged
                    if self.hand:
                        self.handed = TextPiece(template.index, fields, text)
                    return raw
                if type(out) is list:  # not one delta: the chunks, as the general path writes
                    self.handed = None
                    return encode_chunks(out) if out else b""
                # The template's chunk with this delta: head + members + tail.
                try:
                    members = _dumps(out)
                except TypeError:
                    self.handed = None
                    members = lenient_json.dumps(out)
                else:
                    if self.hand:
                        self.handed = DeltaPiece(template.index, cast(Chunk, out))
                return template.delta_head + members + template.delta_tail
        if idle and raw.endswith(b"\n\n") and self.unchanging(raw):  # whole events
            self.handed = None
            return raw
        return None

    def unchanging(self, raw: bytes) -> bool:
        """Whether whole events ``raw`` of an idle stream holding no event back certainly come
        out unchanged, changing nothing."""
        if self._patterns is None:
            return False  # the triggers are unknown
        if self.template is None and self._tries:
            return False  # decode it: it may give the template that is faster still
        # (``find``, not ``in``: see ``sse._is_one_data_line``.)
        if raw.find(DONE) >= 0:
            return False
        for pattern in self._patterns:
            if raw.find(pattern) >= 0:
                return False
        # A finish ends its choice (and may have to become "tool_calls"): all must be null.
        finishes = raw.count(b'"finish_reason"')
        if finishes and finishes != raw.count(b'"finish_reason":null') + raw.count(
            b'"finish_reason": null'
        ):
            return False
        # An event of a choice the stream has not seen makes that choice, whose reasoning split
        # reads its first text: only events that name the stream's one choice pass. (``"index":``
        # cannot occur inside a JSON string, whose quotes are escaped.)
        index = self._rewriter.one_index
        if index is None:
            return False
        if index != self._index:  # (``"index"`` before another member, as servers write it)
            self._index = index
            self._index_keys = (b'"index":%d,' % index, b'"index": %d,' % index)
        keys = raw.count(b'"index"')
        compact, spaced = self._index_keys
        named = raw.count(compact)
        if named != keys:
            named += raw.count(spaced)
        return keys > 0 and keys == named
